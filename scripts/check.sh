#!/bin/sh
# Installs what is missing, builds ttv out of the source tree (build/,
# build-asan/ and build-tsan/ for the sanitizers), and runs the whole test
# suite: `make check`, then `make check` again in a separate
# AddressSanitizer + UndefinedBehaviorSanitizer build, the tests whose
# code runs on several threads in a ThreadSanitizer build, then `make
# distcheck` with the tests that read what the tarball ships (with
# TTV_DISTCHECK=0 in the environment it is skipped).
set -e
cd "$(dirname "$0")/.."
top=$(pwd)
# Tests that read the shared corpus find it beside the project.
TTV_SHARED=${TTV_SHARED:-$(cd "$top/.." && pwd)/shared}
export TTV_SHARED
./scripts/setup.sh
jobs=$(nproc)

status=0
make -C build -j"$jobs" check || status=1

# The sanitizer build: a second build directory from the same sources.
asan="$top/build-asan"
mkdir -p "$asan"
[ -f "$asan/Makefile" ] || (cd "$asan" && ../configure --enable-werror \
    CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
    LDFLAGS="-fsanitize=address,undefined" >/dev/null)
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    make -C "$asan" -j"$jobs" check || status=1

# ThreadSanitizer: the tests that run threads, a few minutes' worth: the
# call queries' workers and threads_run (core_test, calls_test,
# cli_calls.sh), SQL stopped from another thread and from a signal
# handler (sql_test, sql_cli.sh), the viewer's worker (the screen scripts
# that use it), the CTF and FXT readers' pipelines, and the reads for an
# index that keep their state on those pipelines (index_grow.sh). gcc's
# maybe-uninitialized guesses go wrong at -O1 with -fsanitize=thread.
tsan="$top/build-tsan"
mkdir -p "$tsan"
[ -f "$tsan/Makefile" ] || (cd "$tsan" && ../configure --enable-werror \
    --enable-tsan CFLAGS="-O1 -g -Wno-maybe-uninitialized" >/dev/null)
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
UI_SCRIPTS="async sql follow follow_async follow_diff follow_live follow_sql" \
    make -C "$tsan" -j"$jobs" check TESTS="tests/core/core_test \
    tests/core/calls_test tests/core/sql_test tests/cli/cli_calls.sh \
    tests/cli/sql_cli.sh tests/ui/ui_screen.sh \
    tests/formats/ctf/ctf_threads.sh tests/formats/fxt/fxt_fixtures.sh \
    tests/cli/index_grow.sh" ||
    status=1

dist_tests="tests/cli/cli_contract.sh tests/cli/sql_man.sh tests/ui/ui_man.sh"
dist_tests="$dist_tests tests/ui/ui_screen.sh tests/formats/xray/xray_fixtures.sh"
dist_tests="$dist_tests tests/formats/fxt/fxt_fixtures.sh"
dist_tests="$dist_tests tests/formats/ctf/ctf_fixtures.sh"
dist_tests="$dist_tests tests/formats/coreprofiler/coreprofiler_fixtures.sh"
if [ "${TTV_DISTCHECK:-1}" != 0 ]; then
	# The tarball builds, installs and runs the tests that read what it
	# ships (fixtures, screen scripts and goldens, the man pages); the
	# whole suite ran above, once is enough for the rest.
	env -u TTV_SHARED make -C build -j"$jobs" distcheck TESTS="$dist_tests" \
	    >/dev/null || { echo "distcheck failed"; status=1; }
fi

# One closing line over the test runs.
pass=0; fail=0; skip=0
for log in "$top/build/test-suite.log" "$asan/test-suite.log" \
    "$tsan/test-suite.log"; do
	[ -f "$log" ] || continue
	set -- $(sed -n 's/^# \(PASS\|FAIL\|SKIP\|XFAIL\|XPASS\|ERROR\): *\([0-9]*\)$/\1 \2/p' "$log" | tr '\n' ' ')
	while [ $# -ge 2 ]; do
		case $1 in
		PASS|XFAIL) pass=$((pass + $2)) ;;
		FAIL|XPASS|ERROR) fail=$((fail + $2)) ;;
		SKIP) skip=$((skip + $2)) ;;
		esac
		shift 2
	done
done
[ "$status" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
echo "$pass passed, $fail failed, $skip skipped"
exit "$status"

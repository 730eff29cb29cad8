#!/bin/sh
# Installs what is missing, builds ttv out of the source tree (build/,
# and build-asan/ for the sanitizers), and runs the whole test suite:
# `make check`, then `make check` again in a separate AddressSanitizer +
# UndefinedBehaviorSanitizer build, then `make distcheck` (with
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

if [ "${TTV_DISTCHECK:-1}" != 0 ]; then
	env -u TTV_SHARED make -C build -j"$jobs" distcheck >/dev/null || { echo "distcheck failed"; status=1; }
fi

# One closing line over both test runs.
pass=0; fail=0; skip=0
for log in "$top/build/test-suite.log" "$asan/test-suite.log"; do
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

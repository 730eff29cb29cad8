#!/bin/sh
# Installs what is missing, builds ttv, and runs the whole test suite:
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
make -j"$jobs" check || status=1

# The sanitizer build works on a copy of the sources: automake does not
# allow a second build directory beside an in-tree one.
asan="$top/build-asan"
rm -rf "$asan"
mkdir -p "$asan"
git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$asan"
(cd "$asan" && autoreconf -fi >/dev/null 2>&1 && ./configure --enable-werror \
    CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
    LDFLAGS="-fsanitize=address,undefined" >/dev/null)
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    make -C "$asan" -j"$jobs" check || status=1

if [ "${TTV_DISTCHECK:-1}" != 0 ]; then
	env -u TTV_SHARED make -j"$jobs" distcheck >/dev/null || { echo "distcheck failed"; status=1; }
fi

# One closing line over both test runs.
pass=0; fail=0; skip=0
for log in "$top/test-suite.log" "$asan/test-suite.log"; do
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

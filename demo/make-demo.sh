#!/bin/sh
# make-demo.sh - rebuild the demo trace of the README quick start:
#
#   demo/demo                    demo.c built with XRay instrumentation
#   demo/xray-log.demo.sample    the FDR-mode log it wrote when run
#
# Both are committed, so the quick start works without clang; run this
# again after changing demo.c. The log is named the way the XRay runtime
# names its logs (xray-log.PROG.XXXXXX), which is how ttv finds demo/demo
# beside it and shows function names without being given the binary.
#
# Needs clang (14 or later) with the XRay runtime, nm and objcopy.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
CC=${CLANG:-clang}
work=$(mktemp -d "${TMPDIR:-/tmp}/ttv-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Every function gets sleds (threshold 1) and -O0 keeps the small ones
# from being inlined away; the custom event is emitted unconditionally.
$CC -std=c2x -O0 -Wall -Wextra -fxray-instrument \
	-fxray-instruction-threshold=1 -fxray-always-emit-customevents \
	-c -o "$work/demo.o" "$here/demo.c"
# Only the FDR runtime is linked; unused sections go.
$CC -fxray-instrument -fxray-modes=xray-fdr -pthread -Wl,--gc-sections \
	-o "$work/demo" "$work/demo.o"

# The symbol table is needed for names, but only the demo's own functions:
# the runtime's symbols would double the size of the committed binary.
nm --defined-only "$work/demo.o" | awk '$2 ~ /^[tT]$/ { print $3 }' \
	> "$work/keep"
objcopy --strip-all --keep-symbols="$work/keep" "$work/demo"

# demo.c puts the runtime in FDR mode itself, keeping every call
# (func_duration_threshold_us=0); the runtime picks the log's name.
if ! XRAY_OPTIONS="xray_logfile_base=$work/xray-log. verbosity=0" \
    "$work/demo" > "$work/stdout" 2> "$work/stderr"; then
	cat "$work/stderr" >&2
	echo "make-demo.sh: the demo failed" >&2
	exit 1
fi
set -- "$work"/xray-log.demo.*
if [ ! -s "$1" ]; then
	cat "$work/stderr" >&2
	echo "make-demo.sh: the demo wrote no trace" >&2
	exit 1
fi

# A fixed suffix keeps the file name in the README and the dist list valid.
rm -f "$here"/xray-log.demo.*
mv "$1" "$here/xray-log.demo.sample"
chmod 644 "$here/xray-log.demo.sample"
mv "$work/demo" "$here/demo"
ls -l "$here/demo" "$here/xray-log.demo.sample"

#!/bin/sh
# make-fixtures.sh - rebuild the instrumented binaries the instrumentation-map
# tests read: prog-c (C, sleds of kinds 0, 1, 3, 4, 5: typed event included) and
# prog-cxx (C++, names that need demangling).
#
#   tests/data/instrmap/make-fixtures.sh [OUTDIR]
#
# OUTDIR defaults to this directory. The binaries are linked without the
# XRay runtime (-fnoxray-link-deps: the event sleds call stubs in prog.c),
# which keeps them around 16-30 KB; they are only read, never run.
# Extra CFLAGS (e.g. -DNO_TYPED_EVENT, for a map llvm-xray 14 accepts) come
# from $FIXTURE_CFLAGS. Needs clang/clang++ with XRay (14 or later).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
CC=${CLANG:-clang}
CXX=${CLANGXX:-clang++}
XFLAGS="-O0 -fxray-instrument -fxray-instruction-threshold=1 -fnoxray-link-deps"

$CC $XFLAGS -fxray-always-emit-customevents -fxray-always-emit-typedevents \
	${FIXTURE_CFLAGS:-} -o "$out/prog-c" "$here/prog.c"
$CXX $XFLAGS ${FIXTURE_CFLAGS:-} -o "$out/prog-cxx" "$here/prog.cc"

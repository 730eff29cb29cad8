#!/bin/sh
# The viewer's edges: a missing file is reported without touching the
# terminal (exit 1); without a terminal it says so and points to the batch
# modes (exit 2).
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-uierr.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

"$TTV" "$tmp/missing.fxt" </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 1 ] || ! grep -q "missing.fxt: No such file" "$tmp/err" ||
    [ -s "$tmp/out" ]; then
	echo "FAIL: missing file: exit $rc"; cat "$tmp/err"; exit 1
fi

trace="$TTV_SRCDIR/tests/data/xray/fdr-v5-le.xray"
if [ ! -f "$trace" ]; then
	echo "SKIP: no XRay fixture"
	exit 77
fi
"$TTV" "$trace" </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "terminal" "$tmp/err" ||
    ! grep -q -- "--info" "$tmp/err" || [ -s "$tmp/out" ]; then
	echo "FAIL: no terminal: exit $rc"; cat "$tmp/err"; exit 1
fi
echo "PASS: missing file, no terminal"

#!/bin/sh
# A stack 100,000 calls deep (a runaway recursion, 1.6 MB of XRay): the
# folded-stack export writes one line per call at most --max-depth frames
# long (it wrote depth^2 bytes: gigabytes from a few MB), says what it
# folded, and loses no weight.
set -u
: "${TTV:?}" "${TTV_BUILDDIR:?}"
gen="$TTV_BUILDDIR/tests/gen/xraygen"
[ -x "$gen" ] || { echo "SKIP: no xraygen"; exit 77; }
# The generator is a test tool, not what is tested: its leaks at exit are
# not reported under LeakSanitizer.
gen() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$gen" "$@"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-deep.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

gen -s 65536 -N 100000 deep "$tmp/deep.xray" || exit 1
timeout 60 "$TTV" --export collapsed "$tmp/deep.xray" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "exit $rc: $(cat "$tmp/err")"
grep -q "stacks deeper than 1024 frames folded" "$tmp/err" || fail "folding not said"
size=$(wc -c <"$tmp/out")
[ "$size" -lt 8000000 ] || fail "output of $size bytes"
awk '{ n = split($1, f, ";"); if (n > 1024) bad++ } END { exit bad > 0 }' \
    "$tmp/out" || fail "a line has more than 1024 frames"
# Every ns of self time is somewhere: the weights add up to --stats' self.
want=$("$TTV" --stats --tsv "$tmp/deep.xray" 2>/dev/null |
    awk -F'\t' 'NR > 1 { s += $4 } END { print s }')
got=$(awk '{ s += $NF } END { print s }' "$tmp/out")
[ "$want" = "$got" ] || fail "weights $got, self time $want"
"$TTV" --export collapsed --max-depth 10 "$tmp/deep.xray" >"$tmp/out10" 2>/dev/null
awk '{ n = split($1, f, ";"); if (n > 10) bad++ } END { exit bad > 0 }' \
    "$tmp/out10" || fail "--max-depth 10"
"$TTV" --export collapsed --max-depth 1 "$tmp/deep.xray" >/dev/null 2>&1
[ $? -eq 2 ] || fail "--max-depth 1 is a usage error"
"$TTV" --stats --max-depth 10 "$tmp/deep.xray" >/dev/null 2>&1
[ $? -eq 2 ] || fail "--max-depth without --export collapsed"
[ $fails -eq 0 ] || exit 1
echo "PASS: deep stacks fold past --max-depth, weights kept ($size bytes)"

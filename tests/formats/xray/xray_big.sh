#!/bin/sh
# A log big enough (72 MB, 9 M function records, 4 threads) that the FDR
# reader replays its threads on several workers and drops decoded pages:
# every record must still be in the model — entries and exits as written
# by tests/gen/xraygen, one slice per call, all calls measured, nothing
# flagged, no diagnostics.
set -u
: "${TTV:?}" "${TTV_BUILDDIR:?}"
gen="$TTV_BUILDDIR/tests/gen/xraygen"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-xray-big.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

records=$("$gen" -B 72000000 "$tmp/big.fdr") || exit 1
"$TTV" --info "$tmp/big.fdr" >"$tmp/info" 2>"$tmp/err" || {
	echo "FAIL: --info exit status $?"
	fail=1
}
if [ -s "$tmp/err" ]; then
	echo "FAIL: diagnostics:"
	cat "$tmp/err"
	fail=1
fi
num() {
	awk -v k="$1" '$1 == k ":" { print $2; exit }' "$tmp/info"
}
calls=$((records / 2))
[ "$(num function-enter)" = "$calls" ] || {
	echo "FAIL: function-enter $(num function-enter), want $calls"
	fail=1
}
[ "$(num function-exit)" = "$calls" ] || {
	echo "FAIL: function-exit $(num function-exit), want $calls"
	fail=1
}
[ "$(num slices)" = "$calls" ] || {
	echo "FAIL: slices $(num slices), want $calls"
	fail=1
}
# every call is measured: the --stats counts add up to all of them
total=$("$TTV" --stats --tsv "$tmp/big.fdr" | awk 'NR > 1 { n += $2 }
    END { print n + 0 }')
[ "$total" = "$calls" ] || {
	echo "FAIL: --stats counts add up to $total, want $calls"
	fail=1
}
echo "$records records, $calls calls"
exit $fail

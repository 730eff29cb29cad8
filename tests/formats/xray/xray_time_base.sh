#!/bin/sh
# Times that do not fit in 63 bits of ns (LLVM's own fdr-log-version-1 test
# log: 5678 Hz and TSCs near 7.2e15) were clamped to INT64_MAX in silence:
# --stats printed nothing. Such a log now counts from its first timestamp,
# says so, and gives what the same log with small TSCs gives: the same
# calls, the same durations (within rounding), FDR and basic mode alike.
set -u
: "${TTV:?}" "${TTV_BUILDDIR:?}"
gen="$TTV_BUILDDIR/tests/gen/xraygen"
[ -x "$gen" ] || { echo "SKIP: no xraygen"; exit 77; }
# The generator is a test tool, not what is tested: its leaks at exit are
# not reported under LeakSanitizer.
gen() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$gen" "$@"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-xtb.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

for scen in full basic; do
	v=5; [ $scen = basic ] && v=3
	gen -v $v -f 5678 $scen "$tmp/small.xray" || exit 1
	gen -v $v -f 5678 -O 7200000000000000 $scen "$tmp/big.xray" || exit 1
	"$TTV" --stats --tsv "$tmp/small.xray" >"$tmp/small" 2>/dev/null
	"$TTV" --stats --tsv "$tmp/big.xray" >"$tmp/big" 2>"$tmp/err"
	grep -q "past 2^62 ns: times count from the first one" "$tmp/err" ||
	    fail "$scen: the rebase is not said: $(cat "$tmp/err")"
	grep -q "clamped" "$tmp/err" && fail "$scen: times clamped"
	[ "$(wc -l <"$tmp/big")" -gt 1 ] || fail "$scen: no statistics"
	cut -f1,2 "$tmp/small" | sort >"$tmp/small.counts"
	cut -f1,2 "$tmp/big" | sort >"$tmp/big.counts"
	cmp -s "$tmp/small.counts" "$tmp/big.counts" ||
	    fail "$scen: other calls than the log with small TSCs"
	# Totals agree to a few ns (one tick is 176 us: rounding only).
	tail -n +2 "$tmp/small" | sort >"$tmp/small.s"
	tail -n +2 "$tmp/big" | sort >"$tmp/big.s"
	paste "$tmp/small.s" "$tmp/big.s" | awk -F'\t' '
	    { d = $3 - $12; if (d < 0) d = -d; if (d > 100) bad++ }
	    END { exit bad > 0 }' || fail "$scen: totals differ"
	"$TTV" --export chrome-json "$tmp/small.xray" 2>/dev/null |
	    grep -o '"ph":"X"' | wc -l >"$tmp/nx.small"
	"$TTV" --export chrome-json "$tmp/big.xray" 2>/dev/null |
	    grep -o '"ph":"X"' | wc -l >"$tmp/nx.big"
	cmp -s "$tmp/nx.small" "$tmp/nx.big" ||
	    fail "$scen: chrome-json keeps $(cat "$tmp/nx.big") of $(cat "$tmp/nx.small") slices"
done
[ $fails -eq 0 ] || exit 1
echo "PASS: logs past 2^63 ns count from their first timestamp"

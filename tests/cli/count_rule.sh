#!/bin/sh
# One count rule (query_calls.h): a call that never returned is in no
# count, in every batch mode, and the outputs that show such calls say how
# many ("+N unfinished"). On a CoreProfiler log cut before its threads
# ended (the project's writer, cut at a line), with and without a range:
# every function has the same number of calls in --stats, --calls,
# --callers (its callers' edges add up to it), --tree and SQL's slice
# table with dur >= 0 (the README's example); its unfinished calls are
# those SQL gives dur -1, and what --callers, --tree and --calls say.
# --info counts the functions --stats lists.
set -u
: "${TTV:?}" "${TTV_BUILDDIR:?}" "${TTV_SRCDIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$TTV_BUILDDIR/tests/gen/cpgen" --seed 3 --lines 4000 \
    --mode instrumentation --summary none --out "$tmp/full.tracelog" ||
    exit 1
head -n 2500 "$tmp/full.tracelog" >"$tmp/cut.tracelog"
log=$tmp/cut.tracelog

# Per function, "name<TAB>count": the five ways to count, and the calls
# that never returned as SQL lists them.
readme_sql=$(sed -n 's/^ttv --query "\(SELECT name, COUNT(\*), SUM(dur) FROM slice .*\)" TRACE$/\1/p' \
    "$TTV_SRCDIR/README.md")
[ -n "$readme_sql" ] || fail "no SQL example of --stats' numbers in README.md"
check() {
	what=$1
	shift
	"$TTV" --stats --tsv "$@" "$log" | tail -n +2 | cut -f1,2 |
	    sort >"$tmp/stats"
	"$TTV" --tree --tsv "$@" "$log" | awk -F '\t' 'NR > 1 {
		n = split($1, p, ";"); c[p[n]] += $2; u[p[n]] += $5 }
	    END { for (k in c) if (c[k] > 0) print k "\t" c[k]
		for (k in u) if (u[k] > 0) print k "\t" u[k] > "'"$tmp/tree_u"'" }' |
	    sort >"$tmp/tree"
	sort -o "$tmp/tree_u" "$tmp/tree_u"
	# the README's example, as the README has it, and the calls SQL
	# gives dur -1
	"$TTV" --tsv --query "$readme_sql" "$@" "$log" |
	    tail -n +2 | sort >"$tmp/sql3"
	cut -f1,2 "$tmp/sql3" >"$tmp/sql"
	"$TTV" --tsv --query "SELECT name, COUNT(*) FROM slice
	    WHERE dur = -1 GROUP BY name" "$@" "$log" | tail -n +2 |
	    sort >"$tmp/sql_u"
	[ -s "$tmp/stats" ] || fail "$what: no --stats rows"
	cmp -s "$tmp/stats" "$tmp/tree" ||
	    fail "$what: --tree counts differ from --stats: $(diff "$tmp/stats" "$tmp/tree" | head -5)"
	cmp -s "$tmp/stats" "$tmp/sql" ||
	    fail "$what: SQL dur >= 0 differs from --stats: $(diff "$tmp/stats" "$tmp/sql" | head -5)"
	# totals too, where no range clips what --stats sums; and --info's
	# functions are the rows of --stats (and of the functions pane)
	if [ $# -eq 0 ]; then
		n=$("$TTV" --info "$log" | sed -n 's/^functions: //p')
		[ "$n" -eq "$(wc -l <"$tmp/stats")" ] ||
		    fail "$what: --info says $n functions, --stats lists $(wc -l <"$tmp/stats")"
		"$TTV" --stats --tsv "$log" | tail -n +2 | cut -f1,2,3 |
		    sort >"$tmp/stats3"
		cmp -s "$tmp/stats3" "$tmp/sql3" ||
		    fail "$what: SQL totals differ from --stats: $(diff "$tmp/stats3" "$tmp/sql3" | head -5)"
	fi
	cmp -s "$tmp/tree_u" "$tmp/sql_u" ||
	    fail "$what: --tree unfinished differ from SQL dur -1: $(diff "$tmp/tree_u" "$tmp/sql_u" | head -5)"
	[ -s "$tmp/sql_u" ] || fail "$what: no call left unfinished"
	# the text outputs say how many were left out
	total=$(awk -F '\t' '{ s += $2 } END { print s + 0 }' "$tmp/sql_u")
	"$TTV" --stats "$@" "$log" | tail -n 1 >"$tmp/out"
	grep -q "^+$total unfinished (calls that never returned: not counted)$" \
	    "$tmp/out" || fail "$what: --stats: '$(cat "$tmp/out")', want +$total"
	"$TTV" --tree "$@" "$log" | tail -n 1 >"$tmp/out"
	grep -q "^+$total unfinished " "$tmp/out" ||
	    fail "$what: --tree: '$(cat "$tmp/out")', want +$total"
	while IFS="$(printf '\t')" read -r name count; do
		u=$(awk -F '\t' -v f="$name" '$1 == f { print $2 }' "$tmp/sql_u")
		n=$("$TTV" --calls "^$(printf '%s' "$name" |
		    sed 's/[][\\.*^$()+?{}|]/\\&/g')\$" --tsv "$@" "$log" |
		    tail -n +2 | wc -l)
		[ "$n" -eq "$count" ] ||
		    fail "$what: --calls $name: $n calls, --stats $count"
		"$TTV" --callers "$name" --tsv "$@" "$log" >"$tmp/out"
		e=$(awk -F '\t' 'NR > 1 { s += $2 } END { print s + 0 }' \
		    "$tmp/out")
		[ "$e" -eq "$count" ] ||
		    fail "$what: --callers $name: edges add up to $e, --stats $count"
		"$TTV" --callers "$name" "$@" "$log" | head -n 1 >"$tmp/out"
		if [ -n "$u" ]; then
			grep -q ": $count calls\{0,1\} +$u unfinished, " "$tmp/out" ||
			    fail "$what: --callers $name: '$(cat "$tmp/out")', want $count +$u"
			"$TTV" --calls "^$(printf '%s' "$name" |
			    sed 's/[][\\.*^$()+?{}|]/\\&/g')\$" "$@" "$log" |
			    tail -n 1 >"$tmp/out"
			grep -q "^+$u unfinished " "$tmp/out" ||
			    fail "$what: --calls $name: '$(cat "$tmp/out")', want +$u"
		else
			grep -q ": $count calls\{0,1\}, " "$tmp/out" ||
			    fail "$what: --callers $name: '$(cat "$tmp/out")', want $count"
		fi
	done <"$tmp/stats"
}
check "whole log"
check "a range" --range 100ms..300ms
# and the shared corpus's logs, whole (they end inside their threads too)
S=${TTV_SHARED:-}/traces/coreprofiler
if [ -n "${TTV_SHARED:-}" ] && [ -d "$S" ]; then
	for log in "$S"/*.log; do
		check "shared $(basename "$log")" 2>/dev/null
	done
	log=$tmp/cut.tracelog
fi

# SQL: dur -1 for the calls that never returned, and only for them
n=$("$TTV" --tsv --query "SELECT COUNT(*) FROM slice WHERE dur < 0" "$log" |
    tail -n 1)
m=$("$TTV" --tsv --query "SELECT COUNT(*) FROM slice WHERE incomplete = 1
    AND dur = -1" "$log" | tail -n 1)
u=$("$TTV" --info "$log" | awk '$1 == "unterminated:" || $1 == "no" {
    s += $NF } END { print s + 0 }')
[ "$n" -gt 0 ] && [ "$n" -eq "$m" ] && [ "$n" -eq "$u" ] ||
    fail "SQL dur -1: $n rows, $m incomplete, --info says $u"
# --info says what the other names are: functions whose calls never
# returned, names of events
"$TTV" --info "$log" >"$tmp/out"
grep -q "^  with unfinished calls only: 2$" "$tmp/out" &&
    grep -q "^  other names (instants, CPU lanes): 1$" "$tmp/out" ||
    fail "--info functions: $(grep -A2 '^functions' "$tmp/out")"

# one of a thing is singular
"$TTV" --info "$TTV_SRCDIR/tests/data/fxt/full.fxt" >"$tmp/out"
grep -q '"t_twelve": 1 slice, depth 1, 2 instants, 0 samples$' "$tmp/out" &&
    grep -q '"load:b:3": 0 slices, depth 0, 0 instants, 1 sample$' "$tmp/out" ||
    fail "--info plurals: $(grep '"t_twelve"\|"load:b:3"' "$tmp/out")"

[ $fails -eq 0 ] || exit 1

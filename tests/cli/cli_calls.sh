#!/bin/sh
# The command line of the call queries: --calls, --callers, --callees,
# --tree and --range (exit codes, messages, table layouts, and answers
# that follow from the demo program, demo/demo.c), and --range on every
# other batch mode.
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}"
demo="$TTV_SRCDIR/demo/xray-log.demo.sample"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

expect_rc() {
	want=$1; shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq "$want" ] || fail "exit $rc, want $want: $*"
}

expect_rc 0 "$TTV" --help
for o in --calls --callers --callees --tree --range; do
	grep -q -- "$o" "$tmp/out" || fail "--help lists $o"
done

# usage errors: 2, before any loading
expect_rc 2 "$TTV" --calls 'blur(' "$demo"
grep -q "missing closing parenthesis" "$tmp/err" || fail "bad --calls regex: $(cat "$tmp/err")"
expect_rc 2 "$TTV" --stats --range 5ms "$demo"
grep -q "bad range '5ms'" "$tmp/err" || fail "range without ..: $(cat "$tmp/err")"
expect_rc 2 "$TTV" --stats --range 1xs..2ms "$demo"
grep -q "bad time in range" "$tmp/err" || fail "bad time: $(cat "$tmp/err")"
expect_rc 2 "$TTV" --stats --range 2ms..1ms "$demo"
grep -q "empty range" "$tmp/err" || fail "empty range: $(cat "$tmp/err")"
expect_rc 2 "$TTV" --calls
expect_rc 2 "$TTV" --range 0..1ms "$demo"
grep -q "goes with a batch mode" "$tmp/err" || fail "--range in the viewer: $(cat "$tmp/err")"

# times as ttv prints them: +T from the start, the same as T
a=$("$TTV" --stats --tsv --range '+2.373 750 ms..+2.5ms' "$demo")
b=$("$TTV" --stats --tsv --range 2373750..2500000 "$demo")
[ -n "$a" ] && [ "$a" = "$b" ] || fail "--range of printed times: '$a' vs '$b'"
# from the cursor: the viewer's alone
expect_rc 2 "$TTV" --stats --range '>1ms..' "$demo"
grep -q "from the viewer's cursor" "$tmp/err" || fail "--range >1ms: $(cat "$tmp/err")"
# past the trace's end: a warning that says what the trace spans
expect_rc 0 "$TTV" --stats --range 10s..20s "$demo"
grep -q "warning: the range is past the trace's end: the trace spans +0 ns .. +2.707 278 ms (2.71 ms)$" \
    "$tmp/err" || fail "--range past the end: $(cat "$tmp/err")"

# a function that is not there: 1, and nothing printed
expect_rc 1 "$TTV" --callers no_such_function "$demo"
grep -q "no function named 'no_such_function' (names as --stats prints them)$" "$tmp/err" ||
    fail "unknown function: $(cat "$tmp/err")"
for tsv in "" --tsv; do
	expect_rc 1 "$TTV" --calls 'no_such_f' $tsv "$demo"
	grep -q "no function matches 'no_such_f' (names as --stats prints them)$" "$tmp/err" ||
	    fail "--calls of no function $tsv: $(cat "$tmp/err")"
	[ ! -s "$tmp/out" ] || fail "--calls of no function $tsv printed: $(cat "$tmp/out")"
done

# --calls: every call, slowest first, as many as --stats counts
expect_rc 0 "$TTV" --calls '^blur_row$' --tsv "$demo"
head -1 "$tmp/out" | grep -q "^ts_ns	dur_ns	self_ns	tid	depth	function$" || fail "--calls TSV header"
[ "$(tail -n +2 "$tmp/out" | wc -l)" -eq 336 ] || fail "--calls blur_row: 336 calls (demo.c)"
tail -n +2 "$tmp/out" | cut -f2 | sort -c -n -r || fail "--calls slowest first"
awk -F'\t' 'NR > 1 && ($3 > $2 || $1 < 0 || $6 != "blur_row") { exit 1 }' "$tmp/out" ||
	fail "--calls: self <= dur, ts from the start"
expect_rc 0 "$TTV" --calls '^blur_row$' --tsv --ascending "$demo"
tail -n +2 "$tmp/out" | cut -f2 | sort -c -n || fail "--calls --ascending: fastest first"
# a function with no call in the range: the header only (one with no
# name that matches at all is an error, above)
expect_rc 0 "$TTV" --calls '^blur_row$' --range 0..1ns "$demo"
[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "--calls with no call in the range: the header only"
# the same calls as --stats, whatever the regex
"$TTV" --stats --tsv "$demo" | awk -F'\t' 'NR > 1 { print $1, $2, $3 }' | sort >"$tmp/stats"
"$TTV" --calls . --tsv "$demo" | awk -F'\t' 'NR > 1 { n[$6]++; d[$6] += $2 }
    END { for (f in n) print f, n[f], d[f] }' | sort >"$tmp/calls"
cmp -s "$tmp/stats" "$tmp/calls" || fail "--calls . counts and totals = --stats"
# aligned text: the same rows
expect_rc 0 "$TTV" --calls '^blur_row$' "$demo"
head -1 "$tmp/out" | grep -q "start *dur *self *tid *depth  function" || fail "--calls text header"
[ "$(tail -n +2 "$tmp/out" | wc -l)" -eq 336 ] || fail "--calls text rows"
# ... every time to the nanosecond (start, dur and self as --tsv has
# them), in columns as wide as the longest: a 1 MHz XRay log of 3000 s
: "${TTV_BUILDDIR:?}"
"$TTV_BUILDDIR/tests/gen/xraygen" -f 1000000 full "$tmp/slow.xray" ||
	fail "xraygen -f 1000000"
"$TTV" --calls . --tsv "$tmp/slow.xray" >"$tmp/tsv"
"$TTV" --calls . "$tmp/slow.xray" >"$tmp/out"
grep -q '^ *+3000\.009 280 000 s  *100\.000 µs  *10\.000 µs ' "$tmp/out" ||
	fail "--calls past 1000 s: $(grep -F '+3000' "$tmp/out" | head -2)"
# exact(ns): the text timefmt_duration_exact gives; then each text row
# holds the TSV row's three times, right-aligned under the header's
awk -F'\t' -v out="$tmp/out" '
function group(d,   r) {
	r = ""
	while (length(d) > 3) { r = r substr(d, 1, 3) " "; d = substr(d, 4) }
	return r d
}
function exact(ns,   u, p, w, f) {
	if (ns < 1000) return ns " ns"
	if (ns < 1000000) { u = "us"; p = 1000 }
	else if (ns < 1000000000) { u = "ms"; p = 1000000 }
	else { u = "s"; p = 1000000000 }
	w = int(ns / p); f = sprintf("%0" length(p "") - 1 "d", ns - w * p)
	return w "." group(f) " " u
}
NR == 1 {
	getline hdr <out
	ends = index(hdr, "start") + 4; endd = index(hdr, "dur") + 2
	endf = index(hdr, "self") + 3
	next
}
{
	if ((getline line <out) <= 0) { print "missing row " NR; exit 1 }
	s = "+" exact($1); if ($1 == 0) s = "+0 ns"
	want = sprintf("%" ends "s %" endd - ends - 1 "s %" endf - endd - 1 "s",
	    s, exact($2), exact($3))
	# µs, two bytes, takes one column on screen
	gsub(/µ/, "u", line)
	if (substr(line, 1, length(want)) != want) {
		print "row " NR ": \"" line "\", want \"" want "\""
		exit 1
	}
}' "$tmp/tsv" >"$tmp/msg" || fail "--calls text times: $(cat "$tmp/msg")"

# --callers / --callees: demo.c: quadtree is called by process_tile and
# by itself, and calls itself and is_uniform
expect_rc 0 "$TTV" --callers quadtree --tsv "$demo"
head -1 "$tmp/out" | grep -q "^function	count	total_ns$" || fail "--callers TSV header"
[ "$(tail -n +2 "$tmp/out" | cut -f1 | sort | tr '\n' ' ')" = "process_tile quadtree " ] ||
	fail "--callers quadtree: $(cat "$tmp/out")"
expect_rc 0 "$TTV" --callees quadtree --tsv "$demo"
[ "$(tail -n +2 "$tmp/out" | cut -f1 | sort | tr '\n' ' ')" = "is_uniform quadtree " ] ||
	fail "--callees quadtree: $(cat "$tmp/out")"
# time once per outermost call: the callers' times add up to the total
expect_rc 0 "$TTV" --callers process_tile "$demo"
total=$(head -1 "$tmp/out" | sed 's/.*total \([^,]*\), self.*/\1/')
[ -n "$total" ] || fail "--callers text: summary line: $(head -1 "$tmp/out")"
expect_rc 0 "$TTV" --callers process_tile --tsv "$demo"
sum=$(awk -F'\t' 'NR > 1 { s += $3 } END { print s }' "$tmp/out")
tree=$("$TTV" --tree --tsv "$demo" | awk -F'\t' '$1 == "worker;process_tile" { print $3 }')
[ "$sum" = "$tree" ] || fail "process_tile callers' time $sum = its tree node's $tree"
expect_rc 0 "$TTV" --callers worker --tsv "$demo"
[ "$(tail -n +2 "$tmp/out" | cut -f1)" = "<root>" ] || fail "worker has no caller"

# --tree: paths, counts, self times that add up
expect_rc 0 "$TTV" --tree --tsv "$demo"
head -1 "$tmp/out" | grep -q "^path	count	total_ns	self_ns	unfinished$" || fail "--tree TSV header"
awk -F'\t' '$1 == "worker;process_tile;quadtree" && $2 != 18 { exit 1 }' "$tmp/out" ||
	fail "--tree: 18 outermost quadtree calls"
self=$(awk -F'\t' 'NR > 1 { s += $4 } END { print s }' "$tmp/out")
folded=$("$TTV" --export collapsed "$demo" | awk '{ s += $NF } END { print s }')
[ "$self" = "$folded" ] || fail "--tree self times ($self) = collapsed weights ($folded)"
expect_rc 0 "$TTV" --tree --per-thread --tsv "$demo"
[ "$(tail -n +2 "$tmp/out" | cut -f1 | grep -c -v ';')" -eq 4 ] || fail "--tree --per-thread: 4 threads"
expect_rc 0 "$TTV" --tree "$demo"
grep -q "^ *3 *6.96 ms *35.3 [^ ]*s  worker$" "$tmp/out" || fail "--tree text: $(head -3 "$tmp/out")"
grep -q "^ *18 .*    process_tile$" "$tmp/out" || fail "--tree text indents by depth"

# --range everywhere: the demo lasts 2.71 ms
expect_rc 0 "$TTV" --info --range +1ms..2ms "$demo"
grep -q "^range: .* (1.00 ms), from the start: +1000000 .. +2000000 ns$" "$tmp/out" ||
	fail "--info --range: $(grep range "$tmp/out")"
grep -q "^slices in range: [1-9]" "$tmp/out" || fail "--info: slices in range"
grep -q "^slices: 2152$" "$tmp/out" || fail "--info still describes the whole file"
expect_rc 0 "$TTV" --stats --tsv --range 0..1ms "$demo"
awk -F'\t' 'NR > 1 && $3 > 4 * 1000000 { exit 1 }' "$tmp/out" ||
	fail "--stats --range: clipped totals (4 threads x 1 ms at most)"
expect_rc 0 "$TTV" --tree --tsv --range -500us.. "$demo"
awk -F'\t' 'NR > 1 && $3 > 4 * 500001 { exit 1 }' "$tmp/out" || fail "--tree --range: clipped"
expect_rc 0 "$TTV" --export collapsed --range ..1ms "$demo"
folded=$(awk '{ s += $NF } END { print s }' "$tmp/out")
tree=$("$TTV" --tree --tsv --range 0..1ms "$demo" | awk -F'\t' 'NR > 1 { s += $4 } END { print s }')
[ "$folded" = "$tree" ] || fail "collapsed --range ($folded) = --tree --range self ($tree)"
expect_rc 0 "$TTV" --export chrome-json --range 1ms..1.1ms "$demo"
n=$(grep -c '"ph":"X"' "$tmp/out")
all=$("$TTV" --export chrome-json "$demo" | grep -c '"ph":"X"')
[ "$n" -gt 0 ] && [ "$n" -lt "$all" ] || fail "chrome-json --range: $n of $all slices"
expect_rc 0 "$TTV" --calls . --tsv --range 1ms..1.1ms "$demo"
awk -F'\t' 'NR > 1 && ($2 > 100000 || $1 >= 1100000) { exit 1 }' "$tmp/out" ||
	fail "--calls --range: overlapping calls, clipped durations"
# --markers, --search and --query keep what is in the range: markers and
# log records inside it, calls overlapping it (the same count as SQL's)
expect_rc 0 "$TTV" --markers --tsv --range 0..100us "$demo"
awk -F'\t' 'NR > 1 && $1 >= 100000 { exit 1 }' "$tmp/out" ||
	fail "--markers --range: a marker past the end"
all=$("$TTV" --markers --tsv "$demo" | wc -l)
[ "$(wc -l < "$tmp/out")" -lt "$all" ] || fail "--markers --range kept all $all"
expect_rc 0 "$TTV" --search . --tsv --range 1ms..1.1ms "$demo"
awk -F'\t' 'NR > 1 && ($1 >= 1100000 || $1 + $2 <= 1000000) { exit 1 }' "$tmp/out" ||
	fail "--search --range: a call that does not overlap the range"
n=$(($(wc -l < "$tmp/out") - 1))
q=$("$TTV" --query "SELECT COUNT(*) FROM slice" --tsv --range 1ms..1.1ms "$demo" | tail -n 1)
[ "$n" -gt 0 ] && [ "$n" = "$q" ] || fail "--search --range: $n calls, --query --range: $q"

if [ $fails -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "PASS"

#!/bin/sh
# ttv --diff on the two runs of tests/gen/diffpair.h, whose differences
# are known by construction: every row of the TSV, by function and by
# call path, normalised, with names cut by --match-strip, with a range on
# each side and a thread list; the same rows across formats (an FXT base
# and a CTF new run) as within one; the text table's columns.
set -u
: "${TTV:?}" "${TTV_BUILDDIR:?}"
fxtgen="$TTV_BUILDDIR/tests/gen/fxtgen"
ctfgen="$TTV_BUILDDIR/tests/gen/ctfgen"
[ -x "$fxtgen" ] && [ -x "$ctfgen" ] || { echo "SKIP: no fxtgen, ctfgen"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$fxtgen" -D base "$tmp/base.fxt" && "$fxtgen" -D new "$tmp/new.fxt" &&
"$fxtgen" -A -D base "$tmp/base-a.fxt" && "$fxtgen" -A -D new "$tmp/new-a.fxt" &&
"$ctfgen" -D new "$tmp/new-ctf" >/dev/null || { echo "FAIL: generators"; exit 1; }

# rows NAME WANT_FILE ARGS...: ttv --diff ARGS --tsv, exit 0, rows as WANT
rows() {
	name=$1 want=$2
	shift 2
	"$TTV" --diff "$@" --tsv >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "$name: exit $rc: $(head -2 "$tmp/err")"
	diff "$want" "$tmp/out" >"$tmp/diff" ||
	    fail "$name: rows differ:
$(cat "$tmp/diff")"
}

header='function	calls_base	calls_new	total_base_ns	total_new_ns	self_base_ns	self_new_ns	delta_ns	ratio	status	p50_base_ns	p50_new_ns	p99_base_ns	p99_new_ns'

# By function: slower 20 -> 60 us a call (3 x), its helper 1 -> 21 us;
# main longer by all of it; removed, added; render and jit renamed;
# often called twice as often; jitter 5 % slower (500 ns in all: within
# the noise, 10 us); steady and worker unchanged. By |delta|, then name.
cat >"$tmp/want" <<EOF
$header
main	1	1	521000	971500	71000	81000	450500	1.8647	grew	521000	971500	521000	971500
slower	10	10	200000	600000	190000	390000	400000	3.0000	grew	20000	60000	20000	60000
helper	20	20	20000	220000	20000	220000	200000	11.0000	grew	1000	21000	1000	21000
added	0	10	0	70000	0	70000	70000		only-new		7000		7000
removed	10	0	50000	0	50000	0	-50000	0.0000	only-base	5000		5000	
jit@0x7f0000a000	10	0	40000	0	40000	0	-40000	0.0000	only-base	4000		4000	
jit@0x7f0000b000	0	10	0	40000	0	40000	40000		only-new		4000		4000
render<1>	10	0	30000	0	30000	0	-30000	0.0000	only-base	3000		3000	
render<2>	0	10	0	30000	0	30000	30000		only-new		3000		3000
often	10	20	20000	40000	20000	40000	20000	2.0000	grew	2000	2000	2000	2000
jitter	10	10	10000	10500	10000	10500	500	1.0500	same	1000	1050	1000	1050
steady	10	10	100000	100000	90000	90000	0	1.0000	same	10000	10000	10000	10000
worker	5	5	100000	100000	100000	100000	0	1.0000	same	20000	20000	20000	20000
EOF
rows "by function" "$tmp/want" "$tmp/base.fxt" "$tmp/new.fxt"

# --min-change 0: every ns counts, jitter grew; 1%: jitter's 5 % too;
# 10%: often's 100 % still grew, jitter same again
sed 's/^\(jitter\t.*\)same/\1grew/' "$tmp/want" >"$tmp/want.0"
rows "min-change 0" "$tmp/want.0" "$tmp/base.fxt" --min-change 0 "$tmp/new.fxt"
rows "min-change 1%" "$tmp/want.0" "$tmp/base.fxt" --min-change 1% "$tmp/new.fxt"
rows "min-change 10%" "$tmp/want" "$tmp/base.fxt" --min-change 10% "$tmp/new.fxt"
# 25us: often's +20 us and jitter are the same
sed 's/^\(often\t.*\)grew/\1same/' "$tmp/want" >"$tmp/want.25"
rows "min-change 25us" "$tmp/want.25" "$tmp/base.fxt" --min-change 25us "$tmp/new.fxt"

# --match-strip: render<> and jit@ pair (the same in both runs)
cat >"$tmp/want" <<EOF
$header
main	1	1	521000	971500	71000	81000	450500	1.8647	grew	521000	971500	521000	971500
slower	10	10	200000	600000	190000	390000	400000	3.0000	grew	20000	60000	20000	60000
helper	20	20	20000	220000	20000	220000	200000	11.0000	grew	1000	21000	1000	21000
added	0	10	0	70000	0	70000	70000		only-new		7000		7000
removed	10	0	50000	0	50000	0	-50000	0.0000	only-base	5000		5000	
often	10	20	20000	40000	20000	40000	20000	2.0000	grew	2000	2000	2000	2000
jitter	10	10	10000	10500	10000	10500	500	1.0500	same	1000	1050	1000	1050
jit@	10	10	40000	40000	40000	40000	0	1.0000	same	4000	4000	4000	4000
render<>	10	10	30000	30000	30000	30000	0	1.0000	same	3000	3000	3000	3000
steady	10	10	100000	100000	90000	90000	0	1.0000	same	10000	10000	10000	10000
worker	5	5	100000	100000	100000	100000	0	1.0000	same	20000	20000	20000	20000
EOF
rows "match-strip" "$tmp/want" "$tmp/base.fxt" --match-strip \
    '0x[0-9a-f]+|[0-9]+' "$tmp/new.fxt"
# the same pairing from a pattern that cuts less: render<> only
"$TTV" --diff "$tmp/base.fxt" --match-strip '<[0-9]>' --tsv "$tmp/new.fxt" \
    >"$tmp/out" 2>&1
grep -q "^render	10	10	30000	30000	.*	same	" "$tmp/out" ||
    fail "match-strip '<[0-9]>': $(grep render "$tmp/out")"
grep -q "^jit@0x7f0000b000	0	10" "$tmp/out" ||
    fail "match-strip '<[0-9]>' leaves jit alone"

# --normalize calls: often's time per call is the same; the base's total
# and self are scaled by calls_new / calls_base (2 for often, 1 else)
"$TTV" --diff "$tmp/base.fxt" --normalize calls --min-change 0 --tsv \
    "$tmp/new.fxt" >"$tmp/out" 2>&1
grep -q "^often	10	20	40000	40000	40000	40000	0	1.0000	same	2000	2000	2000	2000$" \
    "$tmp/out" || fail "normalize calls: $(grep often "$tmp/out")"
grep -q "^slower	10	10	200000	600000	190000	390000	400000	3.0000	grew	" \
    "$tmp/out" || fail "normalize calls, slower: $(grep slower "$tmp/out")"
# --normalize total: the base's times scaled by the new run's time over
# the base's (self times summed: 1071500 / 621000)
cat >"$tmp/want" <<EOF
slower	10	10	345089	600000	327834	390000	254911	grew
helper	20	20	34509	220000	34509	220000	185491	grew
removed	10	0	86272	0	86272	0	-86272	only-base
main	1	1	898956	971500	122506	81000	72544	grew
steady	10	10	172544	100000	155290	90000	-72544	shrank
worker	5	5	172544	100000	172544	100000	-72544	shrank
added	0	10	0	70000	0	70000	70000	only-new
jit@0x7f0000a000	10	0	69018	0	69018	0	-69018	only-base
render<1>	10	0	51763	0	51763	0	-51763	only-base
jit@0x7f0000b000	0	10	0	40000	0	40000	40000	only-new
render<2>	0	10	0	30000	0	30000	30000	only-new
jitter	10	10	17254	10500	17254	10500	-6754	same
often	10	20	34509	40000	34509	40000	5491	same
EOF
"$TTV" --diff "$tmp/base.fxt" --normalize total --tsv "$tmp/new.fxt" \
    2>&1 | tail -n +2 | cut -f1-8,10 >"$tmp/out"
diff "$tmp/want" "$tmp/out" >"$tmp/diff" || fail "normalize total:
$(cat "$tmp/diff")"

# --by path: helper grew under slower only
cat >"$tmp/want" <<EOF
path	calls_base	calls_new	total_base_ns	total_new_ns	self_base_ns	self_new_ns	delta_ns	ratio	status
main	1	1	521000	971500	71000	81000	450500	1.8647	grew
main;slower	10	10	200000	600000	190000	390000	400000	3.0000	grew
main;slower;helper	10	10	10000	210000	10000	210000	200000	21.0000	grew
main;added	0	10	0	70000	0	70000	70000		only-new
main;removed	10	0	50000	0	50000	0	-50000	0.0000	only-base
main;jit@0x7f0000a000	10	0	40000	0	40000	0	-40000	0.0000	only-base
main;jit@0x7f0000b000	0	10	0	40000	0	40000	40000		only-new
main;render<1>	10	0	30000	0	30000	0	-30000	0.0000	only-base
main;render<2>	0	10	0	30000	0	30000	30000		only-new
main;often	10	20	20000	40000	20000	40000	20000	2.0000	grew
main;jitter	10	10	10000	10500	10000	10500	500	1.0500	same
main;steady	10	10	100000	100000	90000	90000	0	1.0000	same
main;steady;helper	10	10	10000	10000	10000	10000	0	1.0000	same
worker	5	5	100000	100000	100000	100000	0	1.0000	same
EOF
rows "by path" "$tmp/want" "$tmp/base.fxt" --by path "$tmp/new.fxt"
# by name: the paths frame by frame
"$TTV" --diff "$tmp/base.fxt" --by path --sort name --tsv "$tmp/new.fxt" \
    2>&1 | tail -n +2 | cut -f1 >"$tmp/out"
cat >"$tmp/want" <<'EOF'
main
main;added
main;jit@0x7f0000a000
main;jit@0x7f0000b000
main;jitter
main;often
main;removed
main;render<1>
main;render<2>
main;slower
main;slower;helper
main;steady
main;steady;helper
worker
EOF
diff "$tmp/want" "$tmp/out" >"$tmp/diff" || fail "by path, by name:
$(cat "$tmp/diff")"
# --sort self, --ascending: by the change of self time, smallest first
"$TTV" --diff "$tmp/base.fxt" --sort self --ascending --tsv "$tmp/new.fxt" \
    2>&1 | tail -n +2 | cut -f1 | tr '\n' ' ' >"$tmp/out"
[ "$(cat "$tmp/out")" = "steady worker jitter main often render<1> render<2> jit@0x7f0000a000 jit@0x7f0000b000 removed added helper slower " ] ||
    fail "--sort self --ascending: $(cat "$tmp/out")"

# a range on each side, from each trace's start: the first round of
# each run (52 us and 97.05 us), thread A only (tids 101 and 201)
cat >"$tmp/want" <<EOF
$header
main	1	1	52000	97050	7000	8000	45050	1.8663	grew	52000	97050	52000	97050
slower	1	1	20000	60000	19000	39000	40000	3.0000	grew	20000	60000	20000	60000
helper	2	2	2000	22000	2000	22000	20000	11.0000	grew	1000	21000	1000	21000
added	0	1	0	7000	0	7000	7000		only-new		7000		7000
removed	1	0	5000	0	5000	0	-5000	0.0000	only-base	5000		5000	
jit@0x7f0000a000	1	0	4000	0	4000	0	-4000	0.0000	only-base	4000		4000	
jit@0x7f0000b000	0	1	0	4000	0	4000	4000		only-new		4000		4000
render<1>	1	0	3000	0	3000	0	-3000	0.0000	only-base	3000		3000	
render<2>	0	1	0	3000	0	3000	3000		only-new		3000		3000
often	1	2	2000	4000	2000	4000	2000	2.0000	grew	2000	2000	2000	2000
jitter	1	1	1000	1050	1000	1050	50	1.0500	grew	1000	1050	1000	1050
steady	1	1	10000	10000	9000	9000	0	1.0000	same	10000	10000	10000	10000
EOF
rows "ranges, threads" "$tmp/want" "$tmp/base.fxt" --range-base 0..52us \
    --range 0..97050 --thread 101,201 --min-change 0 "$tmp/new.fxt"
# --range alone is both traces': the first 52 us of the new run hold
# main, steady and the first 21 us of its slower call
"$TTV" --diff "$tmp/base.fxt" --range 0..52us --thread 101,201 --tsv \
    "$tmp/new.fxt" >"$tmp/out" 2>&1
grep -q "^slower	1	1	20000	40000	" "$tmp/out" ||
    fail "--range for both: $(grep slower "$tmp/out")"
# --thread of one trace's and the other's
"$TTV" --diff "$tmp/base.fxt" --thread 102,202 --tsv "$tmp/new.fxt" \
    >"$tmp/out" 2>&1
[ "$(tail -n +2 "$tmp/out" | cut -f1,10)" = "worker	same" ] ||
    fail "--thread 102,202: $(cat "$tmp/out")"
# --function and --hide in both
"$TTV" --diff "$tmp/base.fxt" --function '^(helper|added)$' --tsv \
    "$tmp/new.fxt" >"$tmp/out" 2>&1
[ "$(tail -n +2 "$tmp/out" | cut -f1 | tr '\n' ' ')" = "helper added " ] ||
    fail "--function: $(cat "$tmp/out")"
# (a hidden function's time goes to its caller)
"$TTV" --diff "$tmp/base.fxt" --hide '^helper$' --by path --tsv \
    "$tmp/new.fxt" >"$tmp/out" 2>&1
grep -q "^main;slower	10	10	200000	600000	200000	600000	400000	" \
    "$tmp/out" || fail "--hide by path: $(grep slower "$tmp/out")"
grep -q "helper" "$tmp/out" && fail "--hide by path: helper shown"

# across formats: an FXT base and a CTF new run (functions named by
# address in both) give the rows of two FXT runs
"$TTV" --diff "$tmp/base-a.fxt" --tsv "$tmp/new-a.fxt" >"$tmp/want" 2>&1 ||
    fail "FXT vs FXT, by address"
rows "FXT base, CTF new" "$tmp/want" "$tmp/base-a.fxt" "$tmp/new-ctf"
grep -q "^0x55550000a0c0	10	10	200000	600000	190000	390000	400000	3.0000	grew	" \
    "$tmp/out" || fail "FXT vs CTF: slower (0x55550000a0c0): $(head -3 "$tmp/out")"
"$TTV" --diff "$tmp/base-a.fxt" --by path --tsv "$tmp/new-a.fxt" \
    >"$tmp/want" 2>&1
rows "FXT base, CTF new, by path" "$tmp/want" "$tmp/base-a.fxt" --by path \
    "$tmp/new-ctf"
# and the other way round: the CTF run as the base
"$TTV" --diff "$tmp/new-ctf" --tsv "$tmp/base-a.fxt" >"$tmp/out" 2>&1
grep -q "^0x55550000a0c0	10	10	600000	200000	390000	190000	-400000	0.3333	shrank	" \
    "$tmp/out" || fail "CTF base: $(head -3 "$tmp/out")"

# the text table: a header, the columns aligned (µs is one column), -
# where a row is not in a trace
"$TTV" --diff "$tmp/base.fxt" "$tmp/new.fxt" >"$tmp/out" 2>&1 ||
    fail "text: exit $?"
head -1 "$tmp/out" | grep -q "^calls base  calls new total base  total new      delta    change  self base   self new   p50 base    p50 new   p99 base    p99 new  status     function$" ||
    fail "text header: $(head -1 "$tmp/out")"
grep -q "^        10         10     200 µs     600 µs    +400 µs   +200.0%     190 µs     390 µs    20.0 µs    60.0 µs    20.0 µs    60.0 µs  grew       slower$" \
    "$tmp/out" || fail "text row: $(grep slower "$tmp/out")"
grep -q "^         -         10          -    70.0 µs   +70.0 µs         -          -    70.0 µs          -    7.00 µs          -    7.00 µs  only-new   added$" \
    "$tmp/out" || fail "text row, only-new: $(grep added "$tmp/out")"
[ "$(awk '{ print length }' "$tmp/out" | sort -u | wc -l)" -le 14 ] ||
    fail "text rows of many widths"
"$TTV" --diff "$tmp/base.fxt" --by path "$tmp/new.fxt" >"$tmp/out" 2>&1
head -1 "$tmp/out" | grep -q "self new  status     path$" ||
    fail "text header by path: $(head -1 "$tmp/out")"
grep -q "  grew       main;slower;helper$" "$tmp/out" ||
    fail "text by path: $(grep helper "$tmp/out")"

# -o writes the table to a file
"$TTV" --diff "$tmp/base.fxt" --tsv -o "$tmp/o.tsv" "$tmp/new.fxt" ||
    fail "-o: exit $?"
[ "$(wc -l <"$tmp/o.tsv")" -eq 14 ] || fail "-o: $(wc -l <"$tmp/o.tsv") lines"

[ $fails -eq 0 ] || exit 1
echo "PASS: --diff rows"

#!/bin/sh
# What ttv writes, from hostile inputs: outputs in proportion to the
# trace (a stack 10^6 calls deep), never over the input (-o), a file that
# shrinks while read among more than 64 (SIGBUS), names that a careless
# escaping merges, and names a spreadsheet would run as formulas. Inputs
# come from the project's generators (tests/gen/hostile.py, xraygen,
# ctfgen); runs are held to the README's budget (tests/lib/budget.sh).
set -u
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
. "$TTV_SRCDIR/tests/lib/budget.sh"
hostile="python3 $TTV_SRCDIR/tests/gen/hostile.py"
# The generators are test tools, not what is tested: their leaks at exit
# are not reported under LeakSanitizer.
gen() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    "$TTV_BUILDDIR/tests/gen/$@"
}
[ -x "$TTV_BUILDDIR/tests/gen/xraygen" ] || { echo "SKIP: no xraygen"; exit 77; }

# 1. 10^6 nested calls in 8 MB (the entries of xraygen's deep log, cut
# before the exits): --tree wrote 9.6 GB in 10 s (1.3 GB as TSV), the
# square of the depth. Every batch mode writes at most 16 x the input
# (the cut of out_max makes a larger output fail quickly).
gen xraygen -s 65536 -N 1000000 deep "$tmp/deep1m.xray"
head -c 8100000 "$tmp/deep1m.xray" >"$tmp/deep.xray"
rm -f "$tmp/deep1m.xray"
out_max=$((16 * 8100000))
for mode in "--tree" "--tree --tsv" "--tree --per-thread --tsv" \
    "--calls . --tsv" "--calls #1" "--callers #1" "--callees #1 --tsv" \
    "--stats" "--markers --tsv" "--search # --tsv" \
    "--export collapsed" "--export chrome-json" "--tree -f #3 --tsv" \
    "--export collapsed -f #3"; do
	# shellcheck disable=SC2086
	budget "10^6 deep, $mode" "$tmp/deep.xray" 1 "truncated log" $mode
	n=$(wc -c <"$tmp/out")
	[ "$n" -lt "$out_max" ] || fail "10^6 deep, $mode: $n bytes or more"
done
# --tree folds below --max-depth (1024 by default), and says so.
budget "10^6 deep, --tree" "$tmp/deep.xray" 1 \
    "call paths deeper than 1024 frames folded" --tree --tsv
awk -F'\t' 'NR > 1 { n = split($1, f, ";"); if (n > 1024) bad++ }
    END { exit bad > 0 }' "$tmp/out" || fail "--tree: a path over 1024 frames"
grep -q ';\[998977 frames\]	' "$tmp/out" ||
    fail "--tree: no folded row: $(tail -1 "$tmp/out" | cut -c 1-80)"
unset out_max

# ... and loses nothing: on a whole stack 5,000 deep, folded at 10 frames,
# the self times and the calls add up to those of the whole tree.
gen xraygen -s 65536 -N 5000 deep "$tmp/d5k.xray"
"$TTV" --tree --tsv --max-depth 1000000 "$tmp/d5k.xray" >"$tmp/whole" 2>&1 ||
    fail "--tree --max-depth 1000000: exit $?"
"$TTV" --tree --tsv --max-depth 10 "$tmp/d5k.xray" >"$tmp/folded" 2>"$tmp/err" ||
    fail "--tree --max-depth 10: exit $?: $(cat "$tmp/err")"
sums() { awk -F'\t' 'NR > 1 { c += $2; s += $4 } END { print c, s }' "$1"; }
[ "$(sums "$tmp/whole")" = "$(sums "$tmp/folded")" ] ||
    fail "--max-depth 10: calls and self $(sums "$tmp/folded"), whole tree $(sums "$tmp/whole")"
# The same through a function filter (the stacks walked frame by frame).
"$TTV" --tree --tsv -f '#3' --max-depth 1000000 "$tmp/d5k.xray" \
    >"$tmp/whole_f" 2>/dev/null
"$TTV" --tree --tsv -f '#3' --max-depth 10 "$tmp/d5k.xray" >"$tmp/folded_f" \
    2>/dev/null
[ "$(sums "$tmp/whole_f")" = "$(sums "$tmp/folded_f")" ] ||
    fail "-f, --max-depth 10: calls and self $(sums "$tmp/folded_f"), whole tree $(sums "$tmp/whole_f")"
[ "$(wc -l <"$tmp/folded")" -eq 11 ] ||
    fail "--max-depth 10: $(wc -l <"$tmp/folded") lines, want 11"
tail -1 "$tmp/folded" | grep -q '^#1;#2;#3;#4;#5;#6;#7;#1;#2;\[4991 frames\]	4991	' ||
    fail "--max-depth 10: $(tail -1 "$tmp/folded" | cut -c 1-80)"
"$TTV" --tree --max-depth 10 "$tmp/d5k.xray" >"$tmp/text" 2>/dev/null
tail -1 "$tmp/text" | grep -q '^ *4991 .*  \[4991 frames\]$' ||
    fail "--tree --max-depth 10 (text): $(tail -1 "$tmp/text")"
"$TTV" --stats --max-depth 10 "$tmp/d5k.xray" >/dev/null 2>&1
[ $? -eq 2 ] || fail "--max-depth with --stats is a usage error"

# 2. -o naming the input truncated it (exit 0, the trace gone): refused
# by device and inode, under any name, before anything is written.
refused() {
	name=$1 keep=$2
	shift 2
	cp "$keep" "$tmp/before"
	"$TTV" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$name: exit $rc, want 1"
	grep -q "output would overwrite the input" "$tmp/err" ||
	    fail "$name: $(cat "$tmp/err")"
	cmp -s "$keep" "$tmp/before" || fail "$name: the input changed"
}
cp "$TTV_SRCDIR/tests/data/fxt/full.fxt" "$tmp/in.fxt"
refused "-o the trace" "$tmp/in.fxt" --stats -o "$tmp/in.fxt" "$tmp/in.fxt"
ln -s "$tmp/in.fxt" "$tmp/link.fxt"
ln "$tmp/in.fxt" "$tmp/hard.fxt"
refused "-o a link to the trace" "$tmp/in.fxt" --export chrome-json \
    -o "$tmp/link.fxt" "$tmp/in.fxt"
refused "-o a hard link to the trace" "$tmp/in.fxt" --info \
    -o "$tmp/hard.fxt" "$tmp/in.fxt"
echo "SELECT COUNT(*) FROM slice;" >"$tmp/q.sql"
refused "-o the query file" "$tmp/q.sql" --query-file "$tmp/q.sql" \
    -o "$tmp/q.sql" "$tmp/in.fxt"
gen ctfgen -i "$tmp/ctf" >/dev/null
for f in metadata chan_0 index/chan_1.idx; do
	refused "-o the CTF trace's $f" "$tmp/ctf/$f" --info \
	    -o "$tmp/ctf/$f" "$tmp/ctf"
done
mkdir "$tmp/traces"
mv "$tmp/ctf" "$tmp/traces/a"
refused "-o a stream of a trace in the directory" "$tmp/traces/a/chan_1" \
    --stats --tsv -o "$tmp/traces/a/chan_1" "$tmp/traces"
# A new file in a CTF trace's directory would be read as a stream.
"$TTV" --info -o "$tmp/traces/a/out.txt" "$tmp/traces" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ ! -e "$tmp/traces/a/out.txt" ] ||
    fail "-o a new file in the trace's directory: exit $rc"
grep -q "output would go into the trace's directory" "$tmp/err" ||
    fail "-o a new file in the trace's directory: $(cat "$tmp/err")"
# Beside the traces, and anywhere else, it is written.
"$TTV" --info -o "$tmp/traces/info.txt" "$tmp/traces" >/dev/null 2>&1 &&
    [ -s "$tmp/traces/info.txt" ] || fail "-o beside the trace directories"
"$TTV" --stats -o "$tmp/stats.txt" "$tmp/in.fxt" 2>/dev/null &&
    [ -s "$tmp/stats.txt" ] || fail "-o a new file"

# 3. SIGBUS past 64 mapped files: 100 CTF traces, 90 small and 10 whose
# streams (over 8 KB) TTV_TEST_SHRINK cuts right after they are mapped.
# The guard covered 64 mappings: "Bus error", exit 135.
mkdir "$tmp/many"
i=0
while [ $i -lt 100 ]; do
	n=20
	[ $i -ge 90 ] && n=400
	gen ctfgen -n $n -s $i "$tmp/many/t$(printf %03d $i)" >/dev/null ||
	    fail "ctfgen $i"
	i=$((i + 1))
done
for run in 1 2 3; do
	rm -rf "$tmp/shrink"
	cp -r "$tmp/many" "$tmp/shrink"
	TTV_TEST_SHRINK=1 "$TTV" --stats "$tmp/shrink" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || fail "100 traces shrinking (run $run): exit $rc, want 1"
	grep -q "^ttv: $tmp/shrink/t09[0-9]/chan_[01]: changed while being read" \
	    "$tmp/err" || fail "100 traces shrinking (run $run): $(cat "$tmp/err")"
done
rm -rf "$tmp/many" "$tmp/shrink"

# 4. Names that a careless escaping merges stay apart in every output:
# hostile.py's NAMES hold 13 distinct names (0xFF and the text \xff, NUL
# and the text \x00, C0 80 and NUL, ';' and ':', a backslash...).
distinct() {
	what=$1 want=$2 got=$(sort -u "$tmp/names" | wc -l)
	[ "$got" -eq "$want" ] ||
	    fail "$what: $got distinct names, want $want: $(sort "$tmp/names" | tr '\n' ' ')"
}
json_names() {
	# the "name" of each call (X), instant (i) or row, as written (not
	# the thread names nor the markers)
	grep -v '"ph":"M"\|"cat":"ttv.marker"' "$tmp/out" |
	    grep -o '"name":"\([^"\\]\|\\.\)*"' >"$tmp/names"
}
$hostile fxt-faithful "$tmp/names.fxt"
$hostile cp-faithful "$tmp/names.tracelog"
$hostile ctf-faithful "$tmp/names.ctf"
for f in names.fxt names.tracelog; do
	t="$tmp/$f"
	"$TTV" --stats --tsv "$t" 2>/dev/null | tail -n +2 | cut -f1 >"$tmp/names"
	distinct "$f --stats --tsv" 13
	"$TTV" --calls . --tsv "$t" 2>/dev/null | tail -n +2 | cut -f6 >"$tmp/names"
	distinct "$f --calls --tsv" 13
	"$TTV" --tree --tsv "$t" 2>/dev/null | tail -n +2 | cut -f1 >"$tmp/names"
	distinct "$f --tree --tsv" 13
	"$TTV" --export collapsed "$t" 2>/dev/null | sed 's/ [0-9]*$//' >"$tmp/names"
	distinct "$f --export collapsed" 13
	"$TTV" --export chrome-json "$t" >"$tmp/out" 2>/dev/null
	json_names
	distinct "$f --export chrome-json" 13
	"$TTV" --query "SELECT DISTINCT name FROM slice" --json "$t" \
	    >"$tmp/out" 2>/dev/null
	json_names
	distinct "$f --query --json" 13
	"$TTV" --query "SELECT DISTINCT name FROM slice" --csv "$t" 2>/dev/null |
	    tail -n +2 >"$tmp/names"
	distinct "$f --query --csv" 13
	# FUNC as --stats prints it finds that function alone
	"$TTV" --callers 'a\\xffb' --tsv "$t" >"$tmp/out" 2>"$tmp/err" ||
	    fail "$f --callers 'a\\\\xffb': $(cat "$tmp/err")"
	"$TTV" --callers 'n\x00b' "$t" 2>/dev/null | head -1 |
	    grep -q '^n\\x00b: 1 call,' || fail "$f --callers 'n\\x00b'"
done
# The text form: the byte 0xFF is \xff, the text \xff is \\xff, a NUL
# \x00; in JSON that text quoted; ';' in a folded frame \x3b.
"$TTV" --stats --tsv "$tmp/names.fxt" 2>/dev/null | cut -f1 >"$tmp/out"
for want in 'a\xffb' 'a\\xffb' 'n\x00b' 'n\\x00b' 'c\xc0\x80d' 's;t' \
    'back\\slash'; do
	grep -qxF -- "$want" "$tmp/out" || fail "--stats: no row $want"
done
"$TTV" --export chrome-json "$tmp/names.fxt" 2>/dev/null >"$tmp/out"
for want in '"a\\xffb"' '"a\\\\xffb"' '"n\\x00b"' '"back\\\\slash"'; do
	grep -qF -- "$want" "$tmp/out" || fail "chrome-json: no $want"
done
"$TTV" --export collapsed "$tmp/names.fxt" 2>/dev/null |
    grep -qxF 's\x3bt 500' || fail "collapsed: no s\\x3bt"
# CTF: the event names (instants) through --search and chrome-json; a
# NUL ends a TSDL string, so "n\000b" is the name "n".
"$TTV" --search . --tsv "$tmp/names.ctf" 2>/dev/null | tail -n +2 |
    cut -f5 >"$tmp/names"
distinct "ctf --search --tsv" 13
"$TTV" --export chrome-json "$tmp/names.ctf" >"$tmp/out" 2>/dev/null
json_names
distinct "ctf --export chrome-json" 13

# 5. Formula injection: with --spreadsheet-safe, a text cell that starts
# with =, +, - or @ gets a ' before it, in every TSV and CSV output;
# without it, cells hold the names exactly; numbers are never touched.
$hostile fxt-formulas "$tmp/f.fxt"
safe() {
	what=$1 col=$2
	shift 2
	"$TTV" "$@" --spreadsheet-safe "$tmp/f.fxt" >"$tmp/out" 2>"$tmp/err" ||
	    fail "$what: exit $?: $(cat "$tmp/err")"
	awk -F'\t' -v c="$col" 'NR > 1 && $c !~ /^'"'"'[=+@-]/ { bad++ }
	    NR > 1 { n++ } END { exit bad > 0 || n == 0 }' "$tmp/out" ||
	    fail "$what --spreadsheet-safe: $(head -3 "$tmp/out" | tr '\n' '|')"
	"$TTV" "$@" "$tmp/f.fxt" >"$tmp/out" 2>/dev/null
	awk -F'\t' -v c="$col" 'NR > 1 && $c !~ /^[=+@-]/ { bad++ }
	    END { exit bad > 0 }' "$tmp/out" ||
	    fail "$what: $(head -3 "$tmp/out" | tr '\n' '|')"
}
safe "--stats --tsv" 1 --stats --tsv
safe "--calls --tsv" 6 --calls . --tsv
safe "--callers --tsv" 1 --callers '@SUM(A1)' --tsv
safe "--callees --tsv" 1 --callees '=1+2' --tsv
safe "--tree --tsv" 1 --tree --tsv
safe "--search --tsv" 5 --search . --tsv
safe "--query --tsv" 1 --query "SELECT name, -depth FROM slice" --tsv
"$TTV" --query "SELECT name, -depth AS d FROM slice" --csv --spreadsheet-safe \
    "$tmp/f.fxt" >"$tmp/out" 2>/dev/null
grep -qx "'=1+2,0" "$tmp/out" && grep -qx "'-x,-3" "$tmp/out" ||
    fail "--query --csv --spreadsheet-safe: $(tr '\n' '|' <"$tmp/out")"
# CTF packet markers carry their stream's file name.
mv "$tmp/names.ctf/stream_0" "$tmp/names.ctf/=stream"
"$TTV" --markers --tsv --spreadsheet-safe "$tmp/names.ctf" 2>/dev/null |
    grep -q "	'=stream$" || fail "--markers --tsv --spreadsheet-safe"
"$TTV" --stats --spreadsheet-safe "$tmp/f.fxt" >/dev/null 2>&1
[ $? -eq 2 ] || fail "--spreadsheet-safe without --tsv is a usage error"

finish "outputs in proportion, never over the input, names apart"

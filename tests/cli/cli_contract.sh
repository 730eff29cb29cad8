#!/bin/sh
# The command line's contract: exit codes, messages, filters, outputs, on
# the demo trace (a known program: demo/demo.c) and on damaged copies.
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}"
demo="$TTV_SRCDIR/demo/xray-log.demo.sample"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect_rc WANT CMD...: runs CMD, keeps stdout/stderr in $tmp/out, $tmp/err
expect_rc() {
	want=$1; shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq "$want" ] || fail "exit $rc, want $want: $*"
}

expect_rc 0 "$TTV" --help
grep -q -- "--stats" "$tmp/out" || fail "--help lists --stats"
# every line of --help fits an 80-column terminal, one option a line
awk 'length > 79 { bad = 1; print "too long: " $0 } END { exit bad }' \
    "$tmp/out" || fail "--help has lines over 79 columns"
# ... and the manual documents every long option --help lists
for o in $(grep -o -- '--[a-z][a-z-]*' "$tmp/out" | sort -u); do
	# roff writes a dash as \-
	grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" "$TTV_SRCDIR/man/ttv.1" ||
	    fail "man/ttv.1 does not document $o"
done
for o in --csv --json --tsv --range --no-state --query-file; do
	grep -q -- "^ *$o\b\|^ *-[a-zA-Z], $o\b\|^      --csv, $o\b" "$tmp/out" ||
	    fail "--help: no line starts with $o"
done
expect_rc 0 "$TTV" --version
grep -q "^ttv [0-9]" "$tmp/out" || fail "--version prints the version"

# usage errors: 2
expect_rc 2 "$TTV"
expect_rc 2 "$TTV" --no-such-option "$demo"
expect_rc 2 "$TTV" --stats --sort bogus "$demo"
expect_rc 2 "$TTV" --export svg "$demo"
expect_rc 2 "$TTV" --stats --thread 12x "$demo"
expect_rc 2 "$TTV" --stats --function 'blur(' "$demo"
grep -q "column 6" "$tmp/err" || fail "bad regex names the column: $(cat "$tmp/err")"
grep -q "missing closing parenthesis" "$tmp/err" || fail "bad regex gives pcre2's message"

# unreadable input: 1, "ttv: FILE: what"
expect_rc 1 "$TTV" --info "$tmp/nonexistent"
grep -q "^ttv: $tmp/nonexistent: No such file" "$tmp/err" || fail "missing file message: $(cat "$tmp/err")"
: >"$tmp/empty"
expect_rc 1 "$TTV" --info "$tmp/empty"
grep -q "^ttv: $tmp/empty: empty file" "$tmp/err" || fail "empty file message"
printf 'hello, world\n' >"$tmp/text"
expect_rc 1 "$TTV" --info "$tmp/text"

# --info
expect_rc 0 "$TTV" --info "$demo"
grep -q "^format: xray-fdr" "$tmp/out" || fail "--info format"
grep -q "^threads: 4" "$tmp/out" || fail "--info threads"
grep -q "^slices: 2152" "$tmp/out" || fail "--info slices"

# --stats: the demo's call counts follow from demo.c
expect_rc 0 "$TTV" --stats --tsv --sort name "$demo"
head -1 "$tmp/out" | grep -q "^name	count	total_ns	self_ns	min_ns	median_ns	p90_ns	p99_ns	max_ns$" ||
	fail "TSV header"
awk -F'\t' '$1 == "worker" && $2 != 3 { exit 1 }' "$tmp/out" || fail "worker count"
awk -F'\t' '$1 == "blur_row" && $2 != 336 { exit 1 }' "$tmp/out" || fail "blur_row count"
awk -F'\t' 'NR > 1 && !($5 <= $6 && $6 <= $7 && $7 <= $8 && $8 <= $9 && $4 <= $3) { exit 1 }' "$tmp/out" ||
	fail "min <= median <= p90 <= p99 <= max, self <= total"
sort -c -t'	' -k1,1 <<EOF2 || fail "sorted by name"
$(tail -n +2 "$tmp/out")
EOF2
# self times add up to the time of the outermost calls
self=$(awk -F'\t' 'NR > 1 { s += $4 } END { print s }' "$tmp/out")
expect_rc 0 "$TTV" --export collapsed "$demo"
folded=$(awk '{ s += $NF } END { print s }' "$tmp/out")
[ "$self" = "$folded" ] || fail "collapsed weights ($folded) = sum of self ($self)"

# filters
tid=$("$TTV" --info "$demo" | awk '/^  thread/ { print $5; exit }')
expect_rc 0 "$TTV" --info --thread "$tid" "$demo"
grep -q "^threads: 1" "$tmp/out" || fail "--thread keeps one thread"
expect_rc 0 "$TTV" --stats --tsv --function '^blur' "$demo"
[ "$(tail -n +2 "$tmp/out" | cut -f1)" = "blur_row" ] || fail "--function selects rows"
expect_rc 0 "$TTV" --stats --tsv --hide '^blur' "$demo"
grep -q "^blur_row" "$tmp/out" && fail "--hide drops rows"
expect_rc 0 "$TTV" --export collapsed --function '^denoise$' "$demo"
grep -qv "denoise" "$tmp/out" && fail "--function focuses stacks on denoise"

# chrome-json export to a file, and valid JSON when python3 is there
expect_rc 0 "$TTV" --export chrome-json -o "$tmp/demo.json" "$demo"
[ -s "$tmp/demo.json" ] || fail "-o writes the file"
if command -v python3 >/dev/null 2>&1; then
	python3 - "$tmp/demo.json" <<'PY' || fail "chrome-json is valid and has every slice"
import json, sys
d = json.load(open(sys.argv[1]))
x = [e for e in d["traceEvents"] if e["ph"] == "X"]
assert len(x) == 2152, len(x)
assert all(e["dur"] >= 0 for e in x)
PY
fi

# damage: a cut copy is read up to the cut, exit 1, "offset N:" message
size=$(wc -c <"$demo")
head -c $((size - 1000)) "$demo" >"$tmp/cut"
expect_rc 1 "$TTV" --stats "$tmp/cut"
grep -q "^ttv: $tmp/cut: offset [0-9]*: " "$tmp/err" || fail "damage message: $(head -2 "$tmp/err")"
[ -s "$tmp/out" ] || fail "what was readable is still shown"
expect_rc 1 "$TTV" --stats --strict "$tmp/cut"
[ -s "$tmp/out" ] && fail "--strict shows nothing"

# sampled traces: a samples column, and --sort samples orders by it
sampled="$TTV_SRCDIR/tests/data/coreprofiler/sampling.tracelog"
if [ -f "$sampled" ]; then
	expect_rc 0 "$TTV" --stats --sort samples "$sampled"
	head -1 "$tmp/out" | grep -q "^ *samples  *count" || fail "samples column"
	tail -n +2 "$tmp/out" | awk '{ print $1 }' >"$tmp/samples"
	sort -rn -c "$tmp/samples" || fail "--sort samples orders by samples"
fi

# control characters in names never reach the output raw
expect_rc 0 "$TTV" --info "$demo"
if LC_ALL=C grep -q "$(printf '\033')" "$tmp/out"; then fail "raw escape in output"; fi

# an option without its mode, two modes, unknown options: usage errors
# that say "ttv:", never the full path of the program
expect_rc 2 "$TTV" --tsv --info "$demo"
grep -q "^ttv: --tsv goes with --stats, --markers, --search, --query" "$tmp/err" || fail "--tsv without --stats: $(cat "$tmp/err")"
expect_rc 2 "$TTV" --sort self "$demo"
expect_rc 2 "$TTV" --ascending --markers "$demo"
expect_rc 2 "$TTV" --per-thread --export chrome-json "$demo"
expect_rc 2 "$TTV" -o "$tmp/x" "$demo"
expect_rc 2 "$TTV" --info --stats "$demo"
grep -q "^ttv: --info and --stats do not go together" "$tmp/err" || fail "two modes"
expect_rc 2 "$TTV" --bogus "$demo"
grep -q "^ttv: unrecognized option '--bogus'" "$tmp/err" || fail "getopt message: $(cat "$tmp/err")"
expect_rc 2 "$TTV" --info --thread
grep -q "^ttv: option '--thread' requires an argument" "$tmp/err" || fail "getopt message: $(cat "$tmp/err")"

# a thread the trace does not have: said, exit 1
expect_rc 1 "$TTV" --stats --thread 99999 "$demo"
grep -q "^ttv: .*no thread with tid 99999" "$tmp/err" || fail "--thread 99999: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && fail "--thread 99999 prints no table"
expect_rc 0 "$TTV" --stats --thread 19154 "$demo"

# -o into a missing directory: exit 1 with the ttv: prefix, nothing loaded
expect_rc 1 "$TTV" --info -o "$tmp/no/such/dir/out.txt" "$demo"
grep -q "^ttv: $tmp/no/such/dir/out.txt: No such file or directory" "$tmp/err" || fail "-o missing dir: $(cat "$tmp/err")"
expect_rc 0 "$TTV" --markers -o "$tmp/markers.txt" "$demo"
[ -s "$tmp/markers.txt" ] || fail "-o writes --markers"

# --markers: every marker, as many of each kind as --info counts
expect_rc 0 "$TTV" --info "$demo"
sed -n '/^markers:/,/^[a-z]/p' "$tmp/out" | sed -n 's/^  \([a-z-]*\): \([0-9]*\)$/\1 \2/p' | sort >"$tmp/info-markers"
[ -s "$tmp/info-markers" ] || fail "--info lists markers of the demo"
expect_rc 0 "$TTV" --markers --tsv "$demo"
head -1 "$tmp/out" | grep -q "^ts_ns	kind	tid	value	text$" || fail "--markers --tsv header"
tail -n +2 "$tmp/out" | cut -f2 | sort | uniq -c | awk '{ print $2, $1 }' | sort >"$tmp/tsv-markers"
cmp -s "$tmp/info-markers" "$tmp/tsv-markers" || fail "--markers counts differ from --info: $(cat "$tmp/tsv-markers")"
tail -n +2 "$tmp/out" | cut -f1 | sort -n -c || fail "--markers in time order"
tail -n +2 "$tmp/out" | head -1 | grep -q "^0	buffer-start	19153	" || fail "first marker: $(sed -n 2p "$tmp/out")"
expect_rc 0 "$TTV" --markers "$demo"
head -1 "$tmp/out" | grep -q "^time  *kind  *tid  *value  *text" || fail "--markers table header"
expect_rc 0 "$TTV" --markers --thread 19155 --tsv "$demo"
tail -n +2 "$tmp/out" | cut -f3 | grep -v '^19155$' | grep -qv '^-$' && fail "--markers follows --thread"

# --search: every match in time order, where it matched
expect_rc 0 "$TTV" --search 'blur' --tsv "$demo"
head -1 "$tmp/out" | grep -q "^ts_ns	dur_ns	tid	match	name$" || fail "--search --tsv header"
[ "$(tail -n +2 "$tmp/out" | wc -l)" -gt 0 ] || fail "--search finds blur"
tail -n +2 "$tmp/out" | cut -f1 | sort -n -c || fail "--search in time order"
tail -n +2 "$tmp/out" | cut -f4 | grep -qv '^name$' && fail "--search blur matches by name"
expect_rc 0 "$TTV" --search 'BLUR' --tsv "$demo"
[ "$(tail -n +2 "$tmp/out" | wc -l)" -eq 0 ] || fail "--search is smart-case"
expect_rc 2 "$TTV" --search 'blur(' "$demo"
grep -q "^ttv: bad regex 'blur(': .*column" "$tmp/err" || fail "--search bad regex: $(cat "$tmp/err")"
expect_rc 0 "$TTV" --search 'blur' --thread 19155 --tsv "$demo"
tail -n +2 "$tmp/out" | cut -f3 | grep -qv '^19155$' && fail "--search follows --thread"

# ttv's own variables: read in src/env.c alone, each listed in src/env.h
if [ -d "$TTV_SRCDIR/src" ]; then
	others=$(grep -rl 'getenv("TTV_' "$TTV_SRCDIR/src" "$TTV_SRCDIR/formats" \
	    "$TTV_SRCDIR/ui" "$TTV_SRCDIR/cli" | grep -v '/src/env\.c$')
	[ -z "$others" ] || fail "TTV_ variables read outside src/env.c: $others"
	for v in $(grep -o '"TTV_[A-Z_]*"' "$TTV_SRCDIR/src/env.c" | tr -d '"'); do
		grep -q " \* *$v" "$TTV_SRCDIR/src/env.h" || fail "$v not described in src/env.h"
	done
fi
# one core or all: the same answers
expect_rc 0 "$TTV" --stats --tsv "$demo"
cp "$tmp/out" "$tmp/stats-all"
TTV_THREADS=1 "$TTV" --stats --tsv "$demo" >"$tmp/stats-one" 2>/dev/null
cmp -s "$tmp/stats-all" "$tmp/stats-one" || fail "TTV_THREADS=1 changes --stats"

# a FIFO is refused at once, never waited on
mkfifo "$tmp/fifo" 2>/dev/null && {
	expect_rc 1 timeout 10 "$TTV" --info "$tmp/fifo"
	grep -q "not a regular file (a FIFO)" "$tmp/err" || fail "FIFO: $(cat "$tmp/err")"
	expect_rc 0 timeout 10 "$TTV" --info --instr-map "$tmp/fifo" "$demo"
	grep -q "instrumentation map .*not a regular file" "$tmp/err" || fail "--instr-map FIFO: $(cat "$tmp/err")"
}

# The table of options (cli/cli_options.c) against --help: the same long
# options, letters and arguments; and the options each one goes with,
# as the table's rules say them (the message of the option misplaced, in
# the viewer and with --diff), are the ones its --help text names after
# "with --" (its section's title included), and no others.
table="$TTV_SRCDIR/cli/cli_options.c"
if [ -f "$table" ]; then
	sed -n 's/^	\[OPT_[A-Z_]*\] = { "\([a-z-]*\)", \([^,]*\), \([a-z]*\),.*/\1 \2 \3/p' \
	    "$table" | sed "s/'\(.\)'/\1/; s/ true$/ arg/; s/ false$/ -/" |
	    sort >"$tmp/table"
	"$TTV" --help | awk '
	function flush(   i, n, seg, k, names, tok, all) {
		if (nopt == 0) return
		all = hdr " " text; names = ""
		gsub(/ +/, " ", all)
		while ((k = index(all, "with ")) > 0) {
			all = substr(all, k + 5); seg = all
			if (seg !~ /^--/) continue
			sub(/[:;].*/, "", seg)
			n = split(seg, tok, /[^a-z-]+/)
			for (i = 1; i <= n; i++)
				if (tok[i] ~ /^--[a-z]/) names = names " " tok[i]
		}
		for (i = 1; i <= nopt; i++)
			printf "%s %s %s%s\n", opt[i], let[i], arg[i], names
		nopt = 0
	}
	/^[A-Z].*:$/ { flush(); hdr = $0; next }
	/^  (-[a-zA-Z], )?--[a-z]/ || /^      --[a-z]/ {
		flush(); line = $0; sub(/^ +/, "", line); l = "0"
		if (line ~ /^-[a-zA-Z], /) { l = substr(line, 2, 1); line = substr(line, 5) }
		while (match(line, /^--[a-z-]+/)) {
			o = substr(line, 3, RLENGTH - 2); line = substr(line, RLENGTH + 1)
			nopt++; opt[nopt] = o; let[nopt] = l
			arg[nopt] = line ~ /^ [^ -]/ ? "arg" : "-"
			if (line !~ /^, --/) break
			line = substr(line, 3)
		}
		text = line; next
	}
	/^                          / { text = text " " $0; next }
	{ flush() }
	END { flush() }' | sort >"$tmp/help-rules"
	cut -d' ' -f1-3 "$tmp/help-rules" | cmp -s - "$tmp/table" ||
	    fail "the table of options and --help differ: $(cut -d' ' -f1-3 "$tmp/help-rules" | diff - "$tmp/table")"
	while read -r o l a named; do
		v=x
		case $o in
		sort) v=total ;; export) v=collapsed ;; max-depth) v=3 ;;
		by) v=function ;; normalize) v=calls ;; min-change) v=1us ;;
		fail-above) v=5 ;; range|range-base) v=0.. ;; thread) v=1 ;;
		format) v=xray ;;
		esac
		if [ "$a" = arg ]; then set -- "--$o" "$v"; else set -- "--$o"; fi
		said=$( { "$TTV" "$@" "$tmp/none"; "$TTV" --diff "$tmp/none" "$@" "$tmp/none"; } 2>&1 |
		    sed -n 's/^ttv: --[a-z-]* goes with //p' | grep -o -- '--[a-z-]*' | sort -u | tr '\n' ' ')
		want=$(for n in $named; do echo "$n"; done | sort -u | tr '\n' ' ')
		[ "$said" = "$want" ] || fail "--$o goes with '$said' by the table, '$want' by --help"
	done <"$tmp/help-rules"
else
	echo "SKIP: the table of options: no $table"
fi

[ "$fails" -eq 0 ] || exit 1
echo "cli: all checks passed"

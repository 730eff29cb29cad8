#!/bin/sh
# ttv --diff as a CI gate and its command line: the exit status of
# --fail-above (0, 3) with and without --fail-on-new and --min-change, by
# function and by path, the offenders on stderr; usage errors (2) before
# any loading; unreadable and damaged inputs (1), said base first (the
# two load at once); -o never over either
# input; a --match-strip pattern the regex budget cannot decide (2). On
# the two runs of tests/gen/diffpair.h, whose changes are known: main
# +86.5 %, slower +200 %, helper +1000 % (under slower +2000 %), often
# +100 % (+20 us), jitter +5 % (+500 ns); added (70 us), and the renamed
# jit (40 us) and render (30 us) only in the new run.
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
fxtgen="$TTV_BUILDDIR/tests/gen/fxtgen"
[ -x "$fxtgen" ] || { echo "SKIP: no fxtgen"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
"$fxtgen" -D base "$tmp/base.fxt" && "$fxtgen" -D new "$tmp/new.fxt" ||
    { echo "FAIL: fxtgen"; exit 1; }
base="$tmp/base.fxt" new="$tmp/new.fxt"

expect_rc() {
	want=$1; shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq "$want" ] || fail "exit $rc, want $want: $*
$(head -3 "$tmp/err")"
}

# offenders WANT: the names on stderr, in the table's order
offenders() {
	got=$(sed -n 's/^ttv: \(.*\): \(total\|only in\) .*/\1/p' "$tmp/err" |
	    tr '\n' ' ')
	[ "$got" = "$1" ] || fail "offenders: '$got', want '$1'
$(cat "$tmp/err")"
}

# no gate: 0, whatever changed
expect_rc 0 "$TTV" --diff "$base" "$new"
[ -s "$tmp/err" ] && fail "no gate: stderr: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/out")" -eq 14 ] || fail "no gate: $(wc -l <"$tmp/out") lines"

# --fail-above: rows in both that grew more than PCT % and beyond the
# noise; the table is printed all the same
expect_rc 3 "$TTV" --diff "$base" --fail-above 50 "$new"
offenders "main slower helper often "
grep -q "^ttv: slower: total +200.0%, +400 µs (200 µs -> 600 µs), more than 50% (--fail-above)$" \
    "$tmp/err" || fail "offender line: $(grep slower "$tmp/err")"
grep -q "^ttv: 4 of 13 functions over the gate$" "$tmp/err" ||
    fail "count: $(tail -1 "$tmp/err")"
[ "$(wc -l <"$tmp/out")" -eq 14 ] || fail "gate: the table is printed"
expect_rc 3 "$TTV" --diff "$base" --fail-above 150% "$new"
offenders "slower helper "
# exactly +1000 % is not more than 1000
expect_rc 0 "$TTV" --diff "$base" --fail-above 1000 "$new"
[ -s "$tmp/err" ] && fail "--fail-above 1000: $(cat "$tmp/err")"
expect_rc 3 "$TTV" --diff "$base" --fail-above 999.9 "$new"
offenders "helper "
# --min-change raises the floor: helper's +200 us is then "same"
expect_rc 3 "$TTV" --diff "$base" --fail-above 50 --min-change 250us "$new"
offenders "main slower "
expect_rc 0 "$TTV" --diff "$base" --fail-above 50 --min-change 500us "$new"
# ... or lowers it: jitter's +500 ns counts with --min-change 0
expect_rc 3 "$TTV" --diff "$base" --fail-above 0 --min-change 0 "$new"
offenders "main slower helper often jitter "
# a relative floor: 150 % of the base's total
expect_rc 3 "$TTV" --diff "$base" --fail-above 0 --min-change 150% "$new"
offenders "slower helper "

# functions only in the new run fail only with --fail-on-new, above the
# noise floor (10 us; 0 with --min-change 0)
expect_rc 0 "$TTV" --diff "$base" --fail-above 2000 "$new"
expect_rc 3 "$TTV" --diff "$base" --fail-above 2000 --fail-on-new "$new"
offenders "added jit@0x7f0000b000 render<2> "
grep -q "^ttv: added: only in the new trace, 70.0 µs (--fail-on-new)$" \
    "$tmp/err" || fail "only-new line: $(grep added "$tmp/err")"
expect_rc 3 "$TTV" --diff "$base" --fail-above 2000 --fail-on-new \
    --match-strip '0x[0-9a-f]+|[0-9]+' "$new"
offenders "added "
expect_rc 3 "$TTV" --diff "$base" --fail-above 2000 --fail-on-new \
    --min-change 35us "$new"
offenders "added jit@0x7f0000b000 "
expect_rc 0 "$TTV" --diff "$base" --fail-above 2000 --fail-on-new \
    --min-change 70us "$new"
# only-base rows never fail: the runs swapped, added is gone
expect_rc 0 "$TTV" --diff "$new" --fail-above 0 "$base"
expect_rc 3 "$TTV" --diff "$new" --fail-above 0 --fail-on-new "$base"
offenders "removed jit@0x7f0000a000 render<1> "
expect_rc 0 "$TTV" --diff "$base" --fail-above 0 --min-change 0 "$base"

# by path: helper under slower is +2000 %, helper in all +1000 %
expect_rc 3 "$TTV" --diff "$base" --by path --fail-above 1500 "$new"
offenders "main;slower;helper "
grep -q "^ttv: 1 of 14 call paths over the gate$" "$tmp/err" ||
    fail "by path count: $(tail -1 "$tmp/err")"
expect_rc 0 "$TTV" --diff "$base" --fail-above 1500 "$new"
# with --tsv and -o: the table in the file, the offenders on stderr
expect_rc 3 "$TTV" --diff "$base" --fail-above 50 --tsv -o "$tmp/d.tsv" "$new"
[ -s "$tmp/out" ] && fail "-o: stdout not empty"
[ "$(wc -l <"$tmp/d.tsv")" -eq 14 ] || fail "-o: $(wc -l <"$tmp/d.tsv") lines"
offenders "main slower helper often "

# usage errors: 2, nothing loaded
for args in "--by path" "--normalize calls" "--match-strip x" \
    "--range-base 0..1ms" "--min-change 1us" "--fail-above 5" \
    "--fail-on-new"; do
	expect_rc 2 "$TTV" --stats $args "$new"
	name=${args%% *}
	grep -q "^ttv: $name goes with --diff$" "$tmp/err" ||
	    fail "$args without --diff: $(head -1 "$tmp/err")"
done
expect_rc 2 "$TTV" --diff "$base" --fail-on-new "$new"
grep -q "fail-on-new goes with --fail-above" "$tmp/err" || fail "$(cat "$tmp/err")"
expect_rc 2 "$TTV" --diff "$base" --by tree "$new"
grep -q "by takes function or path, not 'tree'" "$tmp/err" || fail "$(cat "$tmp/err")"
expect_rc 2 "$TTV" --diff "$base" --normalize time "$new"
expect_rc 0 "$TTV" --diff "$base" --min-change 5 "$new"	# ns
for bad in 5x 1us,1us 2%,3% -1us 1us, ,1us 1us,,2%; do
	expect_rc 2 "$TTV" --diff "$base" --min-change "$bad" "$new"
	grep -q "min-change takes a time, a percent or both" "$tmp/err" ||
	    fail "--min-change $bad: $(cat "$tmp/err")"
done
for bad in -1 x 5%% ""; do
	expect_rc 2 "$TTV" --diff "$base" --fail-above "$bad" "$new"
done
expect_rc 2 "$TTV" --diff "$base" --match-strip '(' "$new"
grep -q "bad regex '(': missing closing parenthesis" "$tmp/err" ||
    fail "bad --match-strip: $(cat "$tmp/err")"
expect_rc 2 "$TTV" --diff "$base" --by path --sort p99 "$new"
grep -q "sort p99 does not go with --by path" "$tmp/err" || fail "$(cat "$tmp/err")"
expect_rc 0 "$TTV" --diff "$base" --by path --sort self "$new"
expect_rc 2 "$TTV" --diff "$base" --sort bogus "$new"
expect_rc 2 "$TTV" --diff "$base" --stats "$new"
grep -q "diff and --stats do not go together" "$tmp/err" || fail "$(cat "$tmp/err")"
expect_rc 2 "$TTV" --diff "$base"
grep -q "no trace given" "$tmp/err" || fail "$(cat "$tmp/err")"
expect_rc 2 "$TTV" --diff "$base" "$new" "$new"
expect_rc 2 "$TTV" --diff "$base" --range 5ms "$new"
expect_rc 2 "$TTV" --diff "$base" --range-base 2ms..1ms "$new"
grep -q "^ttv: --range-base: empty range" "$tmp/err" || fail "$(cat "$tmp/err")"
expect_rc 2 "$TTV" --diff "$base" --range 1s.. "$new"
grep -q "^ttv: --range: empty range" "$tmp/err" || fail "$(cat "$tmp/err")"
expect_rc 2 "$TTV" --diff "$base" --per-thread "$new"
expect_rc 2 "$TTV" --diff "$base" --thread 1x "$new"

# threads: one of the list in each trace, each tid in one of them
expect_rc 1 "$TTV" --diff "$base" --thread 101,999 "$new"
grep -q "^ttv: no thread with tid 999 in either trace" "$tmp/err" ||
    fail "tid in neither: $(cat "$tmp/err")"
expect_rc 1 "$TTV" --diff "$base" --thread 101 "$new"
grep -q "^ttv: $new: none of the threads 101 in this trace" "$tmp/err" ||
    fail "no tid of the list: $(cat "$tmp/err")"
expect_rc 0 "$TTV" --diff "$base" --thread 102,202 "$new"

# input: unreadable (1, "ttv: FILE: what"); damaged (1, or 3 when the
# gate fails), the rows of what was readable
expect_rc 1 "$TTV" --diff "$tmp/nonexistent" "$new"
grep -q "^ttv: $tmp/nonexistent: No such file" "$tmp/err" || fail "$(cat "$tmp/err")"
expect_rc 1 "$TTV" --diff "$base" "$tmp/nonexistent"
head -c $(($(wc -c <"$new") - 100)) "$new" >"$tmp/cut.fxt"
expect_rc 1 "$TTV" --diff "$base" "$tmp/cut.fxt"
grep -q "^ttv: $tmp/cut.fxt: offset [0-9]*: " "$tmp/err" ||
    fail "damage message: $(head -2 "$tmp/err")"
grep -q " slower$" "$tmp/out" || fail "damaged: the rows read"
expect_rc 3 "$TTV" --diff "$base" --fail-above 50 "$tmp/cut.fxt"
expect_rc 1 "$TTV" --diff "$base" --strict "$tmp/cut.fxt"
[ -s "$tmp/out" ] && fail "--strict: printed rows"

# both traces load at once, but what each says comes in a stable order:
# the base's first; when the base cannot be used, nothing of the other
head -c $(($(wc -c <"$base") - 100)) "$base" >"$tmp/cutbase.fxt"
expect_rc 1 "$TTV" --diff "$tmp/cutbase.fxt" "$tmp/cut.fxt"
sed 's/: offset .*//' "$tmp/err" | tr '\n' ' ' |
    grep -q "^ttv: $tmp/cutbase.fxt ttv: $tmp/cut.fxt $" ||
    fail "both damaged, said: $(cat "$tmp/err")"
expect_rc 1 "$TTV" --diff "$tmp/nonexistent" "$tmp/nonexistent2"
[ "$(cat "$tmp/err")" = "ttv: $tmp/nonexistent: No such file or directory" ] ||
    fail "both unreadable, said: $(cat "$tmp/err")"
expect_rc 1 "$TTV" --diff "$tmp/cutbase.fxt" --strict "$tmp/nonexistent"
grep -q "nonexistent" "$tmp/err" && fail "base refused, said: $(cat "$tmp/err")"
[ "$(tail -1 "$tmp/err")" = "ttv: $tmp/cutbase.fxt: stopped at the first damage (--strict)" ] ||
    fail "base refused, said: $(cat "$tmp/err")"

# -o is never either input, under any name
cp "$base" "$tmp/keep.fxt"
ln "$tmp/keep.fxt" "$tmp/link.fxt"
expect_rc 1 "$TTV" --diff "$tmp/keep.fxt" -o "$tmp/link.fxt" "$new"
grep -q "output would overwrite the input" "$tmp/err" || fail "$(cat "$tmp/err")"
cmp -s "$base" "$tmp/keep.fxt" || fail "-o over the base: base changed"
expect_rc 1 "$TTV" --diff "$base" -o "$tmp/keep.fxt" "$tmp/link.fxt"
cmp -s "$base" "$tmp/keep.fxt" || fail "-o over the new trace: it changed"
expect_rc 1 "$TTV" --diff "$base" -o "$tmp/no/such/dir" "$new"

# a --match-strip pattern the regex budget cannot decide: 2, nothing
# written (1,000 names on which (a+)+$ backtracks 2^31 steps)
if command -v python3 >/dev/null 2>&1; then
	python3 "$TTV_SRCDIR/tests/gen/hostile.py" fxt-names "$tmp/costly.fxt" \
	    1000 30
	expect_rc 2 timeout 30 "$TTV" --diff "$tmp/costly.fxt" \
	    --match-strip '(a+)+$' "$tmp/costly.fxt"
	grep -q "^ttv: --match-strip regex '(a+)+\$' too costly: match limit of [0-9]* steps hit on string 1 of 1000" \
	    "$tmp/err" || fail "budget: $(cat "$tmp/err")"
	[ -s "$tmp/out" ] && fail "budget: printed rows"
	# within the budget: cut, and the names pair
	expect_rc 0 "$TTV" --diff "$tmp/costly.fxt" --match-strip 'a+' --tsv \
	    "$tmp/costly.fxt"
	grep -q "^!7	1	1	" "$tmp/out" || fail "cut names: $(sed -n 2p "$tmp/out")"
fi

[ $fails -eq 0 ] || exit 1
echo "PASS: --diff gate and command line"

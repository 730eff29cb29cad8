#!/bin/sh
# Spellings of the CoreProfiler TraceLog that the generated fixtures do not
# all cover, in one small log written here with its expected results
# worked out by hand from the format notes: the older one-string `fun nam`,
# IPs with and without 0x and `?`, a name with quotes, two-field `thr dst`,
# CRLF line ends, source-line records, an unknown record type, a JIT record
# naming the function by CLR id, a thread that samples without `thr crt`
# and claims frames it never pushed, and time going back on a thread.
: "${TTV:?}"
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not found"
	exit 77
fi
T=${TMPDIR:-/tmp}/ttv-cp-edges.$$
trap 'rm -f "$T.log" "$T.out"' EXIT INT TERM
printf '%s\n' \
'prf stm 2018-06-25 07:24:28.049' \
'prf cfg CollectionMethod Sampling' \
'thr crt 0xB3F00000 0x00000000' \
'thr aos 0x00000000 100' \
'fun nam 0x00000000 "A::Main" "void" "()"' \
'fun nam 0x00000001 "B::Work" "void" "()"' \
'fun nam 0x00000002 "C::Old"' \
'fun inf 0x00000003 0xB4000000 0xB3E00000 0xB3C00000 0x06000001 0xB5000000:0x40 0xfffffffe:0x0:0x10' \
'fun nam 0x00000003 "D::Jit "q" x" "void" "(System.Int32)"' \
'fil src 0x00000001 "/src/a.cs"' \
'jit cms 100 5 0xB4000000' \
'jit cmf 100 6 0xB4000000 0x00000000' \
'sam str 0x00000000 10 1 0:0 0x0:0xB5000010 0x1' \
'sam str 0x00000000 20 2 2:2:B5000020 0x2:00000000B5000030' \
'sam str 0x00000000 30 1 1:3:? 0x3' \
'xyz abc 1' \
'sam str 0x00000000 40 1 1:2' \
'sam str 0x00000001 10 1 2:2 0x1' \
'sam str 0x00000000 39 0 1:1' \
'thr dst 0xB3F00000 0x00000000' | sed 's/^\(sam str 0x00000000 30 .*\)$/\1\r/' > "$T.log"
fail=0
check() {	# what, got, want
	if [ "$2" != "$3" ]; then
		printf 'FAIL: %s\n--- got\n%s\n--- want\n%s\n' "$1" "$2" "$3"
		fail=1
	fi
}
got=$("$TTV" --export collapsed --per-thread "$T.log" 2>/dev/null | sort)
want=$(printf '%s\n' \
'thread 0x00000000;A::Main 1' \
'thread 0x00000000;A::Main;B::Work 1' \
'thread 0x00000000;A::Main;B::Work;C::Old 2' \
'thread 0x00000000;A::Main;D::Jit "q" x 1' \
'thread 0x00000001;B::Work 1' | sort)
check "collapsed stacks" "$got" "$want"

"$TTV" --info "$T.log" > "$T.out" 2>/dev/null
got=$(sed -n 's/^  \(thread 0x0000000[01]: .*\)$/\1/p' "$T.out")
want=$(printf '%s\n' \
'thread 0x00000000: os tid 100, clr 0xB3F00000, 5 sam str, 4 samples, weight 5 (0 on an empty stack), max depth 3, destroyed' \
'thread 0x00000001: os tid unknown, clr 0x0, 1 sam str, 1 samples, weight 1 (0 on an empty stack), max depth 1, no thr crt')
check "threads in --info" "$got" "$want"
got=$(sed -n 's/^  \(fil src\|unknown\|sam str\|fun nam\|jit cms\|malformed\): /\1=/p' "$T.out" | sort | tr '\n' ' ')
check "record counts" "$got" "fil src=1 fun nam=4 jit cms=1 sam str=6 unknown=1 "
got=$(grep -c '^  warning: line' "$T.out")
check "warnings (unknown type, frames never pushed, time back)" "$got" 3
grep -q '^  warning: line 18: sam str: thread 0x00000001 keeps 2 frames' "$T.out" ||
	{ echo "FAIL: no warning for frames never pushed"; fail=1; }
grep -q '^  warning: line 19: sam str: time goes back' "$T.out" ||
	{ echo "FAIL: no warning for time going back"; fail=1; }
grep -q '^errors: 0$' "$T.out" || { echo "FAIL: errors reported"; fail=1; }
want=$(python3 -c 'import calendar; print(calendar.timegm((2018,6,25,7,24,28)) * 10**9 + 49 * 10**6)')
grep -q "^wall clock origin: $want ns" "$T.out" ||
	{ echo "FAIL: wall clock origin is not $want"; fail=1; }
# The JIT interval, found through fun inf's CLR id, lasts 1 ms.
"$TTV" --stats "$T.log" 2>/dev/null | grep -q '1 *1.00 ms .*JIT D::Jit "q" x$' ||
	{ echo "FAIL: no 1 ms JIT slice for D::Jit"; "$TTV" --stats "$T.log"; fail=1; }
# A last line without its newline is not trusted: "sam str ... 4422 1 4:5"
# cut to "... 44" would be a record at another time. Damage: exit 1,
# "line N: ...", and the lines before it still read.
src="$TTV_SRCDIR/tests/data/coreprofiler/sampling.tracelog"
if [ -f "$src" ]; then
	n=$(wc -l <"$src")
	cp "$src" "$T.whole"
	# "thr cpu 0x00000000 4999 12628" cut to "... 12": a valid record.
	{ cat "$src"; printf 'thr cpu 0x00000000 4999 12'; } >"$T.cut"
	"$TTV" --info "$T.cut" >"$T.cut.out" 2>"$T.cut.err"
	[ $? -eq 1 ] || { echo "FAIL: a cut last line: not exit 1"; fail=1; }
	grep -q "line $((n + 1)): the last line has no newline" "$T.cut.err" ||
		{ echo "FAIL: cut last line: $(cat "$T.cut.err")"; fail=1; }
	"$TTV" --info "$T.whole" >"$T.whole.out" 2>/dev/null
	grep '^counter samples\|^  thr cpu\|cpu' "$T.whole.out" >"$T.w"
	grep '^counter samples\|^  thr cpu\|cpu' "$T.cut.out" >"$T.c"
	cmp -s "$T.w" "$T.c" ||
		{ echo "FAIL: the cut last line was read as a record"; fail=1; }
fi
exit $fail

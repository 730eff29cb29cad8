#!/bin/sh
# CoreProfiler fixtures made by the project's writer (tests/gen/cpgen.c):
# what ttv reads must equal what the writer simulated (collapsed stacks
# per thread, sample counts and depths, record counts, every damaged line
# reported), plus the wall-clock origin, pause markers and counter tracks.
: "${TTV:?}" "${TTV_SRCDIR:?}"
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not found"
	exit 77
fi
D=$TTV_SRCDIR/tests/data/coreprofiler
fail=0
for log in "$D"/*.tracelog; do
	python3 "$TTV_SRCDIR/tests/formats/coreprofiler/coreprofiler_conformance.py" "$TTV" "$log" \
	    "${log%.tracelog}.summary.json" || fail=1
done

# prf stm 2024-02-29 23:59:58.250 -03:30 is 2024-03-01 03:29:58.250 UTC.
want=$(python3 -c 'import calendar; print(calendar.timegm((2024,3,1,3,29,58)) * 10**9 + 250 * 10**6)')
info=$("$TTV" --info "$D/sampling.tracelog")
case $info in
*"wall clock origin: $want ns"*) ;;
*) echo "FAIL: wall clock origin is not $want"; fail=1 ;;
esac
# One pause and one resume marker per pause in the summary.
npause=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["pauses_ms"]))' "${D}/sampling.summary.json")
for kind in pause resume; do
	got=$(printf '%s\n' "$info" | sed -n "s/^  $kind: \([0-9]*\)$/\1/p")
	if [ "${got:-0}" != "$npause" ]; then
		echo "FAIL: $kind markers: ${got:-0}, expected $npause"
		fail=1
	fi
done
for name in '"process CPU %"' '"thread 0x00000000 CPU %"' \
    '"thread 0x00000000 allocated bytes"' '"GC heap bytes"' \
    '"thread 0x00000000 JIT/GC"'; do
	case $info in
	*"$name"*) ;;
	*) echo "FAIL: no track $name in --info"; fail=1 ;;
	esac
done
# Merged stacks are the per-thread ones summed (the thread frame dropped).
a=$("$TTV" --export collapsed "$D/sampling.tracelog" | sort)
b=$("$TTV" --export collapsed --per-thread "$D/sampling.tracelog" | python3 -c '
import sys, collections
acc = collections.Counter()
for line in sys.stdin:
    stack, _, w = line.rstrip("\n").rpartition(" ")
    acc[stack.partition(";")[2]] += int(w)
for k, v in acc.items():
    if k and v:
        print("%s %d" % (k, v))' | sort)
if [ "$a" != "$b" ]; then
	echo "FAIL: merged collapsed stacks differ from the per-thread sums"
	fail=1
fi
# Damage is an error: exit status 1, the rest still read.
"$TTV" --stats "$D/malformed.tracelog" >/dev/null 2>&1
if [ $? -ne 1 ]; then
	echo "FAIL: a damaged log does not exit with status 1"
	fail=1
fi
exit $fail

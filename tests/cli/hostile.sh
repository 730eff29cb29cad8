#!/bin/sh
# Crafted inputs that once made ttv take gigabytes or minutes, or give
# wrong numbers in silence, each written by the project's own generators
# (tests/gen/hostile.py, tests/gen/xraygen). Each run is held to the budget
# of the README and ttv(1): peak RSS <= 64 MiB + 16 x the input, and at
# most 10 s for inputs up to 10 MB; exit status and message checked too.
# Under AddressSanitizer the RSS part is reported, not enforced (its
# shadow memory is not ttv's).
set -u
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
. "$TTV_SRCDIR/tests/lib/budget.sh"
hostile="python3 $TTV_SRCDIR/tests/gen/hostile.py"

# 1. FXT: 10,000 bare provider records (80 KB) took 3.7 GiB and 10 s.
$hostile fxt-providers "$tmp/providers.fxt" 10000
budget "fxt providers" "$tmp/providers.fxt" 1 "more than 1024 providers" --info

# 4. FXT: 100,000 nested begins: kept to 512 levels, and said.
$hostile fxt-deep "$tmp/deep.fxt" 100000
budget "fxt deep" "$tmp/deep.fxt" 0 "99488 duration events nested deeper than 512 levels were dropped" --info

# 2. CTF: 10,000 event classes in one stream class (0.9 MB of metadata)
# took 400 MB, the square of the count.
$hostile ctf-classes "$tmp/classes" 10000
budget "ctf event classes" "$tmp/classes" 0 "" --info

# 3. CTF: a chain of 200,000 typealiases, each naming the last (5.8 MB):
# every look-up walked them all (20,000 took 2 s, the square of the count).
$hostile ctf-aliases "$tmp/aliases" 200000
budget "ctf typealias chain" "$tmp/aliases" 0 "" --info

# 4. A CoreProfiler line of 10^6 frames in 4 MB (~1.2 KB a frame once):
# deeper than the budget allows for its size, so damage: what fits kept.
$hostile cp-deep "$tmp/deep.tracelog" 1000000
budget "coreprofiler 10^6 frames in 4 MB" "$tmp/deep.tracelog" 1 \
    "deeper than the [0-9]+ the memory budget allows" --info
grep -Eq "^max depth: [1-9][0-9]{5}$" "$tmp/out" ||
    fail "coreprofiler deep: $(grep "max depth" "$tmp/out" | head -1)"

# 5. Folded stacks of a 100,000-deep XRay log: linear, not depth^2.
gen="$TTV_BUILDDIR/tests/gen/xraygen"
if [ -x "$gen" ]; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    "$gen" -s 65536 -N 20000 deep "$tmp/deep.xray"
	budget "xray deep, collapsed" "$tmp/deep.xray" 0 "folded" \
	    --export collapsed
	# 4. The same stack loaded: ~1.4 KB a level once, now ~0.17 KB.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    "$gen" -s 65536 -N 100000 deep "$tmp/deep100k.xray"
	budget "xray 100,000 deep" "$tmp/deep100k.xray" 0 "" --info
	# ... and the issue's own case: 10^6 nested calls in 8 MB (the
	# entries, the log cut before the exits): 1.15 GiB once.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    "$gen" -s 65536 -N 1000000 deep "$tmp/deep1m.xray"
	head -c 8100000 "$tmp/deep1m.xray" >"$tmp/deep8mb.xray"
	rm -f "$tmp/deep1m.xray"
	budget "xray 10^6 deep in 8 MB" "$tmp/deep8mb.xray" 1 \
	    "truncated log" --info
	grep -q "^max depth: 1000000$" "$tmp/out" ||
	    fail "xray 10^6 deep: $(grep depth "$tmp/out" | head -2)"
	# 12. Times past 2^63 ns: counted from the first, said.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    "$gen" -f 5678 -O 7200000000000000 full "$tmp/slow.xray"
	budget "xray 5678 Hz" "$tmp/slow.xray" 0 "times count from the first" --stats
fi

# 9. A trace that shrinks while it is read (TTV_TEST_SHRINK cuts it to
# half right after it is mapped): SIGBUS is caught, exit 1, said.
for f in "$TTV_SRCDIR/tests/data/fxt/full.fxt" "$tmp/deep.xray"; do
	[ -f "$f" ] || continue
	cp "$f" "$tmp/shrink"
	TTV_TEST_SHRINK=1 "$TTV" --stats "$tmp/shrink" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || fail "shrinking $(basename "$f"): exit $rc, want 1"
	grep -q "^ttv: $tmp/shrink: changed while being read" "$tmp/err" ||
	    fail "shrinking $(basename "$f"): $(cat "$tmp/err")"
done

# 12. The same in FXT: 5678 ticks a second, ticks near 7.2e15.
$hostile fxt-slow "$tmp/slow.fxt" 7
budget "fxt 5678 Hz" "$tmp/slow.fxt" 0 "times count from the first event" \
    --stats --tsv
grep -q "^f	7	6164140	" "$tmp/out" ||
    fail "fxt 5678 Hz: $(cat "$tmp/out")"

# 12. And in CTF: a clock 10^13 s past 1970 counts from its own origin,
# and a time past 2^63 ns even so is clamped, both said.
$hostile ctf-far-clock "$tmp/farclock" 3
budget "ctf far clock" "$tmp/farclock" 0 \
    "times count from the clock's origin" --info
grep -q "^  e: 4$" "$tmp/out" ||
    fail "ctf far clock: events lost: $(grep -A2 '^records' "$tmp/out")"
grep -q "1 timestamps out of the 64-bit ns range .* were clamped" "$tmp/err" ||
    fail "ctf far clock: no clamp said: $(cat "$tmp/err")"
grep -q "^time range: 0 \.\. " "$tmp/out" ||
    fail "ctf far clock: $(grep 'time range' "$tmp/out")"

# 7. A FIFO as the trace: refused at once.
if mkfifo "$tmp/fifo" 2>/dev/null; then
	budget "fifo" "$tmp/fifo" 1 "not a regular file \(a FIFO\)" --info
fi

finish "hostile inputs within the budget"

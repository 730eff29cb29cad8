#!/bin/sh
# Benchmark of the CTF reader: a large LTTng-UST-like cyg-profile trace
# (tests/gen/ctfgen: 8 threads on per-CPU streams, large event headers,
# vpid/vtid contexts, 1 MiB packets, function entries and exits only,
# events 1..CTF_BENCH_STEP ns apart as a busy instrumented program writes
# them, with now and then an idle gap past the header's range; an empty
# CTF_BENCH_STEP gives ctfgen's default times, milliseconds apart with
# gaps every 97 events, so most slices are seconds long),
# then in the same run, three times each, `ttv --stats` and `ttv --info`
# (decode + build the model, with and without the statistics), the
# decoder alone (tests/ctf_text_dump -c: every event decoded with all its
# values, nothing built) and `babeltrace2 -c sink.utils.dummy` (decode
# only) under /usr/bin/time -v:
# wall and CPU time, events/s, peak RSS against the trace size; then the
# medians and the ratios of babeltrace2's CPU and wall time to ttv's
# (issue 6's targets: >= 10x, and ttv --stats' peak RSS <= 1.5x the
# trace). The trace is deleted at the end.
#
#   TTV=./ttv CTFGEN=./tests/gen/ctfgen CTFDUMP=./tests/ctf_text_dump \
#       [CTF_BENCH_CALLS=N] [CTF_BENCH_RUNS=N] [CTF_BENCH_STEP=NS] \
#       sh bench/ctf.sh
set -u
TTV=${TTV:-./ttv}
CTFGEN=${CTFGEN:-./tests/gen/ctfgen}
CTFDUMP=${CTFDUMP:-./tests/ctf_text_dump}
CALLS=${CTF_BENCH_CALLS:-20000000}
RUNS=${CTF_BENCH_RUNS:-3}
STEP=${CTF_BENCH_STEP-2000}
for x in "$TTV" "$CTFGEN" "$CTFDUMP"; do
	if [ ! -x "$x" ]; then
		echo "bench/ctf.sh: $x not built (make check builds it)" >&2
		exit 1
	fi
done
if [ ! -x /usr/bin/time ]; then
	echo "bench/ctf.sh: needs /usr/bin/time (Debian package time)" >&2
	exit 1
fi
dir=$(mktemp -d "${CTF_BENCH_DIR:-/tmp}/ttv-bench-ctf.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM

"$CTFGEN" -n "$CALLS" -t 8 -S 0 -P 1048576 -s 3 ${STEP:+-T "$STEP"} \
    -e "$dir/expected" "$dir/trace" || exit 1
bytes=$(cat "$dir"/trace/* | wc -c)
events=$(awk '$1 == "events" { n += $3 } END { print n }' "$dir/expected")
cat "$dir"/trace/* > /dev/null
echo "trace: $bytes bytes, $events events ($CALLS calls, 8 threads," \
    "steps ${STEP:-as ctfgen sets them})"

# measure LABEL CMD...: one run; prints a line, leaves "cpu wall rss" in
# $dir/cpu
measure() {
	label=$1
	shift
	/usr/bin/time -v "$@" >/dev/null 2>"$dir/time" || {
		echo "$label: failed:"
		tail -5 "$dir/time"
		return 1
	}
	awk -v label="$label" -v events="$events" -v bytes="$bytes" \
	    -v out="$dir/cpu" '
	/Elapsed \(wall clock\)/ {
		n = split($NF, p, ":"); wall = 0
		for (i = 1; i <= n; i++) wall = wall * 60 + p[i]
	}
	/User time/ { user = $NF }
	/System time/ { sys = $NF }
	/Maximum resident set size/ { rss = $NF * 1024 }
	END {
		cpu = user + sys
		if (cpu < 0.01) cpu = 0.01	# the resolution of time -v
		if (wall < 0.01) wall = 0.01
		printf "%-12s wall %6.2f s  cpu %6.2f s  %6.1f M events/s  " \
		    "%5.0f MB/s  peak RSS %5.0f MB = %.2f x trace\n", label,
		    wall, cpu, events / cpu / 1e6, bytes / cpu / 1e6,
		    rss / 1e6, rss / bytes
		print cpu, wall, rss > out
	}' "$dir/time"
}

# median COLUMN < FILE
median() {
	awk -v c="$1" '{ print $c }' | sort -n |
	    awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

: > "$dir/ttv.cpu"
: > "$dir/info.cpu"
: > "$dir/bt.cpu"
: > "$dir/dec.cpu"
for _ in $(seq "$RUNS"); do
	measure "ttv --stats" "$TTV" --stats "$dir/trace" &&
	    cat "$dir/cpu" >> "$dir/ttv.cpu"
	measure "ttv --info" "$TTV" --info "$dir/trace" &&
	    cat "$dir/cpu" >> "$dir/info.cpu"
	measure "ttv decoder" "$CTFDUMP" -c "$dir/trace" &&
	    cat "$dir/cpu" >> "$dir/dec.cpu"
	if command -v babeltrace2 >/dev/null 2>&1; then
		measure "babeltrace2" babeltrace2 -c sink.utils.dummy \
		    "$dir/trace" && cat "$dir/cpu" >> "$dir/bt.cpu"
	fi
done
t=$(median 1 < "$dir/ttv.cpu")
tw=$(median 2 < "$dir/ttv.cpu")
tr=$(median 3 < "$dir/ttv.cpu")
i=$(median 1 < "$dir/info.cpu")
d=$(median 1 < "$dir/dec.cpu")
awk -v tr="$tr" -v bytes="$bytes" 'BEGIN {
	printf "ttv --stats peak RSS: %.2f x the trace (target <= 1.5x): %s\n",
	    tr / bytes, tr <= 1.5 * bytes ? "met" : "NOT met"
}'
if [ -s "$dir/bt.cpu" ]; then
	b=$(median 1 < "$dir/bt.cpu")
	bw=$(median 2 < "$dir/bt.cpu")
	awk -v t="$t" -v tw="$tw" -v i="$i" -v d="$d" -v b="$b" -v bw="$bw" \
	    -v events="$events" 'BEGIN {
		printf "median cpu: ttv --stats %.2f s, ttv --info %.2f s, " \
		    "decoder %.2f s, babeltrace2 %.2f s\n", t, i, d, b
		printf "median wall: ttv --stats %.2f s (%.1f M events/s), " \
		    "babeltrace2 %.2f s (%.1f M events/s)\n", tw,
		    events / tw / 1e6, bw, events / bw / 1e6
		printf "babeltrace2 / ttv, cpu: %.1fx (--stats), %.1fx " \
		    "(--info), %.1fx (decoding alone); wall: %.1fx (--stats); " \
		    "target >= 10x\n", b / t, b / i, b / d, bw / tw
	}'
else
	echo "babeltrace2 not installed: no comparison"
fi

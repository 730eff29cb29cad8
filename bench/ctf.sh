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
# decoder alone (tests/tools/ctf_text_dump -c: every event decoded with all its
# values, nothing built) and `babeltrace2 -c sink.utils.dummy` (decode
# only) under /usr/bin/time -v:
# wall and CPU time, events/s, peak RSS against the trace size; then the
# medians and the ratios of babeltrace2's CPU and wall time to ttv's
# (the README's targets: >= 10x, and ttv --stats' peak RSS <= 1.5x the
# trace). The same data streams with CTF 2 metadata (ctfgen -2: hard
# links to the streams beside a JSON metadata file) are read the same
# ways, interleaved with the 1.8 runs, and their medians compared with
# 1.8's (the README's target: the same events/s within 10 %; babeltrace2
# 2.0 does not read CTF 2). The traces are deleted at the end.
#
#   TTV=./ttv CTFGEN=./tests/gen/ctfgen CTFDUMP=./tests/tools/ctf_text_dump \
#       [CTF_BENCH_CALLS=N] [CTF_BENCH_RUNS=N] [CTF_BENCH_STEP=NS] \
#       sh bench/ctf.sh
set -u
TTV=${TTV:-./ttv}
CTFGEN=${CTFGEN:-./tests/gen/ctfgen}
CTFDUMP=${CTFDUMP:-./tests/tools/ctf_text_dump}
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
# the CTF 2 twin: its metadata (which only -2, -b and -c change) beside
# the same stream files
"$CTFGEN" -2 -n 1 -t 8 -S 0 -P 1048576 "$dir/meta2" > /dev/null || exit 1
mkdir "$dir/trace2" || exit 1
for f in "$dir"/trace/*; do
	[ "$(basename "$f")" = metadata ] || ln "$f" "$dir/trace2/" || exit 1
done
cp "$dir/meta2/metadata" "$dir/trace2/metadata" || exit 1

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
: > "$dir/ttv2.cpu"
: > "$dir/info2.cpu"
: > "$dir/dec2.cpu"
for _ in $(seq "$RUNS"); do
	measure "ttv --stats" "$TTV" --stats "$dir/trace" &&
	    cat "$dir/cpu" >> "$dir/ttv.cpu"
	measure "ttv --info" "$TTV" --info "$dir/trace" &&
	    cat "$dir/cpu" >> "$dir/info.cpu"
	measure "ttv decoder" "$CTFDUMP" -c "$dir/trace" &&
	    cat "$dir/cpu" >> "$dir/dec.cpu"
	measure "2: --stats" "$TTV" --stats "$dir/trace2" &&
	    cat "$dir/cpu" >> "$dir/ttv2.cpu"
	measure "2: --info" "$TTV" --info "$dir/trace2" &&
	    cat "$dir/cpu" >> "$dir/info2.cpu"
	measure "2: decoder" "$CTFDUMP" -c "$dir/trace2" &&
	    cat "$dir/cpu" >> "$dir/dec2.cpu"
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
iw=$(median 2 < "$dir/info.cpu")
dw=$(median 2 < "$dir/dec.cpu")
t2=$(median 1 < "$dir/ttv2.cpu")
i2=$(median 1 < "$dir/info2.cpu")
d2=$(median 1 < "$dir/dec2.cpu")
t2w=$(median 2 < "$dir/ttv2.cpu")
i2w=$(median 2 < "$dir/info2.cpu")
d2w=$(median 2 < "$dir/dec2.cpu")
# CPU time is what is compared: wall time on a shared machine is noise
awk -v t="$t" -v i="$i" -v d="$d" -v t2="$t2" -v i2="$i2" -v d2="$d2" \
    -v tw="$tw" -v iw="$iw" -v dw="$dw" -v t2w="$t2w" -v i2w="$i2w" \
    -v d2w="$d2w" -v events="$events" 'BEGIN {
	printf "median cpu, CTF 1.8 / CTF 2: --stats %.2f / %.2f s " \
	    "(%.1f / %.1f M events/s), --info %.2f / %.2f s, decoder " \
	    "%.2f / %.2f s\n", t, t2, events / t / 1e6, events / t2 / 1e6,
	    i, i2, d, d2
	printf "median wall, CTF 1.8 / CTF 2: --stats %.2f / %.2f s, " \
	    "--info %.2f / %.2f s, decoder %.2f / %.2f s\n", tw, t2w, iw,
	    i2w, dw, d2w
	worst = 0
	split(t " " i " " d, a, " ")
	split(t2 " " i2 " " d2, b, " ")
	for (k = 1; k <= 3; k++) {
		r = b[k] / a[k] - 1
		if (r > worst)
			worst = r
	}
	printf "CTF 2 against 1.8, cpu: at most %.1f %% slower (target: " \
	    "the same events/s within 10 %%): %s\n", worst * 100,
	    worst <= 0.10 ? "met" : "NOT met"
}'
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

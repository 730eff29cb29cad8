#!/bin/sh
# Benchmark of the FXT reader: `ttv --stats` (and `ttv --info`) on a ~1 GB
# trace from the project's writer (tests/gen/fxtgen -B: 8 threads, rounds
# of begin, begin, complete, end, end, instant and counter events, indexed
# strings and threads). Three runs of each; prints, per run, wall time,
# CPU time (user + sys: the machines are shared, wall time is noisy),
# GB/s, records/s and peak RSS against the file size, then the median.
# The file goes to $FXT_BENCH_DIR (default /tmp) and is deleted at the end.
#
#   TTV=./ttv FXTGEN=./tests/gen/fxtgen [FXT_BENCH_BYTES=N] bench/fxt.sh
#   (or: make bench-fxt)
#
# Results (2 cores, shared: wall time needs the second core free; CPU time
# is user + sys of both threads), 1073865144 bytes, 55272471 records:
#                          wall     cpu    GB/s   M rec/s  peak RSS
#  serial event pass
#   --stats               1.90 s   1.73 s   0.57    29.1    1.04 x file
#   --info                1.52 s   1.48 s   0.71    36.4    1.04 x file
#  replay worker (formats/fxt/fxt_pipe.c)
#   --stats               1.33 s   1.95 s   0.81    41.6    1.04 x file
#   --info                1.04 s   1.65 s   1.03    53.1    1.04 x file
# (medians; with the other core busy the worker costs ~10% more CPU and
# wall time follows CPU time: --stats ~2.9 s). Of --stats' critical path,
# ~0.25 s is the scan pass, ~0.3 s the statistics query after the load.
#
# Later, with the machine slower (busier: the build before ran --info in
# 1.39 s, not 1.04 s), each run alternating with that build (main at
# bb24230, which already had the builder's streaming stores and the
# threaded statistics), five of each, started when both CPUs were idle:
#                          wall     cpu    GB/s   M rec/s  peak RSS
#  before (bb24230)
#   --stats               1.72 s   2.52 s   0.62    32.1    1.04 x file
#   --info                1.39 s   2.03 s   0.77    39.8    1.04 x file
#  scan split in two halves (fxt_half.c), fast paths for the common
#  records, open slices kept by the reader and given whole, ring tuned
#   --stats               0.94 s   1.59 s   1.14    58.8    1.04 x file
#   --info                0.95 s   1.57 s   1.13    58.2    1.04 x file
# Of --info's 0.95 s: ~0.2 s the two halves of the scan, ~0.6 s the event
# pass (reading thread and replay worker, ~0.6 s of CPU each), ~0.15 s
# after the load (--info's per-slice flag counts, freeing the model).
set -u
TTV=${TTV:-./ttv}
FXTGEN=${FXTGEN:-./tests/gen/fxtgen}
BYTES=${FXT_BENCH_BYTES:-1073741824}
RUNS=${FXT_BENCH_RUNS:-3}
dir=$(mktemp -d "${FXT_BENCH_DIR:-/tmp}/ttv-bench-fxt.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM

if [ ! -x /usr/bin/time ]; then
	echo "bench/fxt.sh: needs /usr/bin/time (Debian package time)" >&2
	exit 1
fi

# measure LABEL FILE RECORDS CMD...: one run under /usr/bin/time -v
measure() {
	label=$1 file=$2 records=$3
	shift 3
	/usr/bin/time -v "$@" >/dev/null 2>"$dir/time" || {
		echo "$label: failed (exit $?):"
		grep -v "^	" "$dir/time" | tail -5
		return 1
	}
	awk -v label="$label" -v records="$records" \
	    -v bytes="$(wc -c <"$file")" '
	/Elapsed \(wall clock\)/ {
		n = split($NF, p, ":"); wall = 0
		for (i = 1; i <= n; i++) wall = wall * 60 + p[i]
	}
	/User time/ { user = $NF }
	/System time/ { sys = $NF }
	/Maximum resident set size/ { rss = $NF * 1024 }
	END {
		if (wall <= 0) wall = 0.01
		printf "%-18s %6.2f s wall %6.2f s cpu %5.2f GB/s %6.1f M records/s  peak RSS %5.0f MB (%.2f x file)\n",
		    label, wall, user + sys, bytes / wall / 1e9,
		    records / wall / 1e6, rss / 1048576, rss / bytes
		print wall >> "'"$dir"'/walls"
	}' "$dir/time"
}

median() {
	sort -n "$dir/walls" | awk '{ v[NR] = $1 } END {
	    printf "median wall %.2f s = %.2f GB/s\n", v[int((NR + 1) / 2)],
	    '"$size"' / v[int((NR + 1) / 2)] / 1e9 }'
	rm -f "$dir/walls"
}

trace="$dir/bench.fxt"
out=$("$FXTGEN" -B "$BYTES" "$trace") || exit 1
size=$(wc -c <"$trace")
nrec=$(echo "$out" | awk '{ print $3 }')
echo "== $size bytes, $nrec records (tests/gen/fxtgen -B)"
i=0
while [ $i -lt "$RUNS" ]; do
	measure "ttv --stats" "$trace" "$nrec" "$TTV" --stats "$trace"
	i=$((i + 1))
done
median
i=0
while [ $i -lt "$RUNS" ]; do
	measure "ttv --info" "$trace" "$nrec" "$TTV" --info "$trace"
	i=$((i + 1))
done
median
rm -f "$trace"

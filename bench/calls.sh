#!/bin/sh
# Benchmark of the call queries on the 1 GB XRay benchmark log
# (tests/gen/xraygen -B, 66.8 M slices, 4 threads, 28 functions):
#  1. the queries alone, loaded once (bench/calls_timing): the instances
#     of three functions with 11.4 M calls between them, listed and sorted
#     slowest first; their butterfly; the call tree of the whole trace and
#     of a 1 % range; the statistics of that range. Median, minimum and
#     first of RUNS runs, and a digest of each answer;
#  2. the batch modes, whole runs (load included) under /usr/bin/time -v:
#     wall time and peak RSS.
# Targets (README): instances of 10 M calls < 300 ms, call tree < 1.5 s
# (1 % range < 50 ms), butterfly < 300 ms.
#
#   TTV=./ttv XRAYGEN=./tests/gen/xraygen CALLS_TIMING=./bench/calls_timing \
#       [CALLS_BENCH_BYTES=N] [RUNS=5] bench/calls.sh
set -u
TTV=${TTV:-./ttv}
XRAYGEN=${XRAYGEN:-./tests/gen/xraygen}
CALLS_TIMING=${CALLS_TIMING:-./bench/calls_timing}
BYTES=${CALLS_BENCH_BYTES:-1073741824}
RUNS=${RUNS:-5}
# #1, #5 and #9: the outermost calls of three of the writer's seven call
# groups; #5 is called from the root and calls #6
REGEX='^#(1|5|9)$'
FUNC='#6'
dir=$(mktemp -d "${CALLS_BENCH_DIR:-/tmp}/ttv-bench-calls.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM

for p in "$TTV" "$XRAYGEN" "$CALLS_TIMING"; do
	if [ ! -x "$p" ]; then
		echo "bench/calls.sh: $p not built (make $p)" >&2
		exit 1
	fi
done
if [ ! -x /usr/bin/time ]; then
	echo "bench/calls.sh: needs /usr/bin/time (Debian package time)" >&2
	exit 1
fi

log="$dir/big.fdr"
nrec=$("$XRAYGEN" -B "$BYTES" "$log") || exit 1
echo "== $(wc -c <"$log") bytes, $nrec function records (tests/gen/xraygen -B)"
sync
"$TTV" --info "$log" >/dev/null 2>&1	# warm the page cache

echo
echo "== the queries alone ($RUNS runs; range: 1 % of the trace)"
"$CALLS_TIMING" "$log" "$REGEX" "$RUNS" 1

# measure LABEL CMD...: one whole run under /usr/bin/time -v
measure() {
	label=$1
	shift
	/usr/bin/time -v -o "$dir/time" "$@" >"$dir/out" 2>/dev/null
	if ! grep -q "Exit status: 0$" "$dir/time"; then
		echo "$label: failed ($(grep "Exit status" "$dir/time"))"
		return 1
	fi
	awk -v label="$label" -v lines="$(wc -l <"$dir/out")" '
	/Elapsed \(wall clock\)/ {
		n = split($NF, p, ":"); wall = 0
		for (i = 1; i <= n; i++) wall = wall * 60 + p[i]
	}
	/Maximum resident set size/ { rss = $NF / 1024 }
	END {
		printf "%-44s %7.2f s  peak RSS %6.0f MB  %9d lines\n",
		    label, wall, rss, lines
	}' "$dir/time"
}

# ns from the start of the middle 1 % of the trace
range=$("$TTV" --info "$log" 2>/dev/null | awk '/^time range: / {
	len = $5 - $3; a = int(len / 2); printf "%d..%d", a, a + int(len / 100) }')

echo
echo "== the batch modes, whole runs (load included)"
measure "ttv --info" "$TTV" --info "$log"
measure "ttv --calls '$REGEX' --tsv" "$TTV" --calls "$REGEX" --tsv "$log"
measure "ttv --callers '$FUNC' --tsv" "$TTV" --callers "$FUNC" --tsv "$log"
measure "ttv --callees '$FUNC' --tsv" "$TTV" --callees "$FUNC" --tsv "$log"
measure "ttv --tree --tsv" "$TTV" --tree --tsv "$log"
measure "ttv --tree --tsv --range (1 %)" "$TTV" --tree --tsv --range "$range" "$log"
measure "ttv --stats --tsv --range (1 %)" "$TTV" --stats --tsv --range "$range" "$log"

#!/bin/sh
# Benchmark of the CoreProfiler TraceLog reader: writes a ~1 GB sampling log
# with the project's writer (tests/gen/cpgen) in /tmp, then times
# `ttv --stats` on it with /usr/bin/time -v (five runs: take the median;
# the file is read once before, so the page cache is warm) and prints
# MB/s, wall and CPU time and peak RSS against the targets (>= 300 MB/s,
# peak RSS <= 1.5 x file size).
# The file is deleted at the end.
#   TTV=./ttv CPGEN=tests/gen/cpgen sh bench/coreprofiler.sh [LINES]
set -e
: "${TTV:?set TTV to the ttv binary}" "${CPGEN:?set CPGEN to tests/gen/cpgen}"
LINES=${1:-24000000}
LOG=${TMPDIR:-/tmp}/ttv-bench-coreprofiler.$$.log
trap 'rm -f "$LOG" "$LOG.time"' EXIT INT TERM
"$CPGEN" --seed 5 --lines "$LINES" --threads 8 --summary none --out "$LOG"
size=$(wc -c < "$LOG")
cat "$LOG" > /dev/null
echo "file: $size bytes ($LINES lines, 8 threads, sampling)"
for run in 1 2 3 4 5; do
	/usr/bin/time -v "$TTV" --stats "$LOG" > /dev/null 2> "$LOG.time"
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$LOG.time")
	user=$(sed -n 's/.*User time (seconds): //p' "$LOG.time")
	sys=$(sed -n 's/.*System time (seconds): //p' "$LOG.time")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$LOG.time")
	awk -v size="$size" -v wall="$wall" -v rss="$rss" -v run="$run" \
	    -v user="$user" -v sys="$sys" 'BEGIN {
		n = split(wall, p, ":"); s = 0
		for (i = 1; i <= n; i++) s = s * 60 + p[i]
		printf "run %d: wall %.2f s, %.0f MB/s (target >= 300); cpu %.2f s user + %.2f s sys; peak RSS %.0f MB = %.2f x file (target <= 1.5)\n", run, s, size / 1e6 / s, user, sys, rss / 1024, rss * 1024 / size
	}'
done

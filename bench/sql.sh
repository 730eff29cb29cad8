#!/bin/sh
# Benchmark of SQL over a trace (--query), on a synthetic FDR v5 log from
# the project's writer (tests/gen/xraygen -B, as bench/xray.sh):
#  1. whole runs, alternating, RUNS times each: `ttv --stats` and
#     `ttv --query "SELECT name, COUNT(*), SUM(dur) FROM slice GROUP BY
#     name"`: wall and CPU time, peak RSS; the median ratio of the query
#     to --stats (target: <= 5) and its peak RSS over --stats' (the model
#     and the file's pages: target <= 10 % of the model more);
#  2. queries timed alone on the loaded trace (bench/sql_timing): a 1 %
#     time window (target < 50 ms), name = 'x' for the rarest and the
#     commonest function (time proportional to the calls), an id lookup,
#     the GROUP BY.
# The log goes to $SQL_BENCH_DIR (default /tmp) and is deleted at the end.
#
#   TTV=./ttv XRAYGEN=./tests/gen/xraygen SQL_TIMING=./bench/sql_timing \
#       [SQL_BENCH_BYTES=N] [SQL_BENCH_RUNS=N] bench/sql.sh
#   (make bench/sql_timing first)
set -u
TTV=${TTV:-./ttv}
XRAYGEN=${XRAYGEN:-./tests/gen/xraygen}
TIMING=${SQL_TIMING:-./bench/sql_timing}
BYTES=${SQL_BENCH_BYTES:-1073741824}
RUNS=${SQL_BENCH_RUNS:-3}
dir=$(mktemp -d "${SQL_BENCH_DIR:-/tmp}/ttv-bench-sql.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM
for p in /usr/bin/time "$TIMING" "$XRAYGEN" "$TTV"; do
	if [ ! -x "$p" ]; then
		echo "bench/sql.sh: $p not found" >&2
		exit 1
	fi
done

GROUP="SELECT name, COUNT(*), SUM(dur) FROM slice GROUP BY name"
log="$dir/synth.fdr"
nrec=$("$XRAYGEN" -B "$BYTES" "$log") || exit 1
echo "== $(wc -c <"$log") bytes, $nrec function records (tests/gen/xraygen -B)"
"$TTV" --info "$log" | grep -E "^(slices|functions|model memory):"
model=$("$TTV" --info "$log" | awk '/^model memory:/ { print $3 }')
sync
"$TTV" --stats "$log" >/dev/null

# one LABEL CMD...: wall, cpu and peak RSS (KB) of a run, appended to
# $dir/LABEL
one() {
	label=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$dir/t" "$@" >/dev/null 2>&1 ||
	    { echo "$label: failed"; return 1; }
	awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }' "$dir/t" \
	    >>"$dir/$label"
	awk -v l="$label" '{ printf "  %-8s %6.2f s wall %6.2f s cpu  peak RSS %5.0f MB\n",
	    l, $1, $2 + $3, $4 / 1024 }' "$dir/t"
}
echo "-- whole runs (alternating)"
for r in $(seq "$RUNS"); do
	one stats "$TTV" --stats "$log"
	one query "$TTV" --query "$GROUP" "$log"
done
median() {	# FILE COLUMN
	sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c }
	    END { print v[int((NR + 1) / 2)] }'
}
awk -v sw="$(median "$dir/stats" 1)" -v qw="$(median "$dir/query" 1)" \
    -v sc="$(median "$dir/stats" 2)" -v qc="$(median "$dir/query" 2)" \
    -v sr="$(median "$dir/stats" 3)" -v qr="$(median "$dir/query" 3)" \
    -v m="$model" 'BEGIN {
	printf "medians: --stats %.2f s wall %.2f s cpu %.0f MB; GROUP BY %.2f s wall %.2f s cpu %.0f MB\n",
	    sw, sc, sr / 1024, qw, qc, qr / 1024
	printf "GROUP BY / --stats: %.2f x wall, %.2f x cpu (target <= 5)\n",
	    qw / sw, qc / sc
	printf "peak RSS over --stats: %+.0f MB = %+.1f %% of the model (%.0f MB; target <= 10 %%)\n",
	    (qr - sr) / 1024, (qr - sr) * 1024 * 100 / m, m / 1048576
}'

echo "-- queries alone (first run, then the median of 5)"
rare=$("$TTV" --tsv --query "SELECT name FROM slice GROUP BY name ORDER BY COUNT(*) LIMIT 1" "$log" | tail -1)
common=$("$TTV" --tsv --query "SELECT name FROM slice GROUP BY name ORDER BY COUNT(*) DESC LIMIT 1" "$log" | tail -1)
"$TIMING" "$log" 5 \
    "SELECT COUNT(*), SUM(dur) FROM slice WHERE ts BETWEEN (SELECT start_ts + (end_ts - start_ts) / 2 FROM trace_bounds) AND (SELECT start_ts + (end_ts - start_ts) / 2 + (end_ts - start_ts) / 100 FROM trace_bounds)" \
    "SELECT ts, dur, name FROM slice WHERE ts BETWEEN (SELECT start_ts + (end_ts - start_ts) / 2 FROM trace_bounds) AND (SELECT start_ts + (end_ts - start_ts) / 2 + (end_ts - start_ts) / 100 FROM trace_bounds)" \
    "SELECT COUNT(*), SUM(dur) FROM slice WHERE name = '$rare'" \
    "SELECT COUNT(*), SUM(dur) FROM slice WHERE name = '$common'" \
    "SELECT * FROM slice WHERE id = 12345678" \
    "SELECT COUNT(*) FROM slice" \
    "$GROUP"

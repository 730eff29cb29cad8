#!/bin/sh
# Writes what ttv answers about every trace it can find into OUTDIR, so two
# builds can be compared byte for byte (a change that should not change
# behaviour, such as moving code):
#   TTV=build/ttv sh tests/tools/outputs.sh OUTDIR
#   diff -r OUTDIR-before OUTDIR-after
# For each trace of $TTV_SHARED/traces (files, and CTF trace directories)
# and of tests/data: --info, --stats --tsv, --export chrome-json,
# --export collapsed, --tree --tsv and --query (every SQL table, whole
# and through its planned lookups), each with its exit status and stderr.
set -u
: "${TTV:?}"
out=${1:?usage: outputs.sh OUTDIR}
src=$(cd "$(dirname "$0")/../.." && pwd)
shared=${TTV_SHARED:-$src/../shared}
mkdir -p "$out"

. "$src/tests/lib/traces.sh"
list() { trace_list "$shared/traces" "$src/tests/data"; }

# Every table and view, and a lookup through each column the tables
# answer without a scan (the tables' own plans against SQLite's checks).
sql=''
for t in slice sched thread process track thread_track \
    process_track counter_track cpu_track counter flow args trace_bounds \
    marker log metadata; do
	sql="$sql SELECT * FROM $t; SELECT * FROM pragma_table_info('$t');"
done
sql="$sql
SELECT COUNT(*), SUM(dur), MIN(id) FROM slice WHERE id = 3 OR parent_id = 3
    OR track_id = 1 OR depth = 2;
SELECT name, COUNT(*), SUM(dur) FROM slice GROUP BY name;
SELECT id, name FROM slice ORDER BY name DESC, id;
SELECT id FROM slice WHERE ts BETWEEN (SELECT start_ts + 1000 FROM trace_bounds)
    AND (SELECT (start_ts + end_ts) / 2 FROM trace_bounds);
SELECT * FROM slice WHERE name = (SELECT name FROM slice ORDER BY id LIMIT 1);
SELECT * FROM thread WHERE utid = 0; SELECT * FROM process WHERE upid = 0;
SELECT * FROM thread_track WHERE utid = 1; SELECT * FROM counter WHERE track_id = 0;
SELECT * FROM args WHERE arg_set_id = 1; SELECT * FROM sched WHERE id = 2;
SELECT * FROM marker WHERE ts > (SELECT start_ts FROM trace_bounds);
SELECT * FROM log WHERE ts < (SELECT end_ts FROM trace_bounds);"

n=0
list | while read -r t; do
	name=$(echo "$t" | sed "s|^$shared/||; s|^$src/||; s|/|__|g")
	for mode in info stats chrome collapsed tree sql; do
		case $mode in
		info) set -- --info ;;
		stats) set -- --stats --tsv ;;
		chrome) set -- --export chrome-json ;;
		collapsed) set -- --export collapsed ;;
		tree) set -- --tree --tsv ;;
		sql) set -- --tsv --query "$sql" ;;
		esac
		"$TTV" "$@" "$t" >"$out/$name.$mode" 2>"$out/$name.$mode.err"
		echo "exit $?" >>"$out/$name.$mode.err"
	done
	n=$((n + 1))
	echo "$n" >"$out/.count"
done
echo "$(cat "$out/.count" 2>/dev/null || echo 0) traces, 6 outputs each, in $out"

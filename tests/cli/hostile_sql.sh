#!/bin/sh
# Hostile queries, held to the README's budget like hostile inputs (peak
# RSS <= 64 MiB + 16 x the trace, at most 10 s): SQL that sorts or stores
# without end stops at SQLite's memory limit, a huge cell neither aborts
# ttv nor takes minutes to print, Ctrl-C stops a statement being prepared
# and a cell being printed, and --query-file reads regular files only.
# The trace (130 KB) is written by the project's own xraygen.
set -u
. "$TTV_SRCDIR/tests/lib/budget.sh"
gen="$TTV_BUILDDIR/tests/gen/xraygen"
[ -x "$gen" ] || { echo "SKIP: no tests/gen/xraygen"; exit 77; }
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    "$gen" -B 125000 "$tmp/t.xray" >/dev/null
T=$tmp/t.xray
oom="^ttv: query: out of memory \(limit [0-9]+ MiB; raise it with TTV_SQL_MEMORY=MIB\)$"

# 1. No memory limit: ORDER BY over an endless recursive CTE (111 bytes)
# grew ~110 MiB/s; so did a temporary table filled by one.
budget "sql: ORDER BY without end" "$T" 2 "$oom" --query \
    "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT n FROM c ORDER BY n"
budget "sql: temp table without end" "$T" 2 "$oom" --query \
    "CREATE TEMP TABLE t AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT n FROM c"
# the limit is the user's to raise (or lower), in MiB
TTV_SQL_MEMORY=20 timeout 30 "$TTV" --query "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL
    SELECT n + 1 FROM c) SELECT n FROM c ORDER BY n" "$T" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "out of memory (limit 20 MiB;" "$tmp/err" ||
    fail "TTV_SQL_MEMORY=20: exit $rc, $(cat "$tmp/err")"
TTV_SQL_MEMORY=lots timeout 30 "$TTV" --query "SELECT 1" "$T" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "^ttv: TTV_SQL_MEMORY must be a number of MiB" "$tmp/err" ||
    fail "TTV_SQL_MEMORY=lots: exit $rc, $(cat "$tmp/err")"

# 2. A huge cell: printf of 999,999,000 characters aborted ttv (exit 134,
# "out of memory"); now SQLite's limit refuses it.
timeout 30 "$TTV" --query "SELECT printf('%.*c', 999999000, 'x')" "$T" \
    >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -Eq "$oom" "$tmp/err" ||
    fail "printf of 999999000: exit $rc, $(head -c 300 "$tmp/err")"
budget "sql: zeroblob(999999999) in a table" "$T" 2 "$oom" --query \
    "SELECT zeroblob(999999999) AS b"
# 1,000 cells of 1 MB took 43 s and 963 MiB as a table: a table shows a
# cell's first 4 KiB and its length...
q1m="WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c LIMIT 1000)
    SELECT n, printf('%.*c', 1000000, 'x') AS big FROM c"
budget "sql: 1,000 cells of 1 MB, table" "$T" 0 "" --query "$q1m"
[ "$(grep -c '^ *[0-9]*  x\{4096\}\.\.\. (1000000 bytes)$' "$tmp/out")" = 1000 ] ||
    fail "table of 1 MB cells: $(head -c 200 "$tmp/out")"
[ "$(wc -c <"$tmp/out")" -lt 5000000 ] ||
    fail "table of 1 MB cells: $(wc -c <"$tmp/out") bytes"
# ... TSV, CSV and JSON every byte, streamed
q10m="WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c LIMIT 10)
    SELECT n, printf('%.*c', 1000000, 'x') AS big FROM c"
for fmt in --tsv --csv --json; do
	budget "sql: 10 cells of 1 MB, $fmt" "$T" 0 "" $fmt --query "$q10m"
	n=$(tr -cd x <"$tmp/out" | wc -c)
	[ "$n" -eq 10000000 ] || fail "$fmt: $n x of 10000000"
done
# a blob cut in a table; whole, in hex, in TSV
"$TTV" --query "SELECT zeroblob(5000) AS b" "$T" >"$tmp/out" 2>&1
grep -q "^X'0\{4096\}\.\.\.' (5000 bytes)$" "$tmp/out" ||
    fail "blob in a table: $(head -c 200 "$tmp/out")"
"$TTV" --tsv --query "SELECT zeroblob(5000) AS b" "$T" >"$tmp/out" 2>&1
grep -q "^X'0\{10000\}'$" "$tmp/out" || fail "blob in TSV: $(head -c 200 "$tmp/out")"
# a NUL inside text: kept, escaped, in every format
for fmt in "" --tsv --csv; do
	out=$("$TTV" $fmt --query "SELECT 'a' || char(0) || 'b' AS s" "$T" | tail -1)
	[ "$out" = 'a\x00b' ] || fail "NUL in text with '$fmt': '$out'"
done
out=$("$TTV" --json --query "SELECT 'a' || char(0) || 'b' AS s" "$T")
[ "$out" = '[{"s":"a\u0000b"}]' ] || fail "NUL in JSON: '$out'"

# 3. Ctrl-C: SIGINT after a short while; ttv must end with 130 within a
# few seconds. Waits for pid $1 at most 5 s.
stopped() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -KILL "$1"
		wait "$1"
		fail "$2: Ctrl-C did not stop it within 5 s"
		return
	fi
	wait "$1"
	rc=$?
	[ $rc -eq 130 ] || fail "$2: exit $rc after Ctrl-C, want 130"
	grep -q "^ttv: query interrupted$" "$tmp/err" ||
	    fail "$2: $(head -c 300 "$tmp/err")"
}
# a statement of 100,000 unused CTEs (2.5 MB): 30-71 s to prepare, and
# Ctrl-C ignored all along
awk 'BEGIN { printf "WITH c0(x) AS (SELECT 1)";
    for (i = 1; i < 100000; i++) printf ", c%d(x) AS (SELECT 1)", i;
    print " SELECT 1;" }' >"$tmp/ctes.sql"
"$TTV" --query-file "$tmp/ctes.sql" "$T" >/dev/null 2>"$tmp/err" &
pid=$!
sleep 1
kill -INT $pid
stopped $pid "prepare of 100,000 CTEs"
# a cell printed to a reader that stopped reading: the write never
# returned, whatever the flag said
if mkfifo "$tmp/pipe" 2>/dev/null; then
	exec 3<>"$tmp/pipe"
	"$TTV" --tsv --query "SELECT zeroblob(10000000)" "$T" >"$tmp/pipe" \
	    2>"$tmp/err" &
	pid=$!
	sleep 1
	kill -INT $pid
	stopped $pid "a cell to a stalled reader"
	exec 3<&-
fi

# 4. --query-file on a FIFO blocked for ever; /dev/zero and /dev/urandom
# were read to 64 MiB. Only regular files are read.
if mkfifo "$tmp/q.fifo" 2>/dev/null; then
	budget "sql: --query-file FIFO" "$T" 2 \
	    "^ttv: $tmp/q.fifo: not a regular file \(a FIFO\): only files are read$" \
	    --query-file "$tmp/q.fifo"
fi
for dev in /dev/zero /dev/urandom; do
	[ -c "$dev" ] || continue
	budget "sql: --query-file $dev" "$T" 2 \
	    "^ttv: $dev: not a regular file \(a character device\)" \
	    --query-file "$dev"
done
budget "sql: --query-file directory" "$T" 2 \
    "^ttv: $tmp: not a regular file \(a directory\)" --query-file "$tmp"

finish "hostile queries within the budget"

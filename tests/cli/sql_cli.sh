#!/bin/sh
# --query on the command line: containment (ATTACH, VACUUM INTO,
# load_extension, pragmas that set something and virtual tables are
# refused, and no file appears, temporary tables included), views over the
# tables, constraints by SQLite's type rules, INCLUDE PERFETTO MODULE,
# errors with their place
# (exit 2), the output formats, escaping of control characters, Ctrl-C
# (exit 130).
: "${TTV:?}" "${TTV_SRCDIR:?}"
T=$TTV_SRCDIR/tests/data/xray/fdr-v5-le.xray
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-sql-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# refused: exit 2, SQLite's refusal on stderr, nothing written anywhere
# in the directory (the statements run from inside it, with relative and
# absolute names)
mkdir "$tmp/box"
for q in "ATTACH 'a.db' AS a" "ATTACH '$tmp/box/b.db' AS b" \
    "ATTACH 'file:c.db?mode=rwc' AS c" "VACUUM INTO 'v.db'" \
    "VACUUM INTO '$tmp/box/w.db'" "SELECT load_extension('$tmp/box/x')" \
    "PRAGMA journal_mode = WAL" "PRAGMA temp_store = FILE" \
    "PRAGMA temp_store_directory = '$tmp/box'" "PRAGMA writable_schema = 1" \
    "PRAGMA main.page_size = 512" "PRAGMA cache_size = 1" \
    "CREATE VIRTUAL TABLE temp.v USING fts5(a)" \
    "CREATE VIRTUAL TABLE temp.r USING rtree(id, a, b)" \
    "SELECT 1; ATTACH 'late.db' AS l" \
    "DROP TABLE slice" "DELETE FROM slice" "INSERT INTO thread(utid) VALUES (1)"; do
	(cd "$tmp/box" && "$TTV" --query "$q" "$T" >"$tmp/out" 2>"$tmp/err")
	rc=$?
	[ $rc -eq 2 ] || fail "'$q': exit $rc, want 2"
	grep -q "^ttv: query: " "$tmp/err" || fail "'$q': no message: $(cat "$tmp/err")"
done
[ -z "$(ls -A "$tmp/box")" ] || fail "files appeared: $(ls -A "$tmp/box")"

# allowed: reading pragmas and the schema, temporary tables and views
out=$("$TTV" --tsv --query "CREATE TEMP TABLE n AS SELECT name FROM slice;
    CREATE TEMP VIEW v AS SELECT COUNT(*) AS c FROM n; SELECT c FROM v;
    PRAGMA temp_store; SELECT COUNT(*) FROM pragma_table_info('slice')" "$T" 2>&1)
want=$(printf 'c\n%s\n\ntemp_store\n2\n\nCOUNT(*)\n13' \
    "$("$TTV" --tsv --query "SELECT COUNT(*) FROM slice" "$T" | tail -1)")
[ "$out" = "$want" ] || fail "temp tables: got '$out', want '$want'"

# views over the tables in the main schema, and the documented slices
# view: the tables are innocuous, so a schema that is not trusted may use
# them (they said "unsafe use of virtual table")
n=$("$TTV" --tsv --query "SELECT COUNT(*) FROM slice" "$T" | tail -1)
out=$("$TTV" --tsv --query "CREATE VIEW v AS SELECT * FROM slice;
    SELECT COUNT(*) FROM v; SELECT COUNT(*) FROM slices" "$T" 2>&1)
want=$(printf 'COUNT(*)\n%s\n\nCOUNT(*)\n%s' "$n" "$n")
[ "$out" = "$want" ] || fail "views: got '$out', want '$want'"

# temporary tables, views, sorts and indexes stay in memory: nothing
# appears in the temporary directories, and (where strace runs) SQLite
# opens no temporary file ("etilqs_...") at all; the tables are bigger
# than the budget of a small trace gives SQLite, so it is raised
big="CREATE TEMP TABLE big AS SELECT a.*, printf('%.200c', 'x') AS pad
    FROM slice a, slice b, slice c LIMIT 200000;
    CREATE INDEX temp.i ON big(pad, name, id);
    CREATE TEMP VIEW bv AS SELECT * FROM big ORDER BY pad || id DESC;
    CREATE TABLE copy AS SELECT * FROM bv;
    SELECT COUNT(DISTINCT pad || id) FROM copy"
mkdir "$tmp/tmpdir"
out=$(cd "$tmp/box" && TMPDIR=$tmp/tmpdir SQLITE_TMPDIR=$tmp/tmpdir \
    TTV_SQL_MEMORY=512 "$TTV" --tsv --query "$big" "$T" 2>&1)
[ "$(echo "$out" | tail -1)" -gt 0 ] 2>/dev/null ||
    fail "temp tables: $(echo "$out" | head -3)"
[ -z "$(find "$tmp/box" "$tmp/tmpdir" -mindepth 1)" ] ||
    fail "files appeared: $(find "$tmp/box" "$tmp/tmpdir" -mindepth 1)"
if command -v strace >/dev/null 2>&1 &&
    strace -f -o /dev/null true 2>/dev/null; then
	TTV_SQL_MEMORY=512 strace -f -e trace=open,openat,creat \
	    -o "$tmp/strace" \
	    "$TTV" --tsv --query "$big" "$T" >/dev/null 2>&1
	! grep -q etilqs "$tmp/strace" ||
	    fail "a temporary file was opened: $(grep etilqs "$tmp/strace" |
	    head -1)"
fi

# SQLite's type rules on constraints: a constraint on an INTEGER column
# compares as it would on a table, '0' and 0.0 finding what 0 finds
for q in "thread WHERE utid = %s" "process WHERE upid = %s" \
    "thread_track WHERE utid = %s" "track WHERE id = %s" \
    "slice WHERE id = %s" "slice WHERE track_id = %s" \
    "slice WHERE depth = %s" "slice WHERE parent_id = %s"; do
	want=$("$TTV" --tsv --query "SELECT COUNT(*) FROM $(printf "$q" 0)" \
	    "$T" | tail -1)
	[ "$want" -gt 0 ] || fail "$(printf "$q" 0): no row"
	for v in "'0'" "0.0" "' 0'" "'0.0'"; do
		got=$("$TTV" --tsv --query "SELECT COUNT(*) FROM $(printf "$q" "$v")" \
		    "$T" 2>&1 | tail -1)
		[ "$got" = "$want" ] ||
		    fail "$(printf "$q" "$v"): $got rows, $want with 0"
	done
done

# INCLUDE PERFETTO MODULE: a module ttv has gives its views; another is
# an error naming those ttv has, at the module's name
out=$("$TTV" --tsv --query "include perfetto module slices.with_context;
    SELECT COUNT(*) FROM thread_slice" "$T" 2>&1 | tail -1)
[ "$out" -gt 0 ] 2>/dev/null || fail "INCLUDE slices.with_context: $out"
"$TTV" --query "SELECT 1;
  INCLUDE PERFETTO MODULE android.startup.startups;" "$T" >/dev/null \
    2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "INCLUDE of an unknown module: exit $rc"
grep -q "android.startup.startups: ttv has no such module; it has slices.with_context" \
    "$tmp/err" && grep -q "(line 2, column 27)" "$tmp/err" ||
    fail "INCLUDE of an unknown module: $(cat "$tmp/err")"

# REGEXP: PCRE2, case counting; a match PCRE2 gives up on is an error,
# never a "no"
out=$("$TTV" --tsv --query "SELECT 'Abc' REGEXP 'b', 'Abc' REGEXP 'a',
    regexp('a', 'Abc', 'i'), NULL REGEXP 'a'" "$T" 2>&1 | tail -1)
[ "$out" = "$(printf '1\t0\t1\t')" ] || fail "REGEXP: '$out'"
"$TTV" --query "SELECT printf('%.60c', 'a') || 'b' REGEXP '(a+)+\$'" \
    "$T" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "too costly" "$tmp/err" ||
    fail "REGEXP past PCRE2's limits: exit $rc, $(cat "$tmp/err")"

# a bad query: SQLite's message, its place, the line with a caret; exit 2
"$TTV" --query "SELECT 1;
SELECT name FROMM slice" "$T" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "syntax error: exit $rc"
# (FROMM is taken as an alias of name: the error is at "slice")
grep -q 'near "slice": syntax error at offset 28 (line 2, column 19)' "$tmp/err" ||
    fail "syntax error message: $(cat "$tmp/err")"
grep -q '^  SELECT name FROMM slice$' "$tmp/err" || fail "no line shown"
grep -q '^                    \^$' "$tmp/err" || fail "caret misplaced: $(cat "$tmp/err")"
"$TTV" --query "SELECT nope FROM slice" "$T" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "no such column: nope" "$tmp/err" ||
    fail "unknown column: $(cat "$tmp/err")"
"$TTV" --query-file "$tmp/missing.sql" "$T" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "missing.sql" "$tmp/err" ||
    fail "missing query file: $(cat "$tmp/err")"

# --query-file, comments and several statements
printf -- '-- names\nSELECT name FROM slice\n  WHERE depth = 0 ORDER BY name LIMIT 1;\n/* done */\n' >"$tmp/q.sql"
a=$("$TTV" --tsv --query-file "$tmp/q.sql" "$T")
b=$("$TTV" --tsv --query "SELECT name FROM slice WHERE depth = 0 ORDER BY name LIMIT 1" "$T")
[ -n "$a" ] && [ "$a" = "$b" ] || fail "--query-file: '$a' vs '$b'"

# formats: CSV quoting, JSON that parses, control characters escaped
out=$("$TTV" --csv --query "SELECT 'a,b' AS x, 'say \"hi\"' AS y, NULL AS z, 1.5 AS w" "$T")
want=$(printf 'x,y,z,w\n"a,b","say ""hi""",,1.5')
[ "$out" = "$want" ] || fail "csv: '$out'"
"$TTV" --json --query "SELECT id, name, ts, NULL AS n, 0.25 AS r FROM slice LIMIT 3" "$T" >"$tmp/j"
if command -v python3 >/dev/null 2>&1; then
	python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 3, rows
assert set(rows[0]) == {"id", "name", "ts", "n", "r"}, rows[0]
assert rows[0]["n"] is None and rows[0]["r"] == 0.25, rows[0]
assert isinstance(rows[0]["ts"], int), rows[0]
' "$tmp/j" || fail "json: $(head -c 300 "$tmp/j")"
fi
# several statements: JSON Lines, one line per statement with rows, each
# line one JSON document; reals as few digits as read back (3.1415)
"$TTV" --json --query "CREATE TEMP VIEW v AS SELECT 1 AS one;
    SELECT one, 3.1415 AS pi, 0.1 AS t FROM v; SELECT 2 AS two WHERE 0;
    SELECT name FROM slice LIMIT 2" "$T" >"$tmp/j"
[ "$(wc -l <"$tmp/j")" -eq 3 ] || fail "json lines: $(cat "$tmp/j")"
[ "$(head -1 "$tmp/j")" = '[{"one":1,"pi":3.1415,"t":0.1}]' ] ||
    fail "json reals: $(head -1 "$tmp/j")"
[ "$(sed -n 2p "$tmp/j")" = '[]' ] || fail "json of no rows: $(sed -n 2p "$tmp/j")"
if command -v python3 >/dev/null 2>&1; then
	python3 -c '
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
assert [len(d) for d in docs] == [1, 0, 2], docs
' "$tmp/j" || fail "json lines do not parse: $(head -c 300 "$tmp/j")"
fi
# the args of the shared FXT traces: display_value as the details pane
F=${TTV_SHARED:-}/traces/fxt/synthetic_small.fxt
if [ -n "${TTV_SHARED:-}" ] && [ -f "$F" ]; then
	out=$("$TTV" --tsv --query "SELECT DISTINCT display_value FROM args
	    WHERE value_type = 'real' AND real_value = 3.1415" "$F" | tail -n +2)
	[ "$out" = 3.1415 ] || fail "display_value of 3.1415: '$out'"
fi
for fmt in "" --tsv --csv --json; do
	"$TTV" $fmt --query "SELECT char(27) || '[31mred' AS e, char(7, 10) AS b" "$T" >"$tmp/o"
	if LC_ALL=C grep -q "$(printf '\033')" "$tmp/o" ||
	    LC_ALL=C grep -q "$(printf '\007')" "$tmp/o"; then
		fail "control characters printed raw with '$fmt'"
	fi
done
out=$("$TTV" --query "SELECT 42 AS answer, 'x' AS s" "$T")
want=$(printf 'answer  s\n------  -\n    42  x')
[ "$out" = "$want" ] || fail "table: '$out'"

# Ctrl-C stops a long query: exit 130, quickly
"$TTV" --query "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c)
    SELECT COUNT(*) FROM c" "$T" >/dev/null 2>"$tmp/err" &
pid=$!
sleep 1
kill -INT $pid
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
if kill -0 $pid 2>/dev/null; then
	kill -KILL $pid
	fail "Ctrl-C did not stop the query"
fi
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "interrupted query: exit $rc, want 130"
grep -q "interrupted" "$tmp/err" || fail "no message on interrupt"

[ $fails -eq 0 ] || exit 1
echo "ok"

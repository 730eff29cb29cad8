#!/usr/bin/env python3
"""Conformance of `ttv --query` with ttv's other answers about one trace.

    sql_conformance.py TTV TRACE

For the trace:
 1. `GROUP BY name` counts and sums of measured slices equal --stats;
    the by-name delivery equals SQLite's own grouping;
 2. the tables' row counts equal --info (threads, processes, slices,
    instants, counter samples, flows, logs, markers) and the chrome-json
    export (slices, instants, counters, flows, and the args of each);
 3. parent_id chains: each parent is on the same track, one level up, and
    holds its child; the self times per call path equal the folded stacks
    of --export collapsed (traces without CPU lanes or samples);
 4. every planned lookup (id, parent_id, track_id, depth, name, ts bounds)
    gives what a plain scan gives (`+col` keeps SQLite from handing the
    constraint to the table);
 5. queries of Perfetto's documentation (the table reference, the
    cookbook's "Finding slices", the getting-started examples) run
    unchanged, and their joins agree with --thread;
 6. --thread filters: --stats and the slice table see the same thread;
 7. a constraint on every column the tables look up (ttv_columns) gives
    what it gives on a table holding the same rows (SQLite's type
    rules: '0' and 0.0 are 0 for an INTEGER column);
 8. ancestor_slice and descendant_slice against the parent_id chains
    (and their documented order), also under --function and --hide;
 9. Perfetto's slices.with_context views against the tables they join,
    percentile() and median() against the extension's formula, REGEXP
    against Python's re.
Prints what differs and exits 1.
"""
import collections
import json
import subprocess
import sys

TTV, TRACE = sys.argv[1], sys.argv[2]
failures = []


def fail(msg):
    failures.append(msg)


def run(*args, ok=(0, 1)):
    p = subprocess.run([TTV, *args, TRACE], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode not in ok:
        fail("ttv %s: exit %d: %s" % (" ".join(args)[:120], p.returncode,
                                      p.stderr.decode(errors="replace")[:300]))
        return None
    return p.stdout.decode()


def query(sql, *extra):
    """Rows of a query (TSV), as lists of strings; None on failure."""
    out = run(*extra, "--tsv", "--query", sql)
    if out is None:
        return None
    lines = out.split("\n")
    return [l.split("\t") for l in lines[1:] if l != ""]


def queries(sqls, *extra):
    """Rows of each of several queries run at once (one TSV block each,
    blank lines between), as lists; None on failure."""
    out = run(*extra, "--tsv", "--query", ";\n".join(sqls))
    if out is None:
        return None
    blocks = out.split("\n\n")
    if len(blocks) != len(sqls):
        fail("%d queries gave %d results" % (len(sqls), len(blocks)))
        return None
    return [[l.split("\t") for l in b.split("\n")[1:] if l != ""]
            for b in blocks]


def scalar(sql, *extra):
    r = query(sql, *extra)
    return None if not r else r[0][0]


info_text = run("--info")
if info_text is None or "format:" not in info_text:
    print("SKIP %s: not readable" % TRACE)
    sys.exit(0)
info = {}
section = None
markers = 0
for line in info_text.split("\n"):
    if line.startswith("markers:"):
        section = "markers"
        continue
    if not line.startswith(" "):
        section = None
        k, _, v = line.partition(": ")
        info[k] = v
    elif section == "markers":
        markers += int(line.split(": ")[1])

# ------------------------------------------------------------------ 1
stats = collections.defaultdict(lambda: [0, 0])
st = run("--stats", "--tsv")
for line in (st or "").split("\n")[1:]:
    if line:
        f = line.split("\t")
        stats[f[0]][0] += int(f[1])
        stats[f[0]][1] += int(f[2])
sq = {}
for r in query("SELECT name, COUNT(*), SUM(dur) FROM slice "
               "WHERE incomplete = 0 AND flags & 1024 = 0 GROUP BY name") or []:
    sq[r[0]] = [int(r[1]), int(r[2])]
if sq != dict(stats):
    diff = [(k, stats.get(k), sq.get(k)) for k in set(stats) | set(sq)
            if stats.get(k) != sq.get(k)]
    fail("GROUP BY name differs from --stats (name, stats, sql): %s" %
         diff[:5])
by_name = query("SELECT name, COUNT(*), SUM(dur), MIN(id), MAX(ts) "
                "FROM slice GROUP BY name")
by_sqlite = query("SELECT name, COUNT(*), SUM(dur), MIN(id), MAX(ts) "
                  "FROM slice GROUP BY name || '' ORDER BY name")
if by_name != by_sqlite:
    fail("rows delivered by name differ from SQLite's grouping")
desc = query("SELECT name FROM slice ORDER BY name DESC")
asc = query("SELECT name FROM slice ORDER BY name")
if desc is not None and asc is not None and desc != asc[::-1]:
    fail("ORDER BY name DESC is not ORDER BY name reversed")
srt = query("SELECT name FROM slice ORDER BY name || ''")
if asc != srt:
    fail("ORDER BY name differs from SQLite's sort")

# ------------------------------------------------------------------ 2
counts = query(
    "SELECT (SELECT COUNT(*) FROM thread), (SELECT COUNT(*) FROM process),"
    " (SELECT COUNT(*) FROM slice WHERE flags & 1024 = 0)"
    " + (SELECT COUNT(*) FROM sched),"
    " (SELECT COUNT(*) FROM slice WHERE flags & 1024),"
    " (SELECT COUNT(*) FROM counter), (SELECT COUNT(*) FROM flow),"
    " (SELECT COUNT(*) FROM log), (SELECT COUNT(*) FROM marker),"
    " (SELECT COUNT(*) FROM thread_track) + (SELECT COUNT(*) FROM"
    " process_track) + (SELECT COUNT(*) FROM counter_track) +"
    " (SELECT COUNT(*) FROM cpu_track), (SELECT COUNT(*) FROM track)")
if counts:
    c = [int(x) for x in counts[0]]
    want = [int(info["threads"]), int(info["processes"]),
            int(info["slices"]), int(info["instants"]),
            int(info["counter samples"]), int(info["flows"]),
            int(info["logs"]), markers]
    names = ["threads", "processes", "slices", "instants", "counter samples",
             "flows", "logs", "markers"]
    for n, a, b in zip(names, c, want):
        if a != b:
            fail("%s: %d rows, --info says %d" % (n, a, b))
    if c[8] != c[9]:
        fail("track has %d rows, the kinds of track %d" % (c[9], c[8]))

chrome = run("--export", "chrome-json")
if chrome is not None:
    ev = json.loads(chrome)["traceEvents"]
    ph = collections.Counter()
    chrome_args = collections.Counter()
    for e in ev:
        p = e.get("ph")
        if p == "i" and e.get("cat") == "ttv.marker":
            p = "marker"
        ph[p] += 1
        if p in ("X", "b", "i"):
            for k in e.get("args", {}):
                if not k.startswith("ttv."):
                    chrome_args[k] += 1
    # Every slice, those a damaged trace left without a caller and
    # zero-length ones under zero-length ones too.
    got = query("SELECT (SELECT COUNT(*) FROM slice WHERE flags & 1024 = 0)"
                " + (SELECT COUNT(*) FROM sched),"
                " (SELECT COUNT(*) FROM slice WHERE flags & 1024),"
                " (SELECT COUNT(*) FROM counter), (SELECT COUNT(*) FROM flow)")
    if got:
        g = [int(x) for x in got[0]]
        want = [ph["X"] + ph["b"], ph["i"], ph["C"], ph["t"] + ph["f"]]
        for n, a, b in zip(["slices", "instants", "counters", "flows"], g,
                           want):
            if a != b:
                fail("%s: %d rows, chrome-json export has %d" % (n, a, b))
    sql_args = collections.Counter()
    for r in query("SELECT key FROM slice JOIN args USING (arg_set_id) "
                   "UNION ALL SELECT key FROM sched JOIN args "
                   "USING (arg_set_id)") or []:
        sql_args[r[0]] += 1
    if sql_args != chrome_args:
        fail("args differ from the chrome-json export: sql %s, chrome %s" %
             (sorted(sql_args.items())[:5], sorted(chrome_args.items())[:5]))

# ------------------------------------------------------------------ 3
bad = scalar(
    "SELECT COUNT(*) FROM slice s JOIN slice p ON s.parent_id = p.id "
    "WHERE s.flags & 1024 = 0 AND (p.track_id != s.track_id OR "
    "p.depth != s.depth - 1 OR p.ts > s.ts OR "
    "s.ts + s.dur_in_trace > p.ts + p.dur_in_trace)")
if bad != "0":
    fail("%s slices have a parent that does not hold them" % bad)
orphans = scalar("SELECT COUNT(*) FROM slice WHERE flags & 1024 = 0 AND "
                 "(depth = 0) != (parent_id IS NULL)")
# a damaged trace may have lost the frame that held a slice
damaged = info.get("errors", "0") != "0" or info.get("warnings", "0") != "0"
if orphans != "0" and not damaged:
    fail("%s slices below depth 0 without a parent (or at 0 with one)" %
         orphans)
plain = scalar("SELECT (SELECT COUNT(*) FROM sched) + "
               "(SELECT COUNT(*) FROM slice WHERE flags & 256)")
if plain == "0":
    paths = {}
    for r in query(
            "WITH RECURSIVE p(id, path) AS ("
            " SELECT id, name FROM slice WHERE parent_id IS NULL"
            " AND flags & 1024 = 0"
            " UNION ALL SELECT s.id, p.path || ';' || s.name"
            " FROM slice s JOIN p ON s.parent_id = p.id"
            " WHERE s.flags & 1024 = 0)"
            " SELECT path, SUM(self) FROM (SELECT p.path AS path,"
            " s.dur_in_trace - COALESCE((SELECT SUM(c.dur_in_trace)"
            " FROM slice c WHERE"
            " c.parent_id = s.id AND c.flags & 1024 = 0), 0) AS self"
            " FROM p JOIN slice s ON s.id = p.id) GROUP BY path"
            " HAVING SUM(self) > 0") or []:
        paths[r[0]] = int(r[1])
    folded = {}
    for line in (run("--export", "collapsed") or "").split("\n"):
        if line:
            k, _, v = line.rpartition(" ")
            folded[k] = folded.get(k, 0) + int(v)
    if paths != folded:
        diff = [(k, folded.get(k), paths.get(k))
                for k in set(paths) | set(folded)
                if paths.get(k) != folded.get(k)]
        fail("call paths from parent_id differ from --export collapsed "
             "(path, collapsed, sql): %s" % diff[:4])

# ------------------------------------------------------------------ 4
probe = query("SELECT id, ts, dur, track_id, depth, name FROM slice "
              "WHERE flags & 1024 = 0 ORDER BY dur DESC LIMIT 1")
bounds = query("SELECT start_ts, end_ts FROM trace_bounds")
if probe:
    pid, pts, pdur, ptrack, pdepth, pname = probe[0]
    lo, hi = int(bounds[0][0]), int(bounds[0][1])
    a = lo + (hi - lo) // 3
    b = lo + (hi - lo) // 2
    q = pname.replace("'", "''")
    pairs = [
        ("id = %s" % pid, "+id = %s" % pid),
        ("parent_id = %s" % pid, "+parent_id = %s" % pid),
        ("track_id = %s" % ptrack, "+track_id = %s" % ptrack),
        ("depth = %s" % pdepth, "+depth = %s" % pdepth),
        ("name = '%s'" % q, "+name = '%s'" % q),
        ("ts BETWEEN %d AND %d" % (a, b), "+ts BETWEEN %d AND %d" % (a, b)),
        ("ts > %d" % a, "+ts > %d" % a),
        ("ts < %d.5" % b, "+ts < %d.5" % b),
        ("ts = %s" % pts, "+ts = %s" % pts),
        ("track_id = %s AND ts >= %d AND ts <= %d" % (ptrack, a, b),
         "+track_id = %s AND +ts >= %d AND +ts <= %d" % (ptrack, a, b)),
        ("name = '%s' AND ts > %d" % (q, a), "+name = '%s' AND +ts > %d" % (q, a)),
        ("name = '%s' AND depth = %s" % (q, pdepth),
         "+name = '%s' AND +depth = %s" % (q, pdepth)),
        # (a column compares with its affinity, +col without: the scans
        # are written to mean the same)
        ("name = 7", "+name = '7'"), ("name = NULL", "+name = NULL"),
        ("name = x'00'", "+name = x'00'"),
        ("name = '%s' COLLATE NOCASE" % q.upper(),
         "+name = '%s' COLLATE NOCASE" % q.upper()),
        ("name IN ('%s', 'nope')" % q, "+name IN ('%s', 'nope')" % q),
        ("ts > 'abc'", "+ts > 'abc'"), ("ts < 'abc'", "+ts < 'abc'"),
        ("ts = NULL", "+ts = NULL"), ("ts >= '%d'" % b, "+ts >= %d" % b),
        ("ts > %d AND ts < %d" % (b, a), "+ts > %d AND +ts < %d" % (b, a)),
        ("id IN (%s, 0, 1)" % pid, "+id IN (%s, 0, 1)" % pid),
        ("track_id = %s AND depth = %s AND ts BETWEEN %d AND %d" %
         (ptrack, pdepth, a, b), "+track_id = %s AND +depth = %s AND "
         "+ts BETWEEN %d AND %d" % (ptrack, pdepth, a, b)),
    ]
    for planned, scanned in pairs:
        sel = "SELECT COUNT(*), SUM(dur), SUM(id), SUM(depth) FROM slice WHERE "
        x, y = query(sel + planned), query(sel + scanned)
        if x != y:
            fail("WHERE %s: %s, scanning gives %s" % (planned, x, y))
    for tbl, col in [("counter", "ts"), ("marker", "ts"), ("log", "ts"),
                     ("sched", "ts")]:
        sel = "SELECT COUNT(*), SUM(id) FROM %s WHERE " % tbl
        x = query(sel + "%s BETWEEN %d AND %d" % (col, a, b))
        y = query(sel + "+%s BETWEEN %d AND %d" % (col, a, b))
        if x != y:
            fail("%s WHERE %s BETWEEN: %s, scanning gives %s" % (tbl, col, x, y))
    x = query("SELECT COUNT(*) FROM counter c JOIN counter_track t "
              "ON c.track_id = t.id")
    y = query("SELECT COUNT(*) FROM counter c JOIN counter_track t "
              "ON +c.track_id = +t.id")
    if x != y:
        fail("counter join by track: %s, scanning gives %s" % (x, y))
    x = query("SELECT COUNT(*), SUM(a.id) FROM slice s JOIN args a "
              "USING (arg_set_id)")
    y = query("SELECT COUNT(*), SUM(a.id) FROM slice s JOIN args a "
              "ON +a.arg_set_id = +s.arg_set_id")
    if x != y:
        fail("args join by arg_set_id: %s, scanning gives %s" % (x, y))

# ------------------------------------------------------------------ 5
docs = [
    "SELECT ts, dur, name FROM slice",
    "SELECT slice.ts, slice.dur, slice.name, slice.depth FROM slice "
    "JOIN thread_track ON (slice.track_id = thread_track.id) "
    "JOIN thread USING (utid) WHERE tid = 42",
    "SELECT * FROM trace_bounds",
    "SELECT utid, tid, thread.name, upid FROM thread",
    "SELECT upid, pid, name FROM process",
    "SELECT ts, dur, cpu, utid FROM sched",
    "SELECT ts, value FROM counter JOIN counter_track "
    "ON counter.track_id = counter_track.id",
    "SELECT slice_out, slice_in FROM flow",
    "SELECT key, int_value, string_value, real_value, value_type FROM args",
    "SELECT name, COUNT(1) AS cnt FROM slice GROUP BY name ORDER BY cnt DESC",
    "SELECT s.name, p.name AS parent_name FROM slice s "
    "LEFT JOIN slice p ON s.parent_id = p.id",
    "SELECT * FROM slice JOIN args USING (arg_set_id)",
    "SELECT name, value FROM metadata",
    "SELECT COUNT(*) FROM slices",
]
# Perfetto's cookbook ("Finding slices", and the thread_slice queries of
# "Process scheduling groups"), and the getting-started examples of
# ancestor_slice, descendant_slice and time.conversion, as written there
perfetto_docs = [
    """SELECT *
FROM slice
WHERE name GLOB '*interesting_slice*'
LIMIT 10;""",
    """SELECT
  name,
  COUNT(dur) AS count_slice,
  -- Convert nanoseconds to milliseconds
  AVG(dur) / 1000000 AS avg_dur_ms,
  CAST(MAX(dur) AS DOUBLE) / 1000000 AS max_dur_ms,
  CAST(MIN(dur) AS DOUBLE) / 1000000 AS min_dur_ms,
  PERCENTILE(dur,50) / 1000000 AS P50_dur_ms,
  PERCENTILE(dur,90) / 1000000 AS P90_dur_ms,
  PERCENTILE(dur,99) / 1000000 AS P99_dur_ms
FROM slice
WHERE name REGEXP '.*interesting_slice.*'
GROUP BY name
ORDER BY count_slice DESC
LIMIT 10;""",
    """SELECT
  s.id AS id,
  s.ts AS ts,
  s.track_id AS track_id,
  s.slice_id AS slice_id,
  s.dur AS dur,
  s.name AS slice,
  p.name AS process,
  t.name AS thread
FROM slice s
JOIN thread_track tt ON s.track_id = tt.id
JOIN thread t on tt.utid = t.utid
JOIN process p on t.upid = p.upid
WHERE s.name LIKE '%interesting_slice%'
-- Only look for slices in your app's process
AND p.name = 'com.example.myapp'
-- Only look for slices on your app's main thread
AND t.is_main_thread
ORDER BY dur DESC;""",
    """INCLUDE PERFETTO MODULE slices.with_context;
SELECT
  ts,
  dur,
  SUBSTR(name, INSTR(name, ' ') + 1, INSTR(name, ' to ') - INSTR(name, ' ') - 1) as process_name,
  SUBSTR(name, INSTR(name, ' to ') + 4) AS group_id
FROM thread_slice
WHERE process_name = 'system_server'
AND thread_name = 'OomAdjuster'
AND name LIKE 'setProcessGroup %';""",
    """INCLUDE PERFETTO MODULE slices.with_context;

-- Create a view so we can refer to next_ts in the following query
DROP VIEW IF EXISTS setProcessGroup;
CREATE VIEW setProcessGroup AS
SELECT
  ts,
  dur,
  SUBSTR(name, INSTR(name, ' ') + 1, INSTR(name, ' to ') - INSTR(name, ' ') - 1) as process_name,
  LEAD(ts) OVER (PARTITION BY SUBSTR(name, INSTR(name, ' ') + 1, INSTR(name, ' to ') - INSTR(name, ' ') - 1) ORDER BY ts) AS next_ts,
  -- Resolve SchedPolicy
  CASE SUBSTR(name, INSTR(name, ' to ') + 4)
    WHEN '-1' THEN 'SP_DEFAULT'
    WHEN '0' THEN 'SP_BACKGROUND'
    WHEN '1' THEN 'SP_FOREGROUND'
    WHEN '2' THEN 'SP_SYSTEM'
    WHEN '3' THEN 'SP_AUDIO_APP'
    WHEN '4' THEN 'SP_AUDIO_SYS'
    WHEN '5' THEN 'SP_TOP_APP'
    WHEN '6' THEN 'SP_RT_APP'
    WHEN '7' THEN 'SP_RESTRICTED'
    WHEN '8' THEN 'SP_FOREGROUND_WINDOW'
    ELSE SUBSTR(name, INSTR(name, ' to ') + 4)
  END AS group_name
FROM thread_slice
WHERE process_name = 'system_server'
AND thread_name = 'OomAdjuster'
AND name LIKE 'setProcessGroup %';

SELECT
  ts,
  dur,
  process_name,
  group_name,
  next_ts,
  IIF(
    next_ts IS NOT NULL,
    -- Duration is from ts to next_ts
    next_ts - ts,
    -- Duration is from ts to the last timestamp seen in this trace
    (SELECT MAX(ts + dur) FROM slice) - ts
  ) AS dur_until_next
FROM setProcessGroup;""",
    """CREATE VIEW interesting_slices AS
SELECT id, ts, dur, track_id
FROM slice WHERE name LIKE "%interesting slice name%";

SELECT
  *
FROM
  interesting_slices LEFT JOIN
  ancestor_slice(interesting_slices.id) AS ancestor ON ancestor.depth = 0""",
    """CREATE VIEW interesting_slices AS
SELECT id, ts, dur, track_id
FROM slice WHERE name LIKE "%interesting slice name%";

SELECT
  interesting_slices.*,
  (
    SELECT COUNT(*)
    FROM descendant_slice(interesting_slices.id)
  ) AS total_descendants
FROM interesting_slices""",
    """INCLUDE PERFETTO MODULE time.conversion;

SELECT name, time_to_ms(dur) AS dur_ms
FROM slice
WHERE dur > time_from_ms(10);""",
]
for d in docs + perfetto_docs:
    if query(d) is None:
        fail("documented query failed: %s" % d)
# the same with a name of the trace for "interesting slice": the rows
# are those Python finds among the names
word = scalar("SELECT name FROM slice WHERE name GLOB '[A-Za-z_]*' AND "
              "name NOT GLOB '*[^A-Za-z0-9_]*' AND flags & 1024 = 0 "
              "GROUP BY name ORDER BY COUNT(*) DESC LIMIT 1")
if word:
    all_names = [r[0] for r in query("SELECT name FROM slice") or []]
    per_name = collections.Counter(n for n in all_names if word in n)
    like = sum(1 for n in all_names if word.lower() in n.lower())
    for k, want in [(0, sum(per_name.values())),
                    (1, max(per_name.values())), (5, like), (6, like)]:
        d = perfetto_docs[k].replace("interesting_slice", word).replace(
            "interesting slice name", word).replace("LIMIT 10;", ";")
        r = query(d)
        got = None if r is None else len(r) if k != 1 else int(r[0][1])
        if got != want:
            fail("Perfetto's query %d with %s for the name: %s, want %s" %
                 (k, word, got, want))

tids = query("SELECT tid, COUNT(*) FROM slice JOIN thread_track "
             "ON slice.track_id = thread_track.id JOIN thread USING (utid) "
             "WHERE slice.flags & 1024 = 0 GROUP BY tid ORDER BY COUNT(*) DESC "
             "LIMIT 1")
if tids:
    tid, n = tids[0]
    # ------------------------------------------------------------------ 6
    m = scalar("SELECT COUNT(*) FROM slice WHERE flags & 1024 = 0 AND "
               "track_id IN (SELECT id FROM thread_track)", "--thread", tid)
    if m != n:
        fail("--thread %s: %s slices, the join says %s" % (tid, m, n))
    st = run("--thread", tid, "--stats", "--tsv")
    ts = collections.defaultdict(lambda: [0, 0])
    for line in (st or "").split("\n")[1:]:
        if line:
            f = line.split("\t")
            ts[f[0]][0] += int(f[1])
            ts[f[0]][1] += int(f[2])
    sq = {}
    for r in query("SELECT name, COUNT(*), SUM(dur) FROM slice WHERE "
                   "incomplete = 0 AND flags & 1024 = 0 GROUP BY name",
                   "--thread", tid) or []:
        sq[r[0]] = [int(r[1]), int(r[2])]
    if sq != dict(ts):
        fail("--thread %s: GROUP BY name differs from --stats" % tid)

# --function and --hide: the table sees the functions --stats sees
top = scalar("SELECT name FROM slice WHERE flags & 1024 = 0 AND name != '' "
             "GROUP BY name ORDER BY COUNT(*) DESC LIMIT 1")
if top:
    rx = "^" + "".join("\\" + ch if not ch.isalnum() else ch
                       for ch in top) + "$"
    for opt in ("--function", "--hide"):
        ts = collections.defaultdict(lambda: [0, 0])
        for line in (run(opt, rx, "--stats", "--tsv") or "").split("\n")[1:]:
            if line:
                f = line.split("\t")
                ts[f[0]][0] += int(f[1])
                ts[f[0]][1] += int(f[2])
        sq = {}
        for r in query("SELECT name, COUNT(*), SUM(dur) FROM slice WHERE "
                       "incomplete = 0 AND flags & 1024 = 0 GROUP BY name",
                       opt, rx) or []:
            sq[r[0]] = [int(r[1]), int(r[2])]
        if sq != dict(ts):
            fail("%s %s: GROUP BY name differs from --stats" % (opt, rx))
        bad = scalar("SELECT COUNT(*) FROM slice s WHERE parent_id IS NOT "
                     "NULL AND NOT EXISTS (SELECT 1 FROM slice p WHERE "
                     "p.id = s.parent_id AND p.depth < s.depth AND "
                     "p.ts <= s.ts)", opt, rx)
        if bad != "0":
            fail("%s %s: %s slices have a parent not in the table" %
                 (opt, rx, bad))

# ------------------------------------------------------------------ 7
cols = query("SELECT table_name, name, type FROM ttv_columns "
             "WHERE kind != 'argument' ORDER BY table_name, cid") or []
looked = query("SELECT table_name, name FROM ttv_columns "
               "WHERE lookup IS NOT NULL AND type = 'INTEGER' "
               "AND kind != 'argument' AND table_name IN "
               "(SELECT name FROM ttv_tables WHERE kind = 'table')") or []
by_table = collections.defaultdict(list)
for t, c, ty in cols:
    by_table[t].append(c)
checks = []
for t, c in looked:
    v = scalar("SELECT %s FROM %s WHERE %s IS NOT NULL ORDER BY %s "
               "LIMIT 1 OFFSET (SELECT COUNT(*) / 2 FROM %s WHERE %s IS "
               "NOT NULL)" % (c, t, c, c, t, c)) if t in ("slice", "args") \
        else scalar("SELECT MAX(%s) FROM %s" % (c, t))
    if v in (None, ""):
        continue
    for lit in ("%s" % v, "'%s'" % v, "' %s '" % v, "'%s.0'" % v, "%s.0" % v,
                "%s.5" % v, "'x'", "NULL", "x'01'", "'%se0'" % v):
        checks.append((t, c, lit))
if checks:
    copies = "".join("CREATE TEMP TABLE copy_%s AS SELECT %s FROM %s;" %
                     (t, ", ".join(by_table[t]), t)
                     for t in sorted({t for t, _, _ in checks}))
    virt = ", ".join("(SELECT COUNT(*) FROM %s WHERE %s = %s)" % ck
                     for ck in checks)
    real = ", ".join("(SELECT COUNT(*) FROM copy_%s WHERE %s = %s)" % ck
                     for ck in checks)
    out = run("--tsv", "--query", copies + "SELECT " + virt + "; SELECT " +
              real)
    if out is not None:
        lines = [l for l in out.split("\n") if l != ""]
        a, b = lines[1].split("\t"), lines[3].split("\t")
        for ck, x, y in zip(checks, a, b):
            if x != y:
                fail("%s WHERE %s = %s: %s rows, a table with the same rows "
                     "gives %s" % (ck + (x, y)))

# ------------------------------------------------------------------ 8
def ancestry(extra):
    """Checks ancestor_slice and descendant_slice against parent_id."""
    n = scalar("SELECT COUNT(*) FROM slice", *extra)
    if n is None:
        return
    step = max(1, int(n) // 400)
    res = queries(["SELECT id, parent_id, ts FROM slice",
                   "SELECT s.id, a.id FROM slice s JOIN ancestor_slice(s.id)"
                   " a WHERE s.id %% %d = 0" % step,
                   "SELECT s.id, d.id FROM slice s JOIN descendant_slice("
                   "s.id) d WHERE s.id %% %d = 0" % step], *extra)
    if res is None:
        return
    rows, anc, desc = res
    parent = {int(r[0]): int(r[1]) if r[1] != "" else None for r in rows}
    ts = {int(r[0]): int(r[2]) for r in rows}
    children = collections.defaultdict(list)
    for i, p in parent.items():
        if p is not None:
            children[p].append(i)
    ids = [i for i in sorted(parent) if i % step == 0]
    # ancestors, outermost first
    got = collections.defaultdict(list)
    for r in anc:
        got[int(r[0])].append(int(r[1]))
    for i in ids:
        chain, p = [], parent[i]
        while p is not None and p in parent:
            chain.append(p)
            p = parent[p]
        if got.get(i, []) != chain[::-1]:
            fail("%s ancestor_slice(%d): %s, parent_id gives %s" %
                 (" ".join(extra), i, got.get(i, [])[:6], chain[::-1][:6]))
            break
    # descendants: the same set, in time order, parents first
    got = collections.defaultdict(list)
    for r in desc:
        got[int(r[0])].append(int(r[1]))
    for i in ids:
        want, todo = set(), list(children.get(i, []))
        while todo:
            x = todo.pop()
            want.add(x)
            todo.extend(children.get(x, []))
        g = got.get(i, [])
        seen = {i}
        order_ok = True
        for k, x in enumerate(g):
            if (k and ts[x] < ts[g[k - 1]]) or parent.get(x) not in seen:
                order_ok = False
            seen.add(x)
        if set(g) != want or len(g) != len(want) or not order_ok:
            fail("%s descendant_slice(%d): %d rows%s, parent_id gives %d" %
                 (" ".join(extra), i, len(g),
                  "" if order_ok else " out of order", len(want)))
            break


ancestry(())
if top:
    ancestry(("--function", rx))
    ancestry(("--hide", rx))

# ------------------------------------------------------------------ 9
patterns = ("^_", "[0-9]$", "(?i)a", "a.*e", "^[^:]*::")
res = queries([
    "INCLUDE PERFETTO MODULE slices.with_context; SELECT "
    "(SELECT COUNT(*) FROM thread_slice), (SELECT COUNT(*) FROM "
    "slice JOIN thread_track ON slice.track_id = thread_track.id), "
    "(SELECT COUNT(*) FROM process_slice), (SELECT COUNT(*) FROM "
    "slice JOIN process_track ON slice.track_id = process_track.id),"
    " (SELECT COUNT(*) FROM thread_or_process_slice), "
    "(SELECT COUNT(*) FROM thread_slice t JOIN slice s USING (id) "
    "JOIN thread h ON h.utid = t.utid WHERE t.ts != s.ts OR "
    "t.name IS NOT s.name OR t.depth != s.depth OR t.parent_id IS "
    "NOT s.parent_id OR t.tid != h.tid OR t.upid IS NOT h.upid OR "
    "t.track_id != s.track_id)",
    "SELECT name, dur FROM slice",
    "SELECT name, percentile(dur, 90), median(dur), percentile(dur, 0), "
    "percentile(dur, 99.5) FROM slice GROUP BY name",
    "SELECT " + ", ".join("(SELECT COUNT(*) FROM slice WHERE name REGEXP "
                          "'%s')" % p for p in patterns)])
if res:
    ctx, rows, pct, rx_counts = res
    c = [int(x) for x in ctx[0]]
    if c[0] != c[1] or c[2] != c[3] or c[4] != c[0] + c[2] or c[5] != 0:
        fail("slices.with_context: thread_slice %d (join %d), process_slice"
             " %d (join %d), thread_or_process_slice %d, %d rows differ" %
             tuple(c))

    def percentile(ys, p):
        """SQLite's percentile extension, which Perfetto builds in."""
        ys = sorted(ys)
        ix = ((p + 1.0) - 1.0) * (len(ys) - 1) * 0.01
        i = int(ix)
        j = i if ix == i or i == len(ys) - 1 else i + 1
        return ys[i] + (ys[j] - ys[i]) * (ix - i)

    durs = collections.defaultdict(list)
    for r in rows:
        durs[r[0]].append(float(r[1]))
    for r in pct:
        ys = durs.get(r[0])
        want = [percentile(ys, 90), percentile(ys, 50), min(ys),
                percentile(ys, 99.5)]
        got = [float(x) for x in r[1:]]
        if any(abs(a - b) > 1e-9 * max(1.0, abs(b))
               for a, b in zip(got, want)):
            fail("percentile of %s: %s, the formula gives %s" %
                 (r[0], got, want))
            break
    import re
    for pat, got in zip(patterns, rx_counts[0]):
        want = sum(1 for r in rows if re.search(pat, r[0]))
        if int(got) != want:
            fail("name REGEXP '%s': %s rows, Python's re finds %d" %
                 (pat, got, want))

if failures:
    for f in failures:
        print("FAIL %s: %s" % (TRACE, f))
    sys.exit(1)
print("ok %s" % TRACE)

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
 5. queries of Perfetto's documentation run unchanged, and their joins
    agree with --thread;
 6. --thread filters: --stats and the slice table see the same thread.
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
    "p.depth != s.depth - 1 OR p.ts > s.ts OR s.ts + s.dur > p.ts + p.dur)")
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
            " SELECT path, SUM(self) FROM (SELECT p.path AS path, s.dur -"
            " COALESCE((SELECT SUM(c.dur) FROM slice c WHERE"
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
]
for d in docs:
    if query(d) is None:
        fail("documented query failed: %s" % d)
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

if failures:
    for f in failures:
        print("FAIL %s: %s" % (TRACE, f))
    sys.exit(1)
print("ok %s" % TRACE)

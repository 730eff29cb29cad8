#!/bin/sh
# The call queries (--tree, --calls, --callers, --callees, --range) against
# other tools and the generators' own bookkeeping, on $TTV_SHARED/traces:
#  1. XRay (llvm-xray 14 on the real logs, tail calls and lost entries
#     included): --tree --per-thread equals `llvm-xray stack` (flame,
#     per thread, time) path by path; --calls lists exactly the calls of
#     `llvm-xray convert` (trace_event B/E pairs), slowest first;
#     --callers/--callees of every function have `llvm-xray graph`'s
#     counts, and its sums wherever no call along an edge lies inside
#     another along the same edge (elsewhere the sums of the rule "once
#     per outermost call", computed here from llvm-xray's events);
#  2. --range: on real logs, --calls and --stats of a range are the calls
#     that overlap it, clipped to it, as computed here from the whole list;
#  3. FXT: --calls per thread and function has gen_fxt.py's counts and
#     durations; CoreProfiler: the self times of --tree --per-thread are
#     gen_tracelog.py's collapsed_time_ms; CTF: --calls, --callers and
#     --callees of the cyg-profile trace follow babeltrace2's events.
# Parts whose input or tool is missing are skipped, with a message.
set -u
: "${TTV:?}" "${TTV_SHARED:?}"
if [ ! -d "$TTV_SHARED/traces" ]; then
	echo "SKIP: $TTV_SHARED/traces not found"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not found"
	exit 77
fi
LLVM_XRAY=${LLVM_XRAY:-$(command -v llvm-xray-14 || command -v llvm-xray || true)}
python3 - "$TTV" "$TTV_SHARED/traces" "$LLVM_XRAY" <<'EOF'
import collections, glob, json, os, re, subprocess, sys

ttv, traces, llvm_xray = sys.argv[1:4]
fails = []
checked = collections.Counter()

def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg)

def run(args, ok=(0,)):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode not in ok:
        fail("%s: exit %d: %s" % (" ".join(args), p.returncode,
                                 p.stderr.decode(errors="replace")[:300]))
    return p.stdout.decode(errors="replace")

def tsv(text):
    lines = text.splitlines()
    if not lines:
        return []
    hdr = lines[0].split("\t")
    return [dict(zip(hdr, l.split("\t"))) for l in lines[1:]]

# ---------------------------------------------------------------- XRay

def events_calls(path):
    """llvm-xray's calls from its trace_event output: (tid, name, ts_us,
    dur_us, parent index). Sets ulp_ns: what one rounding of its times
    (doubles of us) can be off by, in ns: ~0.25 us at the emulated clock's
    times (~1.7e15 us)."""
    global ulp_ns
    ev = json.load(open(path))["traceEvents"]
    ulp_ns = max([abs(float(e["ts"])) for e in ev if "ts" in e] + [0]) * \
        2.3e-16 * 1000
    stacks, calls = {}, []
    for e in ev:
        if e.get("ph") not in ("B", "E"):
            continue
        tid = int(e["tid"])
        st = stacks.setdefault(tid, [])
        if e["ph"] == "B":
            calls.append([tid, e["name"], float(e["ts"]), None,
                          st[-1] if st else None])
            st.append(len(calls) - 1)
        else:
            i = st.pop()
            calls[i][3] = float(e["ts"]) - calls[i][2]
    return [c for c in calls if c[3] is not None], calls

def edge_sums(calls, fn):
    """Callers and callees of fn: count, plain sum, sum once per
    outermost call along the edge."""
    def anc(i):
        p = calls[i][4]
        while p is not None:
            yield p
            p = calls[p][4]
    callers = collections.defaultdict(lambda: [0, 0.0, 0.0])
    callees = collections.defaultdict(lambda: [0, 0.0, 0.0])
    children = collections.defaultdict(list)
    for i, c in enumerate(calls):
        if c[4] is not None:
            children[c[4]].append(i)
    for i, c in enumerate(calls):
        if c[1] != fn or c[3] is None:
            continue
        p = c[4]
        pname = calls[p][1] if p is not None else None
        e = callers[pname]
        e[0] += 1
        e[1] += c[3]
        if pname is None or not any(
                calls[a][1] == fn and calls[a][4] is not None and
                calls[calls[a][4]][1] == pname for a in anc(i)):
            e[2] += c[3]
        for k in children[i]:
            kc = calls[k]
            if kc[3] is None:
                continue
            e = callees[kc[1]]
            e[0] += 1
            e[1] += kc[3]
            if not any(calls[a][1] == kc[1] and calls[a][4] is not None and
                       calls[calls[a][4]][1] == fn for a in anc(k)):
                e[2] += kc[3]
    return callers, callees

def graph_edges(binary, log, label):
    """llvm-xray graph: {(caller, callee): value}; caller None = root."""
    p = subprocess.run([llvm_xray, "graph", "-instr_map=" + binary,
                        "-e=" + label, log], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        return None
    names, edges = {}, {}
    for line in p.stdout.decode().splitlines():
        m = re.match(r'\s*(F\d+) \[label="(.*)"\];$', line)
        if m:
            names[m.group(1)] = m.group(2)
            continue
        m = re.match(r'\s*(F\d+) -> (F\d+) \[label="(.*)"\];$', line)
        if m:
            edges[(m.group(1), m.group(2))] = float(m.group(3))
    return {(names.get(a), names.get(b)): v for (a, b), v in edges.items()}

xdir = os.path.join(traces, "xray")
sys.path.insert(0, xdir)
try:
    import xray_census
except ImportError:
    xray_census = None
logs = sorted(p for p in glob.glob(os.path.join(xdir, "xray-log.*"))
              if re.fullmatch(r"xray-log\.[a-z]+\.[a-z]+", os.path.basename(p)))
if not logs or xray_census is None:
    print("SKIP part 1: no XRay corpus")
for log in logs:
    base = os.path.basename(log)
    prog = base.split(".")[1]
    binary = os.path.join(xdir, prog)
    if prog == "typed":
        continue    # llvm-xray refuses its map (see the corpus README)
    otxt = open(log + ".oracle.txt").read()
    freq = xray_census.census(log)["header"]["cycle_frequency"]
    tick_ns = 1e9 / freq if freq else 1.0
    info = run([ttv, "--info", log])
    inexact = sum(int(m) for m in re.findall(
        r"^  (?:unterminated|no entry): (\d+)$", info, re.M))

    # 1a. the call tree against llvm-xray stack (flame, per thread, time)
    flame = log + ".stack.flame.txt"
    if re.search(r"^rc=0  llvm-xray stack -instr_map=\S+ -all-stacks", otxt,
                 re.M) and inexact == 0:
        want = {}
        for line in open(flame):
            path, _, v = line.rstrip("\n").rpartition(" ")
            want[path.rstrip(";")] = float(v) * tick_ns
        got = {}
        for r in tsv(run([ttv, "--tree", "--per-thread", "--tsv", log])):
            parts = r["path"].split(";")
            m = re.fullmatch(r"tid (\d+)", parts[0])
            if m is None or len(parts) < 2:
                continue
            got["thread_%s;%s" % (m.group(1), ";".join(parts[1:]))] = (
                int(r["count"]), int(r["total_ns"]))
        if set(want) != set(got):
            fail("%s: --tree paths differ from llvm-xray stack: missing %s, "
                 "extra %s" % (base, sorted(set(want) - set(got))[:3],
                               sorted(set(got) - set(want))[:3]))
        for path in set(want) & set(got):
            n, total = got[path]
            if abs(total - want[path]) > n * (tick_ns + 1) + 2:
                fail("%s: %s: --tree %d ns, llvm-xray stack %.1f ns" % (
                    base, path, total, want[path]))
        checked["tree vs llvm-xray stack"] += 1

    # 1b. every call, slowest first, against llvm-xray convert
    oracle = log + ".trace_event.json"
    measured, allcalls = events_calls(oracle)
    rows = tsv(run([ttv, "--calls", ".", "--tsv", log]))
    durs = [int(r["dur_ns"]) for r in rows]
    if durs != sorted(durs, reverse=True):
        fail("%s: --calls is not slowest first" % base)
    want = collections.defaultdict(list)
    for c in measured:
        want[(c[0], c[1])].append(c[3] * 1000)
    got = collections.defaultdict(list)
    for r in rows:
        got[(int(r["tid"]), r["function"])].append(int(r["dur_ns"]))
    if set(want) != set(got):
        fail("%s: --calls (thread, function) pairs differ: missing %s, "
             "extra %s" % (base, sorted(set(want) - set(got))[:3],
                           sorted(set(got) - set(want))[:3]))
    for key in set(want) & set(got):
        w, g = sorted(want[key]), sorted(got[key])
        if len(w) != len(g) or any(abs(a - b) > tick_ns + 1.5 + 4 * ulp_ns
                                   for a, b in zip(w, g)):
            fail("%s: %s: --calls durations differ from llvm-xray's: %d "
                 "calls %s..., %d calls %s..." % (base, key, len(w), w[:3],
                                                  len(g), g[:3]))
    # the same calls as --stats counts
    stats = {r["name"]: int(r["count"])
             for r in tsv(run([ttv, "--stats", "--tsv", log]))}
    per_fn = collections.Counter(r["function"] for r in rows)
    if dict(per_fn) != stats:
        fail("%s: --calls counts %s, --stats %s" % (base, dict(per_fn), stats))
    checked["calls vs llvm-xray convert"] += 1

    # 1c. callers and callees against llvm-xray graph
    if not llvm_xray:
        continue
    gcount = graph_edges(binary, log, "count")
    gsum = graph_edges(binary, log, "sum")
    if gcount is None or gsum is None:
        continue    # llvm-xray needs -k here: not ground truth
    for fn in sorted({c[1] for c in allcalls}):
        ecallers, ecallees = edge_sums(allcalls, fn)
        for mode, edges in (("--callers", ecallers), ("--callees", ecallees)):
            got = {r["function"]: (int(r["count"]), int(r["total_ns"]))
                   for r in tsv(run([ttv, mode, fn, "--tsv", log]))}
            want_names = {("<root>" if k is None else k) for k in edges}
            if set(got) != want_names:
                fail("%s: %s %s: %s, llvm-xray %s" % (
                    base, mode, fn, sorted(got), sorted(want_names)))
                continue
            for other, (n, plain, once) in edges.items():
                name = "<root>" if other is None else other
                key = (other, fn) if mode == "--callers" else (fn, other)
                gn, total = got[name]
                if gcount.get(key) is not None and gn != int(gcount[key]):
                    fail("%s: %s %s: %s count %d, llvm-xray graph %d" % (
                        base, mode, fn, name, gn, gcount[key]))
                if gn != n:
                    fail("%s: %s %s: %s count %d, events %d" % (
                        base, mode, fn, name, gn, n))
                tol = n * (tick_ns + 1 + 4 * ulp_ns) + 2
                if abs(total - once * 1000) > tol:
                    fail("%s: %s %s: %s total %d ns, once per outermost "
                         "call %.1f ns" % (base, mode, fn, name, total,
                                           once * 1000))
                # no nesting along the edge: llvm-xray's plain sum
                if abs(once - plain) < 1e-9 and key in gsum:
                    s = gsum[key] * 1e9
                    if abs(total - s) > tol + abs(s) * 5e-7:
                        fail("%s: %s %s: %s total %d ns, llvm-xray graph "
                             "%.1f ns" % (base, mode, fn, name, total, s))
            checked["butterfly vs llvm-xray graph"] += 1

# ---------------------------------------------------------------- range

def check_range(label, path, extra, lo, hi):
    """--calls and --stats in [lo, hi) ns from the start, from the whole
    list: calls that overlap, clipped."""
    whole = tsv(run([ttv, "--calls", ".", "--tsv"] + extra + [path],
                    ok=(0, 1)))
    want = collections.Counter()
    wtot = collections.Counter()
    for r in whole:
        s, d = int(r["ts_ns"]), int(r["dur_ns"])
        e = s + d
        if s < hi and (e > lo or (d == 0 and s >= lo)):
            want[r["function"]] += 1
            wtot[r["function"]] += max(0, min(e, hi) - max(s, lo))
    rng = "%d..%d" % (lo, hi)
    part = tsv(run([ttv, "--calls", ".", "--tsv", "--range", rng] + extra +
                   [path], ok=(0, 1)))
    got = collections.Counter(r["function"] for r in part)
    gtot = collections.Counter()
    for r in part:
        gtot[r["function"]] += int(r["dur_ns"])
    if got != want or gtot != wtot:
        fail("%s: --calls --range %s: %s %s, want %s %s" % (
            label, rng, dict(got), dict(gtot), dict(want), dict(wtot)))
    st = {r["name"]: (int(r["count"]), int(r["total_ns"])) for r in tsv(run(
        [ttv, "--stats", "--tsv", "--range", rng] + extra + [path],
        ok=(0, 1)))}
    if st != {k: (want[k], wtot[k]) for k in want}:
        fail("%s: --stats --range %s: %s" % (label, rng, st))
    checked["range"] += 1

for name in ("recurse.fdr", "threads.fdr", "tailcall.basic"):
    log = os.path.join(xdir, "xray-log." + name)
    if not os.path.exists(log):
        continue
    whole = tsv(run([ttv, "--calls", ".", "--tsv", log]))
    end = max((int(r["ts_ns"]) + int(r["dur_ns"]) for r in whole), default=0)
    for a, b in ((0, end // 3), (end // 4, end // 2), (end // 2, end + 1)):
        check_range(name, log, [], a, b)

# ----------------------------------------------------------------- FXT

fdir = os.path.join(traces, "fxt")
for summ in sorted(glob.glob(os.path.join(fdir, "synthetic_*.summary.json"))):
    path = summ[:-len(".summary.json")] + ".fxt"
    if not os.path.exists(path):
        continue
    s = json.load(open(summ))
    got_n = collections.Counter()
    got_d = collections.Counter()
    for r in tsv(run([ttv, "--calls", ".", "--tsv", path], ok=(0, 1))):
        got_n[(r["tid"], r["function"])] += 1
        got_d[(r["tid"], r["function"])] += int(r["dur_ns"])
    for th, t in s["threads"].items():
        tid = th.split("/")[1]
        for fn, n in t["count_by_name"].items():
            if got_n[(tid, fn)] != n or got_d[(tid, fn)] != \
                    t["dur_ns_by_name"][fn]:
                fail("%s: thread %s %s: --calls %d calls %d ns, summary "
                     "%d %d" % (os.path.basename(path), th, fn,
                                got_n[(tid, fn)], got_d[(tid, fn)], n,
                                t["dur_ns_by_name"][fn]))
    checked["fxt summary"] += 1
    check_range(os.path.basename(path), path, [], 0, 2000000)

# -------------------------------------------------------- CoreProfiler

cdir = os.path.join(traces, "coreprofiler")
for summ in sorted(glob.glob(os.path.join(cdir, "*.summary.json"))):
    s = json.load(open(summ))
    if s["args"]["mode"] != "instrumentation" or \
            sum(s["malformed"]["counts"].values()) > 0:
        continue
    log = summ[:-len(".summary.json")] + ".log"
    got = collections.defaultdict(dict)
    for r in tsv(run([ttv, "--tree", "--per-thread", "--tsv", log])):
        root, _, rest = r["path"].partition(";")
        if not rest or root.endswith(" JIT/GC"):
            continue
        # records share milliseconds: compare at the log's resolution
        v = (int(r["self_ns"]) + 500000) // 1000000
        if v:
            got[root][rest] = v
    for th in s["threads"]:
        label = "thread " + th["thread_iid"]
        want = {}
        for e in th["collapsed_time_ms"]:
            st, _, v = e.rpartition(" ")
            if int(v):
                want[st] = int(v)
        if got.get(label, {}) != want:
            have = got.get(label, {})
            fail("%s: %s: --tree self times differ: %s" % (
                os.path.basename(log), label,
                [(k, want.get(k), have.get(k)) for k in
                 sorted(set(want) | set(have))
                 if want.get(k) != have.get(k)][:4]))
    checked["coreprofiler summary"] += 1

# ----------------------------------------------------------------- CTF

cyg = os.path.join(traces, "ctf", "lttng-ust-cyg-profile")
text = os.path.join(cyg, "trace.babeltrace2-debug-info.txt")
if os.path.exists(text):
    pat = re.compile(r"^\[(\d+):(\d+):(\d+)\.(\d{9})\].* lttng_ust_cyg_profile:"
                     r"func_(entry|exit):.* vtid = (\d+),.* func = \"([^\"+]*)")
    calls, stacks = [], {}
    for line in open(text):
        m = pat.match(line)
        if not m:
            continue
        h, mi, se, ns, kind, vtid, fn = m.groups()
        t = ((int(h) * 60 + int(mi)) * 60 + int(se)) * 10**9 + int(ns)
        st = stacks.setdefault(vtid, [])
        if kind == "entry":
            calls.append([int(vtid), fn, t, None, st[-1] if st else None])
            st.append(len(calls) - 1)
        elif st:
            i = st.pop()
            calls[i][3] = t - calls[i][2]
    args = ["--sysroot", os.path.join(cyg, "sysroot"), os.path.join(cyg, "trace")]
    want = collections.Counter()
    wdur = collections.Counter()
    for c in calls:
        if c[3] is not None:
            want[(c[0], c[1])] += 1
            wdur[(c[0], c[1])] += c[3]
    got = collections.Counter()
    gdur = collections.Counter()
    for r in tsv(run([ttv, "--calls", ".", "--tsv"] + args)):
        got[(int(r["tid"]), r["function"])] += 1
        gdur[(int(r["tid"]), r["function"])] += int(r["dur_ns"])
    if got != want or gdur != wdur:
        fail("cyg-profile: --calls differs from babeltrace2's events: %s" % [
            (k, want[k], got[k], wdur[k], gdur[k]) for k in
            sorted(set(want) | set(got)) if (want[k], wdur[k]) !=
            (got[k], gdur[k])][:4])
    for fn in sorted({c[1] for c in calls}):
        ecallers, ecallees = edge_sums(calls, fn)
        for mode, edges in (("--callers", ecallers), ("--callees", ecallees)):
            got = {r["function"]: (int(r["count"]), int(r["total_ns"]))
                   for r in tsv(run([ttv, mode, fn, "--tsv"] + args))}
            want = {("<root>" if k is None else k): (v[0], int(v[2]))
                    for k, v in edges.items()}
            if got != want:
                fail("cyg-profile: %s %s: %s, babeltrace2's events %s" % (
                    mode, fn, got, want))
    checked["ctf cyg-profile"] += 1

print("checked: %s" % dict(checked))
if not checked:
    print("SKIP: nothing to check")
    sys.exit(77)
sys.exit(1 if fails else 0)
EOF

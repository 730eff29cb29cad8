#!/bin/sh
# Conformance of the XRay reader with llvm-xray 14 on the real logs in
# $TTV_SHARED/traces/xray (see its README):
#  1. slices: per thread, the chrome-json export has the same calls (name,
#     count, total duration) as llvm-xray's trace_event oracle (B/E pairs);
#     typed.fdr is compared by function id with its nomap oracle, because
#     llvm-xray refuses that binary's map;
#  2. statistics: where `account` ran clean (no -k), --stats count equals
#     its count and total equals its sum to within 1 tick per call (plus
#     the rounding of the printed sum and of ns);
#  3. completeness: every function record is in the model — slices equal
#     entries plus exits without entry as counted by xray_census.py, and
#     the record counts equal the census's (this is what llvm-xray cannot
#     do on threads.manybuf and threads.ring).
set -u
: "${TTV:?}" "${TTV_SHARED:?}"
dir="$TTV_SHARED/traces/xray"
if [ ! -d "$dir" ]; then
	echo "SKIP: ../shared not found"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not found"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-xray-conf.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

python3 - "$TTV" "$dir" "$tmp" <<'EOF'
import collections, csv, glob, json, os, re, shutil, subprocess, sys

ttv, d, tmp = sys.argv[1:4]
sys.path.insert(0, d)
import xray_census

fails = []
checked = collections.Counter()

def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg)

def run(args):
    p = subprocess.run([ttv] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        fail("%s: exit %d: %s" % (" ".join(args), p.returncode,
                                 p.stderr.decode(errors="replace")))
    return p.stdout.decode()

def oracle_calls(path, strip=False):
    """(tid, name) -> [count, total_us] from llvm-xray's B/E events."""
    global ts_max
    ev = json.load(open(path))["traceEvents"]
    stacks, out = {}, collections.defaultdict(lambda: [0, 0.0])
    ts_max = max([abs(float(e["ts"])) for e in ev if "ts" in e] + [0])
    for e in ev:
        if e.get("ph") not in ("B", "E"):
            continue
        tid = int(e["tid"])
        st = stacks.setdefault(tid, [])
        if e["ph"] == "B":
            st.append((e["name"], float(e["ts"])))
        else:
            name, ts = st.pop()
            if name != e["name"]:
                raise SystemExit("oracle %s: unbalanced E" % path)
            c = out[(tid, name)]
            c[0] += 1
            c[1] += float(e["ts"]) - ts
    return out

def ttv_calls(log, instr_map=None):
    args = ["--export", "chrome-json", log]
    doc = json.loads(run(args))
    out = collections.defaultdict(lambda: [0, 0.0])
    for e in doc["traceEvents"]:
        if e.get("ph") != "X":
            continue
        a = e.get("args", {})
        # llvm-xray has no call for an exit without entry nor for an
        # entry without exit; ttv keeps both, flagged
        if a.get("ttv.no_entry") or a.get("ttv.unterminated"):
            continue
        c = out[(int(e["tid"]), e["name"])]
        c[0] += 1
        c[1] += float(e["dur"])
    return out

def check_account(base, log, target, csvpath):
    census = xray_census.census(log)
    freq = census["header"]["cycle_frequency"]
    tick_ns = 1e9 / freq if freq else 1.0
    stats = {}
    for line in run(["--stats", "--tsv", target]).splitlines()[1:]:
        f = line.split("\t")
        stats[f[0]] = (int(f[1]), int(f[2]))
    rows = list(csv.reader(open(csvpath)))
    for r in rows[1:]:
        name, count, total_s = r[9], int(r[1]), float(r[7])
        g = stats.get(name)
        if g is None:
            fail("%s: %s missing from --stats" % (base, name))
            continue
        # the printed sum has 7 significant digits; ttv's ends are whole ns
        printed = abs(total_s) * 5e-7 * 1e9
        tol = count * max(tick_ns, 1.0) + printed
        if g[0] != count or abs(g[1] - total_s * 1e9) > tol:
            fail("%s: %s: account %d calls %.1f ns, ttv %d calls %d "
                 "ns (tolerance %.1f)" % (base, name, count,
                                         total_s * 1e9, g[0], g[1], tol))
    if len(stats) != len(rows) - 1:
        fail("%s: --stats has %d functions, account %d"
             % (base, len(stats), len(rows) - 1))
    checked["account"] += 1

logs = sorted(p for p in glob.glob(os.path.join(d, "xray-log.*"))
              if re.fullmatch(r"xray-log\.[a-z]+\.[a-z]+", os.path.basename(p)))
if not logs:
    raise SystemExit("no logs in " + d)

for log in logs:
    base = os.path.basename(log)
    oracle = log + ".trace_event.json"
    nomap = log + ".nomap.trace_event.json"
    target = log
    if os.path.exists(nomap) and os.path.getsize(oracle) == 0:
        # same bytes under a name that finds no binary: "#ID" names
        target = os.path.join(tmp, "nomap.log")
        shutil.copyfile(log, target)
        oracle = nomap
    want = oracle_calls(oracle)
    got = ttv_calls(target)
    if target != log:
        got = {(t, n.lstrip("#")): v for (t, n), v in got.items()}
    for key in sorted(set(want) | set(got)):
        w, g = want.get(key, [0, 0.0]), got.get(key, [0, 0.0])
        # oracle ts: 0.1 ns steps; ttv: whole ns per slice end; both are
        # doubles, which at emulated-clock times (~1.7e15 us) keep only
        # ~0.25 us (the account check above is exact to the tick there)
        ulp = ts_max * 2.3e-16
        tol = (0.002 + 4 * ulp) * max(w[0], 1) + 1e-6
        if w[0] != g[0] or abs(w[1] - g[1]) > tol:
            fail("%s: thread %d %s: llvm-xray %d calls %.4f us, ttv %d "
                 "calls %.4f us" % (base, key[0], key[1], w[0], w[1],
                                    g[0], g[1]))
    checked["trace_event"] += 1

    # account, where it ran clean (typed.fdr: only without its map)
    otxt = open(log + ".oracle.txt").read()
    if re.search(r"^rc=0 +llvm-xray account -instr_map=\S+ -format=csv",
                 otxt, re.M) and os.path.getsize(log + ".account.csv") > 0:
        check_account(base, log, log, log + ".account.csv")
    elif re.search(r"^rc=0 +llvm-xray account -format=csv", otxt, re.M):
        check_account(base, log, target, log + ".nomap.account.csv")

    # completeness against the census
    census = xray_census.census(log)
    info = run(["--info", log])
    def info_num(label):
        m = re.search(r"^ *%s: (\d+)$" % re.escape(label), info, re.M)
        return int(m.group(1)) if m else 0
    rec = census["records"]
    entries = rec.get("Enter", 0) + rec.get("EnterArgs", 0)
    want_pairs = [("function-enter", rec.get("Enter", 0)),
                  ("function-enter-args", rec.get("EnterArgs", 0)),
                  ("function-exit", rec.get("Exit", 0)),
                  ("function-tail-exit", rec.get("TailExit", 0))]
    if census["format"] == "fdr":
        for k, n in [("NewBuffer", "NewBuffer"), ("NewCPUId", "NewCPUId"),
                     ("BufferExtents", "BufferExtents"), ("Pid", "Pid"),
                     ("TSCWrap", "TSCWrap"), ("CallArgument", "CallArgument"),
                     ("CustomEvent", "CustomEventMarker"),
                     ("TypedEvent", "TypedEventMarker")]:
            want_pairs.append((k, rec.get(n, 0)))
        if info_num("buffers") != census["buffers"]:
            fail("%s: %d buffers, census %d" % (base, info_num("buffers"),
                                                census["buffers"]))
    else:
        want_pairs.append(("arg-payload", rec.get("ArgPayload", 0)))
    for label, n in want_pairs:
        if info_num(label) != n:
            fail("%s: %s: ttv %d, census %d" % (base, label,
                                                info_num(label), n))
    # basic logs: the census matches stacks by tid across pids, fine here
    slices = entries + census["exits_without_entry"]
    if info_num("slices") != slices:
        fail("%s: %d slices, want %d entries + %d exits without entry"
             % (base, info_num("slices"), entries,
                census["exits_without_entry"]))
    if info_num("no entry") != census["exits_without_entry"]:
        fail("%s: %d slices without entry, census %d" % (
            base, info_num("no entry"), census["exits_without_entry"]))
    checked["census"] += 1

print("checked: %s" % dict(checked))
for name in ("xray-log.threads.manybuf", "xray-log.threads.ring"):
    if not os.path.exists(os.path.join(d, name)):
        fail("%s is missing from the corpus" % name)
sys.exit(1 if fails else 0)
EOF

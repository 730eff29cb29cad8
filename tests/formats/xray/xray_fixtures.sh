#!/bin/sh
# The project's own XRay fixtures (tests/data/xray, written by
# tests/gen/xraygen.c: FDR v1-v5 and basic v1-v3, both byte orders, ring
# wraps, TSC wraps, unknown frequency). Each NAME.xray has NAME.expect,
# what the writer's script says a reader must rebuild. Checked exactly:
#  1. the model (tests/tools/xray_dump through load_trace): every slice with its
#     thread, depth, start, duration, name and flags, every argument, every
#     marker, every record count;
#  2. the real binary: --stats --tsv (count/total/self/min/max per
#     function), --export collapsed (self time per stack), --export
#     chrome-json (calls and durations per thread, arguments) and --info
#     (format line, marker counts), all derived from NAME.expect.
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
data="$TTV_SRCDIR/tests/data/xray"
dump="$TTV_BUILDDIR/tests/tools/xray_dump"
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not found"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-xray-fix.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

fail=0
n=0
for exp in "$data"/*.expect; do
	name=$(basename "$exp" .expect)
	log="$data/$name.xray"
	n=$((n + 1))
	if ! "$dump" "$log" >"$tmp/got" 2>"$tmp/err"; then
		echo "FAIL: $name: xray_dump exit status $?"
		cat "$tmp/err"
		fail=1
		continue
	fi
	if [ -s "$tmp/err" ] && ! grep -q "cycle_frequency is 0" "$tmp/err"; then
		echo "FAIL: $name: unexpected diagnostics"
		cat "$tmp/err"
		fail=1
	fi
	LC_ALL=C sort "$exp" >"$tmp/a"
	LC_ALL=C sort "$tmp/got" >"$tmp/b"
	if ! diff -u "$tmp/a" "$tmp/b" >"$tmp/diff"; then
		echo "FAIL: $name: model differs from $name.expect"
		head -40 "$tmp/diff"
		fail=1
	fi
	python3 - "$TTV" "$log" "$exp" <<'EOF' || fail=1
import collections, json, subprocess, sys

ttv, log, exp = sys.argv[1:4]
name = log.rsplit("/", 1)[-1]
bad = []

def run(*args):
    p = subprocess.run([ttv] + list(args) + [log], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        bad.append("%s exit %d" % (" ".join(args), p.returncode))
    return p.stdout.decode()

slices, args, markers, fmt = [], collections.defaultdict(dict), \
    collections.Counter(), None
for line in open(exp):
    f = line.split()
    if f[0] == "slice":
        slices.append({"pid": int(f[1]), "tid": int(f[2]), "depth": int(f[3]),
                       "start": int(f[4]), "dur": int(f[5]), "name": f[6],
                       "flags": f[7]})
    elif f[0] == "arg":
        args[(int(f[1]), int(f[2]), int(f[3]), int(f[4]))][f[5]] = int(f[6])
    elif f[0] == "marker":
        markers[f[1]] += 1
    elif f[0] == "format":
        fmt = f[1:]

# parents: the slice one level up that contains the start
by_thread = collections.defaultdict(list)
for s in slices:
    by_thread[(s["pid"], s["tid"])].append(s)
for th in by_thread.values():
    levels = collections.defaultdict(list)
    for s in th:
        levels[s["depth"]].append(s)
    for s in th:
        s["children"] = 0
    for s in th:
        s["parent"] = None
        for p in levels.get(s["depth"] - 1, []):
            if p["start"] <= s["start"] <= p["start"] + p["dur"]:
                s["parent"] = p
                p["children"] += s["dur"]
                break
        assert s["depth"] == 0 or s["parent"] is not None, s

def path(s):
    out = []
    while s is not None:
        out.append(s["name"])
        s = s["parent"]
    return ";".join(reversed(out))

# --stats: measured calls only (no unterminated / no-entry slices)
want = collections.defaultdict(list)
for s in slices:
    if "U" not in s["flags"] and "N" not in s["flags"]:
        want[s["name"]].append(s)
got = {}
for line in run("--stats", "--tsv").splitlines()[1:]:
    f = line.split("\t")
    got[f[0]] = [int(x) for x in f[1:]]
for fn, ss in want.items():
    d = sorted(s["dur"] for s in ss)
    w = [len(ss), sum(d), sum(s["dur"] - s["children"] for s in ss), d[0],
         d[len(d) // 2], d[int(0.9 * len(d))], d[int(0.99 * len(d))], d[-1]]
    if got.get(fn) != w:
        bad.append("--stats %s: want %s got %s" % (fn, w, got.get(fn)))
if set(got) != set(want):
    bad.append("--stats functions: want %s got %s" % (sorted(want),
                                                       sorted(got)))

# --export collapsed: self time per call path, every slice
cw = collections.Counter()
for s in slices:
    cw[path(s)] += s["dur"] - s["children"]
cg = collections.Counter()
for line in run("--export", "collapsed").splitlines():
    stack, _, w = line.rpartition(" ")
    cg[stack] += int(w)
cw = +cw
if cw != cg:
    bad.append("collapsed: want %s got %s" % (sorted(cw.items())[:5],
                                              sorted(cg.items())[:5]))

# --export chrome-json: X events per thread and name, durations, args
doc = json.loads(run("--export", "chrome-json"))
xw, xg = collections.Counter(), collections.Counter()
dw, dg = collections.Counter(), collections.Counter()
for s in slices:
    xw[(s["tid"], s["name"])] += 1
    dw[(s["tid"], s["name"])] += s["dur"]
argw = sorted(sorted(v.items()) for v in args.values())
argg = []
for e in doc["traceEvents"]:
    if e.get("ph") == "X":
        xg[(e["tid"], e["name"])] += 1
        dg[(e["tid"], e["name"])] += round(e["dur"] * 1000)
        a = {k: v for k, v in e.get("args", {}).items()
             if k.startswith("arg")}
        if a:
            argg.append(sorted(a.items()))
if xw != xg or dw != dg:
    bad.append("chrome-json X events differ")
if argw != sorted(argg):
    bad.append("chrome-json args: want %s got %s" % (argw, sorted(argg)))

# --info: the format line and marker counts
info = run("--info")
for label, value in (("format", fmt[0]), ("version", fmt[1]),
                     ("byte order", fmt[2])):
    if "%s: %s\n" % (label, value) not in info:
        bad.append("--info lacks '%s: %s'" % (label, value))
for k, c in markers.items():
    if "  %s: %d\n" % (k, c) not in info:
        bad.append("--info lacks marker count %s: %d" % (k, c))

for b in bad:
    print("FAIL: %s: %s" % (name, b))
sys.exit(1 if bad else 0)
EOF
done
echo "$n fixtures checked"
[ "$n" -ge 10 ] || { echo "FAIL: fixtures missing"; fail=1; }
exit $fail

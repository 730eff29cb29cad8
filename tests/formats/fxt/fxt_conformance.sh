#!/bin/sh
# Conformance of the FXT reader with the generated traces of
# $TTV_SHARED/traces/fxt (gen_fxt.py writes each with a *.summary.json made
# from its own bookkeeping, never from reading the trace back):
#  1. the model, printed by fxt_dump, holds exactly the summary's facts:
#     records by type, per-thread slices / depth / durations and counts by
#     name / instants / open slices, async slices and instants, flow
#     arrows and chains, counter series and samples, logs, process and
#     thread names, providers and tick rates, the buffer-full event, the
#     truncated tail and every skipped or ignored item;
#  2. the command line agrees: `--info` record counts and `--stats --tsv`
#     counts and totals per function equal the summary's, and
#     `--export chrome-json` carries the slices (X or B/E), instants (i),
#     async (b/e), flows (s/t/f) and counter samples (C) in the summary's
#     numbers;
#  3. the real third-party file: figures decoded by hand in SOURCE.md and
#     re-checked by the independent python reading below.
set -u
: "${TTV:?}" "${TTV_SHARED:?}" "${TTV_BUILDDIR:?}"
dir="$TTV_SHARED/traces/fxt"
if [ ! -d "$dir" ]; then
	echo "SKIP: ../shared not found"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not found"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-fxt-conf.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

python3 - "$TTV" "$TTV_BUILDDIR/tests/tools/fxt_dump" "$dir" "$tmp" <<'EOF'
import collections, glob, json, os, struct, subprocess, sys

ttv, dump, d, tmp = sys.argv[1:5]
fails = []

def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg)

def run(args, want=0):
    # A trace with a truncated tail is damaged: exit 1, with everything
    # before the damage still given.
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != want:
        fail("%s: exit %d: %s" % (" ".join(args), p.returncode,
                                 p.stderr.decode(errors="replace")))
    return p.stdout.decode()

def expected_lines(s):
    """The summary's facts in fxt_dump's vocabulary."""
    out = []
    for k, v in s["records_by_type"].items():
        out.append("records %s %d" % (k, v))
    out.append("event_records %d" % s["event_records"])
    for k in ("ignored_table_records", "skipped_args", "blobs", "large_blobs",
              "context_switches", "legacy_context_switches", "wakeups",
              "kernel_objects", "userspace_objects"):
        out.append("%s %d" % (k, s[k]))
    c = s["counters"]
    out.append("counters non_numeric_args %d" % c["non_numeric_args"])
    out.append("counters samples %d" % c["samples"])
    for k, v in c["series"].items():
        out.append("counters series %s %d" % (k, v))
    tids = set()
    for key, t in s["threads"].items():
        tids.add(key.split("/")[1])
        for f in ("slices", "max_depth", "instants", "open_at_end"):
            out.append("thread %s %s %d" % (key, f, t[f]))
        for name, v in t["dur_ns_by_name"].items():
            out.append("thread %s dur %s %d" % (key, name, v))
        for name, v in t["count_by_name"].items():
            out.append("thread %s count %s %d" % (key, name, v))
    for tid, name in s["thread_names"].items():
        if tid in tids:
            out.append("thread_name %s %s" % (tid, name))
    out.append("instants %d" % s["instants"])
    out.append("async slices %d" % s["async_slices"])
    out.append("async instants %d" % s["async_instants"])
    out.append("async open_at_end %d" % s["async_open_at_end"])
    out.append("flows arrows %d" % s["flows"]["arrows"])
    out.append("flows chains %d" % s["flows"]["chains"])
    for l in s["logs"]:
        out.append("log %d %s %s" % (l["ns"], l["thread"], l["msg"]))
    for pid, name in s["processes"].items():
        out.append("process %s %s" % (pid, name))
    for e in s["provider_events"]:
        if e["event"] == 0:
            out.append("provider_event %d" % e["provider"])
    for pid, p in s["providers"].items():
        out.append("provider %s: %s, %d ticks/s" % (pid, p["name"],
                                                    p["ticks_per_second"]))
    tt = s["truncated_tail"]
    if tt:
        out.append("diag error offset %d: truncated record (declares %d "
                   "bytes, %d present)" % (tt["offset"], tt["declared_bytes"],
                                            tt["present_bytes"]))
    return sorted(out)

def check_cli(name, path, s):
    # --info: the record counts, summed by FXT record type.
    damaged = 1 if s["truncated_tail"] else 0
    info = run([ttv, "--info", path], damaged)
    counts = {}
    in_rec = False
    for line in info.splitlines():
        if line == "records:":
            in_rec = True
            continue
        if in_rec:
            if not line.startswith("  "):
                break
            k, v = line.strip().rsplit(": ", 1)
            counts[k] = int(v)
    ev_kinds = ("instant event", "counter event", "duration begin",
                "duration end", "duration complete", "async begin",
                "async instant", "async end", "flow begin", "flow step",
                "flow end", "event (unknown type)")
    got_ev = sum(counts.get(k, 0) for k in ev_kinds)
    if got_ev != s["event_records"]:
        fail("%s: --info event records %d, summary %d" %
             (name, got_ev, s["event_records"]))
    for k, want in (("log", len(s["logs"])), ("blob", s["blobs"]),
                    ("large blob", s["large_blobs"]),
                    ("kernel object", s["kernel_objects"]),
                    ("context switch", s["context_switches"]),
                    ("context switch (legacy)", s["legacy_context_switches"]),
                    ("thread wakeup", s["wakeups"])):
        if counts.get(k, 0) != want:
            fail("%s: --info %r %d, summary %d" % (name, k, counts.get(k, 0),
                                                   want))
    # --stats --tsv: count and total per function over thread tracks. The
    # summary books slices per thread; sum them per name (CPU lanes and
    # async slices have names of their own, checked separately).
    want_cnt = collections.Counter()
    want_dur = collections.Counter()
    for t in s["threads"].values():
        want_cnt.update(t["count_by_name"])
        want_dur.update(t["dur_ns_by_name"])
    tsv = run([ttv, "--stats", "--tsv", path], damaged).splitlines()
    hdr = tsv[0].split("\t")
    rows = {}
    for line in tsv[1:]:
        f = dict(zip(hdr, line.split("\t")))
        rows[f.get("function", f.get("name"))] = f
    for fn, n in want_cnt.items():
        r = rows.get(fn)
        if r is None:
            fail("%s: --stats has no row for %s" % (name, fn))
            continue
        cnt = int(r["count"])
        tot = int(float(r.get("total_ns", r.get("total", "0"))))
        if cnt != n or tot != want_dur[fn]:
            fail("%s: --stats %s count %d total %d, summary %d %d" %
                 (name, fn, cnt, tot, n, want_dur[fn]))
    # chrome-json: phases.
    js = json.loads(run([ttv, "--export", "chrome-json", path], damaged))
    evs = js["traceEvents"] if isinstance(js, dict) else js
    ph = collections.Counter(e.get("ph") for e in evs)
    n_x = ph["X"] + ph["B"]
    want_x = sum(t["slices"] + t["open_at_end"] for t in s["threads"].values())
    if n_x < want_x:
        fail("%s: chrome-json %d X/B slices, want at least %d thread slices"
             % (name, n_x, want_x))
    if ph["i"] + ph["I"] < s["instants"]:
        fail("%s: chrome-json %d instants, want %d" % (name, ph["i"],
                                                      s["instants"]))
    if ph["b"] < s["async_slices"] or ph["e"] < s["async_slices"]:
        fail("%s: chrome-json b/e %d/%d, want %d async slices" %
             (name, ph["b"], ph["e"], s["async_slices"]))
    # One s per chain, then one t or f per arrow.
    fl = s["flows"]
    if ph["s"] != fl["chains"] or ph["t"] + ph["f"] != fl["arrows"]:
        fail("%s: chrome-json s/t/f %d/%d/%d for %d chains, %d arrows" %
             (name, ph["s"], ph["t"], ph["f"], fl["chains"], fl["arrows"]))
    if ph["C"] != s["counters"]["samples"]:
        fail("%s: chrome-json %d C events, %d counter samples" %
             (name, ph["C"], s["counters"]["samples"]))

n = 0
for sp in sorted(glob.glob(os.path.join(d, "*.summary.json"))):
    trace = sp[:-len(".summary.json")] + ".fxt"
    name = os.path.basename(trace)
    s = json.load(open(sp))
    want = expected_lines(s)
    got = sorted(l for l in run([dump, trace]).splitlines() if l)
    if got != want:
        import difflib
        fail("%s: model differs from the summary:\n%s" % (name, "\n".join(
            difflib.unified_diff(want, got, "summary", "ttv", lineterm=""))))
    check_cli(name, trace, s)
    n += 1
if n == 0:
    fail("no generated traces in " + d)

# The real file, written by the ftfrs Rust writer. Figures from SOURCE.md
# (decoded word by word by hand), re-derived here by a reading that shares
# nothing with the reader: walk the 8-byte words, take begin/end events
# (inline thread, inline strings), pair them with a stack.
real = os.path.join(d, "real", "ftfrs_tracing_example.ftf")
if os.path.exists(real):
    data = open(real, "rb").read()
    off, recs, stack, dur, cnt = 0, 0, [], collections.Counter(), collections.Counter()
    while off + 8 <= len(data):
        h, = struct.unpack_from("<Q", data, off)
        size = (h >> 4) & 0xfff
        if (h & 15) == 4 and (h >> 16) & 15 in (2, 3):
            ts, = struct.unpack_from("<Q", data, off + 8)
            p = off + 32                    # header, ts, pid, tid (inline)
            clen = (h >> 32) & 0x7fff
            p += (clen + 7) & ~7
            nlen = (h >> 48) & 0x7fff
            nm = data[p:p + nlen].decode()
            if (h >> 16) & 15 == 2:
                stack.append((nm, ts))
            else:
                b, t0 = stack.pop()
                dur[b] += ts - t0
                cnt[b] += 1
        recs += 1
        off += size * 8
    # What SOURCE.md says, checked against this reading first.
    assert recs == 12 and off == len(data) == 504
    assert dict(dur) == {"foo": 46291, "my_thing": 317751, "my_other": 126542}
    assert dict(cnt) == {"foo": 1, "my_thing": 2, "my_other": 2}
    got = run([dump, real]).splitlines()
    for line in ("records 0 2", "records 4 10", "thread 1/1 slices 5",
                 "thread 1/1 max_depth 2", "thread 1/1 open_at_end 0",
                 "thread 1/1 dur foo 46291", "thread 1/1 dur my_thing 317751",
                 "thread 1/1 dur my_other 126542", "thread 1/1 count my_thing 2",
                 "provider 1: test, 1000000000 ticks/s"):
        if line not in got:
            fail("real: missing %r" % line)
    if any(l.startswith("diag") for l in got):
        fail("real: unexpected diagnostics")
    info = run([ttv, "--info", real])
    for line in ("  magic number: 1", "  provider info: 1",
                 "  duration begin: 5", "  duration end: 5", "slices: 5",
                 "max depth: 2"):
        if line not in info.splitlines():
            fail("real: --info lacks %r" % line)
    tsv = run([ttv, "--stats", "--tsv", real]).splitlines()
    hdr = tsv[0].split("\t")
    for line in tsv[1:]:
        f = dict(zip(hdr, line.split("\t")))
        fn = f.get("function", f.get("name"))
        tot = int(float(f.get("total_ns", f.get("total", "0"))))
        if int(f["count"]) != cnt[fn] or tot != dur[fn]:
            fail("real: --stats %s %s/%s, want %d/%d" % (fn, f["count"], tot,
                                                         cnt[fn], dur[fn]))
sys.exit(1 if fails else 0)
EOF

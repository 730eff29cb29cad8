#!/usr/bin/env python3
"""Compares what ttv reads from a CoreProfiler TraceLog with the expected
summary written beside it by the generator (gen_tracelog.py or cpgen):

* the collapsed stacks of `ttv --export collapsed --per-thread`, per thread
  (weighted by sample count for sampling logs; for instrumentation logs the
  exact time in ns against collapsed_time_ms),
* per-thread sam str records, samples, sample weight, empty-stack weight,
  maximum depth and OS thread id from `ttv --info`,
* record counts and the damaged line numbers from the diagnostics.

Usage: coreprofiler_conformance.py TTV LOG SUMMARY_JSON
Exit 0 when everything matches, 1 with a report otherwise.
"""
import collections
import json
import re
import subprocess
import sys


def run(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8", "replace"), \
        p.stderr.decode("utf-8", "replace")


def main():
    ttv, log, summ = sys.argv[1:4]
    s = json.load(open(summ, encoding="utf-8"))
    bad = []
    damaged = s["malformed"]["counts"]
    any_damage = sum(damaged.values()) > 0
    ok_rc = (0, 1) if any_damage else (0,)

    rc, out, err = run([ttv, "--export", "collapsed", "--per-thread", log])
    if rc not in ok_rc:
        bad.append("export exit status %d: %s" % (rc, err[:500]))
    got = collections.defaultdict(dict)
    for line in out.splitlines():
        stack, _, w = line.rpartition(" ")
        root, _, rest = stack.partition(";")
        if root.endswith(" JIT/GC"):
            continue           # runtime intervals, not in the summary
        got[root][rest] = got[root].get(rest, 0) + int(w)
    if s["args"]["mode"] != "sampling":
        # Records share milliseconds; ttv spaces them by 1 ns, so compare
        # times at the log's resolution.
        for root in got:
            got[root] = {k: (v + 500000) // 1000000 for k, v in got[root].items()
                         if v >= 500000}
    sampled = s["args"]["mode"] == "sampling"
    for th in s["threads"]:
        label = "thread " + th["thread_iid"]
        want = {}
        key = "collapsed" if sampled else "collapsed_time_ms"
        scale = 1
        for e in th[key]:
            st, _, v = e.rpartition(" ")
            if int(v) != 0:
                want[st] = int(v) * scale
        have = got.pop(label, {})
        if have != want:
            miss = sorted(set(want) - set(have))[:3]
            extra = sorted(set(have) - set(want))[:3]
            diff = [(k, want[k], have[k]) for k in want
                    if k in have and have[k] != want[k]][:3]
            bad.append("%s: collapsed differs: %d vs %d stacks; missing %s; "
                       "extra %s; different %s" % (label, len(want), len(have),
                                                   miss, extra, diff))
    for root in got:
        if any(got[root].values()):
            bad.append("unexpected thread in the export: %s" % root)

    rc, out, err = run([ttv, "--info", log])
    if rc not in ok_rc:
        bad.append("info exit status %d" % rc)
    info = {}
    for m in re.finditer(r"^  (thread 0x[0-9a-f]{8}): (.*)$", out, re.M):
        info[m.group(1)] = m.group(2)
    for th in s["threads"]:
        label = "thread " + th["thread_iid"]
        v = info.get(label)
        if v is None:
            bad.append("%s: not in --info" % label)
            continue
        want = "%d sam str, %d samples, weight %d (%d on an empty stack), " \
               "max depth %d" % (th["sam_str_records"], th["samples"],
                                 th["sample_weight"], th["empty_stack_weight"],
                                 th["max_depth"])
        if want not in v:
            bad.append("%s: --info says %r, expected %r" % (label, v, want))
        if th["declared"] and ("os tid %d" % th["os_thread_id"]) not in v:
            bad.append("%s: os tid %d not in %r" % (label, th["os_thread_id"], v))
    counts = {}
    sect = False
    for line in out.splitlines():
        if line == "records:":
            sect = True
            continue
        if sect:
            m = re.match(r"^  (\w\w\w \w\w\w): (\d+)$", line)
            if not m:
                if not line.startswith("  "):
                    sect = False
                continue
            counts[m.group(1)] = int(m.group(2))
    for k, v in s["record_counts"].items():
        if counts.get(k) != v:
            bad.append("record count %s: %s, expected %d" % (k, counts.get(k), v))
    # Every damaged line reported, and no other line reported as damaged.
    want_lines = sorted(e["line"] for e in s["malformed"]["lines"]
                        if e["kind"] not in ("unknown_type",))
    got_lines = sorted(set(int(m.group(1)) for m in
                           re.finditer(r"^  error: line (\d+): ", out, re.M)))
    if len(s["malformed"]["lines"]) < s["malformed"]["lines_listed_max"]:
        if got_lines != want_lines:
            bad.append("damaged lines: reported %s, expected %s" %
                       (got_lines[:20], want_lines[:20]))
    for b in bad:
        print("FAIL %s: %s" % (log, b))
    if not bad:
        print("ok %s: %d threads" % (log, len(s["threads"])))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

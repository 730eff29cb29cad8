#!/usr/bin/env python3
"""Measures ttv --follow --search from outside (bench/follow.sh): when a
row comes out of ttv against when what completes it was written, and
ttv's memory as it follows.

    follow_probe.py file TTV SRC OUT CHUNK PERIOD_MS REGEX
        SRC (a trace written whole by a generator) is appended to OUT,
        CHUNK bytes every PERIOD_MS (a write is a flush: whole records
        or not, ttv reads only the whole ones), while ttv follows OUT.
        A chunk's latency is from its write to the first row ttv prints
        after it (the period is longer than a read, so no row of a chunk
        comes after the next one is written).

    follow_probe.py live TTV URL TICKS REGEX
        ttv follows a live session until it ends; TICKS is what the
        traced program wrote, one line per call matching REGEX: its
        number and when it returned (CLOCK_MONOTONIC, ns). A call's
        latency is from its return to its row.

    follow_probe.py count TTV TRACE
        the rows of a whole read of TRACE, what a follower should print.

    follow_probe.py rate TTV INPUT SECONDS
        ttv follows INPUT (a file or a live session) while the caller
        feeds it at a high rate; every second: rows printed so far and
        ttv's resident memory; then what ttv still prints within 10 s
        (its backlog).

    follow_probe.py ctf-cut SRC DST PACKETS BACK
        DST made of CTF directory SRC (written by tests/gen/ctfgen -i -L
        PACKETS) as LTTng leaves it before its last BACK packets of each
        stream: the metadata, each stream's first packets and their
        index/*.idx entries.

    follow_probe.py ctf-more SRC DST PACKETS N
        the next N packets of each stream of SRC appended to DST, the
        packets first, then their index entries (as LTTng writes them).

Times are CLOCK_MONOTONIC (Python's time.monotonic on Linux), the clock
the traced program writes too.
"""
import os
import signal
import subprocess
import sys
import threading
import time

from procstat import cpu_s, mem_kb


class Follower:
    """ttv --follow, its rows timed as they come, its memory sampled."""

    def __init__(self, args):
        self.p = subprocess.Popen(args, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.rows = []          # (arrival, line)
        self.rss = []           # (time, kB)
        self.t = threading.Thread(target=self.read)
        self.t.start()
        self.m = threading.Thread(target=self.sample)
        self.m.start()

    def read(self):
        first = True
        for line in self.p.stdout:
            now = time.monotonic()
            if first:           # the header
                first = False
                continue
            self.rows.append((now, line.decode(errors="replace")))

    def sample(self):
        while self.p.poll() is None:
            self.rss.append((time.monotonic(), mem_kb(self.p.pid).get("VmRSS", 0)))
            time.sleep(1.0)

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
        # SIGINT is looked at between reads: a read of gigabytes, or
        # millions of rows to print, can hold it off
        try:
            self.p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            print("  (ttv took more than 15 s to stop after SIGINT: killed)")
            self.p.kill()
            self.p.wait()
        self.t.join()
        self.m.join()


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))]


def say(name, lat):
    ms = [x * 1000 for x in lat]
    print("%s: %d samples, median %.0f ms, p99 %.0f ms, max %.0f ms" %
          (name, len(ms), pct(ms, 0.5), pct(ms, 0.99), max(ms) if ms else 0))


def file_mode(ttv, src, out, chunk, period_ms, regex):
    data = open(src, "rb").read()
    open(out, "wb").close()
    f = Follower([ttv, "--follow", "--search", regex, "--tsv", out])
    time.sleep(1.0)
    writes = []
    fd = os.open(out, os.O_WRONLY | os.O_APPEND)
    nxt = time.monotonic()
    for off in range(0, len(data), chunk):
        now = time.monotonic()
        if now < nxt:
            time.sleep(nxt - now)
        os.write(fd, data[off:off + chunk])
        writes.append((time.monotonic(), off + chunk))
        nxt += period_ms / 1000.0
    os.close(fd)
    time.sleep(max(2.0, 4 * period_ms / 1000.0))
    f.stop()
    arrivals = [a for a, _ in f.rows]
    lat, late = [], []
    for k, (w, size) in enumerate(writes):
        end = writes[k + 1][0] if k + 1 < len(writes) else float("inf")
        first = next((a for a in arrivals if w <= a < end), None)
        if first is None:
            continue
        lat.append(first - w)
        if size > len(data) * 0.9:
            late.append(first - w)
    print("file %s: %d bytes in %d writes of %d bytes every %d ms, %d rows" %
          (os.path.basename(src), len(data), len(writes), chunk, period_ms,
           len(arrivals)))
    say("  write to first row", lat)
    say("  the same, last tenth of the file", late)
    print("  ttv RSS: max %.1f MB, at the end %.1f MB" %
          (max(k for _, k in f.rss) / 1024 if f.rss else 0,
           f.rss[-1][1] / 1024 if f.rss else 0))


def live_mode(ttv, url, ticks, regex):
    f = Follower([ttv, "--follow", "--search", regex, "--tsv", url])
    f.p.wait()
    f.stop()
    ret = []
    for line in open(ticks):
        k, ns = line.split()
        ret.append(int(ns) / 1e9)
    arrivals = [a for a, _ in f.rows]
    n = min(len(ret), len(arrivals))
    lat = [arrivals[i] - ret[i] for i in range(n)]
    print("live: %d calls returned, %d rows" % (len(ret), len(arrivals)))
    say("  return to row", lat)
    print("  ttv RSS: max %.1f MB" %
          (max(k for _, k in f.rss) / 1024 if f.rss else 0))


def rate_mode(ttv, url, seconds):
    f = Follower([ttv, "--follow", "--search", ".", "--tsv", url])
    t0 = time.monotonic()
    n0 = 0
    for s in range(1, int(seconds) + 1):
        time.sleep(max(0, t0 + s - time.monotonic()))
        n = len(f.rows)
        print("  %3d s: %9d rows (%8d/s), ttv RSS %7.1f MB, CPU %6.2f s" %
              (s, n, n - n0, mem_kb(f.p.pid).get("VmRSS", 0) / 1024, cpu_s(f.p.pid)))
        n0 = n
        sys.stdout.flush()
    return f


def ctf_packets(pkfile):
    """stream -> [(offset, bytes)] in file order, from ctfgen -L"""
    per = {}
    for line in open(pkfile):
        name, off, size = line.split()[:3]
        per.setdefault(name, []).append((int(off), int(size)))
    return per


def ctf_feed(src, dst, pkfile, back, more):
    """DST's streams given their first packets (all but BACK), or MORE
    packets after those DST has."""
    for name, pk in sorted(ctf_packets(pkfile).items()):
        sidx = os.path.join(src, "index", name + ".idx")
        didx = os.path.join(dst, "index", name + ".idx")
        with open(sidx, "rb") as f:
            idx = f.read()
        es = (len(idx) - 16) // len(pk)
        if more is None:
            have, n = 0, max(0, len(pk) - back)
        else:
            size = os.path.getsize(os.path.join(dst, name))
            have = sum(1 for off, b in pk if off + b <= size)
            n = min(more, len(pk) - have)
        with open(os.path.join(src, name), "rb") as f:
            if n > 0:
                f.seek(pk[have][0])
                data = f.read(pk[have + n - 1][0] + pk[have + n - 1][1] -
                              pk[have][0])
            else:
                data = b""
        head = idx[:16] if more is None else b""
        with open(os.path.join(dst, name), "ab") as f:
            f.write(data)
        with open(didx, "ab") as f:
            f.write(head + idx[16 + have * es:16 + (have + n) * es])


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "file":
        file_mode(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]),
                  int(sys.argv[6]), sys.argv[7])
    elif mode == "live":
        live_mode(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif mode == "count":
        # rows of a whole read of a trace (what a follower should print)
        p = subprocess.run([sys.argv[2], "--search", ".", "--tsv",
                            sys.argv[3]], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
        print("  (a whole read of it has %d rows)" %
              (p.stdout.count(b"\n") - 1))
    elif mode == "ctf-cut":
        import shutil
        shutil.rmtree(sys.argv[3], ignore_errors=True)
        os.makedirs(os.path.join(sys.argv[3], "index"))
        shutil.copyfile(os.path.join(sys.argv[2], "metadata"),
                        os.path.join(sys.argv[3], "metadata"))
        ctf_feed(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]),
                 None)
    elif mode == "ctf-more":
        ctf_feed(sys.argv[2], sys.argv[3], sys.argv[4], 0, int(sys.argv[5]))
    elif mode == "rate":
        f = rate_mode(sys.argv[2], sys.argv[3], float(sys.argv[4]))
        # the producer has stopped: what ttv prints in the next 10 s
        # (or until the session ends) is its backlog
        t = time.monotonic()
        n = len(f.rows)
        try:
            f.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        f.stop()
        print("  after the producer stopped: %d more rows in %.1f s" %
              (len(f.rows) - n, time.monotonic() - t))

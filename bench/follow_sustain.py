#!/usr/bin/env python3
"""ttv --follow --search under a sustained rate (bench/follow.sh part 6).

    follow_sustain.py TTV REGEX TRACE SAMPLE_S BOUND_S -- PRODUCER...

PRODUCER (tests/gen/fxtgen --pace RATE SECONDS TRACE) writes TRACE as a
traced program runs; once it has written something, `ttv --follow
--search REGEX --tsv TRACE` follows it. Every SAMPLE_S seconds: ttv's
RssAnon, RssFile and VmRSS (/proc/PID/status), its CPU time (user + sys,
/proc/PID/stat), the rows printed so far, TRACE's size and the size of
ttv's index and followed model (under $XDG_CACHE_HOME, the nameless file
ttv holds open there counted too). Once the producer stops,
ttv is given BOUND_S seconds to print the rows it owes: as many as the
producer says it wrote calls named rare_call (its last line), or, short
of that, until it has used no CPU for 5 s. Then: the producer's report,
rows printed against a whole read of the finished TRACE (ttv --no-index,
run after the follower is gone so the two do not share the CPU; not
tried when it would not fit in the memory available), the
backlog (from the producer's end to ttv's last row), the peak and last
memory, and whether RssAnon stayed flat (its mean over the last third of
the run against the first third, and its slope).
"""
import os
import re
import signal
import subprocess
import sys
import threading
import time

from procstat import await_start, cpu_s, mem_kb


def du(path):
    """bytes of the files under path"""
    n = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                n += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return n


def on_disk(path, pid):
    """bytes under path, and of the files without a name there that pid
    holds open (the followed model's file: ttv makes it nameless)"""
    n = du(path)
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return n
    for fd in fds:
        p = "/proc/%d/fd/%s" % (pid, fd)
        try:
            link = os.readlink(p)
            if link.startswith(path) and link.endswith("(deleted)"):
                n += os.stat(p).st_blocks * 512
        except OSError:
            pass
    return n


class Follower:
    """ttv --follow --tsv; its rows counted and timed as they come."""

    def __init__(self, args):
        self.p = subprocess.Popen(args, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.rows = 0
        self.last = None        # when the last row came
        self.err = b""
        self.t = threading.Thread(target=self.read)
        self.t.start()
        self.e = threading.Thread(target=self.read_err)
        self.e.start()

    def read(self):
        first = True
        for _ in self.p.stdout:
            if first:           # the header
                first = False
                continue
            self.rows += 1
            self.last = time.monotonic()

    def read_err(self):
        self.err = self.p.stderr.read()[-2000:]

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            print("  (ttv took more than 30 s to stop after SIGINT: killed)")
            self.p.kill()
            self.p.wait()
        self.t.join()
        self.e.join()


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def slope(pts):
    """least squares slope of [(x, y)]"""
    if len(pts) < 2:
        return float("nan")
    mx = mean([x for x, _ in pts])
    my = mean([y for _, y in pts])
    d = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / d if d else 0.0


def main():
    ttv, regex, trace = sys.argv[1], sys.argv[2], sys.argv[3]
    every, bound = float(sys.argv[4]), float(sys.argv[5])
    if sys.argv[6] != "--":
        sys.exit("usage: follow_sustain.py TTV REGEX TRACE SAMPLE_S BOUND_S"
                 " -- PRODUCER...")
    producer = sys.argv[7:]
    cache = os.environ.get("XDG_CACHE_HOME", "")
    prod = subprocess.Popen(producer, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    await_start(prod, trace)
    f = Follower([ttv, "--follow", "--search", regex, "--tsv", trace])
    t1 = time.monotonic()
    samples = []        # (s, RssAnon kB, VmRSS kB)
    print("  %6s %9s %9s %9s %8s %8s %9s %9s" % (
        "time", "RssAnon", "RssFile", "VmRSS", "CPU", "rows", "trace",
        "index"))

    def sample():
        st = mem_kb(f.p.pid)
        t = time.monotonic() - t1
        try:
            size = os.path.getsize(trace)
        except OSError:
            size = 0
        samples.append((t, st.get("RssAnon", 0), st.get("VmRSS", 0)))
        print("  %5.0fs %6.1f MB %6.1f MB %6.1f MB %7.1fs %8d %6.0f MB "
              "%6.0f MB" % (t, st.get("RssAnon", 0) / 1024,
                            st.get("RssFile", 0) / 1024,
                            st.get("VmRSS", 0) / 1024, cpu_s(f.p.pid), f.rows,
                            size / 1e6, on_disk(cache, f.p.pid) / 1e6 if cache else 0))
        sys.stdout.flush()

    nxt = t1 + every
    died = None
    while prod.poll() is None:
        time.sleep(max(0, min(0.2, nxt - time.monotonic())))
        if died is None and f.p.poll() is not None:
            died = time.monotonic() - t1
            print("  ttv exited %d %.1f s in" % (f.p.returncode, died))
        if time.monotonic() >= nxt and prod.poll() is None:
            sample()
            nxt += every
    stopped = time.monotonic()
    report = prod.stdout.read().decode(errors="replace").strip()
    m = re.search(r"\((\d+) named rare_call\)", report)
    owed = int(m.group(1)) if m else None
    # what ttv still owes, within the bound
    idle_since, cpu = time.monotonic(), cpu_s(f.p.pid)
    while f.p.poll() is None and time.monotonic() - stopped < bound:
        if owed is not None and f.rows >= owed:
            break
        time.sleep(0.1)
        c = cpu_s(f.p.pid)
        if c != cpu:
            cpu, idle_since = c, time.monotonic()
        elif time.monotonic() - idle_since > 5:
            break
    waited = time.monotonic() - stopped
    if died is None and f.p.poll() is not None:
        died = time.monotonic() - t1
    sample()
    st = mem_kb(f.p.pid)
    ttv_cpu = cpu_s(f.p.pid)
    f.stop()
    print("  producer: %s (exit %d)" % (report, prod.returncode))
    if f.p.returncode not in (0, 130, -signal.SIGINT):
        print("  ttv exited %d%s: %s" % (
            f.p.returncode, "" if died is None else " %.1f s in" % died,
            f.err.decode(errors="replace").strip()))
    # a whole read holds some 0.4 bytes of memory a byte of FXT besides
    # the mapped file: not tried where it would not fit
    size = os.path.getsize(trace)
    avail = 0
    with open("/proc/meminfo") as mi:
        for line in mi:
            if line.startswith("MemAvailable:"):
                avail = int(line.split()[1]) * 1024
    if size * 0.5 > avail * 0.75:
        print("  rows: %d printed while following, %s named rare_call "
              "written; no whole read of the finished trace (%.1f GB, "
              "%.1f GB of memory available)" % (
                  f.rows, owed, size / 1e9, avail / 1e9))
    else:
        t = time.monotonic()
        w = subprocess.Popen([ttv, "--no-index", "--search", regex, "--tsv",
                              trace], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        nwhole = max(0, sum(1 for _ in w.stdout) - 1)
        _, _, ru = os.wait4(w.pid, 0)
        w.returncode = 0
        print("  rows: %d printed while following, %d in a whole read of "
              "the finished trace (%s; that read: %.1f s, %.1f s CPU, "
              "peak RSS %.0f MB)" % (
                  f.rows, nwhole, "the same" if f.rows == nwhole else
                  "%+d" % (f.rows - nwhole), time.monotonic() - t,
                  ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024))
    if owed is not None and f.rows >= owed:
        back = max(0.0, f.last - stopped) if f.last else 0.0
        print("  backlog: its last row %.1f s after the producer stopped"
              % back)
    else:
        print("  backlog: still %s rows short %.0f s after the producer "
              "stopped (bound %.0f s)" % (
                  owed - f.rows if owed is not None else "some", waited,
                  bound))
    anon = [a for _, a, _ in samples]
    print("  ttv: CPU %.1f s over %.0f s; RssAnon peak %.1f MB, last %.1f "
          "MB; VmRSS peak %.1f MB, last %.1f MB; VmHWM %.1f MB" % (
              ttv_cpu, stopped - t1 + waited, max(anon or [0]) / 1024,
              (anon or [0])[-1] / 1024,
              max([v for _, _, v in samples] or [0]) / 1024,
              (samples or [(0, 0, 0)])[-1][2] / 1024,
              st.get("VmHWM", 0) / 1024))
    # flat: the last third of the run against the first third (the
    # samples taken while the producer ran)
    run = [(t, a) for t, a, _ in samples[:-1]] or [(t, a) for t, a, _ in
                                                    samples]
    third = max(1, len(run) // 3)
    first, last = mean([a for _, a in run[:third]]), \
        mean([a for _, a in run[-third:]])
    grow = (last - first) / 1024
    per_s = slope(run) / 1024
    flat = grow <= max(8.0, 0.1 * first / 1024)
    print("  RssAnon: first third %.1f MB, last third %.1f MB (%+.1f MB; "
          "%+.2f MB/s over the run): %s" % (
              first / 1024, last / 1024, grow, per_s,
              "ttv is gone, no verdict" if died is not None else
              "flat" if flat else "GROWS"))


if __name__ == "__main__":
    main()

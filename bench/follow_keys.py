#!/usr/bin/env python3
"""The viewer's key latency while it follows a fast-growing trace
(bench/follow.sh part 5).

    follow_keys.py TTV SRC LOG SECONDS CHUNK PERIOD_MS KEYS...
    follow_keys.py --run TTV LOG KEYS... -- PRODUCER...

SRC (a CoreProfiler log written whole by tests/gen/cpgen) is appended to
LOG, CHUNK bytes every PERIOD_MS for SECONDS, while `ttv --follow LOG`
runs in a pseudo-terminal of 200x50; every 100 ms one of KEYS (round
robin; ttv's key names as bytes: L, H, +, -, G...) is pressed. With
--run, PRODUCER (e.g. tests/gen/fxtgen --pace RATE SECONDS LOG) writes
LOG as a traced program runs; ttv starts once it has written something,
and the keys go on until the producer exits (bench/follow.sh part 6).
A key's latency is from writing it to the pty to the end of the frame that
answers it: with TTV_TEST_SENTINEL set (as tests/ui/ui_screen runs it)
ttv ends every frame with an OSC sequence carrying the number of keys it
has handled, so a frame drawn because the trace grew is not taken for
the key's. A key still unanswered when the next is due is waited for
(its latency counted whole), so a slow answer is never hidden.

Prints per key and over all keys: median, p99, max; and ttv's CPU time,
peak memory and the log's final size.
"""
import fcntl
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time

from procstat import await_start, cpu_s, mem_kb

SENTINEL = re.compile(rb"\x1b\]7777;ttv-frame;(\d+)\x07")


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))]


class Viewer:
    """ttv in a pty; a thread drains its output and notes the number of
    keys each frame says were handled."""

    def __init__(self, args, env):
        pid, fd = pty.fork()
        if pid == 0:
            fcntl.ioctl(0, termios.TIOCSWINSZ,
                        struct.pack("HHHH", 50, 200, 0, 0))
            os.execve(args[0], args, env)
        self.pid, self.fd = pid, fd
        self.handled = -1       # keys handled, as the last frame said
        self.gone = False       # ttv's end of the pty closed
        self.last_out = b""     # what it wrote last (an error, once gone)
        self.frames = 0
        self.cv = threading.Condition()
        self.t = threading.Thread(target=self.read, daemon=True)
        self.t.start()

    def read(self):
        tail = b""
        while True:
            try:
                b = os.read(self.fd, 65536)
            except OSError:
                b = b""
            if not b:
                with self.cv:
                    self.gone = True
                    self.handled = 1 << 60      # gone: wake the waiter
                    self.cv.notify_all()
                return
            self.last_out = (self.last_out + b)[-400:]
            buf = tail + b
            last = None
            for m in SENTINEL.finditer(buf):
                last = int(m.group(1))
                self.frames += 1
            # a sentinel cut between two reads is found in the next one
            cut = buf.rfind(b"\x1b")
            tail = buf[cut:] if cut >= 0 and len(buf) - cut < 64 else b""
            if last is not None:
                with self.cv:
                    self.handled = max(self.handled, last)
                    self.cv.notify_all()

    def wait_handled(self, n, timeout):
        end = time.monotonic() + timeout
        with self.cv:
            while self.handled < n:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self.cv.wait(left)
        return True


def main():
    prod = None
    if sys.argv[1] == "--run":
        if "--" not in sys.argv:
            sys.exit("usage: follow_keys.py --run TTV LOG KEYS... -- "
                     "PRODUCER...")
        cut = sys.argv.index("--")
        ttv, log, keys = sys.argv[2], sys.argv[3], sys.argv[4:cut]
        seconds = float("inf")
        prod = subprocess.Popen(sys.argv[cut + 1:], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        await_start(prod, log)
    else:
        ttv, src, log = sys.argv[1], sys.argv[2], sys.argv[3]
        seconds, chunk = float(sys.argv[4]), int(sys.argv[5])
        period = int(sys.argv[6]) / 1000.0
        keys = sys.argv[7:]
        s = open(src, "rb")
        with open(log, "wb") as f:
            f.write(s.read(chunk))
    env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8", TZ="UTC",
               ESCDELAY="25", TTV_TEST_SENTINEL="1")
    v = Viewer([ttv, "--follow", log], env)
    if not v.wait_handled(0, 30):
        print("  ttv drew no frame in 30 s")
        os.kill(v.pid, signal.SIGKILL)
        os.waitpid(v.pid, 0)
        if prod is not None:
            prod.kill()
            prod.wait()
        sys.exit(1)
    time.sleep(0.5)
    stop = threading.Event()

    def writer():
        fd = os.open(log, os.O_WRONLY | os.O_APPEND)
        nxt = time.monotonic()
        while not stop.is_set():
            b = s.read(chunk)
            if not b:
                break
            os.write(fd, b)
            nxt += period
            time.sleep(max(0, nxt - time.monotonic()))
        os.close(fd)

    w = threading.Thread(target=writer)
    if prod is None:
        w.start()
    lat = {k: [] for k in keys}
    late = 0
    t0 = time.monotonic()
    nxt = t0
    sent = 0
    while time.monotonic() - t0 < seconds and (prod is None or
                                               prod.poll() is None):
        k = keys[sent % len(keys)]
        t = time.monotonic()
        os.write(v.fd, k.encode())
        sent += 1
        if not v.wait_handled(sent, 10):
            print("  key %d (%s) not answered in 10 s" % (sent, k))
            break
        if v.gone:      # not an answer: ttv is gone
            said = re.sub(rb"\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07]*\x07|.)",
                          b"", v.last_out).decode(errors="replace")
            print("  ttv went away at key %d (%s), %.1f s in: %s" %
                  (sent, k, time.monotonic() - t0,
                   (said.strip().splitlines() or [""])[-1]))
            break
        lat[k].append(time.monotonic() - t)
        nxt += 0.1
        if time.monotonic() > nxt:
            late += 1
            nxt = time.monotonic()
        time.sleep(max(0, nxt - time.monotonic()))
    stop.set()
    if prod is None:
        w.join()
    elif prod.poll() is None:   # ttv went away first
        prod.terminate()
        prod.wait()
    cpu, hwm = cpu_s(v.pid), mem_kb(v.pid).get("VmHWM", 0)
    try:
        os.write(v.fd, b"q")
    except OSError:     # gone already
        pass
    for _ in range(100):
        if os.waitpid(v.pid, os.WNOHANG)[0] != 0:
            break
        time.sleep(0.1)
    else:
        os.kill(v.pid, signal.SIGKILL)
        os.waitpid(v.pid, 0)
    every = []
    for k in keys:
        ms = [x * 1000 for x in lat[k]]
        every += ms
        print("  key %-3s x%-4d median %6.1f ms  p99 %6.1f ms  max %6.1f ms" %
              (k, len(ms), pct(ms, 0.5), pct(ms, 0.99), max(ms or [0])))
    print("  all keys x%-4d median %6.1f ms  p99 %6.1f ms  max %6.1f ms "
          "(target p99 < 50 ms)" % (len(every), pct(every, 0.5),
                                    pct(every, 0.99), max(every or [0])))
    print("  keys answered after the next was due: %d; frames drawn: %d; "
          "ttv CPU %.1f s, peak RSS %.0f MB; the log: %.0f MB" %
          (late, v.frames, cpu, hwm / 1024, os.path.getsize(log) / 1e6))
    if prod is not None:
        print("  producer: %s (exit %d)" % (
            prod.stdout.read().decode(errors="replace").strip(),
            prod.returncode))


if __name__ == "__main__":
    main()

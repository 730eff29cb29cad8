"""What /proc says of a process, and a producer's first bytes, for the
follow benchmarks (follow_probe.py, follow_keys.py, follow_sustain.py)."""
import os
import time


def cpu_s(pid):
    """user + system CPU seconds of a process so far (0 once it is gone)"""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def mem_kb(pid):
    """RssAnon, RssFile, VmRSS, VmHWM of a process in kB ({} once gone)"""
    out = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("RssAnon", "RssFile", "VmRSS", "VmHWM"):
                    out[k] = int(v.split()[0])
    except (OSError, ValueError, IndexError):
        pass
    return out


def await_start(prod, path, timeout=10):
    """waits until the producer has written its header records (more than
    4 KB of path; the first chunk comes 100 ms on), or ended"""
    t = time.monotonic()
    while prod.poll() is None and time.monotonic() - t < timeout:
        if os.path.exists(path) and os.path.getsize(path) > 4096:
            break
        time.sleep(0.01)

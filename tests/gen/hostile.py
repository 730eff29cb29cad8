#!/usr/bin/env python3
"""hostile: writes small crafted inputs that once made a reader take
gigabytes or minutes, for tests/cli/hostile.sh.

  hostile.py KIND OUT [N] [A]

KIND:
  fxt-providers  N (default 10000) bare provider-info records after the
                 FXT magic: 8 bytes each, each a new provider
  fxt-deep       one thread opening N (default 100000) duration-begin
                 events, each inside the last, and no end
  ctf-classes    a CTF trace directory OUT whose one stream class has N
                 (default 10000) event classes, and a one-event stream
  ctf-aliases    a CTF trace directory OUT whose metadata chains N
                 (default 20000) typealiases, each naming the last
  fxt-slow       an FXT trace at 5678 ticks a second whose N (default 7)
                 calls start near tick 7.2e15: absolute times pass 2^63 ns
  ctf-far-clock  a CTF trace directory OUT whose clock starts 10^13 s
                 (300,000 years) after 1970: its N (default 3) events'
                 times are past 2^63 ns; a last event at cycle 2^64 - 1
                 is past it even from the clock's origin
  cp-deep        a CoreProfiler TraceLog whose one `sam str` line holds
                 a stack of N (default 1000000) frames, 4 bytes each
  fxt-funcs      an FXT trace of N (default 80000) calls, one after the
                 other, each of a function of its own (f0, f1, ...)
  fxt-faithful   an FXT trace of one call of each name of NAMES below, in
                 that order, a microsecond apart
  cp-faithful    the same in a CoreProfiler TraceLog (sampling)
  fxt-formulas   an FXT trace of the names of NAMES a spreadsheet would
                 take for formulas, each calling the next, twice
  ctf-faithful   a CTF trace directory OUT with an event class of each
                 name of NAMES (as TSDL octal escapes) and one event of
                 each, in that order

  fxt-names      an FXT trace of N (default 1000) functions, each called
                 once, named A (default 30) letters a, "!" and a number:
                 the pattern (a+)+$ backtracks 2^(A+1) steps on each
  fxt-strings    an FXT trace of one function, N (default 1000) log
                 records and N instants, each with one string argument,
                 whose texts are A (default 30) letters a, "!", "log" or
                 "arg" and a number
  fxt-long-log   an FXT trace of one call and N (default 1) log records
                 of A (default 30, at most 32767) bytes each: letters a
                 to z, each record starting with its number in letters

NAMES: pairs that a careless escaping merges (a byte and the text that
spells it: 0xFF and \\xff, NUL and \\x00, C0 80 and NUL; ';' and ':'),
a backslash, and names a spreadsheet would take for formulas.
"""
import os
import struct
import sys


def fxt_providers(out, n):
    out.write(struct.pack('<Q', 0x0016547846040010))    # magic record
    for i in range(n):
        # metadata record (type 0), one word, provider info (1), id i+1,
        # name of length 0
        out.write(struct.pack('<Q', (1 << 4) | (1 << 16) | ((i + 1) << 20)))


def fxt_deep(out, n):
    out.write(struct.pack('<Q', 0x0016547846040010))
    # provider 1, then a thread record (index 1: pid 1, tid 2) and a
    # string record (index 1: "f")
    out.write(struct.pack('<Q', (1 << 4) | (1 << 16) | (1 << 20)))
    out.write(struct.pack('<QQQ', 3 | (3 << 4) | (1 << 16), 1, 2))
    out.write(struct.pack('<QQ', 2 | (2 << 4) | (1 << 16) | (1 << 32),
                          ord('f')))
    for i in range(n):
        # event record (type 4), 2 words: duration begin (2), thread
        # ref 1, name ref 1, category ref 1; then the timestamp
        h = 4 | (2 << 4) | (2 << 16) | (1 << 24) | (1 << 32) | (1 << 48)
        out.write(struct.pack('<QQ', h, 1000 + i))


def fxt_slow(out, n):
    out.write(struct.pack('<Q', 0x0016547846040010))
    out.write(struct.pack('<Q', (1 << 4) | (1 << 16) | (1 << 20)))
    # initialization record (type 1, 2 words): 5678 ticks a second
    out.write(struct.pack('<QQ', 1 | (2 << 4), 5678))
    out.write(struct.pack('<QQQ', 3 | (3 << 4) | (1 << 16), 1, 2))
    out.write(struct.pack('<QQ', 2 | (2 << 4) | (1 << 16) | (1 << 32),
                          ord('f')))
    base = 7200000000000000
    for i in range(n):
        for et, t in ((2, base + 10 * i), (3, base + 10 * i + 5)):
            # duration begin (2) or end (3) on thread 1, name 1
            h = 4 | (2 << 4) | (et << 16) | (1 << 24) | (1 << 32) | (1 << 48)
            out.write(struct.pack('<QQ', h, t))


NAMES = [b'a\xffb', b'a\\xffb', b'n\x00b', b'n\\x00b', b'c\xc0\x80d',
         b's;t', b's:t', b'back\\slash', b'=1+2', b'@SUM(A1)', b'+x',
         b'-x', b'plain']


def fxt_calls(out, names):
    """One thread (pid 1, tid 2), a call of each name, inline strings."""
    out.write(struct.pack('<Q', 0x0016547846040010))
    out.write(struct.pack('<Q', (1 << 4) | (1 << 16) | (1 << 20)))
    out.write(struct.pack('<QQQ', 3 | (3 << 4) | (1 << 16), 1, 2))
    out.write(struct.pack('<QQ', 2 | (2 << 4) | (1 << 16) | (1 << 32),
                          ord('c')))
    for i, name in enumerate(names):
        padded = name + b'\0' * (-len(name) % 8)
        words = 3 + len(padded) // 8
        # event record (4), duration complete (4), thread ref 1,
        # category ref 1, the name inline (0x8000 | length)
        h = (4 | (words << 4) | (4 << 16) | (1 << 24) | (1 << 32) |
             ((0x8000 | len(name)) << 48))
        out.write(struct.pack('<QQ', h, 1000 * (i + 1)))
        out.write(padded)
        out.write(struct.pack('<Q', 1000 * (i + 1) + 500))


def fxt_nested(out, names):
    """One thread: a call of names[0] holding one of names[1] and so
    on, then a second, shorter one of each."""
    out.write(struct.pack('<Q', 0x0016547846040010))
    out.write(struct.pack('<Q', (1 << 4) | (1 << 16) | (1 << 20)))
    out.write(struct.pack('<QQQ', 3 | (3 << 4) | (1 << 16), 1, 2))
    out.write(struct.pack('<QQ', 2 | (2 << 4) | (1 << 16) | (1 << 32),
                          ord('c')))
    for t0, t1 in ((1000, 2000), (3000, 3500)):
        for i, name in enumerate(names):
            padded = name + b'\0' * (-len(name) % 8)
            words = 3 + len(padded) // 8
            h = (4 | (words << 4) | (4 << 16) | (1 << 24) | (1 << 32) |
                 ((0x8000 | len(name)) << 48))
            out.write(struct.pack('<QQ', h, t0 + 10 * i))
            out.write(padded)
            out.write(struct.pack('<Q', t1 - 10 * i))


def cp_names(out, names):
    out.write(b'prf stm 2024-02-29 23:59:58.250 +00:00\n'
              b'prf cfg CollectionMethod Sampling\n'
              b'thr crt 0xA3F00000 0x00000001\n'
              b'thr aos 0x00000001 3007\n')
    for i, name in enumerate(names):
        out.write(b'fun inf 0x%08x 0x%08x 0x0 0x0 0x0 0x%08x:0x10\n' %
                  (i + 1, 0xA4000000 + 0x100 * i, 0xA5000000 + 0x100 * i))
        out.write(b'fun nam 0x%08x "' % (i + 1) + name +
                  b'" "void" "()"\n')
    # MPS:STACKSIZE, the size at the previous record: each sample
    # replaces the one frame by the next function
    for i in range(len(names)):
        out.write(b'sam str 0x00000001 %d 1 0:%d 0x%x\n' %
                  (20 + 4 * i, 1 if i else 0, i + 1))
    out.write(b'sam str 0x00000001 %d 1 0:1\n' % (20 + 4 * len(names)))


def ctf_names(d, names):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'metadata'), 'w') as f:
        f.write(CTF_HEAD + CTF_TRACE)
        for i, name in enumerate(names):
            lit = ''.join(chr(c) if 0x20 <= c < 0x7f and c not in b'"\\'
                          else '\\%03o' % c for c in name)
            f.write('event { name = "%s"; id = %d; stream_id = 0; '
                    'fields := struct { uint32_t v; }; };\n' % (lit, i))
    body = b''
    for i in range(len(names)):
        body += struct.pack('<IQ', i, 1000 * (i + 1)) + struct.pack('<I', 7)
    hdr = struct.pack('<II', 0xC1FC1FC1, 0)
    size = len(hdr) + 16 + len(body)
    with open(os.path.join(d, 'stream_0'), 'wb') as f:
        f.write(hdr + struct.pack('<QQ', size * 8, size * 8) + body)


def cp_deep(out, n):
    out.write(b'prf stm 2024-02-29 23:59:58.250 +00:00\n'
              b'prf cfg CollectionMethod Sampling\n'
              b'thr crt 0xA3F00000 0x00000001\n'
              b'thr aos 0x00000001 3007\n'
              b'fun inf 0x00000001 0xA4000000 0x0 0x0 0x0 0xA5000000:0x10\n'
              b'fun nam 0x00000001 "f" "void" "()"\n')
    out.write(b'sam str 0x00000001 22 1 0:%d' % n + b' 0x1' * n + b'\n')
    out.write(b'sam str 0x00000001 30 1 0:0\n')


CTF_HEAD = """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
"""
CTF_TRACE = """trace { major = 1; minor = 8; byte_order = le;
  packet.header := struct { uint32_t magic; uint32_t stream_id; }; };
stream { id = 0; event.header := struct { uint32_t id; uint64_t timestamp; };
  packet.context := struct { uint64_t packet_size; uint64_t content_size; }; };
"""


def ctf_stream(path, event_id):
    body = struct.pack('<IQ', event_id, 1000) + struct.pack('<I', 7)
    hdr = struct.pack('<II', 0xC1FC1FC1, 0)
    size = len(hdr) + 16 + len(body)
    with open(path, 'wb') as f:
        f.write(hdr + struct.pack('<QQ', size * 8, size * 8) + body)


def ctf_classes(d, n):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'metadata'), 'w') as f:
        f.write(CTF_HEAD + CTF_TRACE)
        for i in range(n):
            f.write('event { name = "e%d"; id = %d; stream_id = 0; '
                    'fields := struct { uint32_t v; }; };\n' % (i, i))
    ctf_stream(os.path.join(d, 'stream_0'), 5)


def ctf_aliases(d, n):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'metadata'), 'w') as f:
        f.write(CTF_HEAD)
        f.write('typealias uint32_t := a0;\n')
        for i in range(1, n):
            f.write('typealias a%d := a%d;\n' % (i - 1, i))
        f.write(CTF_TRACE)
        f.write('event { name = "e"; id = 0; stream_id = 0; '
                'fields := struct { a%d v; }; };\n' % (n - 1))
    ctf_stream(os.path.join(d, 'stream_0'), 0)


def ctf_far_clock(d, n):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'metadata'), 'w') as f:
        f.write(CTF_HEAD)
        f.write('clock { name = c; freq = 1000000000; '
                'offset_s = 10000000000000; };\n')
        f.write('typealias integer { size = 64; align = 8; signed = false; '
                'map = clock.c.value; } := ts_t;\n')
        f.write(CTF_TRACE.replace('uint64_t timestamp', 'ts_t timestamp'))
        f.write('event { name = "e"; id = 0; stream_id = 0; '
                'fields := struct { uint32_t v; }; };\n')
    body = b''
    for i in range(n):
        body += struct.pack('<IQ', 0, 1000 + i) + struct.pack('<I', 7)
    body += struct.pack('<IQ', 0, 2**64 - 1) + struct.pack('<I', 7)
    hdr = struct.pack('<II', 0xC1FC1FC1, 0)
    size = len(hdr) + 16 + len(body)
    with open(os.path.join(d, 'stream_0'), 'wb') as f:
        f.write(hdr + struct.pack('<QQ', size * 8, size * 8) + body)


def fxt_head(out):
    """Magic, provider 1, thread 1 (pid 1, tid 2): what fxt_* below
    write their events and logs on."""
    out.write(struct.pack('<Q', 0x0016547846040010))
    out.write(struct.pack('<Q', (1 << 4) | (1 << 16) | (1 << 20)))
    out.write(struct.pack('<QQQ', 3 | (3 << 4) | (1 << 16), 1, 2))


def fxt_inline(text):
    """An inline string: its reference and its padded bytes."""
    b = text.encode()
    assert len(b) < 0x8000
    return 0x8000 | len(b), b + b'\0' * (-len(b) % 8)


def fxt_call(out, name, t0, t1):
    """A duration-complete event on thread 1 with an inline name."""
    ref, pad = fxt_inline(name)
    words = 3 + len(pad) // 8
    out.write(struct.pack('<QQ', 4 | (words << 4) | (4 << 16) | (1 << 24) |
                          (ref << 48), t0))
    out.write(pad + struct.pack('<Q', t1))


def fxt_log(out, text, t):
    b = text.encode()
    assert len(b) < 0x8000
    pad = b + b'\0' * (-len(b) % 8)
    out.write(struct.pack('<QQ', 9 | ((2 + len(pad) // 8) << 4) |
                          (len(b) << 16) | (1 << 32), t) + pad)


def fxt_instant_arg(out, name, key, value, t):
    """An instant on thread 1 with one string argument, all inline."""
    nref, npad = fxt_inline(name)
    kref, kpad = fxt_inline(key)
    vref, vpad = fxt_inline(value)
    awords = 1 + (len(kpad) + len(vpad)) // 8
    words = 2 + len(npad) // 8 + awords
    out.write(struct.pack('<QQ', 4 | (words << 4) | (0 << 16) | (1 << 20) |
                          (1 << 24) | (nref << 48), t) + npad)
    out.write(struct.pack('<Q', 6 | (awords << 4) | (kref << 16) |
                          (vref << 32)) + kpad + vpad)


def fxt_names(out, n, a):
    fxt_head(out)
    for i in range(n):
        fxt_call(out, 'a' * a + '!' + str(i), 1000 + 10 * i, 1005 + 10 * i)


def fxt_strings(out, n, a):
    fxt_head(out)
    fxt_call(out, 'main', 1000, 1000 + 30 * n + 10)
    for i in range(n):
        fxt_log(out, 'a' * a + '!log' + str(i), 1001 + 30 * i)
        fxt_instant_arg(out, 'tick', 'text', 'a' * a + '!arg' + str(i),
                        1011 + 30 * i)


def fxt_long_log(out, n, a):
    fxt_head(out)
    fxt_call(out, 'main', 1000, 1000 + n + 10)
    body = ''.join(chr(97 + i % 26) for i in range(min(a, 32767)))
    for i in range(n):
        num, k = '', i
        while True:
            num, k = chr(97 + k % 26) + num, k // 26
            if k == 0:
                break
        fxt_log(out, (num + '-' + body)[:len(body)], 1001 + i)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    kind, path = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else None
    a = int(sys.argv[4]) if len(sys.argv) > 4 else 30
    if kind == 'ctf-classes':
        return ctf_classes(path, n or 10000)
    if kind == 'ctf-aliases':
        return ctf_aliases(path, n or 20000)
    if kind == 'ctf-far-clock':
        return ctf_far_clock(path, n or 3)
    if kind == 'ctf-faithful':
        return ctf_names(path, NAMES)
    with open(path, 'wb') as out:
        if kind == 'fxt-providers':
            fxt_providers(out, n or 10000)
        elif kind == 'fxt-deep':
            fxt_deep(out, n or 100000)
        elif kind == 'fxt-slow':
            fxt_slow(out, n or 7)
        elif kind == 'cp-deep':
            cp_deep(out, n or 1000000)
        elif kind == 'fxt-funcs':
            fxt_calls(out, [b'f%d' % i for i in range(n or 80000)])
        elif kind == 'fxt-faithful':
            fxt_calls(out, NAMES)
        elif kind == 'fxt-formulas':
            fxt_nested(out, [n for n in NAMES if n[:1] in b'=@+-'])
        elif kind == 'cp-faithful':
            cp_names(out, NAMES)
        elif kind == 'fxt-names':
            fxt_names(out, n or 1000, a)
        elif kind == 'fxt-strings':
            fxt_strings(out, n or 1000, a)
        elif kind == 'fxt-long-log':
            fxt_long_log(out, n or 1, a)
        else:
            sys.exit('hostile.py: unknown kind ' + kind)


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""hostile: writes small crafted inputs that once made a reader take
gigabytes or minutes, for tests/hostile.sh.

  hostile.py KIND OUT [N]

KIND:
  fxt-providers  N (default 10000) bare provider-info records after the
                 FXT magic: 8 bytes each, each a new provider
  fxt-deep       one thread opening N (default 100000) duration-begin
                 events, each inside the last, and no end
"""
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


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    kind, path = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else None
    with open(path, 'wb') as out:
        if kind == 'fxt-providers':
            fxt_providers(out, n or 10000)
        elif kind == 'fxt-deep':
            fxt_deep(out, n or 100000)
        else:
            sys.exit('hostile.py: unknown kind ' + kind)


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""A relay daemon's live port, played from a CTF directory (ctfgen -i -p:
metadata, chan_N, index/chan_N.idx), for the live client's tests. One
scenario per run says what the relay does: the normal conversation of
lttng-relayd 2.13 (RETRY before the data, INACTIVE once it is all sent),
streams that appear later, metadata that grows, a session that ends, a
connection that drops, a session that records for a while (one packet
per stream every few tenths of a second, then the end: what a follower
reads), a stream that stays quiet after its first packet (INACTIVE
beacons at the newest time sent, until the end), a session whose streams
all go quiet halfway (INACTIVE beacons 2 s after the newest packet of
that half, until the end), and replies that break the protocol's bounds.

    live_mock_relay.py SCENARIO TRACE_DIR PORT_FILE

It listens on 127.0.0.1 (a port of its own, written to PORT_FILE), serves
connections one after another, and exits by itself after 60 seconds.
"""
import os
import socket
import struct
import sys
import time

CONNECT, LIST, ATTACH, NEXT_INDEX, GET_PACKET, GET_METADATA, \
    NEW_STREAMS, CREATE, DETACH = range(1, 10)
FLAG_NEW_METADATA, FLAG_NEW_STREAM = 1, 2
I_OK, I_RETRY, I_HUP, I_ERR, I_INACTIVE, I_EOF = range(1, 7)
HOST, SESSION = "mockhost", "mocksession"
META_ID, TRACE_ID = 1000, 7
PATH = "mockhost/mocksession-20250101-000000/ust/uid/0/64-bit"


def read_trace(d):
    meta = open(os.path.join(d, "metadata"), "rb").read()
    streams = []
    for n in range(16):
        data = os.path.join(d, "chan_%d" % n)
        if not os.path.exists(data):
            break
        idx = open(os.path.join(d, "index", "chan_%d.idx" % n), "rb").read()
        esize = struct.unpack(">I", idx[12:16])[0]
        packets = []
        for off in range(16, len(idx) - esize + 1, esize):
            packets.append(struct.unpack(">7Q", idx[off:off + 56]))
        streams.append({"id": n + 1, "name": "chan_%d" % n,
                        "data": open(data, "rb").read(),
                        "packets": packets})
    return meta, streams


def session_rec(sid, host=HOST, name=SESSION, streams=3, timer=10000,
                clients=0):
    def field(s, n):
        b = s if isinstance(s, bytes) else s.encode()
        return b.ljust(n, b"\0")[:n]
    return struct.pack(">QIII", sid, timer, clients, streams) + \
        field(host, 64) + field(name, 255)


def stream_rec(sid, meta, channel):
    return struct.pack(">QQI", sid, TRACE_ID, 1 if meta else 0) + \
        PATH.encode().ljust(4096, b"\0") + channel.encode().ljust(255, b"\0")


class Conn:
    """One viewer connection: its own streams' progress, as the relay's
    viewer streams are made anew for each attach."""

    def __init__(self, sock, scenario, meta, streams, nconn):
        self.s = sock
        self.sc = scenario
        self.meta = meta
        self.streams = streams
        self.nconn = nconn
        self.meta_sent = 0
        self.next = {st["id"]: 0 for st in streams}
        self.retries = {st["id"]: 0 for st in streams}
        self.announced = set()
        self.packets_sent = 0
        self.flag_streams = False
        self.newest = 0
        self.t0 = time.time()
        # "beacon": where every stream's beacon stands once it is quiet,
        # the same whatever order the streams are asked in
        self.half_newest = max([st["packets"][k][4] for st in streams
                                for k in range(len(st["packets"]) // 2)] +
                               [0])

    def recv(self, n):
        b = b""
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                raise EOFError
            b += c
        return b

    def send(self, b):
        self.s.sendall(b)

    def visible(self):
        """The streams the relay has now."""
        if self.sc == "new-streams" and self.packets_sent < 2:
            return self.streams[:1]
        return self.streams

    def meta_avail(self):
        if self.sc == "new-metadata" and self.packets_sent == 0 and \
                not self.asked_index:
            return len(self.meta) // 2
        return len(self.meta)

    def streams_reply(self, status, recs):
        self.send(struct.pack(">II", status, len(recs)) + b"".join(recs))

    def stream_recs(self, with_meta):
        recs = []
        if with_meta:
            recs.append(stream_rec(META_ID, True, "metadata"))
        for st in self.visible():
            if st["id"] not in self.announced:
                self.announced.add(st["id"])
                recs.append(stream_rec(st["id"], False, st["name"]))
        return recs

    def serve(self):
        self.asked_index = False
        while True:
            size, cmd, _ = struct.unpack(">QII", self.recv(16))
            req = self.recv(size) if size else b""
            if not self.answer(cmd, req):
                return

    def answer(self, cmd, req):
        sc = self.sc
        if cmd == CONNECT:
            major = 3 if sc == "bad-major" else 2
            self.send(struct.pack(">QIII", 1, major, 13, 0))
        elif cmd == CREATE:
            self.send(struct.pack(">I", 1))
        elif cmd == LIST:
            if sc == "bad-session-count":
                self.send(struct.pack(">I", 1000000000))
                return True
            recs = [session_rec(1)]
            if sc == "bad-string":
                recs = [struct.pack(">QIII", 1, 10000, 0, 3) +
                        b"x" * 64 + SESSION.encode().ljust(255, b"\0")]
            elif sc == "list":
                recs += [session_rec(2, streams=2, clients=1),
                         session_rec(3, host="other", name="s\x1b[31m",
                                     streams=5)]
            self.send(struct.pack(">I", len(recs)) + b"".join(recs))
        elif cmd == ATTACH:
            if sc == "bad-stream-count":
                self.send(struct.pack(">II", 1, 1000000000))
                return True
            self.streams_reply(1, self.stream_recs(True))
        elif cmd == GET_METADATA:
            avail = self.meta_avail()
            if sc == "bad-metadata-len":
                self.send(struct.pack(">QI", 1 << 40, 1))
            elif self.meta_sent >= avail:
                self.send(struct.pack(">QI", 0, 2))
            else:
                # In two replies, as a relay sends what it has received.
                end = avail if self.meta_sent else min(avail, 1000)
                chunk = self.meta[self.meta_sent:end]
                self.meta_sent = end
                self.send(struct.pack(">QI", len(chunk), 1) + chunk)
        elif cmd == NEW_STREAMS:
            if (sc in ("hup", "follow", "beacon") and
                    all(self.next[st["id"]] >= len(st["packets"])
                        for st in self.streams)) or \
                    (sc == "quiet" and os.path.exists(GO_FILE)):
                self.streams_reply(4, [])
            else:
                recs = self.stream_recs(False)
                self.streams_reply(1 if recs else 2, recs)
        elif cmd == NEXT_INDEX:
            return self.next_index(struct.unpack(">Q", req)[0])
        elif cmd == GET_PACKET:
            sid, off, length = struct.unpack(">QQI", req)
            st = self.streams[sid - 1]
            if sc == "bad-packet-len":
                self.send(struct.pack(">III", 1, length + 1, 0))
                return True
            self.send(struct.pack(">III", 1, length, 0) +
                      st["data"][off:off + length])
            self.packets_sent += 1
            if sc in ("reconnect", "gone") and self.packets_sent == 3 and \
                    self.nconn == 1:
                return False
        elif cmd == DETACH:
            self.send(struct.pack(">I", 1))
        else:
            return False
        return True

    def next_index(self, sid):
        sc = self.sc
        self.asked_index = True
        st = self.streams[sid - 1]
        k = self.next[sid]
        flags = 0
        if sc == "new-streams" and len(self.visible()) > len(self.announced):
            flags |= FLAG_NEW_STREAM
        if self.meta_sent < self.meta_avail():
            flags |= FLAG_NEW_METADATA
        if sc == "stall":
            time.sleep(30)
            return False
        if sc == "truncated":
            self.send(struct.pack(">QQQ", 0, 32768, 0))
            return False
        if sc == "unknown-status":
            self.send(struct.pack(">7QII", 0, 0, 0, 0, 0, 0, 0, 77, 0))
            return True
        # RETRY twice before the first packet: the relay has no index yet.
        if k == 0 and self.retries[sid] < 2:
            self.retries[sid] += 1
            self.send(struct.pack(">7QII", 0, 0, 0, 0, 0, 0, 0, I_RETRY,
                                  flags))
            return True
        # "follow": packet k of a stream is there k + 1 tenths of a
        # second after the attach, and the second half of them once the
        # test says so (it creates PORT_FILE.go)
        if sc == "follow" and k < len(st["packets"]) and \
                (time.time() < self.t0 + 0.1 * (k + 1) or
                 (k >= len(st["packets"]) // 2 and
                  not os.path.exists(GO_FILE))):
            self.send(struct.pack(">7QII", 0, 0, 0, 0, 0, 0, 0, I_RETRY,
                                  flags))
            return True
        # "quiet": the last stream writes its first packet and then
        # nothing, saying so with beacons at the newest time sent (as a
        # consumer's live timer does), until the test says the session
        # is over (PORT_FILE.go); the other streams write everything
        if sc == "quiet" and sid == len(self.streams) and k >= 1:
            if os.path.exists(GO_FILE):
                status = I_HUP
            else:
                status = I_INACTIVE
            self.send(struct.pack(">7QII", 0, 0, 0, 0, self.newest, 0, 0,
                                  status, flags))
            return True
        # "beacon": every stream writes the first half of its packets,
        # then nothing, its beacons 2 s (of the 1 GHz clock) after the
        # newest of them, until the test says so (PORT_FILE.go)
        if sc == "beacon" and k >= len(st["packets"]) // 2 and \
                not os.path.exists(GO_FILE):
            self.send(struct.pack(">7QII", 0, 0, 0, 0,
                                  self.half_newest + 2000000000, 0, 0,
                                  I_INACTIVE, flags))
            return True
        if k >= len(st["packets"]):
            status = I_HUP if sc in ("hup", "follow", "beacon") else \
                I_INACTIVE
            if sc == "quiet":
                status = I_HUP if os.path.exists(GO_FILE) else I_INACTIVE
            self.send(struct.pack(">7QII", 0, 0, 0, 0, 2 ** 40, 0, 0, status,
                                  flags))
            return True
        off, psize, csize, tb, te, disc, cls = st["packets"][k]
        if sc == "bad-packet-size":
            psize = 8 << 40
        elif sc == "bad-content-size":
            csize = psize + 8
        self.next[sid] = k + 1
        self.newest = max(self.newest, te)
        self.send(struct.pack(">7QII", off, psize, csize, tb, te, disc, cls,
                              I_OK, flags))
        return True


GO_FILE = ""


def main():
    global GO_FILE
    scenario, tdir, portfile = sys.argv[1:4]
    GO_FILE = portfile + ".go"
    meta, streams = read_trace(tdir)
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(4)
    ls.settimeout(1.0)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % ls.getsockname()[1])
    os.rename(portfile + ".tmp", portfile)
    end = time.time() + 60
    nconn = 0
    while time.time() < end:
        try:
            s, _ = ls.accept()
        except socket.timeout:
            continue
        nconn += 1
        s.settimeout(None)
        try:
            Conn(s, scenario, meta, streams, nconn).serve()
        except (EOFError, OSError):
            pass
        s.close()
        # A relay gone: nothing listens any more.
        if scenario == "gone" and nconn == 1:
            ls.close()
            time.sleep(min(20, end - time.time()))
            return


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""hostile_ctf_meta: writes CTF traces whose metadata is large in one
dimension (many classes, members, types, labels), for
tests/cli/hostile_ctf_meta.sh, or that hold many data streams, trace
directories or traced binaries, for tests/cli/hostile_ctf_streams.sh.
Each once cost ttv memory or time in the square of that count; a trace
is a directory OUT with a `metadata` file and a small data stream that
the metadata describes (or many).

  hostile_ctf_meta.py KIND OUT N [BINARY]

KIND, for CTF 2 (JSON fragments):
  ctf2-clocks    N clock classes; the data stream class names the last
  ctf2-streams   N data stream classes (ids 0..N-1); the stream is of
                 the last
  ctf2-events    N event record classes in one data stream class, no
                 payload
  ctf2-members   an event payload structure of N members, their names
                 alike but for their ends
  ctf2-lengths   an event payload of N/2 pairs: a length, then a
                 dynamic-length array whose length is the member before
  ctf2-options   an event payload of a selector and a variant of N
                 options, one per value; its 5 x N events select the
                 last
  ctf2-laughs    N field class aliases, each a structure of 8 of the
                 last (8^N members once expanded); an event of the last
for CTF 1.8 (TSDL):
  tsdl-members   an event payload struct of N members
  tsdl-lengths   an event payload of N/2 pairs: a length, then a
                 sequence of that length
  tsdl-clocks    N clocks; the event header's timestamp maps the last
  tsdl-clockmaps N clocks and N integer types, each mapped to a clock
  tsdl-streams   N stream classes (ids 0..N-1); the stream is of the last
  tsdl-env       an env block of N entries
  tsdl-cyg-env   N cyg-profile entry event classes (read without building
                 values: their thread is in the stream's event context)
                 and an env block of 10 x N entries
  tsdl-variant   an enum of N labels and a variant of N options tagged
                 by it, each label naming its option in reverse order;
                 its N events select the last label
  tsdl-enum      an enum of N labels in the payload; 2 x N events with
                 the value of the last
  tsdl-sparse    N event classes with ids k * 2^21 (sparse: no table by
                 id); 3 x N events of the last
  tsdl-header    an LTTng-style compact event header whose id enum has N
                 labels `compact`, values N-1 down to 0, then `extended`
  tsdl-laughs    N typedefs, each a struct of 8 of the last (8^N fields
                 once expanded); an event of the last
for the 2010 RFC layout:
  rfc-events     N events in one section
  rfc-members    an event's fields: a struct of N members
  rfc-types      N type declarations, each of the first type declared
  rfc-sections   N sections; the events and the data file are of the last
  rfc-context    a section whose event context has N fields
  rfc-files      N sections, and a data file of each: one packet, one
                 event
Many data streams, directories or binaries (CTF 1.8):
  tsdl-files     one stream class, N data stream files of one packet of
                 one event each, every one with LTTng's index file
                 (index/sK.idx)
  tsdl-cyg-files N data stream files of one stream class, each holding
                 one call (func_entry, func_exit) of a thread and a
                 function of its own (LTTng-UST cyg-profile layout)
  tsdl-cyg-thread
                 the same, every call of one thread
  tsdl-cyg-classes
                 N stream classes, each with its func_entry and func_exit
                 classes, and a data stream file of each with one call
  tsdl-dirs      N empty directories beside one small trace (d0/.../)
  tsdl-bins      N processes, each loading a binary of its own (or the
                 same BINARY, an ELF file, in every one: statedump
                 bin_info events) and making one call into it
"""
import os
import struct
import sys

RS = '\x1e'


def u32(byte_order='little-endian', extra=''):
    return ('{"type":"fixed-length-unsigned-integer","length":32,'
            '"alignment":8,"byte-order":"%s"%s}' % (byte_order, extra))


# --- CTF 2 ---

def ctf2_frags(streams=1, clocks=0, header_stream_id=False):
    """The fragments of a trace of `streams` data stream classes whose
    event header holds a 32-bit id, the last one's clock the last of
    `clocks` clock classes (none when 0)."""
    yield '{"type":"preamble","version":2}'
    yield '{"type":"field-class-alias","name":"u","field-class":%s}' % u32()
    ph = ''
    if header_stream_id:
        ph = (',"packet-header-field-class":{"type":"structure",'
              '"member-classes":[{"name":"stream_id","field-class":%s}]}'
              % u32(extra=',"roles":["data-stream-class-id"]'))
    yield '{"type":"trace-class"%s}' % ph
    for i in range(clocks):
        yield ('{"type":"clock-class","id":"clock%d","frequency":1000000000}'
               % i)
    for i in range(streams):
        ck = ''
        if clocks and i == streams - 1:
            ck = ',"default-clock-class-id":"clock%d"' % (clocks - 1)
        yield ('{"type":"data-stream-class","id":%d%s,'
               '"event-record-header-field-class":{"type":"structure",'
               '"member-classes":[{"name":"id","field-class":%s}]}}'
               % (i, ck, u32(extra=',"roles":["event-record-class-id"]')))


def ctf2_event(eid, sid, payload=None):
    return ('{"type":"event-record-class","id":%d,"name":"e%d",'
            '"data-stream-class-id":%d%s}'
            % (eid, eid, sid, ',"payload-field-class":' + payload
               if payload else ''))


def write_meta2(d, frags):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'metadata'), 'w') as f:
        for fr in frags:
            f.write(RS + fr + '\n')


def write_stream(d, body):
    with open(os.path.join(d, 'stream'), 'wb') as f:
        f.write(body)


def one_u32(eid, v=7):
    return struct.pack('<II', eid, v)


U32_PAYLOAD = ('{"type":"structure","member-classes":[{"name":"v",'
               '"field-class":%s}]}' % u32())


def ctf2_clocks(d, n):
    frags = list(ctf2_frags(clocks=n))
    frags.append(ctf2_event(0, 0, U32_PAYLOAD))
    write_meta2(d, frags)
    write_stream(d, one_u32(0))


def ctf2_streams(d, n):
    frags = list(ctf2_frags(streams=n, header_stream_id=True))
    frags.append(ctf2_event(0, n - 1, U32_PAYLOAD))
    write_meta2(d, frags)
    write_stream(d, struct.pack('<I', n - 1) + one_u32(0))


def ctf2_events(d, n):
    frags = list(ctf2_frags())
    frags += [ctf2_event(i, 0) for i in range(n)]
    write_meta2(d, frags)
    write_stream(d, struct.pack('<I', n - 1))


def ctf2_struct(members):
    return ('{"type":"structure","member-classes":[%s]}'
            % ','.join('{"name":"%s","field-class":%s}' % m
                       for m in members))


def ctf2_members(d, n):
    # names alike up to their last characters, as generated ones are
    payload = ctf2_struct(('a_member_of_a_generated_structure_%d' % i, '"u"')
                          for i in range(n))
    write_meta2(d, list(ctf2_frags()) + [ctf2_event(0, 0, payload)])
    write_stream(d, struct.pack('<I', 0) + struct.pack('<I', 7) * n)


def ctf2_lengths(d, n):
    members = []
    for i in range(n // 2):
        members.append(('n%d' % i, '"u"'))
        members.append(('s%d' % i,
                        '{"type":"dynamic-length-array",'
                        '"length-field-location":{"path":["n%d"]},'
                        '"element-field-class":"u"}' % i))
    payload = ctf2_struct(members)
    write_meta2(d, list(ctf2_frags()) + [ctf2_event(0, 0, payload)])
    # every length 1, every element 7
    write_stream(d, struct.pack('<I', 0) + struct.pack('<II', 1, 7) *
                 (n // 2))


def ctf2_options(d, n):
    opts = ','.join('{"name":"o%d","selector-field-ranges":[[%d,%d]],'
                    '"field-class":"u"}' % (i, i, i) for i in range(n))
    payload = ctf2_struct([
        ('sel', '"u"'),
        ('v', '{"type":"variant","selector-field-location":'
              '{"path":["sel"]},"options":[%s]}' % opts)])
    write_meta2(d, list(ctf2_frags()) + [ctf2_event(0, 0, payload)])
    write_stream(d, struct.pack('<III', 0, n - 1, 7) * (5 * n))


def ctf2_laughs(d, n):
    frags = list(ctf2_frags())
    for i in range(1, n + 1):
        frags.append('{"type":"field-class-alias","name":"a%d",'
                     '"field-class":%s}'
                     % (i, ctf2_struct(('m%d' % k, '"%s"' % (
                         'u' if i == 1 else 'a%d' % (i - 1)))
                         for k in range(8))))
    frags.append(ctf2_event(0, 0, ctf2_struct([('v', '"a%d"' % n)])))
    write_meta2(d, frags)
    write_stream(d, struct.pack('<I', 0))


# --- CTF 1.8 ---

TSDL_HEAD = """/* CTF 1.8 */
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
trace { major = 1; minor = 8; byte_order = le; %s};
"""


def write_tsdl(d, text):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'metadata'), 'w') as f:
        f.write(text)


def tsdl_stream(ident='', header='uint32_t id;'):
    return 'stream { %sevent.header := struct { %s }; };\n' % (ident,
                                                                 header)


def tsdl_event(eid, fields, sid=None):
    return ('event { name = "e%d"; id = %d; %sfields := struct { %s }; };\n'
            % (eid, eid, '' if sid is None else 'stream_id = %d; ' % sid,
               fields))


def tsdl_members(d, n):
    fields = ' '.join('uint32_t m%d;' % i for i in range(n))
    write_tsdl(d, TSDL_HEAD % '' + tsdl_stream() + tsdl_event(0, fields))
    write_stream(d, struct.pack('<I', 0) + struct.pack('<I', 7) * n)


def tsdl_lengths(d, n):
    fields = ' '.join('uint32_t n%d; uint32_t s%d[n%d];' % (i, i, i)
                      for i in range(n // 2))
    write_tsdl(d, TSDL_HEAD % '' + tsdl_stream() + tsdl_event(0, fields))
    write_stream(d, struct.pack('<I', 0) + struct.pack('<II', 1, 7) *
                 (n // 2))


def tsdl_clocks(d, n):
    text = TSDL_HEAD % ''
    text += ''.join('clock { name = c%d; };\n' % i for i in range(n))
    text += ('typealias integer { size = 32; align = 8; signed = false; '
             'map = clock.c%d.value; } := ts_t;\n' % (n - 1))
    text += tsdl_stream(header='uint32_t id; ts_t timestamp;')
    text += tsdl_event(0, 'uint32_t v;')
    write_tsdl(d, text)
    write_stream(d, struct.pack('<III', 0, 1000, 7))


def tsdl_clockmaps(d, n):
    text = TSDL_HEAD % ''
    text += ''.join('clock { name = c%d; };\n' % i for i in range(n))
    text += ''.join('typealias integer { size = 32; align = 8; '
                    'map = clock.c%d.value; } := t%d;\n' % (n - 1 - i, i)
                    for i in range(n))
    text += tsdl_stream(header='uint32_t id; t0 timestamp;')
    text += tsdl_event(0, 'uint32_t v;')
    write_tsdl(d, text)
    write_stream(d, struct.pack('<III', 0, 1000, 7))


def tsdl_streams(d, n):
    text = TSDL_HEAD % ('packet.header := struct { uint32_t stream_id; }; ')
    text += ''.join(tsdl_stream('id = %d; ' % i) for i in range(n))
    text += tsdl_event(0, 'uint32_t v;', sid=n - 1)
    write_tsdl(d, text)
    write_stream(d, struct.pack('<III', n - 1, 0, 7))


def tsdl_env(d, n):
    text = TSDL_HEAD % ''
    text += 'env {\n' + ''.join('\tk%d = %d;\n' % (i, i)
                                for i in range(n)) + '};\n'
    text += tsdl_stream() + tsdl_event(0, 'uint32_t v;')
    write_tsdl(d, text)
    write_stream(d, one_u32(0))


def tsdl_cyg_env(d, n):
    text = TSDL_HEAD % ''
    text += 'typealias integer { size = 64; align = 8; signed = false; } ' \
        ':= uint64_t;\n'
    text += 'env {\n' + ''.join('\tk%d = %d;\n' % (i, i)
                                for i in range(10 * n)) + '};\n'
    text += ('stream { event.header := struct { uint32_t id; }; '
             'event.context := struct { uint32_t vtid; }; };\n')
    text += ''.join('event { name = "lttng_ust_cyg_profile:func_entry"; '
                    'id = %d; fields := struct { uint64_t addr; }; };\n'
                    % i for i in range(n))
    write_tsdl(d, text)
    write_stream(d, struct.pack('<IIQ', 0, 1, 0x1000))


def tsdl_variant(d, n):
    labels = ', '.join('l%d' % i for i in range(n))
    opts = ' '.join('uint32_t l%d;' % i for i in reversed(range(n)))
    fields = ('enum : uint32_t { %s } tag; variant <tag> { %s } v;'
              % (labels, opts))
    write_tsdl(d, TSDL_HEAD % '' + tsdl_stream() + tsdl_event(0, fields))
    write_stream(d, struct.pack('<III', 0, n - 1, 7) * n)


def tsdl_enum(d, n):
    labels = ', '.join('l%d' % i for i in range(n))
    fields = 'enum : uint32_t { %s } e;' % labels
    write_tsdl(d, TSDL_HEAD % '' + tsdl_stream() + tsdl_event(0, fields))
    write_stream(d, struct.pack('<II', 0, n - 1) * (2 * n))


def tsdl_sparse(d, n):
    text = TSDL_HEAD % '' + 'typealias integer { size = 64; align = 8; ' \
        'signed = false; } := uint64_t;\n'
    text += tsdl_stream(header='uint64_t id;')
    text += ''.join(tsdl_event(i << 21, 'uint32_t v;') for i in range(n))
    write_tsdl(d, text)
    write_stream(d, struct.pack('<QI', (n - 1) << 21, 7) * (3 * n))


def tsdl_header(d, n):
    text = TSDL_HEAD % '' + 'typealias integer { size = 64; align = 8; ' \
        'signed = false; } := uint64_t;\n'
    labels = ', '.join('compact = %d' % i for i in reversed(range(n)))
    text += ('stream { event.header := struct { enum : uint32_t { %s, '
             'extended = %d } id; variant <id> { struct { uint32_t '
             'timestamp; } compact; struct { uint32_t id; uint64_t '
             'timestamp; } extended; } v; }; };\n' % (labels, n))
    text += tsdl_event(0, 'uint32_t v;')
    write_tsdl(d, text)
    write_stream(d, struct.pack('<III', 0, 1000, 7))


def tsdl_laughs(d, n):
    text = TSDL_HEAD % '' + tsdl_stream()
    for i in range(1, n + 1):
        text += 'typedef struct { %s } s%d;\n' % (' '.join(
            '%s m%d;' % ('uint32_t' if i == 1 else 's%d' % (i - 1), k)
            for k in range(8)), i)
    text += tsdl_event(0, 's%d v;' % n)
    write_tsdl(d, text)
    write_stream(d, struct.pack('<I', 0))


# --- the 2010 RFC layout ---

RFC_MAGIC = 0xC1FC1FC1
SESSION = 0x5E55


def rfc_packet(content):
    """One packet: the 48-byte header (sizes in bytes, no checksum),
    then its content."""
    size = 48 + len(content)
    hdr = struct.pack('<IIIIIIQQIBBBB', RFC_MAGIC, SESSION, size, size, 0,
                      0, 0, 0, 0, 0, 0, 0, 0)
    assert len(hdr) == 48
    return hdr + content


def write_rfc(d, entries, section, events=b''):
    """The metadata (one packet of NUL-terminated entries) and one data
    file of the section `section`: one packet of `events`."""
    os.makedirs(d, exist_ok=True)
    text = b''.join(e.encode() + b'\0' for e in entries)
    with open(os.path.join(d, 'metadata'), 'wb') as f:
        f.write(rfc_packet(text))
    with open(os.path.join(d, section), 'wb') as f:
        f.write(rfc_packet(events))


RFC_TRACE = 'trace { major = 1; minor = 1; }'
RFC_SECTION = 'section { name = %s; event { header_type = type1; } }'


def rfc_event(eid, fields='{ }', section='app'):
    return ('event { name = e%d; id = %d; section = %s; fields = %s; }'
            % (eid, eid, section, fields))


def type1(eid, ts=1):
    """A type 1 event header: 5-bit id, 27-bit timestamp."""
    return struct.pack('<I', eid | ts << 5)


def rfc_events(d, n):
    entries = [RFC_TRACE, RFC_SECTION % 'app']
    entries += [rfc_event(i) for i in range(n)]
    write_rfc(d, entries, 'app', type1(0))


def rfc_members(d, n):
    fields = '{ %s }' % ' '.join('{ uint32_t, m%d },' % i for i in range(n))
    write_rfc(d, [RFC_TRACE, RFC_SECTION % 'app', rfc_event(0, fields)],
              'app', type1(0) + struct.pack('<I', 7) * n)


def rfc_types(d, n):
    entries = [RFC_TRACE, RFC_SECTION % 'app']
    entries += ['type t%d { parent = uint32_t; }' % i for i in range(n)]
    entries.append(rfc_event(0, '{ { t%d, v } }' % (n - 1)))
    write_rfc(d, entries, 'app', type1(0) + struct.pack('<I', 7))


def rfc_sections(d, n):
    entries = [RFC_TRACE] + [RFC_SECTION % ('s%d' % i) for i in range(n)]
    entries.append(rfc_event(0, section='s%d' % (n - 1)))
    write_rfc(d, entries, 's%d' % (n - 1), type1(0))


def rfc_context(d, n):
    ctx = '{ %s }' % ' '.join('{ uint8_t, c%d },' % i for i in range(n))
    entries = [RFC_TRACE,
               'section { name = app; event { header_type = type1; '
               'context { fields = %s; } } }' % ctx,
               rfc_event(0)]
    write_rfc(d, entries, 'app', type1(0) + b'\7' * n)


def rfc_files(d, n):
    entries = [RFC_TRACE] + [RFC_SECTION % ('s%d' % i) for i in range(n)]
    entries += [rfc_event(0, section='s%d' % i) for i in range(n)]
    write_rfc(d, entries, 's0', type1(0))
    for i in range(1, n):
        with open(os.path.join(d, 's%d' % i), 'wb') as f:
            f.write(rfc_packet(type1(0)))


# --- many data streams, directories, binaries ---

STREAMS_HEAD = """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 64; align = 8; signed = false;
    map = clock.c.value; } := ts_t;
trace { major = 1; minor = 8; byte_order = le;
    packet.header := struct { uint32_t stream_id; }; };
clock { name = c; freq = 1000000000; };
"""

STREAM_CLASS = """stream { id = %d;
    packet.context := struct { ts_t timestamp_begin; ts_t timestamp_end;
        uint64_t content_size; uint64_t packet_size; };
    event.header := struct { uint32_t id; ts_t timestamp; };%s };
"""
CYG_CONTEXT = ' event.context := struct { uint32_t vpid; uint32_t vtid; };'


def streams_packet(sid, t0, t1, events):
    """A packet of stream class sid from t0 to t1 holding `events`."""
    size = 4 + 32 + len(events)
    return (struct.pack('<IQQQQ', sid, t0, t1, size * 8, size * 8) +
            events)


def index_file(size, t0, t1, sid):
    """LTTng's index (1.1, big-endian) of a stream file of one packet."""
    return (struct.pack('>IIII', 0xC1F1DCC1, 1, 1, 72) +
            struct.pack('>QQQQQQQQQ', 0, size * 8, size * 8, t0, t1, 0,
                        sid, 0, 0))


def tsdl_files(d, n):
    write_tsdl(d, STREAMS_HEAD + STREAM_CLASS % (0, '') +
               'event { name = "e0"; id = 0; stream_id = 0; '
               'fields := struct { uint32_t v; }; };\n')
    os.makedirs(os.path.join(d, 'index'))
    for i in range(n):
        p = streams_packet(0, 10 * i, 10 * i + 5,
                           struct.pack('<IQI', 0, 10 * i + 1, i))
        with open(os.path.join(d, 's%d' % i), 'wb') as f:
            f.write(p)
        with open(os.path.join(d, 'index', 's%d.idx' % i), 'wb') as f:
            f.write(index_file(len(p), 10 * i, 10 * i + 5, 0))


CYG_EVENTS = ''.join(
    'event { name = "lttng_ust_cyg_profile:func_%s"; id = %d; '
    'stream_id = %%d; fields := struct { uint64_t addr; '
    'uint64_t call_site; }; };\n' % (kind, i)
    for i, kind in enumerate(('entry', 'exit')))


def cyg_call(sid, i, tid=None):
    """A packet of one call of thread tid (1000 + i) to function
    0x1000 + 16 i in process 1, at 10 i."""
    ev = b''
    for eid in (0, 1):
        ev += struct.pack('<IQIIQQ', eid, 10 * i + 1 + eid, 1,
                          1000 + i if tid is None else tid,
                          0x1000 + 16 * i, 0x2000)
    return streams_packet(sid, 10 * i, 10 * i + 5, ev)


def tsdl_cyg_files(d, n, tid=None):
    write_tsdl(d, STREAMS_HEAD + STREAM_CLASS % (0, CYG_CONTEXT) +
               CYG_EVENTS % (0, 0))
    for i in range(n):
        with open(os.path.join(d, 's%d' % i), 'wb') as f:
            f.write(cyg_call(0, i, tid))


def tsdl_cyg_thread(d, n):
    tsdl_cyg_files(d, n, 1000)


def tsdl_cyg_classes(d, n):
    write_tsdl(d, STREAMS_HEAD + ''.join(
        STREAM_CLASS % (i, CYG_CONTEXT) + CYG_EVENTS % (i, i)
        for i in range(n)))
    for i in range(n):
        with open(os.path.join(d, 's%d' % i), 'wb') as f:
            f.write(cyg_call(i, i))


def tsdl_dirs(d, n):
    tsdl_members(os.path.join(d, 'trace'), 1)
    for i in range(n):
        os.mkdir(os.path.join(d, 'd%d' % i))


def tsdl_bins(d, n, binary=None):
    text = STREAMS_HEAD + STREAM_CLASS % (0, CYG_CONTEXT) + CYG_EVENTS % (
        0, 0) + ('event { name = "lttng_ust_statedump:bin_info"; id = 2; '
                 'stream_id = 0; fields := struct { uint64_t baddr; '
                 'uint64_t memsz; string path; uint8_t is_pic; }; };\n')
    write_tsdl(d, text)
    ev = []
    for i in range(n):
        path = binary or '/nonexistent/lib%d.so' % i
        # process i + 1 loads its binary at 0x400000, then calls into it
        ev.append(struct.pack('<IQIIQQ', 2, 3 * i, i + 1, i + 1, 0x400000,
                              0x100000) + path.encode() + b'\0\1')
        for eid in (0, 1):
            ev.append(struct.pack('<IQIIQQ', eid, 3 * i + 1 + eid, i + 1,
                                  i + 1, 0x400000 + 0x40 * (i % 1000), 0))
    with open(os.path.join(d, 'stream'), 'wb') as f:
        f.write(streams_packet(0, 0, 3 * n, b''.join(ev)))


KINDS = {
    'ctf2-clocks': ctf2_clocks, 'ctf2-streams': ctf2_streams,
    'ctf2-events': ctf2_events, 'ctf2-members': ctf2_members,
    'ctf2-lengths': ctf2_lengths, 'ctf2-options': ctf2_options,
    'tsdl-members': tsdl_members, 'tsdl-lengths': tsdl_lengths,
    'tsdl-clocks': tsdl_clocks, 'tsdl-clockmaps': tsdl_clockmaps,
    'tsdl-streams': tsdl_streams, 'tsdl-env': tsdl_env,
    'tsdl-cyg-env': tsdl_cyg_env,
    'tsdl-variant': tsdl_variant, 'tsdl-enum': tsdl_enum,
    'tsdl-sparse': tsdl_sparse, 'tsdl-header': tsdl_header,
    'tsdl-laughs': tsdl_laughs, 'ctf2-laughs': ctf2_laughs,
    'rfc-events': rfc_events, 'rfc-members': rfc_members,
    'rfc-types': rfc_types, 'rfc-sections': rfc_sections,
    'rfc-context': rfc_context, 'rfc-files': rfc_files,
    'tsdl-files': tsdl_files, 'tsdl-cyg-files': tsdl_cyg_files,
    'tsdl-cyg-thread': tsdl_cyg_thread,
    'tsdl-cyg-classes': tsdl_cyg_classes, 'tsdl-dirs': tsdl_dirs,
    'tsdl-bins': tsdl_bins,
}


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in KINDS:
        sys.exit(__doc__)
    if len(sys.argv) == 5:
        KINDS[sys.argv[1]](sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        KINDS[sys.argv[1]](sys.argv[2], int(sys.argv[3]))


if __name__ == '__main__':
    main()

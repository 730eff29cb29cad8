#!/bin/sh
# The FXT reader on the project's own fixtures (tests/data/fxt, written by
# tests/gen/fxtgen.c, which also writes what a reader must find in them
# from its own bookkeeping):
#  1. the committed fixtures are what the writer writes today;
#  2. the model (fxt_dump --cpu: per-thread slices, durations and depths,
#     instants, args of every type, async slices, flows slice to slice,
#     counter series, CPU lanes, logs, names, record counts, diagnostics)
#     equals the writer's expectations, in both byte orders, with and
#     without a truncated last record;
#  3. sorting: the same 3000 rounds of nested durations written as
#     begin/complete/end in time order, and written Fuchsia-style as
#     complete events when their scopes end (inner first, so every thread
#     is out of order), give the same statistics, and big-endian the same;
#  4. the command line shows the same: --info (byte order, records),
#     --stats --tsv (out-of-order complete events nested and timed), and
#     --export chrome-json (X, i, b/e, s/t/f and C events);
#  5. the event pass with its replay worker (used on big traces; forced
#     here with TTV_FXT_PIPE_MIN=0) builds the very model the serial pass
#     builds: the same dump, line for line, of every fixture and of bulk
#     traces long enough to go round the worker's ring many times, in and
#     out of order, and the same chrome-json export;
#     With TTV_FXT_PIPE_MIN=0 a second thread also scans the second half
#     of the bulk traces; three traces end to end (the middle one out of
#     order) make it stop at the third one's tables, in either byte order;
#     and a trace written here, with tick rates of 1 GHz and 3 kHz, makes
#     its merge decide: a thread that goes back in time only within the
#     second half, one whose first event there is before its last one in
#     the first half, string records in the second half;
#  6. the same with the reading thread replaying some threads itself
#     (TTV_FXT_READER_SHARE), and, on the fixtures without their flow
#     events (so that the reader keeps open slices itself and hands them
#     to the builder whole), the same model, --info, --stats and export as
#     through the builder's own stacks (TTV_FXT_BUILDER_STACKS).
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
data="$TTV_SRCDIR/tests/data/fxt"
dump="$TTV_BUILDDIR/tests/tools/fxt_dump"
gen="$TTV_BUILDDIR/tests/gen/fxtgen"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-fxt-fix.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

sh "$data/regen.sh" "$gen" "$tmp" || { echo "FAIL: fxtgen"; exit 1; }
for name in full full-be trunc trunc-be; do
	for ext in fxt expected; do
		if ! cmp -s "$data/$name.$ext" "$tmp/$name.$ext"; then
			echo "FAIL: $name.$ext differs from what fxtgen writes" \
			    "(make fxt-fixtures)"
			fail=1
		fi
	done
	"$dump" --cpu "$data/$name.fxt" | LC_ALL=C sort >"$tmp/$name.got" ||
	    fail=1
	LC_ALL=C sort "$data/$name.expected" >"$tmp/$name.want"
	if ! diff -u "$tmp/$name.want" "$tmp/$name.got"; then
		echo "FAIL: $name: the model differs from fxtgen's expectations"
		fail=1
	fi
done

"$gen" -R 3000 -B 100000000 "$tmp/inorder.fxt" >/dev/null &&
"$gen" -O -R 3000 -B 100000000 "$tmp/scoped.fxt" >/dev/null &&
"$gen" -b -O -R 3000 -B 100000000 "$tmp/scoped-be.fxt" >/dev/null || fail=1
for f in inorder scoped scoped-be; do
	"$TTV" --stats --tsv "$tmp/$f.fxt" >"$tmp/$f.stats" 2>&1 || fail=1
done
if [ "$(wc -l <"$tmp/inorder.stats")" -lt 9 ]; then
	echo "FAIL: bulk trace: too few stats rows"
	fail=1
fi
for f in scoped scoped-be; do
	if ! diff -u "$tmp/inorder.stats" "$tmp/$f.stats"; then
		echo "FAIL: $f.fxt: statistics differ from the in-order trace"
		fail=1
	fi
done

info=$("$TTV" --info "$data/full-be.fxt" 2>&1)
for want in "byte order: big-endian" "format: fxt" "  large blob: 2" \
    "  context switch (legacy): 2" "  unknown record type 11: 1" \
    "logs: 2"; do
	case "$info" in
	*"$want"*) ;;
	*) echo "FAIL: --info full-be.fxt lacks '$want'"; fail=1 ;;
	esac
done
info=$("$TTV" --info "$data/trunc.fxt" 2>&1)
case "$info" in
*"truncated record (declares 24 bytes, 16 present)"*) ;;
*) echo "FAIL: --info trunc.fxt does not report the cut record"; fail=1 ;;
esac

# The complete events were written inner first; stats see them whole.
"$TTV" --stats --tsv "$data/full.fxt" >"$tmp/stats" 2>/dev/null || fail=1
for want in "c_outer	1	500	250" "c_mid	1	250	150" "c_inner	1	100	100" \
    "compose	1	1000	625" "inner	1	200	200" "outer	1	1000	800"; do
	if ! grep -q "^$want	" "$tmp/stats"; then
		echo "FAIL: --stats lacks '$want'"
		fail=1
	fi
done

"$TTV" --export chrome-json "$data/full.fxt" >"$tmp/json" 2>/dev/null || fail=1
for ph in X i b e s t f C; do
	if ! grep -q "\"ph\":\"$ph\"" "$tmp/json"; then
		echo "FAIL: chrome-json has no '$ph' event"
		fail=1
	fi
done

# 5. Serial and with the replay worker: the same model.
"$gen" -R 60000 -B 100000000 "$tmp/ring.fxt" >/dev/null &&
"$gen" -O -R 60000 -B 100000000 "$tmp/ring-o.fxt" >/dev/null &&
"$gen" -b -R 20000 -B 100000000 "$tmp/ring-b.fxt" >/dev/null &&
"$gen" -b -O -R 20000 -B 100000000 "$tmp/ring-ob.fxt" >/dev/null || fail=1
cat "$tmp/ring.fxt" "$tmp/ring-o.fxt" "$tmp/ring.fxt" >"$tmp/three.fxt"
cat "$tmp/ring-b.fxt" "$tmp/ring-ob.fxt" "$tmp/ring-b.fxt" >"$tmp/three-b.fxt"
for f in "$data/full.fxt" "$data/full-be.fxt" "$data/trunc.fxt" \
    "$tmp/ring.fxt" "$tmp/ring-o.fxt" "$tmp/three.fxt" "$tmp/three-b.fxt"; do
	TTV_FXT_PIPE_MIN=18446744073709551615 "$dump" --cpu "$f" \
	    >"$tmp/serial" 2>&1 || fail=1
	TTV_FXT_PIPE_MIN=0 "$dump" --cpu "$f" >"$tmp/piped" 2>&1 || fail=1
	if [ "$(wc -l <"$tmp/serial")" -lt 20 ]; then
		echo "FAIL: $f: dump too short to compare"
		fail=1
	fi
	if ! cmp -s "$tmp/serial" "$tmp/piped"; then
		echo "FAIL: $f: the replay worker builds another model:"
		diff "$tmp/serial" "$tmp/piped" | head -20
		fail=1
	fi
done
if command -v python3 >/dev/null 2>&1; then
	cat >"$tmp/half.py" <<'PY'
# half.py OUT TICKS_PER_SECOND BIG_ENDIAN(0/1) BACK(0/1)
import struct, sys
out, tps, big = sys.argv[1], int(sys.argv[2]), sys.argv[3] == '1'
back = sys.argv[4] == '1'
fmt = '>Q' if big else '<Q'
b = bytearray()
def w(v):
    b.extend(struct.pack(fmt, v & 0xffffffffffffffff))
def stream(s):
    s = s.encode()
    b.extend(s + b'\0' * (-len(s) % 8))
def string(idx, s):
    n = len(s.encode())
    w(2 | (1 + (n + 7) // 8) << 4 | idx << 16 | n << 32)
    stream(s)
def ev(typ, slot, name, t, end=None):
    words = 2 + (end is not None)
    w(4 | words << 4 | typ << 16 | slot << 24 | 1 << 32 | name << 48)
    w(t)
    if end is not None:
        w(end)
w(0x0016547846040010)
w(0 | 2 << 4 | 1 << 16 | 1 << 20 | 1 << 52); stream('p')   # provider info 1
w(1 | 2 << 4); w(tps)                                     # initialization
for i, s in enumerate(['cat', 'a', 'b', 'c']):
    string(1 + i, s)
for slot in range(1, 5):
    w(3 | 3 << 4 | slot << 16); w(1); w(10 + slot)       # thread records
n = 3000
for i in range(n):
    t = 1000 + i * 100
    if i in (int(n * .6), int(n * .7)):
        string(5 + (i % 2), 'late%d' % i)
        string(0, 'ignored')
    for slot in range(1, 5):
        tt = t + slot
        if slot == 4 and int(n * .4) <= i < int(n * .65):
            continue                # silent around the middle, then
        if slot == 4 and i < int(n * .4):
            tt += 10000000          # earlier than before it went silent
        if slot == 4 and i == int(n * .4) - 1:
            ev(4, slot, 3, tt, tt + 100000000)  # spans what comes later
            continue
        if back and slot == 2 and i == int(n * .75):
            ev(4, slot, 3, tt + 10, tt + 20)   # child written first
            ev(4, slot, 2, tt, tt + 30)
            continue
        ev(2, slot, 2, tt)
        ev(3, slot, 2, tt + 50)
open(out, 'wb').write(b)
PY
	for args in "1000000000 0 1" "1000000000 1 1" "3000 0 0" "3000 1 0" \
	    "3000 0 1"; do
		# shellcheck disable=SC2086
		python3 "$tmp/half.py" "$tmp/half.fxt" $args || fail=1
		TTV_FXT_PIPE_MIN=18446744073709551615 "$dump" --cpu \
		    "$tmp/half.fxt" >"$tmp/serial" 2>&1 || fail=1
		TTV_FXT_PIPE_MIN=0 "$dump" --cpu "$tmp/half.fxt" \
		    >"$tmp/piped" 2>&1 || fail=1
		if ! grep -q "records 2 8" "$tmp/serial" ||
		    ! cmp -s "$tmp/serial" "$tmp/piped"; then
			echo "FAIL: half.py $args: the split scan differs:"
			diff "$tmp/serial" "$tmp/piped" | head -20
			fail=1
		fi
	done
fi

TTV_FXT_PIPE_MIN=0 "$TTV" --export chrome-json "$data/full.fxt" \
    >"$tmp/json-piped" 2>/dev/null || fail=1
if ! cmp -s "$tmp/json" "$tmp/json-piped"; then
	echo "FAIL: chrome-json differs with the replay worker"
	fail=1
fi

# 6. The reading thread replays part of the threads; open slices kept by
# the reader (traces without flow events) or by the builder.
# same_model NAME FILE ENV...: the dump under ENV equals the serial one
# through the builder's stacks.
same_model() {
	sm_name=$1 sm_file=$2
	shift 2
	TTV_FXT_PIPE_MIN=18446744073709551615 TTV_FXT_BUILDER_STACKS=1 \
	    "$dump" --cpu "$sm_file" >"$tmp/ref" 2>&1 || fail=1
	env "$@" "$dump" --cpu "$sm_file" >"$tmp/got" 2>&1 || fail=1
	if [ "$(wc -l <"$tmp/ref")" -lt 20 ] || ! cmp -s "$tmp/ref" "$tmp/got"
	then
		echo "FAIL: $sm_name: $* builds another model:"
		diff "$tmp/ref" "$tmp/got" | head -20
		fail=1
	fi
}
for f in "$tmp/ring.fxt" "$tmp/ring-o.fxt"; do
	same_model "$f" "$f" TTV_FXT_PIPE_MIN=0 TTV_FXT_READER_SHARE=4
	same_model "$f" "$f" TTV_FXT_PIPE_MIN=0 TTV_FXT_READER_SHARE=16
	# Cut inside rounds: begins left open at the end (checked below for
	# the first), a truncated tail.
	for cut in 100 300 1000 1004; do
		head -c $(($(wc -c <"$f") - cut)) "$f" >"$tmp/cut.fxt"
		same_model "$f, cut $cut" "$tmp/cut.fxt" \
		    TTV_FXT_PIPE_MIN=18446744073709551615
		same_model "$f, cut $cut" "$tmp/cut.fxt" TTV_FXT_PIPE_MIN=0 \
		    TTV_FXT_READER_SHARE=8
	done
done
head -c $(($(wc -c <"$tmp/ring.fxt") - 100)) "$tmp/ring.fxt" >"$tmp/cut.fxt"
if ! "$TTV" --info "$tmp/cut.fxt" 2>&1 | grep -q "unterminated: 2"; then
	echo "FAIL: the cut bulk trace has no slice left open"
	fail=1
fi
if command -v python3 >/dev/null 2>&1; then
	for f in "$data/full.fxt" "$data/full-be.fxt" "$data/trunc.fxt" \
	    "$data/trunc-be.fxt"; do
		nf="$tmp/noflow-$(basename "$f")"
		# Drops the flow event records (event types 8-10), keeps
		# everything else, the damaged tail included.
		python3 - "$f" "$nf" <<'PY' || fail=1
import sys
d = open(sys.argv[1], 'rb').read()
order = 'big' if d[:8] == (0x0016547846040010).to_bytes(8, 'big') \
    else 'little'
out, off = bytearray(), 0
while len(d) - off >= 8:
    h = int.from_bytes(d[off:off + 8], order)
    n = (h >> 4) & (0xffffffff if h & 15 == 15 else 0xfff)
    if n == 0 or n * 8 > len(d) - off:
        break
    if not (h & 15 == 4 and 8 <= (h >> 16) & 15 <= 10):
        out += d[off:off + n * 8]
    off += n * 8
open(sys.argv[2], 'wb').write(out + d[off:])
PY
		if "$TTV" --info "$nf" 2>/dev/null | grep -q "flow begin"; then
			echo "FAIL: $nf still has flow events"
			fail=1
		fi
		same_model "$nf" "$nf" TTV_FXT_PIPE_MIN=18446744073709551615
		same_model "$nf" "$nf" TTV_FXT_PIPE_MIN=0
		same_model "$nf" "$nf" TTV_FXT_PIPE_MIN=0 \
		    TTV_FXT_READER_SHARE=16
		for m in "--info" "--stats --tsv" "--export chrome-json"; do
			# shellcheck disable=SC2086
			TTV_FXT_BUILDER_STACKS=1 "$TTV" $m "$nf" \
			    >"$tmp/ref" 2>&1
			# shellcheck disable=SC2086
			"$TTV" $m "$nf" >"$tmp/got" 2>&1
			if ! cmp -s "$tmp/ref" "$tmp/got"; then
				echo "FAIL: $nf: $m differs from the builder's stacks"
				fail=1
			fi
		done
	done
fi
exit $fail

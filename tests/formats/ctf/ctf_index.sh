#!/bin/sh
# LTTng's index/ files as a hint to the CTF reader, on traces written by
# tests/gen/ctfgen (-i: with an index, -L: the packets it wrote and how
# many events each holds) and then damaged here:
#  1. the index ctfgen writes is one babeltrace2 reads without a warning,
#     and ttv reads the trace the same with or without it;
#  2. a damaged packet (bad magic, impossible size, an event that cannot
#     be decoded) does not end its stream: with an index the walk resumes
#     at the next packet it lists, without one at the end of the damaged
#     packet (its size) or at the next packet magic found, and exactly the
#     damaged packet's events are missing (the output is the undamaged
#     one minus those lines); the skipped bytes are a marker; with no
#     sound packet after the damage, the stream ends there;
#  3. an index that does not hold together (magic, version, order, past
#     the end of the stream) is reported once and not used at all; one
#     with a partial last entry is used without it;
#  4. a lying index (entries that name the middle of a packet, or a
#     packet with other sizes) never makes the reader decode what is not
#     a packet: the entry is passed over and the walk goes on; a walk that
#     disagrees with the index says so once and keeps the headers' view;
#     every byte of an index flipped in turn changes nothing in what an
#     undamaged trace reads to, and brings no foreign event into a
#     damaged one;
#  5. the real LTTng traces of ../shared read the same, with no message,
#     with and without their index/ directories.
set -u
: "${TTV:?}" "${TTV_BUILDDIR:?}"
gen="$TTV_BUILDDIR/tests/gen/ctfgen"
dump="$TTV_BUILDDIR/tests/tools/ctf_text_dump"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-ctf-idx.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# The bytes of an unsigned value as printf octal escapes: big-endian
# (index fields) or little-endian (the trace's, ctfgen's default order).
bytes() {	# VALUE NBYTES be|le
	awk -v v="$1" -v n="$2" -v o="$3" 'BEGIN {
		for (i = 0; i < n; i++) {
			b[i] = v % 256
			v = int(v / 256)
		}
		for (i = 0; i < n; i++)
			printf "\\%03o", (o == "be" ? b[n - 1 - i] : b[i])
	}'
}
poke() {	# FILE OFFSET ESCAPES
	# shellcheck disable=SC2059
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
# Entry N's field F (0 offset, 1 packet size, 2 content size) of an index.
poke_entry() {	# FILE ENTRY FIELD VALUE
	poke "$1" $((16 + $2 * 72 + $3 * 8)) "$(bytes "$4" 8 be)"
}
# The decoded events without babeltrace2's delta column, which changes
# after a missing event.
events() {	# TRACE OUT ERR
	"$dump" "$1" 2> "$3" | sed 's/ (+[^)]*)//' > "$2"
}
# Is OUT the reference with exactly N lines removed and none added?
missing() {	# OUT N
	diff "$tmp/ref.txt" "$1" > "$tmp/diff.txt"
	grep -q '^>' "$tmp/diff.txt" && return 1
	[ "$(grep -c '^<' "$tmp/diff.txt")" -eq "$2" ]
}
# Events of the packets of STREAM at or after OFFSET (-L's list).
events_from() {	# STREAM OFFSET
	awk -v s="$1" -v o="$2" '$1 == s && $2 >= o { n += $4 }
	    END { print n + 0 }' "$tmp/packets"
}
events_at() {	# STREAM OFFSET
	awk -v s="$1" -v o="$2" '$1 == s && $2 == o { print $4 }' \
	    "$tmp/packets"
}
fresh() {	# NAME: a copy of the reference trace
	rm -rf "${tmp:?}/$1"
	cp -R "$tmp/ref" "$tmp/$1"
}

# 6 packets of 4 KiB in chan_0, 3 in chan_1
"$gen" -i -L "$tmp/packets" -n 400 -s 3 "$tmp/ref" ||
    { echo "FAIL: ctfgen -i"; exit 1; }
events "$tmp/ref" "$tmp/ref.txt" "$tmp/err.txt"
total=$(wc -l < "$tmp/ref.txt")
listed=$(awk '{ n += $4 } END { print n }' "$tmp/packets")
[ "$total" -eq "$listed" ] ||
    fail "reference: $total events read, ctfgen wrote $listed"
[ -s "$tmp/err.txt" ] && fail "reference: messages: $(cat "$tmp/err.txt")"
[ "$(awk '$1 == "chan_0"' "$tmp/packets" | wc -l)" -ge 5 ] ||
    fail "reference: fewer than 5 packets in chan_0"
P2=8192 P3=12288 P4=16384	# the 3rd, 4th and 5th packets of chan_0

# 1. ctfgen's index, as babeltrace2 and ttv see it
if command -v babeltrace2 >/dev/null 2>&1; then
	TZ=UTC babeltrace2 --log-level=W "$tmp/ref" > /dev/null 2> "$tmp/bt.txt" ||
	    fail "babeltrace2 refuses ctfgen's trace with an index"
	[ -s "$tmp/bt.txt" ] &&
	    fail "babeltrace2 warns about ctfgen's index: $(head -2 "$tmp/bt.txt")"
else
	echo "babeltrace2 not installed: ctfgen's index not checked with it"
fi
# an empty stream file whose index lists packets: the stream was cut,
# damage (exit 1), the other stream still read
fresh emptied
: > "$tmp/emptied/chan_0"
"$TTV" --info "$tmp/emptied" > "$tmp/out.txt" 2> "$tmp/err.txt"
rc=$?
[ $rc -eq 1 ] || fail "emptied stream with its index: exit $rc, want 1"
grep -q "chan_0: offset 0: stream file is empty but its index lists packets" \
    "$tmp/err.txt" || fail "emptied stream: $(cat "$tmp/err.txt")"

fresh noidx
rm -r "$tmp/noidx/index"
events "$tmp/noidx" "$tmp/out.txt" "$tmp/err.txt"
cmp -s "$tmp/out.txt" "$tmp/ref.txt" || fail "no index: other events"
# a big-endian trace: the index is big-endian either way
"$gen" -b -c -i -n 300 -s 5 "$tmp/be" || fail "ctfgen -b -i"
"$dump" "$tmp/be" > /dev/null 2> "$tmp/err.txt" ||
    fail "big-endian trace with an index: $(cat "$tmp/err.txt")"
[ -s "$tmp/err.txt" ] && fail "big-endian index: $(cat "$tmp/err.txt")"

# 2a. a packet header with a bad magic
fresh magic
poke "$tmp/magic/chan_0" $P2 '\000\000\000\000'
cp -R "$tmp/magic" "$tmp/magic-noidx"
rm -r "$tmp/magic-noidx/index"
events "$tmp/magic-noidx" "$tmp/out.txt" "$tmp/err.txt"
grep -q "^error: chan_0: offset $P2: invalid packet magic 0x0; 4096 bytes skipped to the next packet header found, at offset $P3\$" \
    "$tmp/err.txt" || fail "bad magic, no index: $(cat "$tmp/err.txt")"
missing "$tmp/out.txt" "$(events_at chan_0 $P2)" ||
    fail "bad magic, no index: not all events but the damaged packet's"
"$TTV" --info "$tmp/magic-noidx" > "$tmp/info.txt" 2> /dev/null
grep -qx "  damaged bytes skipped: 4096" "$tmp/info.txt" ||
    fail "bad magic, no index: no count of the bytes skipped"
# two markers: the bytes skipped, and the packet the sequence numbers
# then say is lost
grep -qx "  dropped: 2" "$tmp/info.txt" ||
    fail "bad magic, no index: the skipped bytes are not a marker"
grep -qx "  lost packets: 1" "$tmp/info.txt" ||
    fail "bad magic, no index: the lost packet is not counted"
# the last packet damaged: nothing to resume at, the stream ends there
last0=$(awk '$1 == "chan_0" { o = $2 } END { print o }' "$tmp/packets")
cp -R "$tmp/magic-noidx" "$tmp/last"
poke "$tmp/last/chan_0" "$last0" '\000\000\000\000'
events "$tmp/last" "$tmp/out.txt" "$tmp/err.txt"
grep -q "^error: chan_0: offset $last0: invalid packet magic 0x0\$" \
    "$tmp/err.txt" || fail "last packet: $(cat "$tmp/err.txt")"
missing "$tmp/out.txt" \
    $(($(events_at chan_0 $P2) + $(events_at chan_0 "$last0"))) ||
    fail "last packet: not all events but the two damaged packets'"
# a damaged packet size: the next packet is found by its magic
fresh size-noidx
rm -r "$tmp/size-noidx/index"
poke "$tmp/size-noidx/chan_0" $((P2 + 48)) "$(bytes 1099511627776 8 le)"
events "$tmp/size-noidx" "$tmp/out.txt" "$tmp/err.txt"
grep -q "^error: chan_0: offset $P2: packet size of 1099511627776 bits goes past the end of the file (.*); 4096 bytes skipped to the next packet header found, at offset $P3\$" \
    "$tmp/err.txt" || fail "packet size, no index: $(cat "$tmp/err.txt")"
missing "$tmp/out.txt" "$(events_at chan_0 $P2)" ||
    fail "packet size, no index: not all events but the damaged packet's"
events "$tmp/magic" "$tmp/out.txt" "$tmp/err.txt"
grep -q "^error: chan_0: offset $P2: invalid packet magic 0x0; 4096 bytes skipped to the next packet of the index that agrees with its header, at offset $P3\$" \
    "$tmp/err.txt" || fail "bad magic, index: $(cat "$tmp/err.txt")"
[ "$(wc -l < "$tmp/err.txt")" -eq 1 ] ||
    fail "bad magic, index: more messages: $(cat "$tmp/err.txt")"
missing "$tmp/out.txt" "$(events_at chan_0 $P2)" ||
    fail "bad magic, index: not all events but the damaged packet's"
# as the user sees it
"$TTV" --info "$tmp/magic" > "$tmp/info.txt" 2> "$tmp/err.txt"
grep -q "ttv: .*chan_0: offset $P2: invalid packet magic 0x0; 4096 bytes skipped" \
    "$tmp/err.txt" || fail "ttv --info: $(cat "$tmp/err.txt")"

# 2b. a packet size past the end of the file (in chan_1, little-endian,
# packet_size is the u64 at byte 48 of the packet)
fresh size
poke "$tmp/size/chan_1" $((4096 + 48)) "$(bytes 1099511627776 8 le)"
events "$tmp/size" "$tmp/out.txt" "$tmp/err.txt"
grep -q "^error: chan_1: offset 4096: packet size of 1099511627776 bits goes past the end of the file (.*); 4096 bytes skipped to the next packet of the index that agrees with its header, at offset 8192\$" \
    "$tmp/err.txt" || fail "packet size: $(cat "$tmp/err.txt")"
missing "$tmp/out.txt" "$(events_at chan_1 4096)" ||
    fail "packet size, index: not all events but the damaged packet's"

# 2c. an event that cannot be decoded: the first event header of a packet
# (byte 76, after the 24-byte header and 52-byte context) given an
# unknown id; the rest of its packet is lost, not the stream
fresh event
poke "$tmp/event/chan_0" $((P3 + 76)) "$(bytes 4660 2 le)"
cp -R "$tmp/event" "$tmp/event-noidx"
rm -r "$tmp/event-noidx/index"
events "$tmp/event-noidx" "$tmp/out.txt" "$tmp/err.txt"
grep -q "^error: chan_0: offset $((P3 + 76)): unknown event id 4660; 4020 bytes skipped to the next packet, at offset $P4\$" \
    "$tmp/err.txt" || fail "bad event, no index: $(cat "$tmp/err.txt")"
missing "$tmp/out.txt" "$(events_at chan_0 $P3)" ||
    fail "bad event, no index: not all events but the damaged packet's"
events "$tmp/event" "$tmp/out.txt" "$tmp/err.txt"
grep -q "^error: chan_0: offset $((P3 + 76)): unknown event id 4660; 4020 bytes skipped to the next packet of the index that agrees with its header, at offset $P4\$" \
    "$tmp/err.txt" || fail "bad event, index: $(cat "$tmp/err.txt")"
missing "$tmp/out.txt" "$(events_at chan_0 $P3)" ||
    fail "bad event, index: not all events but the damaged packet's"

# 3. indexes that do not hold together: reported, not used (the damaged
# trace then reads as without an index: the next packet is found by its
# magic)
nomagic=$(events_at chan_0 $P2)
bad_index() {	# WHAT MESSAGE; the index is $tmp/bad/index/chan_0.idx
	events "$tmp/bad" "$tmp/out.txt" "$tmp/err.txt"
	grep -q "^warning: index/chan_0.idx: $2; index not used\$" \
	    "$tmp/err.txt" || fail "$1: $(cat "$tmp/err.txt")"
	[ "$(grep -c index/chan_0.idx "$tmp/err.txt")" -eq 1 ] ||
	    fail "$1: more than one message about the index"
	grep -q "skipped to the next packet header found" "$tmp/err.txt" ||
	    fail "$1: the index was used"
	missing "$tmp/out.txt" "$nomagic" || fail "$1: other events"
}
idx="$tmp/bad/index/chan_0.idx"
mkbad() {
	rm -rf "$tmp/bad"
	cp -R "$tmp/magic" "$tmp/bad"
}
mkbad
poke "$idx" 0 '\301\037\334\301'
bad_index "index magic" "offset 0: invalid index magic 0xc11fdcc1 (expecting 0xc1f1dcc1)"
mkbad
poke "$idx" 4 "$(bytes 2 4 be)"
bad_index "index version" "offset 4: unsupported index version 2.1 (expecting 1.x)"
mkbad
poke "$idx" 12 "$(bytes 48 4 be)"
bad_index "entry size" "offset 12: invalid index entry size 48 for version 1.1"
mkbad
poke_entry "$idx" 3 0 4096
bad_index "order" "offset 232: entry 3: packet at offset 4096 before the end of the previous one (offset 8192, 4096 bytes)"
mkbad
last=$(($(wc -c < "$idx") / 72 - 1))
poke_entry "$idx" $last 1 65536
bad_index "past the end" "offset $((16 + last * 72)): entry $last: packet at offset 20480 of 8192 bytes goes past the end of the stream file (24576 bytes)"
mkbad
: > "$idx"
bad_index "empty index" "offset 0: index file of 0 bytes, shorter than its 16-byte header"
# a partial last entry: a word about it, and the rest is used
mkbad
head -c $(($(wc -c < "$idx") - 30)) "$idx" > "$tmp/cut" && cp "$tmp/cut" "$idx"
events "$tmp/bad" "$tmp/out.txt" "$tmp/err.txt"
grep -q "^warning: index/chan_0.idx: offset $((16 + last * 72)): index ends in a partial entry of 42 bytes, left out\$" \
    "$tmp/err.txt" || fail "partial entry: $(cat "$tmp/err.txt")"
missing "$tmp/out.txt" "$(events_at chan_0 $P2)" ||
    fail "partial entry: other events"
grep -q "skipped to the next packet of the index that agrees" \
    "$tmp/err.txt" || fail "partial entry: the index was not used"

# 4. lying indexes
# entry 3 names the middle of packet 3 (still inside it, in order): its
# "header" there is event data and must not be decoded as a packet
fresh lie
poke "$tmp/lie/chan_0" $P2 '\000\000\000\000'
poke_entry "$tmp/lie/index/chan_0.idx" 3 0 $((P3 + 512))
poke_entry "$tmp/lie/index/chan_0.idx" 3 1 $(((4096 - 512) * 8))
poke_entry "$tmp/lie/index/chan_0.idx" 3 2 $(((4096 - 512) * 8))
events "$tmp/lie" "$tmp/out.txt" "$tmp/err.txt"
grep -q "^error: chan_0: offset $P2: invalid packet magic 0x0; 8192 bytes skipped to the next packet of the index that agrees with its header, at offset $P4\$" \
    "$tmp/err.txt" || fail "lying offset: $(cat "$tmp/err.txt")"
missing "$tmp/out.txt" \
    $(($(events_at chan_0 $P2) + $(events_at chan_0 $P3))) ||
    fail "lying offset: not all events but the two packets'"
# entry 3 at the right place with other sizes: a real header that does
# not agree with its entry is passed over too
fresh lie2
poke "$tmp/lie2/chan_0" $P2 '\000\000\000\000'
poke_entry "$tmp/lie2/index/chan_0.idx" 3 1 $((2048 * 8))
poke_entry "$tmp/lie2/index/chan_0.idx" 3 2 $((2048 * 8))
events "$tmp/lie2" "$tmp/out.txt" "$tmp/err.txt"
grep -q "^error: chan_0: offset $P2: .* 8192 bytes skipped to the next packet of the index that agrees with its header, at offset $P4\$" \
    "$tmp/err.txt" || fail "lying size: $(cat "$tmp/err.txt")"
# every later entry lies: the walk goes on as without an index
fresh lie3
poke "$tmp/lie3/chan_0" $P2 '\000\000\000\000'
n0=$(awk '$1 == "chan_0"' "$tmp/packets" | wc -l)
e=3
while [ $e -lt "$n0" ]; do
	poke_entry "$tmp/lie3/index/chan_0.idx" $e 0 $((e * 4096 + 8))
	poke_entry "$tmp/lie3/index/chan_0.idx" $e 1 $((4000 * 8))
	poke_entry "$tmp/lie3/index/chan_0.idx" $e 2 $((4000 * 8))
	e=$((e + 1))
done
events "$tmp/lie3" "$tmp/out.txt" "$tmp/err.txt"
grep -q "^error: chan_0: offset $P2: invalid packet magic 0x0; no later packet of index/chan_0.idx agrees with its header; 4096 bytes skipped to the next packet header found, at offset $P3\$" \
    "$tmp/err.txt" || fail "all lies: $(cat "$tmp/err.txt")"
missing "$tmp/out.txt" "$nomagic" || fail "all lies: not as without an index"
# an undamaged trace with a lying index: one warning, the same events
fresh lie4
poke_entry "$tmp/lie4/index/chan_0.idx" 2 1 $((2048 * 8))
poke_entry "$tmp/lie4/index/chan_0.idx" 2 2 $((2048 * 8))
poke_entry "$tmp/lie4/index/chan_0.idx" 4 1 $((2048 * 8))
poke_entry "$tmp/lie4/index/chan_0.idx" 4 2 $((2048 * 8))
events "$tmp/lie4" "$tmp/out.txt" "$tmp/err.txt"
grep -q "^warning: chan_0: offset $P2: index/chan_0.idx disagrees with the packet headers at offset $P2 (packet of 32768 bits with .* of content; the index says 16384 and 16384); packet headers used\$" \
    "$tmp/err.txt" || fail "disagreement: $(cat "$tmp/err.txt")"
[ "$(wc -l < "$tmp/err.txt")" -eq 1 ] ||
    fail "disagreement: not one message: $(cat "$tmp/err.txt")"
cmp -s "$tmp/out.txt" "$tmp/ref.txt" || fail "disagreement: other events"

# every byte of the index flipped, in turn: an undamaged trace reads the
# same whatever its index says, and a damaged one never gets an event
# that is not in the undamaged trace
fresh flip
cp -R "$tmp/magic" "$tmp/flipm"
size=$(wc -c < "$tmp/ref/index/chan_0.idx")
# Every byte with TTV_FULL_SWEEP=1; otherwise the header and the first
# entry whole, then every third byte (each entry's fields are 8 bytes
# wide: every field is still hit, at different bytes).
step=3
[ "${TTV_FULL_SWEEP:-0}" != 0 ] && step=1
i=0
while [ $i -lt "$size" ]; do
	b=$(od -An -tu1 -j $i -N 1 "$tmp/ref/index/chan_0.idx" | tr -d ' ')
	x=$(bytes $((255 - b)) 1 le)
	for t in flip flipm; do
		cp "$tmp/ref/index/chan_0.idx" "$tmp/$t/index/chan_0.idx"
		poke "$tmp/$t/index/chan_0.idx" $i "$x"
	done
	events "$tmp/flip" "$tmp/out.txt" "$tmp/err.txt"
	cmp -s "$tmp/out.txt" "$tmp/ref.txt" ||
	    fail "index byte $i flipped: other events"
	events "$tmp/flipm" "$tmp/out.txt" "$tmp/err.txt"
	diff "$tmp/ref.txt" "$tmp/out.txt" | grep -q '^>' &&
	    fail "index byte $i flipped, damaged trace: events not in the trace"
	if [ $i -lt 96 ]; then i=$((i + 1)); else i=$((i + step)); fi
done

# 5. real LTTng traces: their index changes nothing and says nothing
if [ -n "${TTV_SHARED:-}" ] && [ -d "$TTV_SHARED/traces/ctf" ]; then
	n=0
	for i in $(find "$TTV_SHARED/traces/ctf" -type d -name index | sort); do
		t=${i%/index}
		n=$((n + 1))
		name=${t#"$TTV_SHARED"/traces/ctf/}
		"$dump" "$t" > "$tmp/with.txt" 2> "$tmp/err.txt"
		grep -q index "$tmp/err.txt" &&
		    fail "$name: $(grep index "$tmp/err.txt" | head -2)"
		rm -rf "$tmp/real"
		cp -R "$t" "$tmp/real"
		rm -rf "$tmp/real/index"
		"$dump" "$tmp/real" > "$tmp/without.txt" 2> "$tmp/err2.txt"
		cmp -s "$tmp/with.txt" "$tmp/without.txt" ||
		    fail "$name: other events with its index"
		sed "s|$tmp/real|$t|g" "$tmp/err2.txt" | cmp -s - "$tmp/err.txt" ||
		    fail "$name: other messages with its index"
	done
	[ $n -ge 10 ] || fail "only $n traces with an index in ../shared"
else
	echo "../shared not found: real LTTng indexes not checked"
fi

if [ $fails -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "PASS"

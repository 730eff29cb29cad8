#!/bin/sh
# Traces in the 2010 CTF RFC's layout (doc/ctf-rfc-2010.md), written by
# tests/gen/ctfgen -R (tests/data/ctf/rfc2010: type 2 headers with an
# event_size context, little-endian; type 1 headers, big-endian):
#  1. the fixtures are what the generator writes (it is deterministic);
#  2. --info says what they are (format, "RFC 1.1 (2010)", byte order) and
#     agrees with the generator's bookkeeping: events per name, slices in
#     all and per thread, instants, packets, calls per function, and the
#     first and last event times;
#  3. each reads event for event as its CTF 1.8 twin (ctfgen without -R,
#     same seed: the same events in the other layout): order, time deltas,
#     names, every payload field; and the GNU C bitfields at the end of
#     each sample hold what was written;
#  4. damage, as for CTF: a packet that says it is compressed or
#     encrypted, of another session, with a wrong CRC-32, or cut short is
#     reported with its offset (exit 1) and skipped, the others read; the
#     skipped bytes are a marker; a damaged metadata packet reads nothing;
#     no cut of a trace crashes the reader.
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
gen="$TTV_BUILDDIR/tests/gen/ctfgen"
dump="$TTV_BUILDDIR/tests/tools/ctf_text_dump"
data="$TTV_SRCDIR/tests/data/ctf/rfc2010"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-ctf-rfc.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

fixtures="le-type2:-n 150 -s 9
be-type1:-b -c -n 120 -t 4 -s 5"

# 1. the fixtures
echo "$fixtures" | while IFS=: read -r name args; do
	# shellcheck disable=SC2086
	"$gen" -R $args -e "$tmp/$name.expected" "$tmp/$name" ||
	    { echo "FAIL: ctfgen -R $args"; exit 1; }
	for f in metadata app_0 app_1; do
		cmp -s "$tmp/$name/$f" "$data/$name/$f" ||
		    { echo "FAIL: $name/$f is not what ctfgen writes"; exit 1; }
	done
	cmp -s "$tmp/$name.expected" "$data/$name.expected" ||
	    { echo "FAIL: $name.expected is not what ctfgen writes"; exit 1; }
done || fails=$((fails + 1))

# 2. what --info and --stats say
check_info() {	# NAME TRACE EXPECTED ORDER
	"$TTV" --info "$2" > "$tmp/info.txt" 2> "$tmp/err.txt" ||
	    { fail "$1: --info failed: $(cat "$tmp/err.txt")"; return; }
	[ -s "$tmp/err.txt" ] && fail "$1: diagnostics: $(cat "$tmp/err.txt")"
	grep -qx "format: ctf" "$tmp/info.txt" || fail "$1: not ctf"
	grep -qx "version: RFC 1.1 (2010)" "$tmp/info.txt" ||
	    fail "$1: $(grep version "$tmp/info.txt")"
	grep -qx "byte order: $4" "$tmp/info.txt" || fail "$1: not $4"
	"$TTV" --stats --tsv "$2" > "$tmp/stats.tsv" 2>/dev/null ||
	    fail "$1: --stats failed"
	while read -r what a b; do
		case $what in
		events)
			grep -qx "  $a: $b" "$tmp/info.txt" ||
			    fail "$1: not $b records of $a" ;;
		slices)
			if [ -z "$b" ]; then
				grep -qx "slices: $a" "$tmp/info.txt" ||
				    fail "$1: not $a slices"
			else
				grep -q "^  thread pid 4242 tid $a .*: $b slices," \
				    "$tmp/info.txt" ||
				    fail "$1: thread $a has not $b slices"
			fi ;;
		instants)
			grep -qx "instants: $a" "$tmp/info.txt" ||
			    fail "$1: not $a instants" ;;
		packets)
			grep -qx "  packets: $a" "$tmp/info.txt" ||
			    fail "$1: not $a packets" ;;
		times)
			# the first event is the origin; ticks read as ns
			grep -qx "wall clock origin: $a ns since the epoch" \
			    "$tmp/info.txt" || fail "$1: first event not at $a"
			grep -q "^time range: 0 \.\. $((b - a)) ns " \
			    "$tmp/info.txt" || fail "$1: last event not at $b" ;;
		function)
			n=$(awk -F'\t' -v f="$a" '$1 == f { print $2 }' \
			    "$tmp/stats.tsv")
			[ "$n" = "$b" ] ||
			    fail "$1: function $a called ${n:-0} times, not $b" ;;
		esac
	done < "$3"
}
check_info le-type2 "$data/le-type2" "$data/le-type2.expected" little-endian
check_info be-type1 "$data/be-type1" "$data/be-type1.expected" big-endian

# 3. the CTF 1.8 twins: the same events, field for field (the scopes
# before the payload and the host name differ by layout; the RFC's
# sequence length has no leading underscore; the bitfield pair is the
# RFC's own)
norm() {
	sed -E 's/^\[[^]]*\] //; s/ ctfgen / /;
	    s/: \{ [^{}]* \}, \{ [^{}]* \}, /: /;
	    s/, pair = \{[^}]*\} \}$/ }/; s/ _vals_length/ vals_length/' "$1"
}
twin() {	# NAME ARGS...
	name=$1
	shift
	rm -rf "$tmp/r" "$tmp/c"
	"$gen" -R "$@" "$tmp/r" && "$gen" "$@" "$tmp/c" ||
	    { fail "$name: ctfgen $*"; return; }
	"$dump" "$tmp/r" > "$tmp/r.txt" 2> "$tmp/err.txt" ||
	    fail "$name: dump: $(cat "$tmp/err.txt")"
	"$dump" "$tmp/c" > "$tmp/c.txt" 2>&1 || fail "$name: twin's dump"
	norm "$tmp/r.txt" > "$tmp/r.n"
	norm "$tmp/c.txt" > "$tmp/c.n"
	[ "$(wc -l < "$tmp/r.n")" -gt 100 ] || fail "$name: too few events"
	cmp -s "$tmp/r.n" "$tmp/c.n" ||
	    { fail "$name: not the events of its CTF 1.8 twin";
	    diff "$tmp/r.n" "$tmp/c.n" | head -4; }
	# the kth sample's bitfields: (k mod 4000) - 2000, (k mod 32) - 16
	bad=$(grep 'ttvgen:sample' "$tmp/r.txt" | sed -E \
	    's/.*pair = \{ lo = (-?[0-9]+), hi = (-?[0-9]+) \} \}$/\1 \2/' |
	    awk '{ if ($1 != (k % 4000) - 2000 || $2 != (k % 32) - 16) n++;
	    k++ } END { print n + 0 "/" k }')
	case $bad in
	0/0|*/0) fail "$name: no samples" ;;
	0/*) ;;
	*) fail "$name: bitfields wrong in $bad samples" ;;
	esac
}
twin "type 2, little-endian" -n 300 -s 11
twin "type 1, little-endian" -c -n 300 -s 12
twin "type 2, big-endian" -b -n 300 -s 13
twin "type 1, big-endian, extended headers" -b -c -n 300 -s 14 -T 100000000
twin "type 2, long" -n 3000 -s 15 -T 100

# 4. damage
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
events_at() {	# STREAM OFFSET
	awk -v s="$1" -v o="$2" '$1 == s && $2 == o { print $4 }' \
	    "$tmp/packets"
}
lines() {
	wc -l < "$1" | tr -d ' '
}
rm -rf "$tmp/ref"
"$gen" -R -n 400 -s 3 -L "$tmp/packets" "$tmp/ref" ||
    fail "ctfgen -R -L"
"$dump" "$tmp/ref" > "$tmp/ref.txt" 2>&1 || fail "reference dump"
total=$(lines "$tmp/ref.txt")
[ "$(awk '$1 == "app_0"' "$tmp/packets" | wc -l)" -ge 3 ] ||
    fail "fewer than 3 packets in app_0"
# packets 1 and 3 as written say gzip and AES: each is reported where
# it is, skipped, and only its events are missing
rm -rf "$tmp/zip"
"$gen" -R -n 400 -s 3 -Z 1 -E 3 "$tmp/zip" || fail "ctfgen -Z -E"
"$TTV" --info "$tmp/zip" > "$tmp/info.txt" 2> "$tmp/err.txt"
[ $? -eq 1 ] || fail "compressed: exit status not 1"
grep -q "^ttv: .*: app_[01]: offset [0-9]*: packet compressed with gzip: compressed packets are not supported; 4096 bytes skipped to the next packet header found, at offset [0-9]*\$" \
    "$tmp/err.txt" || fail "compressed: $(cat "$tmp/err.txt")"
grep -q "^ttv: .*: app_[01]: offset [0-9]*: packet encrypted with AES: encrypted packets are not supported; 4096 bytes skipped" \
    "$tmp/err.txt" || fail "encrypted: $(cat "$tmp/err.txt")"
[ "$(wc -l < "$tmp/err.txt")" -eq 2 ] ||
    fail "compressed: other messages: $(cat "$tmp/err.txt")"
grep -qx "  damaged bytes skipped: 8192" "$tmp/info.txt" ||
    fail "compressed: not 8192 bytes counted as skipped"
lost=0
for at in $(sed -E 's/^ttv: [^:]*: (app_[01]): offset ([0-9]+): .*/\1:\2/' \
    "$tmp/err.txt"); do
	lost=$((lost + $(events_at "${at%:*}" "${at#*:}")))
done
"$dump" "$tmp/zip" > "$tmp/out.txt" 2>/dev/null
[ "$(lines "$tmp/out.txt")" -eq $((total - lost)) ] ||
    fail "compressed: $(lines "$tmp/out.txt") events, not $((total - lost))"
# a byte of packet 2's content changed: its CRC-32 no longer matches
cp -R "$tmp/ref" "$tmp/crc"
poke "$tmp/crc/app_0" $((4096 + 100)) '\377'
"$dump" "$tmp/crc" > "$tmp/out.txt" 2> "$tmp/err.txt"
[ $? -eq 1 ] || fail "checksum: exit status not 1"
grep -q "^error: app_0: offset 4096: packet content checksum 0x[0-9a-f]*, its header says 0x[0-9a-f]*; 4096 bytes skipped" \
    "$tmp/err.txt" || fail "checksum: $(cat "$tmp/err.txt")"
[ "$(lines "$tmp/out.txt")" -eq $((total - $(events_at app_0 4096))) ] ||
    fail "checksum: not every event but the damaged packet's"
# another session
cp -R "$tmp/ref" "$tmp/ses"
poke "$tmp/ses/app_1" 4 "$(bytes 305419896 4 le)"
"$dump" "$tmp/ses" > "$tmp/out.txt" 2> "$tmp/err.txt"
grep -q "^error: app_1: offset 0: packet of session 0x12345678, the metadata's is 0x5e55101d" \
    "$tmp/err.txt" || fail "session: $(cat "$tmp/err.txt")"
# cut short in its second packet: the first is kept
cp -R "$tmp/ref" "$tmp/cut"
head -c 5000 "$tmp/ref/app_0" > "$tmp/cut/app_0"
"$dump" "$tmp/cut" > "$tmp/out.txt" 2> "$tmp/err.txt"
[ $? -eq 1 ] || fail "cut: exit status not 1"
grep -q "^error: app_0: offset 4096: packet size of 32768 bits goes past the end of the file" \
    "$tmp/err.txt" || fail "cut: $(cat "$tmp/err.txt")"
app0=$(awk '$1 == "app_0" { n += $4 } END { print n }' "$tmp/packets")
[ "$(lines "$tmp/out.txt")" -eq $((total - app0 + $(events_at app_0 0))) ] ||
    fail "cut: not the events before the cut"
# a damaged metadata packet: its offset, nothing read
cp -R "$tmp/ref" "$tmp/meta"
poke "$tmp/meta/metadata" $((1024 + 200)) '\377'
"$TTV" --info "$tmp/meta" > /dev/null 2> "$tmp/err.txt"
[ $? -eq 1 ] || fail "metadata: exit status not 1"
grep -q "metadata: offset 1024: metadata packet content checksum 0x[0-9a-f]*, its header says" \
    "$tmp/err.txt" || fail "metadata: $(cat "$tmp/err.txt")"
# cuts anywhere: a clean exit, never a crash
size=$(wc -c < "$tmp/ref/app_0")
at=0
while [ $at -lt "$size" ]; do
	cp "$tmp/ref/metadata" "$tmp/cut/metadata"
	head -c $at "$tmp/ref/app_0" > "$tmp/cut/app_0"
	"$TTV" --info "$tmp/cut" > /dev/null 2>&1
	rc=$?
	[ $rc -le 1 ] || fail "app_0 cut at $at: exit status $rc"
	at=$((at + 61))
done
msize=$(wc -c < "$tmp/ref/metadata")
at=0
while [ $at -lt "$msize" ]; do
	head -c $at "$tmp/ref/metadata" > "$tmp/cut/metadata"
	"$TTV" --info "$tmp/cut" > /dev/null 2>&1
	rc=$?
	[ $rc -eq 1 ] || fail "metadata cut at $at: exit status $rc"
	at=$((at + 37))
done

if [ $fails -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "PASS"

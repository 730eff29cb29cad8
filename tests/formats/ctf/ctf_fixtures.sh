#!/bin/sh
# The CTF reader on the project's own fixtures (tests/data/ctf), written by
# tests/gen/ctfgen: both byte orders, LTTng's compact and large event
# headers (with their extended forms), plain and packetized metadata,
# bit-packed fields of every kind, wrapping timestamps and discarded
# events. Checks:
#  1. the fixtures are what the generator writes (it is deterministic);
#  2. --info and --stats agree with the generator's own bookkeeping
#     (*.expected): events per name, slices in all and per thread,
#     instants, discarded events, packets, calls per function;
#  3. when babeltrace2 is installed, ttv's decoding of every fixture equals
#     babeltrace2's, event for event, in babeltrace2's text layout (CTF 1.8
#     ones: babeltrace2 2.0 does not read CTF 2);
#  4. each CTF 2 fixture (NAME-ctf2: ctfgen -2, the same data streams as
#     NAME's) reads exactly as its CTF 1.8 twin: the same decoded events,
#     --info (but the version), --stats and --export chrome-json.
# To remake the fixtures after changing the generator: run the ctfgen
# lines of `fixtures` below with tests/data/ctf/NAME as the output.
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
gen="$TTV_BUILDDIR/tests/gen/ctfgen"
dump="$TTV_BUILDDIR/tests/tools/ctf_text_dump"
data="$TTV_SRCDIR/tests/data/ctf"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-ctf-fix.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

fixtures="le-large:-n 150
be-compact-discards:-b -c -p -d 2 -P 2048 -n 150 -t 4 -s 5
le-compact-packetized:-c -n 120 -t 2 -s 9 -p
be-large:-b -n 120 -s 11
le-large-ctf2:-2 -n 150
be-compact-discards-ctf2:-2 -b -c -p -d 2 -P 2048 -n 150 -t 4 -s 5"

echo "$fixtures" | while IFS=: read -r name args; do
	# shellcheck disable=SC2086
	"$gen" $args -e "$tmp/$name.expected" "$tmp/$name" ||
	    { echo "FAIL: ctfgen $args"; exit 1; }
	for f in metadata chan_0 chan_1; do
		cmp -s "$tmp/$name/$f" "$data/$name/$f" ||
		    { echo "FAIL: $name/$f is not what ctfgen writes"; exit 1; }
	done
	cmp -s "$tmp/$name.expected" "$data/$name.expected" ||
	    { echo "FAIL: $name.expected is not what ctfgen writes"; exit 1; }
done || fails=$((fails + 1))

for exp in "$data"/*.expected; do
	name=$(basename "$exp" .expected)
	t="$data/$name"
	"$TTV" --info "$t" > "$tmp/info.txt" 2> "$tmp/err.txt" ||
	    { fail "$name: --info failed: $(cat "$tmp/err.txt")"; continue; }
	[ -s "$tmp/err.txt" ] && fail "$name: diagnostics: $(cat "$tmp/err.txt")"
	"$TTV" --stats --tsv "$t" > "$tmp/stats.tsv" 2>/dev/null ||
	    fail "$name: --stats failed"
	while read -r what a b; do
		case $what in
		events)
			grep -qx "  $a: $b" "$tmp/info.txt" ||
			    fail "$name: not $b records of $a" ;;
		slices)
			if [ -z "$b" ]; then
				grep -qx "slices: $a" "$tmp/info.txt" ||
				    fail "$name: not $a slices"
			else
				grep -q "^  thread pid 4242 tid $a .*: $b slices," \
				    "$tmp/info.txt" ||
				    fail "$name: thread $a has not $b slices"
			fi ;;
		instants)
			grep -qx "instants: $a" "$tmp/info.txt" ||
			    fail "$name: not $a instants" ;;
		discarded)
			if [ "$a" -eq 0 ]; then
				grep -q "discarded events" "$tmp/info.txt" &&
				    fail "$name: discarded events reported"
				grep -q "^  dropped:" "$tmp/info.txt" &&
				    fail "$name: dropped markers without losses"
			else
				grep -qx "  discarded events: $a" "$tmp/info.txt" ||
				    fail "$name: not $a discarded events"
				grep -q "^  dropped: [1-9]" "$tmp/info.txt" ||
				    fail "$name: no dropped markers"
			fi ;;
		packets)
			grep -qx "  packets: $a" "$tmp/info.txt" ||
			    fail "$name: not $a packets"
			grep -qx "  packet: $a" "$tmp/info.txt" ||
			    fail "$name: not $a packet markers" ;;
		function)
			n=$(awk -F'\t' -v f="$a" '$1 == f { print $2 }' \
			    "$tmp/stats.tsv")
			[ "$n" = "$b" ] ||
			    fail "$name: function $a called ${n:-0} times, not $b" ;;
		esac
	done < "$exp"
done

if command -v babeltrace2 >/dev/null 2>&1; then
	for exp in "$data"/*.expected; do
		name=$(basename "$exp" .expected)
		[ "${name%-ctf2}" != "$name" ] && continue
		TZ=UTC LC_ALL=C babeltrace2 "$data/$name" > "$tmp/bt.txt" 2>/dev/null ||
		    { fail "$name: babeltrace2 refuses it"; continue; }
		"$dump" "$data/$name" > "$tmp/ttv.txt" 2>&1 ||
		    fail "$name: ctf_text_dump failed"
		cmp -s "$tmp/bt.txt" "$tmp/ttv.txt" ||
		    fail "$name: decoding differs from babeltrace2's"
	done
else
	echo "babeltrace2 not installed: fixtures not compared with it"
fi

# 4: CTF 2 twins
n2=0
for t in "$data"/*-ctf2; do
	name=$(basename "$t")
	twin="$data/${name%-ctf2}"
	n2=$((n2 + 1))
	for f in chan_0 chan_1; do
		cmp -s "$t/$f" "$twin/$f" || fail "$name: $f differs from its twin's"
	done
	"$TTV" --info "$t" > "$tmp/i2.txt" 2>&1 || fail "$name: --info failed"
	"$TTV" --info "$twin" > "$tmp/i1.txt" 2>&1
	grep -qx "version: 2" "$tmp/i2.txt" || fail "$name: not reported as CTF 2"
	grep -qx "version: 1.8" "$tmp/i1.txt" ||
	    fail "${name%-ctf2}: not reported as CTF 1.8"
	sed -e 1d -e '/^version: /d' "$tmp/i1.txt" > "$tmp/i1b.txt"
	sed -e 1d -e '/^version: /d' "$tmp/i2.txt" > "$tmp/i2b.txt"
	cmp -s "$tmp/i1b.txt" "$tmp/i2b.txt" || fail "$name: --info differs"
	"$TTV" --stats "$t" > "$tmp/s2.txt" 2>&1
	"$TTV" --stats "$twin" > "$tmp/s1.txt" 2>&1
	cmp -s "$tmp/s1.txt" "$tmp/s2.txt" || fail "$name: --stats differs"
	"$TTV" --export chrome-json "$t" > "$tmp/c2.json" 2>&1
	"$TTV" --export chrome-json "$twin" > "$tmp/c1.json" 2>&1
	[ -s "$tmp/c1.json" ] && cmp -s "$tmp/c1.json" "$tmp/c2.json" ||
	    fail "$name: chrome-json differs"
	"$dump" "$t" > "$tmp/d2.txt" 2>&1
	"$dump" "$twin" > "$tmp/d1.txt" 2>&1
	[ -s "$tmp/d1.txt" ] && cmp -s "$tmp/d1.txt" "$tmp/d2.txt" ||
	    fail "$name: decoded events differ"
done
[ $n2 -ge 2 ] || fail "only $n2 CTF 2 fixtures"

if [ $fails -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "PASS"

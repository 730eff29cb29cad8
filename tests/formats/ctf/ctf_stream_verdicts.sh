#!/bin/sh
# The CTF test suite's verdicts on data streams, on traces written by
# tests/gen/ctfgen (the damaged-packet ones are in ctf_index.sh):
#  1. timestamps that go backwards inside a stream (-B: full timestamps
#     written earlier than the event before them) are a warning per
#     stream with their count, the generator's own; every event is kept
#     and the exit status is 0;
#  2. integers wider than 64 bits (-W: a 128-bit field) are decoded, in
#     both byte orders and with both event headers: each sample's value
#     is the one written, as text in the dump and in the model's args;
#  3. packetized metadata whose packets are in another byte order than
#     the trace block says (-p -M) is a metadata error with its line and
#     column, exit 1.
set -u
: "${TTV:?}" "${TTV_BUILDDIR:?}"
gen="$TTV_BUILDDIR/tests/gen/ctfgen"
dump="$TTV_BUILDDIR/tests/tools/ctf_text_dump"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-ctf-verdicts.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# 1. timestamps going backwards
for opts in "" "-b -c"; do
	# shellcheck disable=SC2086
	"$gen" $opts -B 5 -n 300 -s 7 -e "$tmp/back.exp" "$tmp/back" ||
	    { fail "ctfgen $opts -B 5"; continue; }
	"$TTV" --info "$tmp/back" > "$tmp/info.txt" 2> "$tmp/err.txt" ||
	    fail "backwards ($opts): exit status $?"
	for c in chan_0 chan_1; do
		n=$(awk -v c="$c" '$1 == "backwards" && $2 == c { print $3 }' \
		    "$tmp/back.exp")
		[ "${n:-0}" -gt 0 ] || fail "backwards ($opts): none written in $c"
		grep -q "^ttv: .*: warning: $c: offset [0-9]*: timestamps go backwards at $n events of this stream, the first here (clock value [0-9]* after [0-9]*); events are kept in the stream's order\$" \
		    "$tmp/err.txt" ||
		    fail "backwards ($opts): no warning of $n in $c: $(cat "$tmp/err.txt")"
	done
	[ "$(wc -l < "$tmp/err.txt")" -eq 2 ] ||
	    fail "backwards ($opts): other messages: $(cat "$tmp/err.txt")"
	inst=$(awk '$1 == "instants" { print $2 }' "$tmp/back.exp")
	grep -qx "instants: $inst" "$tmp/info.txt" ||
	    fail "backwards ($opts): not every event kept"
	rm -rf "$tmp/back"
done

# 2. 128-bit integers: the kth sample (time order, no -B) holds
# (k + 1) * 2^64 + 0xFEDCBA9876543210
for opts in "" "-b" "-c" "-b -c -p"; do
	# shellcheck disable=SC2086
	"$gen" $opts -W -n 200 -s 3 -e "$tmp/wide.exp" "$tmp/wide" ||
	    { fail "ctfgen $opts -W"; continue; }
	"$dump" "$tmp/wide" > "$tmp/out.txt" 2> "$tmp/err.txt" ||
	    fail "wide ($opts): dump failed: $(cat "$tmp/err.txt")"
	want=$(awk '$2 == "ttvgen:sample" { print $3 }' "$tmp/wide.exp")
	got=$(grep -o 'wide = 0x[0-9A-F]*' "$tmp/out.txt" | awk '
	    { printf "%s\n", $3 }' | awk -v n=0 '
	    { n++; if ($1 != sprintf("0x%XFEDCBA9876543210", n)) bad++ }
	    END { print n + 0, bad + 0 }')
	[ "$got" = "$want 0" ] ||
	    fail "wide ($opts): $got (values, wrong ones), expected $want 0"
	"$TTV" --export chrome-json "$tmp/wide" > "$tmp/wide.json" 2>&1 ||
	    fail "wide ($opts): export failed"
	grep -q '"wide": *"0x1FEDCBA9876543210"' "$tmp/wide.json" ||
	    fail "wide ($opts): the model's arg is not the value's text"
	rm -rf "$tmp/wide"
done

# 3. metadata packets in the other byte order
for opts in "-p" "-p -b"; do
	# shellcheck disable=SC2086
	"$gen" $opts -M -n 20 "$tmp/mix" || { fail "ctfgen $opts -M"; continue; }
	"$TTV" --info "$tmp/mix" > /dev/null 2> "$tmp/err.txt"
	rc=$?
	[ $rc -eq 1 ] || fail "byte orders ($opts): exit status $rc"
	case $opts in
	*-b*) t=big m=little ;;
	*) t=little m=big ;;
	esac
	grep -q "metadata: line 17, column 15: the trace's byte order is $t-endian, its metadata packets are $m-endian\$" \
	    "$tmp/err.txt" || fail "byte orders ($opts): $(cat "$tmp/err.txt")"
	rm -rf "$tmp/mix"
done

if [ $fails -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "PASS"

#!/bin/sh
# Conformance of the CTF 2 reader with the babeltrace project's CTF 2 test
# traces ($TTV_SHARED/traces/ctf/babeltrace-ctf2). Their data streams are
# byte-identical to the CTF 1.8 traces of the same names in ../babeltrace,
# so the 1.8 twin's babeltrace2 output is the oracle of each:
#  1. decoding: ctf_text_dump of the CTF 2 trace equals the twin's oracle
#     byte for byte (times, order, names, every field value, enum labels);
#  2. the model (load_trace): ctf_model_check against the same oracle, and
#     --info says "version: 2" where the twin says "version: 1.8";
#  3. fail/: metadata without a data stream class is refused with exit 1
#     and an "offset N" message, no crash;
#  4. damaged copies of a CTF 2 metadata file (truncated JSON, a wrong
#     type, a hostile size, an unsupported feature) are refused with exit
#     1, a position and a plain message, never read wrongly.
set -u
: "${TTV:?}" "${TTV_SHARED:?}" "${TTV_BUILDDIR:?}"
dir="$TTV_SHARED/traces/ctf"
if [ ! -d "$dir/babeltrace-ctf2" ]; then
	echo "SKIP: ../shared (traces/ctf/babeltrace-ctf2) not found"
	exit 77
fi
dump="$TTV_BUILDDIR/tests/tools/ctf_text_dump"
check="$TTV_BUILDDIR/tests/tools/ctf_model_check"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-ctf2-conf.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# 1 and 2
c2="$dir/babeltrace-ctf2"
bt="$dir/babeltrace"
n=0
for t in "$c2"/succeed/*/ "$c2"/intersection/*/; do
	t=${t%/}
	rel=${t#"$c2"/}
	oracle="$bt/$rel.babeltrace2.txt"
	[ -f "$oracle" ] || { fail "$rel: no 1.8 twin oracle"; continue; }
	n=$((n + 1))
	"$dump" "$t" > "$tmp/out.txt" 2> "$tmp/err.txt"
	rc=$?
	# the twin's own exit status (a warning in the data is no error)
	"$dump" "$bt/$rel" > /dev/null 2>&1
	want=$?
	if [ $rc -ne $want ]; then
		fail "$rel: ctf_text_dump exit $rc (1.8 twin: $want): $(head -3 "$tmp/err.txt")"
	elif ! cmp -s "$tmp/out.txt" "$oracle"; then
		fail "$rel: decoded events differ from the 1.8 twin's oracle"
		diff "$tmp/out.txt" "$oracle" | head -6
	fi
	out=$("$check" "$t" "$oracle" 2>&1) || fail "$rel: model: $out"
	"$TTV" --info "$t" > "$tmp/info.txt" 2>/dev/null
	grep -qx "version: 2" "$tmp/info.txt" ||
	    fail "$rel: --info does not say version: 2"
done
[ $n -ge 22 ] || fail "only $n CTF 2 traces with oracles found"
echo "decoding and model checked on $n CTF 2 traces"

# 3
nf=0
for t in "$c2"/fail/*/; do
	t=${t%/}
	name=fail/$(basename "$t")
	nf=$((nf + 1))
	"$TTV" --info "$t" > "$tmp/out.txt" 2> "$tmp/err.txt"
	rc=$?
	[ $rc -eq 1 ] || fail "$name: exit status $rc, expected 1"
	grep -q 'offset [0-9]*: CTF 2 metadata without a data-stream-class' \
	    "$tmp/err.txt" || fail "$name: $(head -2 "$tmp/err.txt")"
done
[ $nf -ge 2 ] || fail "only $nf refused CTF 2 traces found"

# 4: damaged copies of smalltrace's metadata, with its data stream
src="$c2/succeed/smalltrace"
refuse() {	# NAME WANT: the metadata in $tmp/bad/metadata is refused
	"$TTV" --info "$tmp/bad" > "$tmp/out.txt" 2> "$tmp/err.txt"
	rc=$?
	if [ $rc -ne 1 ]; then
		fail "$1: exit status $rc, expected 1"
	elif ! grep -q "metadata: offset [0-9]*: .*$2" "$tmp/err.txt"; then
		fail "$1: message is not \"offset N: ...$2\": $(head -2 "$tmp/err.txt")"
	fi
	grep -q 'line 1, column 1' "$tmp/err.txt" &&
	    fail "$1: read as TSDL: $(head -2 "$tmp/err.txt")"
}
mkdir "$tmp/bad"
cp "$src/dummystream" "$tmp/bad/"
meta=$(cat "$src/metadata")
size=$(wc -c < "$src/metadata")
# truncated inside the last fragment: invalid JSON, at its offset
head -c $((size - 40)) "$src/metadata" > "$tmp/bad/metadata"
refuse truncated "invalid JSON"
# a wrong type
printf '%s' "$meta" | sed 's/"length": 32,/"length": "32",/' \
    > "$tmp/bad/metadata"
refuse "string length" '`length` must be an integer, not a string'
# hostile sizes
printf '%s' "$meta" | sed 's/"length": 32,/"length": 4294967297,/' \
    > "$tmp/bad/metadata"
refuse "huge integer" "more than 64.*not supported"
printf '%s' "$meta" | sed 's/"alignment": 32,/"alignment": 4611686018427387904,/' \
    > "$tmp/bad/metadata"
refuse "huge alignment" '`alignment` is 4611686018427387904, out of'
printf '%s' "$meta" | sed 's/"alignment": 32,/"alignment": 24,/' \
    > "$tmp/bad/metadata"
refuse "odd alignment" '`alignment` 24 is not a power of two'
printf '%s' "$meta" | sed 's/"length": 16,/"length": 18446744073709551615,/' \
    > "$tmp/bad/metadata"
refuse "huge BLOB" '`length` is 18446744073709551615, out of'
# unsupported features say so
printf '%s' "$meta" | sed 's/"type": "null-terminated-string"/"type": "null-terminated-string", "encoding": "utf-16le"/' \
    > "$tmp/bad/metadata"
refuse "UTF-16" "CTF 2: utf-16le strings not supported"
printf '%s' "$meta" | sed 's/"version": 2/"version": 2, "extensions": {"example.org,2024": {"zip": true}}/' \
    > "$tmp/bad/metadata"
refuse "extension" "CTF 2: extension .zip. of namespace .example.org,2024. .*not supported"
printf '%s' "$meta" | sed 's/"version": 2/"version": 3/' > "$tmp/bad/metadata"
refuse "version 3" "CTF 2: preamble version other than 2 not supported"
# an unknown extension outside the preamble is ignored
printf '%s' "$meta" | sed 's/"type": "data-stream-class"/"type": "data-stream-class", "extensions": {"example.org,2024": {"zip": true}}/' \
    > "$tmp/bad/metadata"
"$dump" "$tmp/bad" > "$tmp/out.txt" 2> "$tmp/err.txt" &&
    cmp -s "$tmp/out.txt" "$bt/succeed/smalltrace.babeltrace2.txt" ||
    fail "an extension outside the preamble is not ignored: $(head -2 "$tmp/err.txt")"

if [ $fails -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "PASS"

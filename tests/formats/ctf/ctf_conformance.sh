#!/bin/sh
# Conformance of the CTF reader with babeltrace2 2.0.4's output for the
# traces of $TTV_SHARED/traces/ctf (babeltrace's own CTF test suite and
# real LTTng-UST traces):
#  1. decoding: ctf_text_dump prints every event in babeltrace2's text
#     layout; it must equal the oracle byte for byte (times, order, names,
#     every field value, enum labels, strings);
#  2. the model (load_trace, as the viewer gets it): ctf_model_check
#     compares its instants -- time, name and every arg -- with the oracle,
#     and for the cyg-profile trace the slices per thread and function
#     name with babeltrace2's debug-info output;
#  3. every trace of fail/ is refused with a "line L" or "offset N"
#     message and no crash; traces damaged after valid events keep them;
#  4. a metadata file given instead of its directory reads the same.
set -u
: "${TTV:?}" "${TTV_SHARED:?}" "${TTV_BUILDDIR:?}"
dir="$TTV_SHARED/traces/ctf"
if [ ! -d "$dir" ]; then
	echo "SKIP: ../shared not found"
	exit 77
fi
dump="$TTV_BUILDDIR/tests/tools/ctf_text_dump"
check="$TTV_BUILDDIR/tests/tools/ctf_model_check"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-ctf-conf.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# 1 and 2: every trace with an oracle that babeltrace2 reads
bt="$dir/babeltrace"
n=0
for t in "$bt"/succeed/*/ "$bt"/intersection/*/ "$bt"/packet-seq-num/*/ \
    "$bt"/deterministic-ordering/b-not-corrupted/ \
    "$dir"/lttng-ust-tracepoints/trace/ "$dir"/lttng-ust-tracepoints/trace-slow/ \
    "$dir"/lttng-ust-cyg-profile/trace/; do
	t=${t%/}
	name=${t#"$dir"/}
	[ -f "$t.babeltrace2.txt" ] || continue
	n=$((n + 1))
	"$dump" "$t" > "$tmp/out.txt" 2> "$tmp/err.txt"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$name: ctf_text_dump exit $rc: $(head -3 "$tmp/err.txt")"
	elif ! cmp -s "$tmp/out.txt" "$t.babeltrace2.txt"; then
		fail "$name: decoded events differ from babeltrace2's"
		diff "$tmp/out.txt" "$t.babeltrace2.txt" | head -6
	fi
	if [ "${name#lttng-ust-cyg-profile}" != "$name" ]; then
		out=$("$check" "$t" "$t.babeltrace2.txt" \
		    "$dir/lttng-ust-cyg-profile/sysroot" \
		    "$t.babeltrace2-debug-info.txt" 2>&1) ||
		    fail "$name: model: $out"
	else
		out=$("$check" "$t" "$t.babeltrace2.txt" 2>&1) ||
		    fail "$name: model: $out"
	fi
done
[ $n -ge 40 ] || fail "only $n traces with oracles found"
echo "decoding and model checked on $n traces"

# the cyg-profile trace's function names come from its binary
C="$dir/lttng-ust-cyg-profile"
"$TTV" --stats --sysroot "$C/sysroot" "$C/trace" > "$tmp/stats.txt" 2>&1 ||
    fail "cyg-profile --stats failed"
for f in main thread_main build parse render fib leaf; do
	grep -q " $f\$" "$tmp/stats.txt" || fail "cyg-profile: no function $f"
done

# 3: refused traces
for t in "$bt"/fail/*/; do
	t=${t%/}
	name=fail/$(basename "$t")
	"$TTV" --info "$t" > "$tmp/out.txt" 2> "$tmp/err.txt"
	rc=$?
	if [ $rc -eq 0 ] || [ $rc -ge 128 ]; then
		fail "$name: exit status $rc"
	elif ! grep -Eq '(line [0-9]+|offset [0-9]+)' "$tmp/err.txt"; then
		fail "$name: message without a position: $(head -2 "$tmp/err.txt")"
	fi
done
# damage after valid events: the events before it are kept, as
# babeltrace2 prints them before failing
for t in "$bt"/fail/valid-events-then-invalid-events \
    "$bt"/deterministic-ordering/a-corrupted \
    "$bt"/deterministic-ordering/c-corrupted; do
	name=${t#"$bt"/}
	"$dump" "$t" > "$tmp/out.txt" 2> "$tmp/err.txt"
	rc=$?
	[ $rc -eq 1 ] || fail "$name: ctf_text_dump exit $rc, expected 1"
	cmp -s "$tmp/out.txt" "$t.babeltrace2.txt" ||
	    fail "$name: events before the damage differ from babeltrace2's"
	grep -q 'offset [0-9]*: unknown event id 255' "$tmp/err.txt" ||
	    fail "$name: $(cat "$tmp/err.txt")"
	want=$(wc -l < "$t.babeltrace2.txt")
	"$TTV" --info "$t" > "$tmp/info.txt" 2>/dev/null
	grep -q "^instants: $want\$" "$tmp/info.txt" ||
	    fail "$name: model does not keep the $want events before the damage"
done

# 4: the metadata file itself
t="$bt/succeed/smalltrace"
"$dump" "$t/metadata" > "$tmp/out.txt" 2>&1 && cmp -s "$tmp/out.txt" \
    "$t.babeltrace2.txt" || fail "metadata file path: differs"

if [ $fails -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "PASS"

#!/bin/sh
# The README quick start's demo trace, end to end: ttv
# finds demo/demo from the log's name (beside the log, then in the current
# directory) and shows the demo's own function names, with the call counts
# that demo.c makes (18 tiles of 16 rows, 3 workers, 3 noisy tiles).
set -u

: "${TTV:?}" "${TTV_SRCDIR:?}"
log=$TTV_SRCDIR/demo/xray-log.demo.sample
tmp=$(mktemp -d "${TMPDIR:-/tmp}/instrmap-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0

# count NAME FILE: the count column of NAME in --stats --tsv output
count() {
	awk -F '\t' -v n="$1" '$1 == n { print $2 }' "$2"
}

# From another directory: the binary is found beside the log.
if ! (cd "$tmp" && "$TTV" --stats --tsv "$log") > "$tmp/stats" 2> "$tmp/err"; then
	echo "FAIL: ttv --stats on the demo:"; cat "$tmp/err"; exit 1
fi
for want in run_pipeline:1 worker:3 take_tile:21 process_tile:18 \
    fill_row:288 blur_row:336 denoise:3 quantize:18 checksum:18 \
    report_tile:18; do
	name=${want%%:*} n=${want#*:}
	got=$(count "$name" "$tmp/stats")
	if [ "$got" != "$n" ]; then
		echo "FAIL: $name: $n calls expected, got '${got}'"
		fail=1
	fi
done
# quadtree recursion: at least one call per tile, names everywhere
q=$(count quadtree "$tmp/stats")
if [ -z "$q" ] || [ "$q" -lt 18 ]; then
	echo "FAIL: quadtree: ${q:-no} calls"; fail=1
fi
if grep -q '^#' "$tmp/stats"; then
	echo "FAIL: unnamed functions:"; grep '^#' "$tmp/stats"; fail=1
fi
if [ -s "$tmp/err" ]; then
	echo "FAIL: unexpected messages:"; cat "$tmp/err"; fail=1
fi

# The log alone, away from its binary: no names (and no wrong ones) ...
cp "$log" "$tmp/xray-log.demo.sample"
(cd "$tmp" && "$TTV" --stats --tsv xray-log.demo.sample) > "$tmp/alone" 2>/dev/null
if grep -q '^quadtree' "$tmp/alone"; then
	echo "FAIL: names without a binary to take them from"; fail=1
fi
# ... until the current directory holds the binary.
(cd "$TTV_SRCDIR/demo" && "$TTV" --stats --tsv "$tmp/xray-log.demo.sample") \
	> "$tmp/cwd" 2>/dev/null
if [ "$(count quadtree "$tmp/cwd")" != "$q" ]; then
	echo "FAIL: the binary in the current directory was not used"; fail=1
fi

[ $fail -eq 0 ] && echo "ok: demo trace: $(wc -l < "$tmp/stats") lines of named statistics"
exit $fail

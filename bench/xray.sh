#!/bin/sh
# Benchmark of the XRay reader: `ttv --stats` on
#  1. a ~1 GB FDR v5 log from the project's writer (tests/gen/xraygen -B),
#  2. the real multi-threaded log that ../shared/traces/xray/make-corpus.sh
#     big records (needs clang's XRay runtime and root; skipped otherwise),
#     with `llvm-xray account -k` on the same log in the same run.
# Prints records/s, wall time, peak RSS (and RSS / file size) of each, and
# the speed ratio against llvm-xray. Big files go to $XRAY_BENCH_DIR
# (default /tmp) and are deleted at the end.
#
#   TTV=./ttv XRAYGEN=./tests/gen/xraygen [XRAY_BENCH_BYTES=N] bench/xray.sh
#   (or: make bench-xray). LLVM_XRAY=none skips llvm-xray;
#   LLVM_XRAY_TIMEOUT (default 1800 s) stops it.
set -u
TTV=${TTV:-./ttv}
XRAYGEN=${XRAYGEN:-./tests/gen/xraygen}
here=$(cd "$(dirname "$0")" && pwd)
SHARED=${TTV_SHARED:-$here/../../shared}
BYTES=${XRAY_BENCH_BYTES:-1073741824}
LLVM_XRAY=${LLVM_XRAY:-$(command -v llvm-xray-14 || command -v llvm-xray || true)}
dir=$(mktemp -d "${XRAY_BENCH_DIR:-/tmp}/ttv-bench-xray.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM

if [ ! -x /usr/bin/time ]; then
	echo "bench/xray.sh: needs /usr/bin/time (Debian package time)" >&2
	exit 1
fi

# measure LABEL FILE RECORDS CMD...: one run under /usr/bin/time -v
measure() {
	label=$1 file=$2 records=$3
	shift 3
	# the command's own stderr goes to /dev/null: llvm-xray account -k
	# prints one message per skipped record (gigabytes on the real log)
	/usr/bin/time -v -o "$dir/time" "$@" >/dev/null 2>/dev/null
	if ! grep -q "Exit status: 0$" "$dir/time"; then
		echo "$label: failed ($(grep "Exit status" "$dir/time" ||
		    head -1 "$dir/time"))"
		return 1
	fi
	awk -v label="$label" -v records="$records" \
	    -v bytes="$(wc -c <"$file")" '
	/Elapsed \(wall clock\)/ {
		n = split($NF, p, ":"); wall = 0
		for (i = 1; i <= n; i++) wall = wall * 60 + p[i]
	}
	/Maximum resident set size/ { rss = $NF * 1024 }
	END {
		if (wall <= 0) wall = 0.01
		printf "%-28s %8.2f s %9.1f M records/s  peak RSS %7.0f MB (%.2f x file)\n",
		    label, wall, records / wall / 1e6, rss / 1048576, rss / bytes
		print wall > "'"$dir"'/wall"
	}' "$dir/time"
}

# function records in a log, from ttv's own counts
records_of() {
	"$TTV" --info "$1" 2>/dev/null | awk '/^  function-[a-z-]+: / { n += $2 }
	    END { print n + 0 }'
}

echo "== synthetic FDR v5 log, $BYTES bytes (tests/gen/xraygen -B)"
synth="$dir/synth.fdr"
nrec=$("$XRAYGEN" -B "$BYTES" "$synth") || exit 1
echo "$(wc -c <"$synth") bytes, $nrec function records"
# Written just now: let the writeback finish and the page cache warm up
# first, then measure three runs (machines here are shared and noisy).
sync
"$TTV" --stats "$synth" >/dev/null 2>&1
for run in 1 2 3; do
	measure "ttv --stats (synthetic) #$run" "$synth" "$nrec" "$TTV" --stats "$synth"
done
# The model's budget is 24 bytes of peak RSS per slice, file pages included.
nslices=$("$TTV" --info "$synth" 2>/dev/null | awk '/^slices: / { print $2 }')
awk -v rss="$(awk '/Maximum resident set size/ { print $NF * 1024 }' "$dir/time")" \
    -v n="$nslices" 'BEGIN { if (n > 0) printf "%d slices: peak RSS %.1f bytes per slice\n", n, rss / n }'
rm -f "$synth"

echo
echo "== real log: make-corpus.sh big"
real="$dir/xray-big.fdr"
if ! sh "$SHARED/traces/xray/make-corpus.sh" big 4 1100000 "$real" \
    >"$dir/corpus.log" 2>&1 || [ ! -s "$real" ]; then
	echo "SKIP: could not record the real log (needs clang 14 with XRay, root):"
	tail -3 "$dir/corpus.log"
	exit 0
fi
nrec=$(records_of "$real")
echo "$(wc -c <"$real") bytes, $nrec function records"
measure "ttv --stats (real)" "$real" "$nrec" "$TTV" --stats \
    --instr-map "$real.bin" "$real" || exit 1
ttv_wall=$(cat "$dir/wall")
if [ "$LLVM_XRAY" = none ]; then
	echo "SKIP: llvm-xray (LLVM_XRAY=none)"
elif [ -n "$LLVM_XRAY" ]; then
	# llvm-xray can take very long here (it prints every record it
	# skips, with the thread's stack): stop it after LLVM_XRAY_TIMEOUT s
	limit=${LLVM_XRAY_TIMEOUT:-1800}
	to=""
	command -v timeout >/dev/null 2>&1 && to="timeout $limit"
	if measure "llvm-xray account -k (real)" "$real" "$nrec" $to \
	    "$LLVM_XRAY" account -k -instr_map="$real.bin" "$real"; then
		awk -v a="$(cat "$dir/wall")" -v b="$ttv_wall" \
		    'BEGIN { printf "ttv is %.1f x faster than llvm-xray account -k\n", a / b }'
	elif grep -q "Exit status: 124$" "$dir/time"; then
		awk -v a="$limit" -v b="$ttv_wall" '
		/Maximum resident set size/ { rss = $NF / 1024 }
		END { printf "llvm-xray account -k did not finish in %d s ' \
		    '(peak RSS %.0f MB so far): ttv is more than %.0f x ' \
		    'faster\n", a, rss, a / b }' "$dir/time"
	fi
else
	echo "SKIP: llvm-xray not found"
fi

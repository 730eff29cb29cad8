#!/bin/sh
# Benchmark of the viewer through a pseudo-terminal (tests/ui/ui_screen, the
# libvterm driver of the screen tests) on a big synthetic XRay FDR log from
# tests/gen/xraygen: per key, the redraw latency from sending the key to
# the end of its frame (median, p99, max) and the bytes written to the
# terminal (median, max), at 200x50. The budget: no redraw above
# 50 ms, a cursor move under 1 KB, a pan or zoom no more than one repaint
# of the timeline (~13 KB).
#
#   TTV=./ttv XRAYGEN=./tests/gen/xraygen UI_SCREEN=./tests/ui/ui_screen \
#       [UI_BENCH_BYTES=N] bench/ui.sh
set -u
TTV=${TTV:-./ttv}
XRAYGEN=${XRAYGEN:-./tests/gen/xraygen}
UI_SCREEN=${UI_SCREEN:-./tests/ui/ui_screen}
BYTES=${UI_BENCH_BYTES:-1073741824}
for x in "$TTV" "$XRAYGEN" "$UI_SCREEN"; do
	if [ ! -x "$x" ]; then
		echo "bench/ui.sh: $x not built (make check builds it)" >&2
		exit 1
	fi
done
dir=$(mktemp -d "${UI_BENCH_DIR:-/tmp}/ttv-bench-ui.XXXXXX") || exit 1
# The viewer starts with no saved state of an earlier run.
XDG_STATE_HOME="$dir/state"; export XDG_STATE_HOME
trap 'rm -rf "$dir"' EXIT INT TERM
TTV=$(cd "$(dirname "$TTV")" && pwd)/$(basename "$TTV")
UI_SCREEN=$(cd "$(dirname "$UI_SCREEN")" && pwd)/$(basename "$UI_SCREEN")
export TTV

echo "== synthetic FDR v5 log, $BYTES bytes (tests/gen/xraygen -B)"
"$XRAYGEN" -B "$BYTES" "$dir/big.fdr" >/dev/null || exit 1
"$TTV" --info "$dir/big.fdr" | grep -E '^(slices|threads|time range):'

cat >"$dir/bench.scr" <<SCR
size 200 50
start big.fdr
wait [Timeline]
# cursor moves: next/previous slice, callee/caller
bench 200 l h
bench 50 j k
# pan and zoom of the whole 1 GB window, then zoomed in
bench 40 L H
bench 15 + -
bench 10 0
# a full repaint (Ctrl-L), the yardstick for pan and zoom
bench 5 <C-l>
key + + + + + + + + + +
bench 40 L H
bench 10 z 0
key + + + + + + + + + +
bench 5 <C-l>
key 0
# the investigation panes on the whole trace: keys answered while their
# queries run on the worker, then on their results
key 9
bench 40 j k
wait calls     total
bench 40 j k
key 1
key #
bench 40 j k
wait duration      self
bench 40 j k
key v
bench 20 j k
wait callers above
bench 20 j k
quit
SCR
cd "$dir" || exit 1
start=$(date +%s.%N)
UI_TIMEOUT_MS=600000 "$UI_SCREEN" bench.scr || exit 1
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { printf "whole run (load included): %.1f s\n", e - s }'

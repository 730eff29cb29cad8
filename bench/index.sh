#!/bin/sh
# Benchmark of the persistent index (doc/index-format.md): on a ~500 MB
# real clang XRay FDR log and a CTF trace of about the same size, in the
# same run, warm page cache:
#  - `ttv --no-index --stats` against the first open that writes the index
#    (target: at most 1.3 x) and the reopen (target: at least 10 x faster),
#    the index's size against the model's (target: at most 1.1 x), the
#    viewer's first screen on reopen through a pty (target: < 0.1 s), and
#    that the three give the same statistics;
#  - in a memory cgroup (v1 or v2, no swap; needs root) limited to a
#    quarter and then an eighth of the trace: the first open completes
#    with the same statistics, its peak memory and wall time, the reopen,
#    and the viewer's first screen and pan/zoom key latencies (target:
#    p99 < 50 ms).
# Wall times are medians of INDEX_BENCH_RUNS runs (default 3), each
# configuration alternated with the others.
#
#   cd build && TTV=./ttv XRAYGEN=./tests/gen/xraygen \
#       CTFGEN=./tests/gen/ctfgen UI_SCREEN=./tests/ui/ui_screen \
#       sh ../bench/index.sh
# The XRay log is INDEX_BENCH_XRAY (with INDEX_BENCH_XRAY_MAP, its
# binary), else made by ../shared/traces/xray/make-corpus.sh big (clang's
# XRay runtime, root), else by xraygen -B (synthetic); the CTF trace is
# INDEX_BENCH_CTF, else made by ctfgen. Made traces are deleted at the
# end.
set -u
TTV=${TTV:-./ttv}
XRAYGEN=${XRAYGEN:-./tests/gen/xraygen}
CTFGEN=${CTFGEN:-./tests/gen/ctfgen}
UI_SCREEN=${UI_SCREEN:-./tests/ui/ui_screen}
RUNS=${INDEX_BENCH_RUNS:-3}
here=$(cd "$(dirname "$0")" && pwd)
SHARED=${TTV_SHARED:-$here/../../shared}
for x in "$TTV" "$XRAYGEN" "$CTFGEN" "$UI_SCREEN" /usr/bin/time; do
	if [ ! -x "$x" ]; then
		echo "bench/index.sh: $x not found (make check builds the" \
		    "writers and tests/ui/ui_screen)" >&2
		exit 1
	fi
done
TTV=$(cd "$(dirname "$TTV")" && pwd)/$(basename "$TTV")
UI_SCREEN=$(cd "$(dirname "$UI_SCREEN")" && pwd)/$(basename "$UI_SCREEN")
dir=$(mktemp -d "${INDEX_BENCH_DIR:-/tmp}/ttv-bench-index.XXXXXX") || exit 1
cg=""
cleanup() {
	if [ -n "$cg" ] && [ -d "$cg" ]; then
		rmdir "$cg" 2>/dev/null
	fi
	rm -rf "$dir"
}
trap cleanup EXIT INT TERM
XDG_CACHE_HOME=$dir/cache
XDG_STATE_HOME=$dir/state
export XDG_CACHE_HOME XDG_STATE_HOME
unset TTV_NO_INDEX TTV_CACHE_MAX

# ------------------------------------------------------------ the traces

xray=${INDEX_BENCH_XRAY:-}
xmap=${INDEX_BENCH_XRAY_MAP:-}
if [ -z "$xray" ]; then
	if [ "$(id -u)" = 0 ] && [ -x "$SHARED/traces/xray/make-corpus.sh" ] &&
	    sh "$SHARED/traces/xray/make-corpus.sh" big 4 1100000 \
	    "$dir/xray.fdr" >/dev/null 2>&1; then
		xray=$dir/xray.fdr
		xmap=$dir/xray.fdr.bin
		echo "XRay: a real FDR log of clang's runtime (make-corpus.sh big)"
	else
		"$XRAYGEN" -B 500000000 "$dir/xray.fdr" >/dev/null || exit 1
		xray=$dir/xray.fdr
		echo "XRay: a synthetic FDR log (xraygen -B; no clang XRay here)"
	fi
fi
ctf=${INDEX_BENCH_CTF:-}
if [ -z "$ctf" ]; then
	"$CTFGEN" -n 14000000 -t 8 -S 0 -P 1048576 -s 3 -T 2000 \
	    "$dir/ctf" >/dev/null || exit 1
	ctf=$dir/ctf
fi

# ------------------------------------------------------------ helpers

# run OUT CMD...: one run under /usr/bin/time; "wall rss user sys" in
# $dir/m
run() {
	out=$1
	shift
	/usr/bin/time -f "%e %M %U %S" -o "$dir/m" "$@" >"$out" 2>"$dir/err"
}
# cpu: user + sys of the last run
cpu() { awk '{ print $3 + $4 }' "$dir/m"; }
median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
bytes_of() { cat "$@" 2>/dev/null | wc -c; }

# The viewer through a pty (scripts of tests/ui/ui_screen, made for each
# trace): start, first frame, quit; then pan and zoom keys timed.
scripts() {
	printf 'size 200 50\nstart %s\nwait [Timeline]\nquit\n' "$*" \
	    >"$dir/first.scr"
	printf 'size 200 50\nstart %s\nwait [Timeline]\n%s\nquit\n' "$*" \
	    "bench 40 L H
bench 15 + -
bench 10 0
key + + + + + + + + + +
bench 40 L H
bench 10 z 0" >"$dir/keys.scr"
}
first_screen() {
	s=$(date +%s.%N)
	(cd "$dir" && UI_TIMEOUT_MS=600000 "$UI_SCREEN" first.scr \
	    >/dev/null 2>&1) || { echo fail; return; }
	e=$(date +%s.%N)
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f\n", e - s }'
}
# ------------------------------------------------------------ cgroups

# cgroup_make LIMIT: a memory cgroup of LIMIT bytes without swap, in
# $cg; its peak file in $cg_peak. Fails without root or a controller.
cgroup_make() {
	cg=""
	if [ -d /sys/fs/cgroup/memory ] &&
	    [ -w /sys/fs/cgroup/memory ]; then
		cg=/sys/fs/cgroup/memory/ttv-bench-index.$$
		mkdir -p "$cg" || return 1
		echo "$1" >"$cg/memory.limit_in_bytes" || return 1
		[ -f "$cg/memory.memsw.limit_in_bytes" ] &&
		    echo "$1" >"$cg/memory.memsw.limit_in_bytes"
		cg_peak=$cg/memory.max_usage_in_bytes
		cg_reset() { echo 0 >"$cg/memory.max_usage_in_bytes"; }
	elif grep -q memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
		cg=/sys/fs/cgroup/ttv-bench-index.$$
		mkdir -p "$cg" || return 1
		echo "$1" >"$cg/memory.max" || return 1
		echo 0 >"$cg/memory.swap.max" 2>/dev/null
		cg_peak=$cg/memory.peak
		cg_reset() { echo 0 >"$cg/memory.peak" 2>/dev/null; }
	else
		return 1
	fi
}
# in_cgroup CMD...: the command in the cgroup
in_cgroup() {
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg" "$@"
}
# run_cg OUT CMD...: run, in the cgroup
run_cg() {
	out=$1
	shift
	in_cgroup /usr/bin/time -f "%e %M %U %S" -o "$dir/m" "$@" >"$out" \
	    2>"$dir/err"
}

# ------------------------------------------------------------ one trace

bench_trace() {
	label=$1
	trace=$2
	shift 2
	bytes=$(bytes_of "$trace" "$trace"/* "$trace"/*/*)
	cat "$trace" "$trace"/* "$trace"/*/* >/dev/null 2>&1
	model=$("$TTV" --no-index --info "$@" "$trace" 2>/dev/null |
	    awk '/^model memory:/ { print $3 }')
	echo "== $label: $trace, $bytes bytes, model $model bytes"
	: >"$dir/no"; : >"$dir/first"; : >"$dir/re"
	: >"$dir/noc"; : >"$dir/firstc"
	for _ in $(seq "$RUNS"); do
		run "$dir/no.out" "$TTV" --no-index --stats "$@" "$trace" &&
		    cut -d' ' -f1 "$dir/m" >>"$dir/no" && cpu >>"$dir/noc"
		rm -rf "$XDG_CACHE_HOME"
		run "$dir/first.out" "$TTV" --stats "$@" "$trace" &&
		    cut -d' ' -f1 "$dir/m" >>"$dir/first" &&
		    cpu >>"$dir/firstc"
		run "$dir/re.out" "$TTV" --stats "$@" "$trace" &&
		    cut -d' ' -f1 "$dir/m" >>"$dir/re"
		cmp -s "$dir/no.out" "$dir/first.out" &&
		    cmp -s "$dir/no.out" "$dir/re.out" ||
		    echo "  DIFFERENT --stats with the index"
	done
	no=$(median <"$dir/no")
	first=$(median <"$dir/first")
	re=$(median <"$dir/re")
	noc=$(median <"$dir/noc")
	firstc=$(median <"$dir/firstc")
	idx=$(ls "$XDG_CACHE_HOME"/ttv/*.ttvi 2>/dev/null | head -1)
	isize=$(bytes_of "$idx")
	scripts "$@" "$trace"
	: >"$dir/fs"
	for _ in $(seq "$RUNS"); do first_screen >>"$dir/fs"; done
	fs=$(median <"$dir/fs")
	(cd "$dir" && UI_TIMEOUT_MS=600000 "$UI_SCREEN" keys.scr 2>&1) |
	    grep latency >"$dir/keys"
	kp99=$(awk '{ for (i = 1; i < NF; i++) if ($i == "p99")
	    if ($(i + 1) > m) m = $(i + 1) } END { print m + 0 }' "$dir/keys")
	awk -v no="$no" -v first="$first" -v re="$re" -v isize="$isize" \
	    -v noc="$noc" -v firstc="$firstc" \
	    -v model="$model" -v fs="$fs" -v kp99="$kp99" 'BEGIN {
		if (re < 0.005) re = 0.005
		r1 = first / no
		r2 = no / re
		r3 = isize / model
		m1 = "NOT met"; if (r1 <= 1.3) m1 = "met"
		m2 = "NOT met"; if (r2 >= 10) m2 = "met"
		m3 = "NOT met"; if (r3 <= 1.1) m3 = "met"
		m4 = "NOT met"; if (fs < 0.1) m4 = "met"
		printf "  --stats wall, median: --no-index %.2f s, first open " \
		    "%.2f s (%.2f x; target <= 1.3 x: %s), reopen %.3f s " \
		    "(%.0f x faster; target >= 10 x: %s)\n", no, first, r1,
		    m1, re, r2, m2
		printf "  --stats CPU (user + sys), median: --no-index %.2f s, " \
		    "first open %.2f s (%.2f x)\n", noc, firstc, firstc / noc
		printf "  index %d bytes = %.3f x the model (target <= 1.1 x: " \
		    "%s)\n", isize, r3, m3
		printf "  viewer, first screen on reopen: %.3f s (target " \
		    "< 0.1 s: %s), pan/zoom p99 %.1f ms\n", fs, m4, kp99
	}'
	cp "$dir/no.out" "$dir/want"
	for part in 4 8; do
		limit=$((bytes / part))
		if ! cgroup_make "$limit"; then
			echo "  memory cgroup: not available (needs root)"
			return
		fi
		rm -rf "$XDG_CACHE_HOME"
		cg_reset
		run_cg "$dir/cg.out" "$TTV" --stats "$@" "$trace"
		wall=$(cut -d' ' -f1 "$dir/m")
		peak=$(cat "$cg_peak")
		same=same
		cmp -s "$dir/cg.out" "$dir/want" || same=DIFFERENT
		cg_reset
		run_cg "$dir/cg.out" "$TTV" --stats "$@" "$trace"
		rwall=$(cut -d' ' -f1 "$dir/m")
		cmp -s "$dir/cg.out" "$dir/want" || same=DIFFERENT
		cg_reset
		s=$(date +%s.%N)
		(cd "$dir" && in_cgroup env UI_TIMEOUT_MS=600000 \
		    "$UI_SCREEN" first.scr >/dev/null 2>&1)
		e=$(date +%s.%N)
		fsc=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }')
		(cd "$dir" && in_cgroup env UI_TIMEOUT_MS=600000 \
		    "$UI_SCREEN" keys.scr 2>&1) | grep latency >"$dir/keys"
		p99=$(awk '{ for (i = 1; i < NF; i++) if ($i == "p99")
		    if ($(i + 1) > m) m = $(i + 1) } END { print m + 0 }' \
		    "$dir/keys")
		vpeak=$(cat "$cg_peak")
		awk -v part="$part" -v limit="$limit" -v wall="$wall" \
		    -v peak="$peak" -v rwall="$rwall" -v same="$same" \
		    -v fs="$fsc" -v p99="$p99" -v vpeak="$vpeak" 'BEGIN {
			m = "NOT met"; if (p99 < 50) m = "met"
			printf "  cgroup of 1/%d of the trace (%.0f MB): first " \
			    "open %.2f s, peak %.0f MB, --stats %s; reopen " \
			    "%.3f s; viewer first screen %.3f s, pan/zoom p99 " \
			    "%.1f ms (target < 50 ms: %s), peak %.0f MB\n", part,
			    limit / 1048576, wall, peak / 1048576, same, rwall,
			    fs, p99, m, vpeak / 1048576
		}'
		sed 's/^/    /' "$dir/keys"
		rmdir "$cg" 2>/dev/null
		cg=""
	done
}

if [ -n "$xmap" ]; then
	bench_trace "XRay FDR" "$xray" --instr-map "$xmap"
else
	bench_trace "XRay FDR" "$xray"
fi
bench_trace "CTF" "$ctf"

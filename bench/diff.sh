#!/bin/sh
# Benchmark of `ttv --diff` on two ~500 MB XRay FDR logs from the
# project's writer: a base run (tests/gen/xraygen -B) and a changed one
# (-X: one function's exits twice as long, one function renamed). Times
# the flat diff and the diff by path against the two loads alone (`ttv
# --info` of each, one after the other), the median of 3 runs of each,
# alternated; target: at most the two loads + 10 % (in wall time; the
# CPU time, user + sys, is given beside it: the diff loads both traces
# at once, and its statistics cost CPU the loads do not). Then the same two
# diffs from the traces' persistent indexes (built once, in a cache of
# the benchmark's own); targets: flat under 0.2 s, by path under 1 s.
# Prints wall time, CPU time and peak RSS. The logs go to $DIFF_BENCH_DIR (default /tmp)
# and are deleted at the end.
#
#   TTV=./ttv XRAYGEN=./tests/gen/xraygen [DIFF_BENCH_BYTES=N] bench/diff.sh
#   (or: make bench-diff)
set -u
TTV=${TTV:-./ttv}
XRAYGEN=${XRAYGEN:-./tests/gen/xraygen}
BYTES=${DIFF_BENCH_BYTES:-500000000}
RUNS=${DIFF_BENCH_RUNS:-3}
dir=$(mktemp -d "${DIFF_BENCH_DIR:-/tmp}/ttv-bench-diff.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM
# the indexes in a cache of the benchmark's own, deleted with the logs
XDG_CACHE_HOME=$dir/cache
export XDG_CACHE_HOME

if [ ! -x /usr/bin/time ]; then
	echo "bench/diff.sh: needs /usr/bin/time (Debian package time)" >&2
	exit 1
fi

# run NAME CMD...: one run under /usr/bin/time; appends "wall cpu rss_mb"
# to $dir/NAME
run() {
	name=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$@" >/dev/null \
	    2>"$dir/stderr"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "$name: exit $rc: $(head -2 "$dir/stderr")"
		exit 1
	fi
	awk '{ printf "%s %.2f %.0f\n", $1, $2 + $3, $4 / 1024 }' \
	    "$dir/time" >>"$dir/$name"
}

# median NAME FIELD: the median of a column of $dir/NAME
median() {
	sort -n -k"$2","$2" "$dir/$1" | awk -v f="$2" '{ v[NR] = $f }
	    END { print v[int((NR + 1) / 2)] }'
}

echo "== two synthetic FDR v5 logs of $BYTES bytes (tests/gen/xraygen -B, -X -B)"
"$XRAYGEN" -B "$BYTES" "$dir/base.xray" >/dev/null &&
"$XRAYGEN" -X -B "$BYTES" "$dir/new.xray" >/dev/null || exit 1
for f in base new; do
	printf '%s: %s bytes, %s slices\n' "$f.xray" \
	    "$(wc -c <"$dir/$f.xray")" "$("$TTV" --info "$dir/$f.xray" |
	    awk '/^slices: / { print $2 }')"
done
# Written just now: let the writeback finish and the page cache warm up.
sync
"$TTV" --no-index --diff "$dir/base.xray" "$dir/new.xray" >/dev/null 2>&1
"$TTV" --index --info "$dir/base.xray" >/dev/null &&
    "$TTV" --index --info "$dir/new.xray" >/dev/null || exit 1

i=0
while [ $i -lt "$RUNS" ]; do
	run info_base "$TTV" --no-index --info "$dir/base.xray"
	run info_new "$TTV" --no-index --info "$dir/new.xray"
	run diff "$TTV" --no-index --diff "$dir/base.xray" "$dir/new.xray"
	run path "$TTV" --no-index --diff "$dir/base.xray" --by path \
	    "$dir/new.xray"
	run idiff "$TTV" --diff "$dir/base.xray" "$dir/new.xray"
	run ipath "$TTV" --diff "$dir/base.xray" --by path "$dir/new.xray"
	i=$((i + 1))
done

loads=$(awk -v a="$(median info_base 1)" -v b="$(median info_new 1)" \
    'BEGIN { printf "%.2f", a + b }')
loads_cpu=$(awk -v a="$(median info_base 2)" -v b="$(median info_new 2)" \
    'BEGIN { printf "%.2f", a + b }')
for name in info_base info_new; do
	printf '%-26s %6s s wall %6s s CPU  peak RSS %5s MB\n' \
	    "--info ${name#info_}" "$(median $name 1)" "$(median $name 2)" \
	    "$(median $name 3)"
done
printf '%-26s %6s s wall %6s s CPU\n' "the two loads" "$loads" "$loads_cpu"
for name in diff path; do
	label="--diff"
	[ "$name" = path ] && label="--diff --by path"
	printf '%-26s %6s s wall %6s s CPU  peak RSS %5s MB  %s x the loads (CPU: %s x)' \
	    "$label" "$(median $name 1)" "$(median $name 2)" \
	    "$(median $name 3)" "$(awk -v d="$(median $name 1)" \
	    -v l="$loads" 'BEGIN { printf "%.2f", d / l }')" \
	    "$(awk -v d="$(median $name 2)" -v l="$loads_cpu" \
	    'BEGIN { printf "%.2f", d / l }')"
	awk -v d="$(median $name 1)" -v l="$loads" 'BEGIN {
	    if (d <= 1.10 * l) print " (target <= 1.10: met)"
	    else print " (target <= 1.10: not met)" }'
done
for name in idiff ipath; do
	label="--diff, indexed"
	goal=0.2
	[ "$name" = ipath ] && label="--diff --by path, indexed" goal=1
	printf '%-26s %6s s wall %6s s CPU  peak RSS %5s MB' "$label" \
	    "$(median $name 1)" "$(median $name 2)" "$(median $name 3)"
	awk -v d="$(median $name 1)" -v g="$goal" 'BEGIN {
	    printf " (target < %s s: %s)\n", g, d < g ? "met" : "not met" }'
done
echo "median of $RUNS runs each, alternated; every run (wall s, CPU s, RSS MB):"
for name in info_base info_new diff path idiff ipath; do
	printf '  %-10s %s\n' "$name" "$(tr '\n' ';' <"$dir/$name")"
done

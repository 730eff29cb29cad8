#!/bin/sh
# Outputs with and without the index are the same, byte for byte: for
# every trace of $TTV_SHARED/traces and tests/data (the list of
# tests/tools/outputs.sh), every batch mode is run with --no-index, then
# with the index it built (--index, forced on small traces) and reused;
# --info is compared without its "index:" line, which says which.
# --stats checks the index's large arrays on first touch, the others at
# open: both roads are taken. Every other trace is built straight into its
# index (TTV_INDEX_STORE, as when memory is short), the others in memory
# and written at the end.
# By default a fixed sample of about 40 traces is compared, every format
# and every folder of the corpus among them (the list in its order, at a
# stride); TTV_FULL_SWEEP=1 compares every trace. A CoreProfiler log cut
# before its threads ended (the project's writer) is always among them:
# the index counts its calls that never returned apart, as the count rule
# says (--stats' "+N unfinished", --info's functions).
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
shared=${TTV_SHARED:-$TTV_SRCDIR/../shared}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

. "$TTV_SRCDIR/tests/lib/traces.sh"
list() { trace_list "$shared/traces" "$TTV_SRCDIR/tests/data"; }

# run DIR TRACE INDEXOPT: every mode's stdout and exit status into DIR
run() {
	d=$1 t=$2 opt=$3
	mkdir -p "$d"
	fn=$(cat "$tmp/fn")
	i=0
	for mode in "--info" "--stats --tsv" "--stats" \
	    "--stats --sort name --range +0ns.." \
	    "--markers --tsv" "--search e --tsv" "--calls . --tsv" \
	    "--callers $fn --tsv" "--callees $fn --tsv" "--tree --tsv" \
	    "--query SELECT_name,COUNT(*),SUM(dur)_FROM_slice_GROUP_BY_name" \
	    "--export chrome-json" "--export collapsed"; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		set -- $mode
		case $1 in
		--query) set -- --query "$(echo "$2" | tr _ ' ')" --tsv ;;
		esac
		"$TTV" "$opt" "$@" "$t" 2>"$d/$i.err" |
		    grep -v '^index: ' >"$d/$i.out"
		echo "exit $?" >>"$d/$i.out"
		grep -v 'index' "$d/$i.err" >>"$d/$i.out"
	done
}

n=0
list >"$tmp/list"
total=$(wc -l <"$tmp/list")
stride=1
[ "${TTV_FULL_SWEEP:-0}" != 0 ] || stride=$(((total + 39) / 40))
# the first of each format's folder, then the stride
awk -v s="$stride" '{
	k = $0
	if (match(k, /\/(traces|tests\/data)\/[^\/]+/))
		k = substr(k, 1, RSTART + RLENGTH)
	if ((NR - 1) % s == 0 || !(k in seen)) print
	seen[k] = 1
}' "$tmp/list" >"$tmp/sample"
"$TTV_BUILDDIR/tests/gen/cpgen" --seed 3 --lines 4000 \
    --mode instrumentation --summary none --out "$tmp/full.tracelog" ||
    exit 1
head -n 2500 "$tmp/full.tracelog" >"$tmp/cut.tracelog"
echo "$tmp/cut.tracelog" >>"$tmp/sample"
while read -r t; do
	n=$((n + 1))
	# a function of the trace, for --callers and --callees
	"$TTV" --no-index --stats --tsv "$t" 2>/dev/null |
	    awk -F'\t' 'NR == 2 { print $1 }' | grep -E '^[A-Za-z_][A-Za-z0-9_]*$' \
	    >"$tmp/fn" || echo main >"$tmp/fn"
	# What cannot be read (the corpus's other files) fails the same way
	# with an index asked for; what can is indexed, then reused.
	if [ $((n % 2)) = 0 ]; then
		TTV_INDEX_STORE=1 "$TTV" --index --info "$t" >"$tmp/built" \
		    2>"$tmp/built.err"
	else
		"$TTV" --index --info "$t" >"$tmp/built" 2>"$tmp/built.err"
	fi
	rc=$?
	if ! grep -q '^format: ' "$tmp/built"; then
		"$TTV" --no-index --info "$t" >"$tmp/plain" 2>"$tmp/plain.err"
		[ $? = "$rc" ] && cmp -s "$tmp/built.err" "$tmp/plain.err" ||
		    fail "$t: unreadable, but not the same way with --index"
		continue
	fi
	grep -q '^index: built' "$tmp/built" ||
	    fail "$t: no index built: $(grep '^index' "$tmp/built")"
	run "$tmp/no" "$t" --no-index
	run "$tmp/yes" "$t" --index
	"$TTV" --index --info "$t" 2>/dev/null | grep -q '^index: used' ||
	    fail "$t: the index is not used on reopen: $("$TTV" --index \
	    --info "$t" 2>&1 | grep '^index')"
	for f in "$tmp/no"/*.out; do
		b=$(basename "$f")
		cmp -s "$f" "$tmp/yes/$b" ||
		    fail "$t: mode $b differs: $(diff "$f" "$tmp/yes/$b" | head -5)"
	done
	rm -rf "$tmp/no" "$tmp/yes"
done <"$tmp/sample"
[ "$n" -gt 0 ] || fail "no traces found"
echo "$n traces of $total compared"
exit $((fails > 0))

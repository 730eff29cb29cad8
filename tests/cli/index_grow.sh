#!/bin/sh
# An index whose trace was only appended to is extended, not rebuilt
# (doc/index-format.md, "Ready to grow"): a CoreProfiler log, an XRay
# basic-mode log, an FXT file and a CTF directory are indexed at a
# record's end, appended to twice
# while ttv is not running, and opened again. Each time the index is
# said to be extended, with one line on stderr, and every answer equals
# --no-index's on the trace as it is then; opened once more, the index is
# used, and --follow starts from its state. A trace changed otherwise is
# rebuilt; a trace whose end is not a whole record keeps no state and is
# rebuilt once it grows. The traces
# come from the project's writers (cpgen, xraygen, fxtgen, ctfgen).
set -u
: "${TTV:?}" "${TTV_BUILDDIR:?}"
gen=$TTV_BUILDDIR/tests/gen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
unset TTV_CACHE_MAX
cache=$XDG_CACHE_HOME/ttv
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# answers TRACE [OPTION...]: what ttv says of it in every batch mode
answers() {
	t=$1
	shift
	"$TTV" "$@" --info "$t" 2>/dev/null | grep -v '^index:'
	for mode in --stats --tree --markers "--search ." "--calls ."; do
		# shellcheck disable=SC2086
		"$TTV" "$@" $mode --tsv "$t" 2>/dev/null
	done
	"$TTV" "$@" --tsv --query "SELECT count(*), sum(dur), max(depth), \
	    count(DISTINCT name) FROM slice" "$t" 2>/dev/null
	"$TTV" "$@" --tsv --query "SELECT count(*) FROM instant" "$t" \
	    2>/dev/null
}

# opened NAME TRACE STATE: opens TRACE with --index; its --info must say
# the index was STATE (built, extended, used, rebuilt), stderr must say
# so in one line when extended or rebuilt (nothing of the index
# otherwise), and every answer must be --no-index's.
opened() {
	line=$("$TTV" --index --info "$2" 2>"$tmp/err" | grep '^index:')
	case "$line" in
	"index: $3 "*) ;;
	*) fail "$1: not $3: $line" ;;
	esac
	case "$3" in
	extended)
		echo "$line" | grep -q ': the trace grew' ||
		    fail "$1: no reason: $line"
		grep -q "index extended: the trace grew" "$tmp/err" ||
		    fail "$1: not said: $(cat "$tmp/err")" ;;
	rebuilt)
		grep -q "index rebuilt: " "$tmp/err" ||
		    fail "$1: not said: $(cat "$tmp/err")" ;;
	*)
		grep -q "index" "$tmp/err" && fail "$1: said $(cat "$tmp/err")" ;;
	esac
	[ "$(grep -c index "$tmp/err")" -le 1 ] || fail "$1: $(cat "$tmp/err")"
	answers "$2" --no-index >"$tmp/want"
	answers "$2" --index >"$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" ||
	    fail "$1: answers differ: $(diff "$tmp/want" "$tmp/got" | head -n 4)"
}

# follow_rows TRACE OPTION: the rows `ttv --follow` prints of TRACE (as
# it is: the first read's), once none came for half a second; its
# stderr into $tmp/fol.err.
follow_rows() {
	"$TTV" "$2" --follow --search . --tsv "$1" >"$tmp/fol.out" \
	    2>"$tmp/fol.err" &
	pid=$! n=-1 i=0
	while [ $i -lt 120 ]; do
		sleep 0.5
		m=$(wc -l <"$tmp/fol.out")
		[ "$m" -gt 0 ] && [ "$m" = "$n" ] && break
		n=$m i=$((i + 1))
	done
	kill -INT "$pid"
	wait "$pid"
	cat "$tmp/fol.out"
}

# follows NAME TRACE: --follow on TRACE, whose index keeps the state of
# a read of its first part, starts from that state (one line on stderr
# says so) and prints the rows --no-index's --follow prints.
follows() {
	follow_rows "$2" --no-index >"$tmp/fol.want"
	follow_rows "$2" --index >"$tmp/fol.got"
	grep -q ": index: read on from the state kept in $cache/" \
	    "$tmp/fol.err" || fail "$1: --follow not from the index's state:" \
	    "$(cat "$tmp/fol.err")"
	[ -s "$tmp/fol.want" ] || fail "$1: --follow printed nothing"
	cmp -s "$tmp/fol.want" "$tmp/fol.got" || fail "$1: --follow rows" \
	    "differ: $(diff "$tmp/fol.want" "$tmp/fol.got" | head -n 4)"
}

# grows NAME TRACE APPEND1 APPEND2: TRACE indexed, then APPEND1 and
# APPEND2 (commands that append to it) run between opens; --follow
# starts from the index's state once.
grows() {
	opened "$1 first" "$2" built
	eval "$3"
	follows "$1 followed" "$2"
	opened "$1 grown once" "$2" extended
	opened "$1 reopened" "$2" used
	eval "$4"
	opened "$1 grown twice" "$2" extended
	opened "$1 reopened again" "$2" used
}

# CoreProfiler: whole lines.
"$gen/cpgen" --seed 5 --lines 6000 --threads 3 --mode instrumentation \
    --out "$tmp/cp.full" --summary none >/dev/null || fail "cpgen"
head -n 2000 "$tmp/cp.full" >"$tmp/cp.log"
grows coreprofiler "$tmp/cp.log" \
    'sed -n 2001,4500p "$tmp/cp.full" >>"$tmp/cp.log"' \
    'sed -n "4501,\$p" "$tmp/cp.full" >>"$tmp/cp.log"'
cmp -s "$tmp/cp.log" "$tmp/cp.full" || fail "coreprofiler: not the whole log"
# sampling mode: every record kind, markers
"$gen/cpgen" --seed 6 --lines 4000 --out "$tmp/cps.full" --summary none \
    >/dev/null || fail "cpgen"
head -n 1500 "$tmp/cps.full" >"$tmp/cps.log"
grows coreprofiler-sampling "$tmp/cps.log" \
    'sed -n 1501,3000p "$tmp/cps.full" >>"$tmp/cps.log"' \
    'sed -n "3001,\$p" "$tmp/cps.full" >>"$tmp/cps.log"'

# a line cut in two at the end: no state kept, rebuilt once it grows
head -c 30001 "$tmp/cp.full" >"$tmp/cut.log"
opened "coreprofiler cut" "$tmp/cut.log" built
tail -c +30002 "$tmp/cp.full" | head -c 20000 >>"$tmp/cut.log"
opened "coreprofiler cut, grown" "$tmp/cut.log" rebuilt
# changed, not only appended to (a digit of its tenth line, in place):
# rebuilt
at=$(awk 'NR < 10 { n += length($0) + 1 } NR == 10 {
	print n + match($0, /[0-9]/) - 1; exit }' "$tmp/cp.log")
d=$(dd if="$tmp/cp.log" bs=1 skip="$at" count=1 2>/dev/null)
printf '%s' $(( (d + 1) % 10 )) |
    dd of="$tmp/cp.log" bs=1 seek="$at" conv=notrunc 2>/dev/null
opened "coreprofiler changed" "$tmp/cp.log" rebuilt

# XRay basic mode: whole 32-byte records after the 32-byte header (the
# runtime appends each thread's buffer as it fills). An FDR log is
# written whole at flush: indexed, it keeps no state.
"$gen/xraygen" -v 3 basic "$tmp/x.full" >/dev/null || fail "xraygen"
xsize=$(wc -c <"$tmp/x.full")
xcut1=$(( 32 + (xsize - 32) / 32 / 3 * 32 ))
xcut2=$(( 32 + (xsize - 32) / 32 * 2 / 3 * 32 ))
head -c "$xcut1" "$tmp/x.full" >"$tmp/x.xray"
grows "xray basic" "$tmp/x.xray" \
    'tail -c +$((xcut1 + 1)) "$tmp/x.full" | head -c $((xcut2 - xcut1)) >>"$tmp/x.xray"' \
    'tail -c +$((xcut2 + 1)) "$tmp/x.full" >>"$tmp/x.xray"'
cmp -s "$tmp/x.xray" "$tmp/x.full" || fail "xray basic: not the whole log"
# a record cut in two at the end: no state kept, rebuilt once it grows
head -c $((xcut1 + 17)) "$tmp/x.full" >"$tmp/xc.xray"
opened "xray basic cut" "$tmp/xc.xray" built
tail -c +$((xcut1 + 18)) "$tmp/x.full" >>"$tmp/xc.xray"
opened "xray basic cut, grown" "$tmp/xc.xray" rebuilt

# FXT: whole records (a record's size is in its header's bits 4-15, in
# 8-byte words). cuts FILE: the ends of the records at a third and two
# thirds of them.
cuts() {
	python3 - "$1" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
offs, o = [], 0
while o + 8 <= len(d):
    words = (struct.unpack_from('<Q', d, o)[0] >> 4) & 0xfff
    if words == 0:
        break
    o += words * 8
    offs.append(o)
print(offs[len(offs) // 3], offs[2 * len(offs) // 3])
EOF
}
"$gen/fxtgen" -B 400000 "$tmp/b.full" >/dev/null || fail "fxtgen -B"
set -- $(cuts "$tmp/b.full")
cut1=$1 cut2=$2
head -c "$cut1" "$tmp/b.full" >"$tmp/b.fxt"
grows fxt "$tmp/b.fxt" \
    'tail -c +$((cut1 + 1)) "$tmp/b.full" | head -c $((cut2 - cut1)) >>"$tmp/b.fxt"' \
    'tail -c +$((cut2 + 1)) "$tmp/b.full" >>"$tmp/b.fxt"'
cmp -s "$tmp/b.fxt" "$tmp/b.full" || fail "fxt: not the whole file"
# a file read on two threads (from 32 MiB; lowered here: the scan in
# halves, the events replayed by a worker), in the first read and in
# those that go on
rm -rf "$cache"
head -c "$cut1" "$tmp/b.full" >"$tmp/b2.fxt"
export TTV_FXT_PIPE_MIN=4096
grows "fxt on two threads" "$tmp/b2.fxt" \
    'tail -c +$((cut1 + 1)) "$tmp/b.full" | head -c $((cut2 - cut1)) >>"$tmp/b2.fxt"' \
    'tail -c +$((cut2 + 1)) "$tmp/b.full" >>"$tmp/b2.fxt"'
cmp -s "$tmp/b2.fxt" "$tmp/b.full" || fail "fxt on two threads: not whole"
unset TTV_FXT_PIPE_MIN
# every record kind (fxtgen full): at two thirds it is extended; at a
# third, what follows changes how what was read reads: rebuilt
"$gen/fxtgen" full "$tmp/f.full" "$tmp/f.exp" >/dev/null || fail "fxtgen"
set -- $(cuts "$tmp/f.full")
head -c "$2" "$tmp/f.full" >"$tmp/f.fxt"
opened "fxt full, at two thirds" "$tmp/f.fxt" built
tail -c +$(($2 + 1)) "$tmp/f.full" >>"$tmp/f.fxt"
opened "fxt full, grown" "$tmp/f.fxt" extended
head -c "$1" "$tmp/f.full" >"$tmp/f1.fxt"
opened "fxt full, at a third" "$tmp/f1.fxt" built
tail -c +$(($1 + 1)) "$tmp/f.full" >>"$tmp/f1.fxt"
opened "fxt full, grown from a third" "$tmp/f1.fxt" rebuilt

# CTF: an LTTng-like directory of streams with their packet indexes,
# every stream written at once as a tracer's per-CPU buffers are: each
# step appends to every stream its next third of packets (ctfgen -L:
# stream, offset, length), each with its index entry.
"$gen/ctfgen" -i -n 3000 -t 4 -s 5 -L "$tmp/packets" "$tmp/ctf.full" \
    >/dev/null || fail "ctfgen"
# part K: the K-th third of each stream's packets appended to $tmp/ctf
part() {
	for f in "$tmp/ctf.full"/index/*.idx; do
		ch=$(basename "$f" .idx)
		np=$(grep -c "^$ch " "$tmp/packets")
		es=$(( ($(wc -c <"$f") - 16) / np ))
		from=$(( ($1 - 1) * np / 3 )) to=$(( $1 * np / 3 ))
		[ "$from" -lt "$to" ] || continue
		off=$(awk -v c="$ch" -v k="$from" '$1 == c && n++ == k {
			print $2 }' "$tmp/packets")
		end=$(awk -v c="$ch" -v k="$to" '$1 == c { n++; e = $2 + $3 }
			$1 == c && n == k { print e; exit }' "$tmp/packets")
		[ -e "$tmp/ctf/$ch" ] || head -c 16 "$f" >"$tmp/ctf/index/$ch.idx"
		tail -c +$((off + 1)) "$tmp/ctf.full/$ch" |
		    head -c $((end - off)) >>"$tmp/ctf/$ch"
		tail -c +$((16 + from * es + 1)) "$f" |
		    head -c $(( (to - from) * es )) >>"$tmp/ctf/index/$ch.idx"
	done
}
# ctf_grows NAME: the CTF directory indexed at its first third, then
# grown by the others.
ctf_grows() {
	rm -rf "$tmp/ctf" "$cache"
	mkdir -p "$tmp/ctf/index"
	cp "$tmp/ctf.full/metadata" "$tmp/ctf/metadata"
	part 1
	grows "$1" "$tmp/ctf" 'part 2' 'part 3'
	for f in "$tmp/ctf.full"/chan_* "$tmp/ctf.full"/index/*; do
		cmp -s "$f" "$tmp/ctf/${f#"$tmp/ctf.full/"}" ||
		    fail "$1: $f not whole"
	done
}
# A whole read in memory: its calls kept apart per stream, its walk
# stopped at the horizon, the state kept there; its streams decoded by
# worker threads (TTV_CTF_PIPE_MIN=0: as on a big trace) and in batches
# of a few events (TTV_CTF_BATCH), so that the stop finds batches
# decoded ahead and calls kept after it.
ctf_grows "ctf in memory"
TTV_CTF_PIPE_MIN=0 TTV_CTF_BATCH=7
export TTV_CTF_PIPE_MIN TTV_CTF_BATCH
ctf_grows "ctf on worker threads"
unset TTV_CTF_PIPE_MIN
TTV_CTF_BATCH=3
ctf_grows "ctf in small batches"
unset TTV_CTF_BATCH
# Where memory is short for the model (TTV_INDEX_STORE: as if it were),
# a read that goes on, its calls walked.
export TTV_INDEX_STORE=1
ctf_grows ctf
# a stream that starts late, its first packets earlier than what the
# others' read ones ended with: what was read changes, rebuilt
rm -rf "$tmp/ctf" "$cache"
mkdir -p "$tmp/ctf/index"
cp "$tmp/ctf.full/metadata" "$tmp/ctf/metadata"
first=$(head -n 1 "$tmp/packets" | cut -d' ' -f1)
cp "$tmp/ctf.full/$first" "$tmp/ctf/"
cp "$tmp/ctf.full/index/$first.idx" "$tmp/ctf/index/"
opened "ctf one stream" "$tmp/ctf" built
cp -r "$tmp/ctf.full"/* "$tmp/ctf/"
opened "ctf streams added" "$tmp/ctf" rebuilt
unset TTV_INDEX_STORE

[ "$fails" = 0 ] && echo "PASS: index_grow"
[ "$fails" = 0 ]

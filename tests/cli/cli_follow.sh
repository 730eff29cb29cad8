#!/bin/sh
# --follow on traces being written: each generator's trace is written in
# pieces cut anywhere (in a line, in a record, in a packet, in an index
# entry, in the metadata) while `ttv --follow` reads it. What it prints
# must be the rows of the finished trace whose calls are over, each once,
# and nothing is taken for damage. Nothing is timed: the test waits for
# the rows, with a generous limit, and stops ttv with SIGINT (130).
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
gen=$TTV_BUILDDIR/tests/gen
tmp=$(mktemp -d)
follower=""
stop_follower() {
	[ -n "$follower" ] && kill "$follower" 2>/dev/null && wait "$follower" 2>/dev/null
	follower=""
}
trap 'stop_follower; umount "$tmp/full" 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# feed SRC DST STEP: appends SRC to DST in pieces of about STEP bytes cut
# anywhere, with a pause between them so that the follower sees the cuts.
feed() {
	_size=$(wc -c <"$1"); _off=0; _k=0
	while [ "$_off" -lt "$_size" ]; do
		_n=$(( $3 + (_k * 7919) % ($3 / 2 + 1) ))
		tail -c +$((_off + 1)) "$1" | head -c "$_n" >>"$2"
		_off=$((_off + _n)); _k=$((_k + 1))
		sleep 0.05
	done
}

# feed_ctf SRC DST PACKETS: DST as LTTng writes it while it traces: an
# empty metadata file, the metadata in pieces, then each packet of
# PACKETS (ctfgen -L) in two pieces, and after them its index entry in two
# (a stream and its index appear with the stream's first packet).
feed_ctf() {
	mkdir -p "$2/index"
	: >"$2/metadata"
	sleep 0.2
	feed "$1/metadata" "$2/metadata" 700
	while read -r _ch _off _len _ev; do
		_idx=$1/index/$_ch.idx
		if [ ! -e "$2/$_ch" ]; then
			: >"$2/$_ch"
			head -c 16 "$_idx" >"$2/index/$_ch.idx"
		fi
		_h=$((_len / 3))
		tail -c +$((_off + 1)) "$1/$_ch" | head -c "$_h" >>"$2/$_ch"
		sleep 0.05
		tail -c +$((_off + _h + 1)) "$1/$_ch" |
		    head -c $((_len - _h)) >>"$2/$_ch"
		_np=$(grep -c "^$_ch " "$3")
		_es=$(( ($(wc -c <"$_idx") - 16) / _np ))
		_k=$(awk -v c="$_ch" -v o="$_off" '$1 == c && $2 < o' "$3" | wc -l)
		tail -c +$((16 + _k * _es + 1)) "$_idx" |
		    head -c $((_es / 2)) >>"$2/index/$_ch.idx"
		sleep 0.05
		tail -c +$((16 + _k * _es + _es / 2 + 1)) "$_idx" |
		    head -c $((_es - _es / 2)) >>"$2/index/$_ch.idx"
	done <"$3"
}

# start ARGS...: ttv --follow ARGS in the background, into $tmp/out and
# $tmp/err.
start() {
	"$TTV" --follow "$@" >"$tmp/out" 2>"$tmp/err" &
	follower=$!
}

# wait_rows N: until $tmp/out has N lines (a minute at most).
wait_rows() {
	_i=0
	while [ "$(wc -l <"$tmp/out")" -lt "$1" ] && [ $_i -lt 600 ]; do
		_i=$((_i + 1))
		sleep 0.1
	done
}

# finish NAME FINISHED ARGS...: waits for the rows of ttv ARGS on the
# finished trace FINISHED whose calls are over, stops the follower, and
# compares: the same rows (but the time column: its origin is the start
# of what was read; rows alike are counted), the header once, exit status
# 130, and
# nothing said on stderr but "waiting".
finish() {
	name=$1 fin=$2
	shift 2
	"$TTV" "$@" --tsv "$fin" >"$tmp/fin" 2>/dev/null
	# calls still open at the end of the finished trace (unterminated)
	# are not whole
	open=$("$TTV" --query "SELECT count(*) FROM slice WHERE (flags & 1) = 1" \
	    --tsv "$fin" | tail -n 1)
	case "$*" in *--markers*) open=0 ;; esac
	want=$(( $(wc -l <"$tmp/fin") - open ))
	wait_rows "$want"
	sleep 0.3	# (a row too many would come now; not needed to pass)
	kill -INT "$follower"
	wait "$follower"
	rc=$?
	follower=""
	[ $rc -eq 130 ] || fail "$name: exit $rc after SIGINT, want 130"
	cut -f 2- "$tmp/out" | sort >"$tmp/a"
	cut -f 2- "$tmp/fin" | sort >"$tmp/b"
	[ "$(wc -l <"$tmp/out")" -eq "$want" ] ||
	    fail "$name: $(wc -l <"$tmp/out") lines, want $want"
	extra=$(comm -23 "$tmp/a" "$tmp/b" | head -n 3)
	[ -z "$extra" ] || fail "$name: rows not in the finished trace: $extra"
	[ "$(grep -c "^ts_ns" "$tmp/out")" -eq 1 ] || fail "$name: header"
	if grep -v ": waiting: \| rows examined$" "$tmp/err" | grep -q .; then
		fail "$name: said $(head -n 3 "$tmp/err")"
	fi
}

# follow_pieces BIG GROWN: the CPU time of a whole read of BIG ($whole),
# then of following GROWN while BIG is appended to it in 40 pieces, each
# read before the next comes ($grown), and the follower's RssAnon in
# bytes before it is stopped ($anon; empty when /proc does not say, and
# under AddressSanitizer, whose shadow memory and quarantine are
# anonymous too).
follow_pieces() {
	/usr/bin/time -f '%U %S' -o "$tmp/usage" "$TTV" --search zzzz --tsv \
	    "$1" >/dev/null 2>&1
	whole=$(tail -n 1 "$tmp/usage" | awk '{ printf "%.2f", $1 + $2 }')
	: >"$2"
	/usr/bin/time -f '%U %S' -o "$tmp/usage" "$TTV" --follow --search \
	    zzzz --tsv "$2" >/dev/null 2>&1 &
	_timer=$!
	_size=$(wc -c <"$1"); _piece=$((_size / 40 + 1)); _off=0
	while [ $_off -lt "$_size" ]; do
		tail -c +$((_off + 1)) "$1" | head -c $_piece >>"$2"
		_off=$((_off + _piece))
		sleep 0.3
	done
	sleep 1
	_pid=$(pgrep -P $_timer)
	anon=""
	[ -n "${ASAN_OPTIONS:-}" ] || [ -z "$_pid" ] ||
	    anon=$(awk '/^RssAnon:/ { print $2 * 1024 }' \
	    "/proc/$_pid/status" 2>/dev/null)
	if [ -n "$_pid" ]; then kill -INT "$_pid"; else kill $_timer; fi
	wait $_timer
	grown=$(tail -n 1 "$tmp/usage" | awk '{ printf "%.2f", $1 + $2 }')
}

# CoreProfiler: whole lines only; the log starts empty.
"$gen/cpgen" --seed 3 --lines 3000 --mode instrumentation \
    --out "$tmp/cp.log" --summary none >/dev/null || fail "cpgen"
: >"$tmp/grow.log"
start --search . --tsv "$tmp/grow.log"
# an empty log is waited for, not refused
i=0
until grep -q "waiting: empty file" "$tmp/err" || [ $i -ge 600 ]; do
	i=$((i + 1))
	sleep 0.1
done
grep -q "waiting: empty file" "$tmp/err" ||
    fail "coreprofiler: an empty log is not waited for: $(cat "$tmp/err")"
feed "$tmp/cp.log" "$tmp/grow.log" 6000
finish coreprofiler "$tmp/cp.log" --search .

# CoreProfiler's markers too (sampling mode: every record kind).
"$gen/cpgen" --seed 4 --lines 2000 --out "$tmp/cps.log" --summary none \
    >/dev/null || fail "cpgen"
: >"$tmp/grows.log"
start --markers --tsv "$tmp/grows.log"
feed "$tmp/cps.log" "$tmp/grows.log" 5000
finish coreprofiler-markers "$tmp/cps.log" --markers

# FXT: whole records only, in both byte orders.
for endian in "" -b; do
	"$gen/fxtgen" $endian full "$tmp/f.fxt" "$tmp/f.exp" >/dev/null ||
	    fail "fxtgen"
	: >"$tmp/grow.fxt"
	start --search . --tsv "$tmp/grow.fxt"
	feed "$tmp/f.fxt" "$tmp/grow.fxt" 1500
	finish "fxt$endian" "$tmp/f.fxt" --search .
	rm -f "$tmp/grow.fxt"
done
"$gen/fxtgen" -B 300000 "$tmp/big.fxt" >/dev/null || fail "fxtgen -B"
: >"$tmp/grow.fxt"
start --search '^[a-m]' --tsv "$tmp/grow.fxt"
feed "$tmp/big.fxt" "$tmp/grow.fxt" 20000
finish fxt-big "$tmp/big.fxt" --search '^[a-m]'

# An XRay basic-mode log, as the runtime appends each thread's buffer:
# whole 32-byte records only, read on from the last (formats/xray/
# xray_grow.c), in both byte orders.
for endian in "" -b; do
	"$gen/xraygen" -v 3 $endian basic "$tmp/x.xray" >/dev/null ||
	    fail "xraygen"
	: >"$tmp/grow.xray"
	start --search . --tsv "$tmp/grow.xray"
	feed "$tmp/x.xray" "$tmp/grow.xray" 700
	finish "xray-basic$endian" "$tmp/x.xray" --search .
	rm -f "$tmp/grow.xray"
done

# CTF as LTTng writes it: an empty metadata file (not yet, not damage),
# metadata in pieces (plain and packetized), packets and index entries in
# pieces, the second stream appearing later.
for p in "" -p; do
	"$gen/ctfgen" -i $p -n 400 -s 5 -L "$tmp/packets" "$tmp/ctf" \
	    >/dev/null || fail "ctfgen"
	rm -rf "$tmp/grow"
	mkdir "$tmp/grow"
	: >"$tmp/grow/metadata"
	start --search . --tsv "$tmp/grow"
	feed_ctf "$tmp/ctf" "$tmp/grow" "$tmp/packets"
	finish "ctf$p" "$tmp/ctf" --search .
	grep -q "metadata without a trace block" "$tmp/err" &&
	    fail "ctf$p: metadata being written taken for damage"
	# markers: packets of each stream, which come apart
	rm -rf "$tmp/grow"
	mkdir "$tmp/grow"
	start --markers --tsv "$tmp/grow"
	feed_ctf "$tmp/ctf" "$tmp/grow" "$tmp/packets"
	finish "ctf$p-markers" "$tmp/ctf" --markers
	rm -rf "$tmp/ctf"
done

# --follow --markers looks at the markers that can be new, not at all of
# them each round: the rows its rounds look at (TTV_FOLLOW_STATS) add up
# to the markers once and a few each round (a stream's packets past what
# every stream has written, looked at again until they are whole), where
# looking at every marker each round would add up to many times more.
# The packets are written in the order of their times, as a tracer's
# streams run side by side (a packet past what the slowest stream has
# written waits for it, and is looked at again meanwhile).
"$gen/ctfgen" -i -n 4000 -P 4096 -s 5 -L "$tmp/packets" "$tmp/ctf" \
    >/dev/null || fail "ctfgen"
"$TTV" --markers --tsv "$tmp/ctf" | awk -F '\t' 'NR > 1 { print $5, $4 }' |
    awk 'NR == FNR { p[$1 " " $2] = $0; next } { print p[$1 " " $2] }' \
    "$tmp/packets" - >"$tmp/turns"
rm -rf "$tmp/grow"
mkdir "$tmp/grow"
export TTV_FOLLOW_STATS=1
start --markers --tsv "$tmp/grow"
unset TTV_FOLLOW_STATS
feed_ctf "$tmp/ctf" "$tmp/grow" "$tmp/turns"
finish ctf-markers-examined "$tmp/ctf" --markers
markers=$(( $(wc -l <"$tmp/fin") - 1 ))
rounds=$(grep -c "rows examined" "$tmp/err")
sum=$(awk '/rows examined/ { s += $3 } END { print s + 0 }' "$tmp/err")
echo "ctf-markers-examined: $sum rows in $rounds rounds, $markers markers"
[ "$rounds" -ge 10 ] || fail "ctf-markers-examined: $rounds rounds said, want 10 or more"
[ "$sum" -le $(( markers + 5 * rounds )) ] ||
    fail "ctf-markers-examined: $sum rows looked at in $rounds rounds, over $markers markers and 5 a round"
rm -rf "$tmp/ctf" "$tmp/grow"

# A damaged index, not one being written: said, and its stream read as
# it is (not waited for forever).
"$gen/ctfgen" -i -n 400 -s 5 "$tmp/ctf" >/dev/null || fail "ctfgen"
printf '%0100d' 0 >"$tmp/ctf/index/chan_1.idx"
"$TTV" --search . --tsv "$tmp/ctf" >"$tmp/fin" 2>/dev/null
start --search . --tsv "$tmp/ctf"
wait_rows "$(wc -l <"$tmp/fin")"
kill -INT "$follower"; wait "$follower"; follower=""
cut -f 2- "$tmp/out" | sort >"$tmp/a"
cut -f 2- "$tmp/fin" | sort >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "ctf-bad-index: rows differ: $(diff "$tmp/a" "$tmp/b" | head -n 3)"
grep -q "chan_1.idx" "$tmp/err" || fail "ctf-bad-index: not said: $(cat "$tmp/err")"
rm -rf "$tmp/ctf"

# XRay: a directory where the runtime writes one log after another; each
# is read once whole, its rows printed once.
"$gen/xraygen" full "$tmp/x1" >/dev/null || fail "xraygen"
"$gen/xraygen" -b full "$tmp/x2" >/dev/null || fail "xraygen -b"
"$gen/xraygen" -B 200000 "$tmp/x3" >/dev/null || fail "xraygen -B"
mkdir "$tmp/xd"
echo "not a log" >"$tmp/xd/notes.txt"
start --search . --tsv "$tmp/xd"
for x in x1 x2 x3; do
	cat "$tmp/$x" >"$tmp/xd/xray-log.prog.$x"
	sleep 0.3
done
{
	printf 'ts_ns\tdur_ns\ttid\tmatch\tname\n'
	for x in x1 x2 x3; do
		"$TTV" --search . --tsv "$tmp/$x" | tail -n +2
	done
} >"$tmp/xfin"
# the finished logs' unterminated calls are not whole either
open=0
for x in x1 x2 x3; do
	o=$("$TTV" --query "SELECT count(*) FROM slice WHERE (flags & 1) = 1" \
	    --tsv "$tmp/$x" | tail -n 1)
	open=$((open + o))
done
want=$(( $(wc -l <"$tmp/xfin") - open ))
wait_rows "$want"
kill -INT "$follower"; wait "$follower"; rc=$?; follower=""
[ $rc -eq 130 ] || fail "xray: exit $rc after SIGINT, want 130"
[ "$(wc -l <"$tmp/out")" -eq "$want" ] ||
    fail "xray: $(wc -l <"$tmp/out") lines, want $want"
cut -f 2- "$tmp/out" | sort >"$tmp/a"
cut -f 2- "$tmp/xfin" | sort >"$tmp/b"
extra=$(comm -23 "$tmp/a" "$tmp/b" | head -n 3)
[ -z "$extra" ] || fail "xray: rows not in the logs: $extra"

# SIGINT in the middle of a long read stops it there, not once the read
# is over: what ttv works after the signal (CPU time, as
# tests/lib/budget.sh measures: the wall clock is the neighbours') is
# bounded, while the whole read of these traces takes several times that.
# sigint_read NAME PATH: ttv --follow on PATH, SIGINT 0.3 s into its read.
sigint_read() {
	/usr/bin/time -f '%U %S' -o "$tmp/usage" "$TTV" --follow --search \
	    zzzz --tsv "$2" >/dev/null 2>&1 &
	timer=$!
	i=0
	while [ -z "$(pgrep -P $timer)" ] && [ $i -lt 600 ]; do
		i=$((i + 1)); sleep 0.05
	done
	pid=$(pgrep -P $timer)
	# once it has worked 0.3 s (clock ticks of 10 ms) into the read
	ticks=0; i=0
	while [ -n "$pid" ] && [ $i -lt 1200 ]; do
		ticks=$(awk '{ print $14 + $15 }' /proc/"$pid"/stat 2>/dev/null) ||
		    break
		[ "$ticks" -ge 30 ] && break
		i=$((i + 1)); sleep 0.05
	done
	if [ -n "$pid" ]; then kill -INT "$pid"; else kill $timer; fi
	wait $timer
	rc=$?
	[ $rc -eq 130 ] || fail "$1: exit $rc after SIGINT, want 130"
	after=$(tail -n 1 "$tmp/usage" | awk -v t="$ticks" '{
	    printf "%.2f", $1 + $2 - t / 100 }')
	echo "$1: $after s of CPU after SIGINT"
	awk -v s="$after" 'BEGIN { exit !(s <= 0.5) }' ||
	    fail "$1: $after s of CPU after SIGINT, over 0.5 s"
}
if [ -x /usr/bin/time ]; then
	"$gen/ctfgen" -n 1500000 -s 5 "$tmp/longctf" >/dev/null || fail "ctfgen"
	sigint_read sigint-read "$tmp/longctf"
	rm -rf "$tmp/longctf"
	# a big XRay FDR log in a followed directory: its replay workers
	# stop too (the whole read takes about 2 s of CPU)
	mkdir "$tmp/xbig"
	"$gen/xraygen" -B 800000000 "$tmp/xbig/xray-log.prog.big" >/dev/null ||
	    fail "xraygen"
	sigint_read sigint-read-xray "$tmp/xbig"
	rm -rf "$tmp/xbig"
fi

# A CoreProfiler log is read as it grows, not again from its start at
# each change: the rows of a log written in many pieces are those of the
# finished log, every column alike (its times are the log's own), and the
# CPU time of following it stays near that of one whole read (each read
# again from the start would cost the whole log over and over: about 20
# whole reads here), measured as tests/lib/budget.sh does.
"$gen/cpgen" --seed 8 --lines 60000 --threads 4 --mode instrumentation \
    --out "$tmp/cpm.log" --summary none >/dev/null || fail "cpgen"
: >"$tmp/growm.log"
start --search '^[A-Z]' --tsv "$tmp/growm.log"
feed "$tmp/cpm.log" "$tmp/growm.log" $(( $(wc -c <"$tmp/cpm.log") / 60 ))
"$TTV" --search '^[A-Z]' --tsv "$tmp/cpm.log" >"$tmp/fin" 2>/dev/null
open=$("$TTV" --query "SELECT count(*) FROM slice WHERE (flags & 1) = 1 \
    AND name GLOB '[A-Z]*'" --tsv "$tmp/cpm.log" | tail -n 1)
wait_rows $(( $(wc -l <"$tmp/fin") - ${open:-0} ))
kill -INT "$follower"; wait "$follower"; follower=""
sort "$tmp/out" >"$tmp/a"
sort "$tmp/fin" >"$tmp/b"
extra=$(comm -23 "$tmp/a" "$tmp/b" | head -n 3)
[ -z "$extra" ] || fail "coreprofiler-steps: rows not in the finished log: $extra"
[ "$(wc -l <"$tmp/a")" -eq $(( $(wc -l <"$tmp/b") - ${open:-0} )) ] ||
    fail "coreprofiler-steps: $(wc -l <"$tmp/a") rows, want $(( $(wc -l <"$tmp/b") - ${open:-0} ))"
# Each round of --follow --search looks only at what can be new: per
# thread, the calls that end after what it told or saw whole before,
# not the whole log read so far. The rows the rounds look at
# (TTV_FOLLOW_STATS) add up to about the log's, however many rounds it
# takes (looking at everything again each round, they would add up to
# many times that), for a pattern that matches nearly every call and one
# that matches none, and the rows are those of the finished log.
slices=$("$TTV" --query "SELECT count(*) FROM slice" --tsv "$tmp/cpm.log" |
    tail -n 1)
for pat in '^[A-Z]' 'zzzz'; do
	: >"$tmp/growe.log"
	export TTV_FOLLOW_STATS=1
	start --search "$pat" --tsv "$tmp/growe.log"
	unset TTV_FOLLOW_STATS
	feed "$tmp/cpm.log" "$tmp/growe.log" $(( $(wc -c <"$tmp/cpm.log") / 40 ))
	"$TTV" --search "$pat" --tsv "$tmp/cpm.log" >"$tmp/fine" 2>/dev/null
	open=$("$TTV" --query "SELECT count(*) FROM slice WHERE (flags & 1) = 1 \
	    AND name REGEXP '$pat'" --tsv "$tmp/cpm.log" 2>/dev/null | tail -n 1)
	wait_rows $(( $(wc -l <"$tmp/fine") - ${open:-0} ))
	# the last round's stats, once no more comes
	sleep 0.5
	kill -INT "$follower"; wait "$follower"; rc=$?; follower=""
	[ $rc -eq 130 ] || fail "examined $pat: exit $rc after SIGINT, want 130"
	if grep -v ": waiting: \|rows examined" "$tmp/err" | grep -q .; then
		fail "examined $pat: said $(head -n 3 "$tmp/err")"
	fi
	sort "$tmp/out" >"$tmp/a"
	sort "$tmp/fine" >"$tmp/b"
	extra=$(comm -23 "$tmp/a" "$tmp/b" | head -n 3)
	[ -z "$extra" ] || fail "examined $pat: rows not in the finished log: $extra"
	[ "$(wc -l <"$tmp/a")" -eq $(( $(wc -l <"$tmp/b") - ${open:-0} )) ] ||
	    fail "examined $pat: $(wc -l <"$tmp/a") rows, want $(( $(wc -l <"$tmp/b") - ${open:-0} ))"
	rounds=$(grep -c "rows examined" "$tmp/err")
	sum=$(awk '/rows examined/ { s += $3 } END { print s + 0 }' "$tmp/err")
	echo "examined $pat: $sum rows in $rounds rounds, $slices calls in the log"
	[ "$rounds" -ge 5 ] || fail "examined $pat: $rounds rounds said, want 5 or more"
	[ "$sum" -le $(( 2 * slices )) ] ||
	    fail "examined $pat: $sum rows looked at in $rounds rounds, over twice the log's $slices"
done

# A log rewritten rather than appended to (another log copied over it, of
# the same length or longer) is read again from its start: what comes
# after is the new log's, and no row of neither log is ever printed.
"$gen/cpgen" --seed 9 --lines 40000 --threads 4 --mode instrumentation \
    --out "$tmp/cpn.log" --summary none >/dev/null || fail "cpgen"
head -c $(( $(wc -c <"$tmp/cpm.log") / 2 )) "$tmp/cpm.log" >"$tmp/growr.log"
start --search '^[A-Z]' --tsv "$tmp/growr.log"
wait_rows 1
half=$(wc -l <"$tmp/out")
cat "$tmp/cpn.log" >"$tmp/growr.log"
"$TTV" --search '^[A-Z]' --tsv "$tmp/cpn.log" >"$tmp/finn" 2>/dev/null
# a row well after the half (not among the last: calls open at the end
# of the log are not printed)
last=$(sort -t "$(printf '\t')" -k1,1n "$tmp/finn" |
    sed -n "$(( $(wc -l <"$tmp/finn") * 9 / 10 ))p")
_i=0
while ! grep -qxF "$last" "$tmp/out" && [ $_i -lt 600 ]; do
	_i=$((_i + 1)); sleep 0.1
done
kill -INT "$follower"; wait "$follower"; follower=""
grep -qxF "$last" "$tmp/out" ||
    fail "coreprofiler-rewrite: a late row of the new log never printed"
[ "$(wc -l <"$tmp/out")" -gt "$half" ] ||
    fail "coreprofiler-rewrite: nothing printed after the rewrite"
sort "$tmp/out" >"$tmp/a"
sort "$tmp/fin" "$tmp/finn" >"$tmp/b"
extra=$(comm -23 "$tmp/a" "$tmp/b" | head -n 3)
[ -z "$extra" ] || fail "coreprofiler-rewrite: rows of neither log: $extra"
rm -f "$tmp/growr.log" "$tmp/cpn.log" "$tmp/finn"
if [ -x /usr/bin/time ]; then
	"$gen/cpgen" --seed 6 --lines 1000000 --threads 8 --summary none \
	    --out "$tmp/cpbig.log" >/dev/null || fail "cpgen"
	follow_pieces "$tmp/cpbig.log" "$tmp/growbig.log"
	echo "coreprofiler-grow: $grown s of CPU following, $whole s for a whole read"
	awk -v g="$grown" -v w="$whole" 'BEGIN { exit !(g <= 4 * w + 0.3) }' ||
	    fail "coreprofiler-grow: $grown s of CPU following 40 pieces, over 4 x $whole + 0.3 s (a whole read each time?)"
	rm -f "$tmp/cpbig.log" "$tmp/growbig.log"
fi

# An FXT file is read as it grows too (formats/fxt/fxt_grow.c): the rows
# of a file written in pieces cut anywhere (in its records too) are those
# of the finished file, every column alike, with a call of one thread
# open while the others go on; a file rewritten rather than appended to
# is read again from its start; and the CPU time of following a big file
# stays near that of one whole read (each read again from the start would
# cost about 20 whole reads here), measured as tests/lib/budget.sh does.
"$gen/fxtgen" -L -B 4000000 "$tmp/fm.fxt" >/dev/null || fail "fxtgen"
: >"$tmp/growm.fxt"
start --search '^[a-m]' --tsv "$tmp/growm.fxt"
feed "$tmp/fm.fxt" "$tmp/growm.fxt" $(( $(wc -c <"$tmp/fm.fxt") / 60 ))
"$TTV" --search '^[a-m]' --tsv "$tmp/fm.fxt" >"$tmp/fin" 2>/dev/null
wait_rows "$(wc -l <"$tmp/fin")"
kill -INT "$follower"; wait "$follower"; follower=""
sort "$tmp/out" >"$tmp/a"
sort "$tmp/fin" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" ||
    fail "fxt-steps: rows differ: $(diff "$tmp/a" "$tmp/b" | head -n 3)"
if grep -v ": waiting: " "$tmp/err" | grep -q .; then
	fail "fxt-steps: said $(head -n 3 "$tmp/err")"
fi
rm -f "$tmp/fm.fxt" "$tmp/growm.fxt"
# rewritten: another program's trace, longer, copied over the first's half
"$gen/fxtgen" -D base "$tmp/dpb.fxt" && "$gen/fxtgen" -D new "$tmp/dpn.fxt" ||
    fail "fxtgen -D"
head -c $(( $(wc -c <"$tmp/dpb.fxt") / 2 )) "$tmp/dpb.fxt" >"$tmp/growr.fxt"
start --search . --tsv "$tmp/growr.fxt"
wait_rows 2
half=$(wc -l <"$tmp/out")
cat "$tmp/dpn.fxt" >"$tmp/growr.fxt"
"$TTV" --search . --tsv "$tmp/dpb.fxt" >"$tmp/fin" 2>/dev/null
"$TTV" --search . --tsv "$tmp/dpn.fxt" >"$tmp/finn" 2>/dev/null
last=$(sort -t "$(printf '\t')" -k1,1n "$tmp/finn" |
    sed -n "$(( $(wc -l <"$tmp/finn") * 9 / 10 ))p")
_i=0
while ! grep -qxF "$last" "$tmp/out" && [ $_i -lt 600 ]; do
	_i=$((_i + 1)); sleep 0.1
done
kill -INT "$follower"; wait "$follower"; follower=""
grep -qxF "$last" "$tmp/out" ||
    fail "fxt-rewrite: a late row of the new trace never printed"
[ "$(wc -l <"$tmp/out")" -gt "$half" ] ||
    fail "fxt-rewrite: nothing printed after the rewrite"
sort "$tmp/out" >"$tmp/a"
sort "$tmp/fin" "$tmp/finn" >"$tmp/b"
extra=$(comm -23 "$tmp/a" "$tmp/b" | head -n 3)
[ -z "$extra" ] || fail "fxt-rewrite: rows of neither trace: $extra"
rm -f "$tmp/growr.fxt" "$tmp/dpb.fxt" "$tmp/dpn.fxt" "$tmp/finn"
if [ -x /usr/bin/time ]; then
	"$gen/fxtgen" -L -B 60000000 "$tmp/fxbig.fxt" >/dev/null ||
	    fail "fxtgen"
	follow_pieces "$tmp/fxbig.fxt" "$tmp/growbig.fxt"
	# the model being followed is in the cache directory's file, not in
	# ttv's memory: what is anonymous in it stays well under the model
	model=$(( $("$TTV" --query 'SELECT count(*) FROM slice' --tsv \
	    "$tmp/fxbig.fxt" | tail -n 1) * 16 ))
	echo "fxt-grow: RssAnon following ${anon:-?} bytes, calls of the model $model bytes"
	[ -z "$anon" ] || [ "$anon" -lt $((model / 2)) ] ||
	    fail "fxt-grow: $anon bytes of anonymous memory following a model of $model (the model in memory?)"
	echo "fxt-grow: $grown s of CPU following, $whole s for a whole read"
	# (each update reads what was appended and maps the model so far; a
	# few whole reads' worth at most, where reading again costs about 20)
	awk -v g="$grown" -v w="$whole" 'BEGIN { exit !(g <= 8 * w + 0.5) }' ||
	    fail "fxt-grow: $grown s of CPU following 40 pieces, over 8 x $whole + 0.5 s (a whole read each time?)"
	rm -f "$tmp/fxbig.fxt" "$tmp/growbig.fxt"
fi

# The followed model's file fills its file system (a tiny one, when this
# runs as root; a trace large enough for its depths to be kept in the
# file): the model goes on in memory, nothing is lost or said.
mkdir -p "$tmp/full"
if [ "$(id -u)" = 0 ] &&
    mount -t tmpfs -o size=256k none "$tmp/full" 2>/dev/null; then
	"$gen/fxtgen" -L -B 20000000 "$tmp/ff.fxt" >/dev/null || fail "fxtgen"
	: >"$tmp/growf.fxt"
	XDG_CACHE_HOME=$tmp/full start --search '^[a-m]' --tsv "$tmp/growf.fxt"
	feed "$tmp/ff.fxt" "$tmp/growf.fxt" $(( $(wc -c <"$tmp/ff.fxt") / 20 ))
	finish fxt-full-cache "$tmp/ff.fxt" --search '^[a-m]'
	umount "$tmp/full"
	rm -f "$tmp/ff.fxt" "$tmp/growf.fxt"
fi

# A CTF directory is read as it grows, not again from its start at each
# change: a stream written packet by packet (its index entries after its
# packets, a second stream appearing empty midway, and the metadata
# growing by an event class as LTTng appends them) costs little more
# than one whole read of the finished trace to follow, not one whole read
# per change (about 10 here), and what is told is the finished trace's
# (its packets, as markers: told as they come).
if [ -x /usr/bin/time ]; then
	"$gen/ctfgen" -i -t 1 -S 0 -n 600000 -s 5 -L "$tmp/cpk" "$tmp/ctfbig" \
	    >/dev/null || fail "ctfgen"
	/usr/bin/time -f '%U %S' -o "$tmp/usage" "$TTV" --no-index --markers \
	    --tsv "$tmp/ctfbig" >"$tmp/fin" 2>/dev/null
	whole=$(tail -n 1 "$tmp/usage" | awk '{ printf "%.2f", $1 + $2 }')
	rm -rf "$tmp/growc"
	mkdir -p "$tmp/growc/index"
	# the metadata without its last event class (not used with -S 0)
	ml=$(grep -n '^event {' "$tmp/ctfbig/metadata" | tail -n 1 | cut -d : -f 1)
	head -n $((ml - 1)) "$tmp/ctfbig/metadata" >"$tmp/growc/metadata"
	: >"$tmp/growc/chan_0"
	head -c 16 "$tmp/ctfbig/index/chan_0.idx" >"$tmp/growc/index/chan_0.idx"
	/usr/bin/time -f '%U %S' -o "$tmp/usage" "$TTV" --follow --markers \
	    --tsv "$tmp/growc" >"$tmp/out" 2>/dev/null &
	timer=$!
	np=$(wc -l <"$tmp/cpk")
	es=$(( ($(wc -c <"$tmp/ctfbig/index/chan_0.idx") - 16) / np ))
	step=$((np / 20 + 1)); k=0
	while [ $k -lt "$np" ]; do
		n=$step; [ $((k + n)) -gt "$np" ] && n=$((np - k))
		off=$(sed -n "$((k + 1))p" "$tmp/cpk" | cut -d ' ' -f 2)
		end=$(sed -n "$((k + n))p" "$tmp/cpk" | awk '{ print $2 + $3 }')
		tail -c +$((off + 1)) "$tmp/ctfbig/chan_0" |
		    head -c $((end - off)) >>"$tmp/growc/chan_0"
		tail -c +$((16 + k * es + 1)) "$tmp/ctfbig/index/chan_0.idx" |
		    head -c $((n * es)) >>"$tmp/growc/index/chan_0.idx"
		k=$((k + n))
		if [ $k -ge $((np / 2)) ] && [ ! -e "$tmp/growc/chan_1" ]; then
			: >"$tmp/growc/chan_1"
			head -c 16 "$tmp/ctfbig/index/chan_1.idx" \
			    >"$tmp/growc/index/chan_1.idx"
			tail -n +"$ml" "$tmp/ctfbig/metadata" >>"$tmp/growc/metadata"
		fi
		sleep 0.3
	done
	wait_rows "$(wc -l <"$tmp/fin")"
	pid=$(pgrep -P $timer)
	if [ -n "$pid" ]; then kill -INT "$pid"; else kill $timer; fi
	wait $timer
	grown=$(tail -n 1 "$tmp/usage" | awk '{ printf "%.2f", $1 + $2 }')
	echo "ctf-grow: $grown s of CPU following, $whole s for a whole read"
	awk -v g="$grown" -v w="$whole" 'BEGIN { exit !(g <= 4 * w + 0.3) }' ||
	    fail "ctf-grow: $grown s of CPU following 20 pieces, over 4 x $whole + 0.3 s (a whole read each time?)"
	cut -f 2- "$tmp/out" | sort >"$tmp/a"
	cut -f 2- "$tmp/fin" | sort >"$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" ||
	    fail "ctf-grow: told $(wc -l <"$tmp/a") rows, the finished trace $(wc -l <"$tmp/b"): $(diff "$tmp/a" "$tmp/b" | head -n 3)"
	rm -rf "$tmp/ctfbig" "$tmp/growc" "$tmp/cpk"
fi

# The usage: --follow goes with --search or --markers, not --strict.
"$TTV" --follow --stats "$tmp/cp.log" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "--follow --stats: not a usage error"
"$TTV" --follow --strict --markers "$tmp/cp.log" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "--follow --strict: not a usage error"
# the viewer (no batch mode) says a missing trace plainly, before
# opening the terminal
"$TTV" --follow "$tmp/nonexistent" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "--follow viewer on a missing file: not exit 1"
grep -q "No such file" "$tmp/err" ||
    fail "--follow viewer on a missing file: $(cat "$tmp/err")"
"$TTV" --follow --markers "$tmp/nonexistent" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "--follow on a missing file: not exit 1"
grep -q "^ttv: $tmp/nonexistent: No such file" "$tmp/err" ||
    fail "--follow on a missing file: $(cat "$tmp/err")"

[ $fails -eq 0 ] && echo "PASS: cli_follow" || exit 1

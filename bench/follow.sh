#!/bin/sh
# Benchmark of ttv --follow --search (bench/follow_probe.py measures):
#
# 1. latency from a write to ttv's first row after it, on a CoreProfiler
#    log and an FXT file written by the project's generators and appended
#    at a set pace (a chunk every 500 ms), median and p99, and the same
#    over the last tenth of the file (a read reads what was appended,
#    and its model maps what the builder wrote to its file: an update
#    should cost no more at the end than at the start);
# 2. with lttng-sessiond, lttng-relayd and liblttng-ust-cyg-profile: a
#    live session with a 100 ms live timer, a -finstrument-functions
#    program calling tick() every 50 ms; latency from tick's return to
#    its row (target: timer + 250 ms = 350 ms);
# 3. throughput: a producer at a high rate for 40 s (a CoreProfiler log
#    appended 1 MB every 100 ms; with LTTng, the program making 400
#    calls every ms), ttv's rows per second, its memory, its backlog
#    once the producer stops, and the rows a whole read of the result
#    has; the CPU time ttv took so far, each 5 s;
# 4. the CPU time of one update: a 200 MB CoreProfiler log read, then
#    five appends of 100 KB, nothing matching (what an update costs
#    apart from its rows), and ttv's peak RSS; the same with a 200 MB
#    FXT file (both are read from where the last read stopped); and a
#    ~190 MB CTF directory (tests/gen/ctfgen, LTTng's layout with its
#    index) but the last packets of each stream, then five appends of
#    12 packets of each stream (~100 KB, packets then their index
#    entries, as LTTng writes them), against a whole read of it;
# 5. the viewer's key latency while it follows: `ttv --follow` in a pty
#    (bench/follow_keys.py) on a CoreProfiler log appended 1 MB every
#    100 ms for 30 s, a pan, zoom or G key every 100 ms; from the key to
#    the end of the frame answering it, median and p99 (target: p99 under
#    50 ms); then the same keys for 10 s on the finished log, which does
#    not grow (the yardstick: what the keys cost without the updates);
# 6. a sustained rate: `fxtgen --pace` writes an FXT trace as a program
#    making FOLLOW_RATE calls a second (default 1000000; 32 bytes a
#    call, a chunk every 100 ms) for FOLLOW_SECONDS (default 600) while
#    `ttv --follow --search '^rare_'` follows it (one call in 10,000
#    matches); every FOLLOW_SAMPLE s (default 10) ttv's RssAnon, RssFile,
#    VmRSS, CPU time, rows so far, the trace's and the index's size
#    (bench/follow_sustain.py); then whether it kept up (rows against a
#    whole read of the finished trace, its backlog once the producer
#    stops, waited for FOLLOW_BOUND s at most, default 120) and whether
#    RssAnon stayed flat (last third of the run against the first);
#    then the viewer following the same producer for FOLLOW_VIEW_SECONDS
#    (default 120) with a key every 100 ms as in part 5 (target: p99
#    under 50 ms). It wants RATE * SECONDS * 48 bytes free in TMPDIR.
#
# Each part but 6 stays under a minute; FOLLOW_PARTS="4 5" runs only
# those (parts 1 3 4 5 6 and live, the LTTng parts 2 and 3b; 4cp 4fxt
# 4ctf run one input of part 4; default all but 6, which runs for
# minutes and writes tens of GB: ask for it by name). Daemons, programs
# and files are the script's own, stopped by PID and removed at the end.
#   TTV=./ttv CPGEN=tests/gen/cpgen FXTGEN=tests/gen/fxtgen \
#       CTFGEN=tests/gen/ctfgen sh bench/follow.sh
#   FOLLOW_PARTS=6 FOLLOW_SECONDS=20 TTV=./ttv ... sh bench/follow.sh
set -u
: "${TTV:?set TTV to the ttv binary}" "${CPGEN:?set CPGEN to tests/gen/cpgen}"
: "${FXTGEN:?set FXTGEN to tests/gen/fxtgen}"
CTFGEN=${CTFGEN:-}
parts=${FOLLOW_PARTS:-1 3 4 5 live}
# want PART...: whether one of them is to run
want() {
	for w in "$@"; do
		case " $parts " in *" $w "*) return 0 ;; esac
	done
	return 1
}
here=$(cd "$(dirname "$0")" && pwd)
probe="python3 $here/follow_probe.py"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-bench-follow.XXXXXX")
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1; i=$((i + 1))
		done
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
export XDG_CACHE_HOME="$tmp/cache"

# part 6's producer writes tens of GB: refused before anything runs when
# they do not fit
if want 6; then
rate=${FOLLOW_RATE:-1000000}
secs=${FOLLOW_SECONDS:-600}
vsecs=${FOLLOW_VIEW_SECONDS:-120}
# 32 bytes a call of trace and some 16 of index (ttv's, under
# $XDG_CACHE_HOME), with room to spare; the two runs one after the other,
# each removed before the next
longest=$secs
[ "$vsecs" -gt "$longest" ] && longest=$vsecs
need=$((rate * longest * 48))
free=$(($(df -Pk "$tmp" | awk 'NR == 2 { print $4 }') * 1024))
if [ "$free" -lt "$need" ]; then
	echo "== 6. not run: $((need / 1000000000)) GB wanted in $(dirname "$tmp") ($((rate)) calls/s for $longest s), $((free / 1000000000)) GB free (set TMPDIR, FOLLOW_RATE or FOLLOW_SECONDS)"
	exit 1
fi
fi

if want 1; then
echo "== 1. a file written at a set pace"
"$CPGEN" --seed 5 --lines 200000 --threads 4 --summary none \
    --out "$tmp/cp.log" || exit 1
$probe file "$TTV" "$tmp/cp.log" "$tmp/grow.log" 200000 500 ReadBlock
"$FXTGEN" -B 8000000 "$tmp/big.fxt" >/dev/null || exit 1
$probe file "$TTV" "$tmp/big.fxt" "$tmp/grow.fxt" 200000 500 .
rm -f "$tmp/grow.log" "$tmp/grow.fxt" "$tmp/big.fxt"
fi

if want 3 4 4cp 5; then
"$CPGEN" --seed 6 --lines 11000000 --threads 8 --summary none \
    --out "$tmp/cp.big" || exit 1
fi
if want 3; then
echo "== 3a. a CoreProfiler log appended 1 MB every 100 ms for 40 s"
: >"$tmp/rate.log"
python3 -c '
import os, sys, time
src = open(sys.argv[1], "rb")
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_APPEND)
nxt = time.monotonic()
for _ in range(400):
    b = src.read(1 << 20)
    if not b:
        break
    os.write(fd, b)
    nxt += 0.1
    time.sleep(max(0, nxt - time.monotonic()))
' "$tmp/cp.big" "$tmp/rate.log" &
pids="$pids $!"
$probe rate "$TTV" "$tmp/rate.log" 40 | awk 'NR % 5 == 0 || !/ s: /'
echo "  (the log: $(($(wc -c <"$tmp/rate.log") / 1000000)) MB)"
$probe count "$TTV" "$tmp/rate.log"
rm -f "$tmp/rate.log"
fi

# update_cost SRC OUT: OUT made of SRC's first 200 MB, followed, then five
# appends of 100 KB of what comes next, nothing matching.
update_cost() {
	head -c 200000000 "$1" >"$2"
	"$TTV" --follow --search zzzz --tsv "$2" >/dev/null 2>&1 &
	tp=$!
	pids="$pids $tp"
	i=0
	# the first read is over once ttv stops working
	a=$(ticks $tp); sleep 1; b=$(ticks $tp)
	while [ "$a" -ne "$b" ] && [ $i -lt 30 ]; do
		a=$b; sleep 1; b=$(ticks $tp); i=$((i + 1))
	done
	echo "  first read: $(awk -v t="$b" 'BEGIN { printf "%.2f", t / 100 }') s CPU"
	for k in 1 2 3 4 5; do
		tail -c +$((200000000 + (k - 1) * 100000 + 1)) "$1" |
		    head -c 100000 >>"$2"
		sleep 2
	done
	c=$(ticks $tp)
	echo "  5 updates of 100 KB: $(awk -v t="$((c - b))" 'BEGIN {
	    printf "%.2f", t / 500 }') s CPU each; peak RSS $(awk '/VmHWM/ {
	    printf "%.0f MB", $2 / 1024 }' /proc/$tp/status)"
	kill -INT $tp
	rm -f "$2"
}
ticks() { awk '{ print $14 + $15 }' /proc/"$1"/stat; }
# settle PID: waits until PID has used no CPU for a second (30 s at most)
# and prints its CPU ticks
settle() {
	a=$(ticks "$1"); sleep 1; b=$(ticks "$1"); i=0
	while [ "$a" -ne "$b" ] && [ $i -lt 30 ]; do
		a=$b; sleep 1; b=$(ticks "$1"); i=$((i + 1))
	done
	echo "$b"
}

# ctf_update_cost SRC PACKETS: SRC (ctfgen -i -L PACKETS) but the last 60
# packets of each stream, followed; then five appends of 12 packets of
# each stream, nothing matching; against a whole read of SRC.
ctf_update_cost() {
	$probe ctf-cut "$1" "$tmp/gc" "$2" 60 || exit 1
	"$TTV" --follow --search zzzz --tsv "$tmp/gc" >/dev/null 2>&1 &
	tp=$!
	pids="$pids $tp"
	b=$(settle $tp)
	echo "  first read: $(awk -v t="$b" 'BEGIN { printf "%.2f", t / 100 }') s CPU ($(du -sm "$tmp/gc" | cut -f 1) MB)"
	for k in 1 2 3 4 5; do
		$probe ctf-more "$1" "$tmp/gc" "$2" 12 || exit 1
		c=$(settle $tp)
	done
	echo "  5 updates of 12 packets a stream: $(awk -v t="$((c - b))" 'BEGIN {
	    printf "%.2f", t / 500 }') s CPU each; peak RSS $(awk '/VmHWM/ {
	    printf "%.0f MB", $2 / 1024 }' /proc/$tp/status)"
	kill -INT $tp
	# (the index of an earlier run is not used: --no-index)
	/usr/bin/time -f '%U %S %M' -o "$tmp/usage" "$TTV" --no-index \
	    --search zzzz --tsv "$1" >/dev/null 2>&1
	awk 'END { printf "  a whole read of the finished directory: %.2f s CPU, peak RSS %.0f MB\n", $1 + $2, $3 / 1024 }' "$tmp/usage"
	rm -rf "$tmp/gc"
}

if want 4 4cp 4fxt 4ctf; then
echo "== 4. one update of a 200 MB CoreProfiler log, of an FXT file, of a CTF directory"
fi
if want 4 4cp; then
update_cost "$tmp/cp.big" "$tmp/g.log"
fi
if want 4 4fxt; then
"$FXTGEN" -L -B 201000000 "$tmp/fx.big" >/dev/null || exit 1
update_cost "$tmp/fx.big" "$tmp/g.fxt"
rm -f "$tmp/fx.big"
fi
if want 4 4ctf; then
if [ -z "$CTFGEN" ] || [ ! -x /usr/bin/time ]; then
	echo "  (no CTFGEN or /usr/bin/time: no CTF directory)"
else
	"$CTFGEN" -i -t 4 -S 0 -n 4000000 -s 5 -L "$tmp/ctf.pk" "$tmp/ctf.big" \
	    >/dev/null || exit 1
	ctf_update_cost "$tmp/ctf.big" "$tmp/ctf.pk"
	rm -rf "$tmp/ctf.big" "$tmp/ctf.pk"
fi
fi

if want 5; then
echo "== 5. the viewer's keys while it follows a log growing 1 MB every 100 ms for 30 s"
echo "  (load average before: $(cut -d ' ' -f 1-3 /proc/loadavg))"
mkdir -p "$tmp/state"
XDG_STATE_HOME=$tmp/state python3 "$here/follow_keys.py" "$TTV" \
    "$tmp/cp.big" "$tmp/keys.log" 30 1048576 100 L H + - G
# the yardstick: the same keys for 10 s on the log it grew to, written
# whole before ttv starts (followed, but nothing comes)
echo "  the same keys on the finished log, written before ttv starts:"
XDG_STATE_HOME=$tmp/state python3 "$here/follow_keys.py" "$TTV" \
    "$tmp/keys.log" "$tmp/keys2.log" 10 "$(wc -c <"$tmp/keys.log")" 100 \
    L H + - G | tail -n 2
rm -f "$tmp/keys.log" "$tmp/keys2.log"
fi
rm -f "$tmp/cp.big"

if want 6; then
echo "== 6a. $rate calls/s for $secs s (an FXT trace written as it runs), ttv --follow --search '^rare_'"
echo "  (load average before: $(cut -d ' ' -f 1-3 /proc/loadavg))"
python3 "$here/follow_sustain.py" "$TTV" '^rare_' "$tmp/pace.fxt" \
    "${FOLLOW_SAMPLE:-10}" "${FOLLOW_BOUND:-120}" -- \
    "$FXTGEN" --pace "$rate" "$secs" "$tmp/pace.fxt"
rm -rf "$tmp/pace.fxt" "$tmp/cache"
echo "== 6b. the viewer following $rate calls/s for $vsecs s, a key every 100 ms"
echo "  (load average before: $(cut -d ' ' -f 1-3 /proc/loadavg))"
mkdir -p "$tmp/state"
XDG_STATE_HOME=$tmp/state python3 "$here/follow_keys.py" --run "$TTV" \
    "$tmp/pace.fxt" L H + - G -- "$FXTGEN" --pace "$rate" "$vsecs" \
    "$tmp/pace.fxt"
rm -rf "$tmp/pace.fxt" "$tmp/cache"
fi
want live || exit 0

# LTTng: the daemons as tests/formats/live/live_relay.sh starts them.
for t in lttng lttng-sessiond lttng-relayd gcc python3; do
	command -v "$t" >/dev/null 2>&1 || { echo "(no $t: no live session)"; exit 0; }
done
ldconfig -p 2>/dev/null | grep -q 'liblttng-ust-cyg-profile\.so\.1 ' ||
    { echo "(no liblttng-ust-cyg-profile: no live session)"; exit 0; }
home=$tmp/home
mkdir -p "$home" "$tmp/out"
chmod 755 "$tmp"
as="env HOME=$home LTTNG_HOME=$home"
if [ "$(id -u)" -eq 0 ]; then
	chown nobody "$home" "$tmp/out" || exit 1
	as="setpriv --reuid=nobody --regid=$(id -g nobody) --clear-groups $as"
fi
set -- $(python3 -c '
import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
pc=$1 pd=$2 pl=$3
$as lttng-sessiond --no-kernel >"$tmp/sessiond.log" 2>&1 &
pids="$pids $!"
$as lttng-relayd -C tcp://127.0.0.1:$pc -D tcp://127.0.0.1:$pd \
    -L tcp://127.0.0.1:$pl -o "$tmp/out" >"$tmp/relayd.log" 2>&1 &
pids="$pids $!"
i=0
until [ -S "$home/.lttng/client-lttng-sessiond" ] && python3 -c "
import socket
socket.create_connection(('127.0.0.1', $pl), 0.5).close()" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "the LTTng daemons did not start"; exit 1; }
	sleep 0.1
done

# BURST calls of tick() (which calls leaf()) every PERIOD us for SECONDS
# s; with BURST 1, each return written to TICKS with its CLOCK_MONOTONIC
# time.
cat >"$tmp/prog.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static long long now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
__attribute__((noinline)) static int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) static int tick(int x) { return leaf(x) + 1; }
int main(int argc, char **argv)
{
	long period = atol(argv[1]), burst = atol(argv[2]);
	double seconds = atof(argv[3]);
	FILE *f = argc > 4 ? fopen(argv[4], "w") : NULL;
	long long end = now() + (long long)(seconds * 1e9);
	int s = 0;
	for (long k = 0; now() < end; k++) {
		for (long b = 0; b < burst; b++)
			s += tick((int)b);
		if (f != NULL)
			fprintf(f, "%ld %lld\n", k, now());
		struct timespec d = { 0, period * 1000 };
		nanosleep(&d, NULL);
	}
	if (f != NULL)
		fclose(f);
	return s == 42;
}
EOF
gcc -O1 -g -finstrument-functions "$tmp/prog.c" -o "$tmp/prog" || exit 1
chmod 755 "$tmp/prog"
touch "$tmp/ticks"
chmod 666 "$tmp/ticks"

# session NAME: a live session with a 100 ms live timer, started.
session() {
	$as lttng create "$1" --live=100000 --ctrl-url=tcp://127.0.0.1:$pc \
	    --data-url=tcp://127.0.0.1:$pd >>"$tmp/lttng.log" 2>&1 &&
	$as lttng enable-event -u 'lttng_ust_cyg_profile:*' >>"$tmp/lttng.log" 2>&1 &&
	$as lttng enable-event -u 'lttng_ust_statedump:*' >>"$tmp/lttng.log" 2>&1 &&
	$as lttng add-context -u -t vpid -t vtid >>"$tmp/lttng.log" 2>&1 &&
	$as lttng start >>"$tmp/lttng.log" 2>&1 ||
	    { echo "lttng: $(tail -n 2 "$tmp/lttng.log")"; exit 1; }
	url=$("$TTV" --info net://127.0.0.1:$pl | sed -n "s| (timer = .*||p" |
	    grep "/$1\$")
}

echo "== 2. a live session (100 ms live timer), a call every 50 ms for 20 s"
session lat
$probe live "$TTV" "$url" "$tmp/ticks" '^tick$' &
probe_pid=$!
sleep 1
$as env LD_PRELOAD=liblttng-ust-cyg-profile.so.1 "$tmp/prog" 50000 1 20 \
    "$tmp/ticks"
sleep 1
$as lttng destroy lat >>"$tmp/lttng.log" 2>&1
wait $probe_pid

echo "== 3b. a live session: 200 calls of tick (400 calls) every ms, for 38 s"
session rate
$probe rate "$TTV" "$url" 40 | awk 'NR % 5 == 0 || !/ s: /' &
probe_pid=$!
sleep 1
$as env LD_PRELOAD=liblttng-ust-cyg-profile.so.1 "$tmp/prog" 1000 200 38
$as lttng stop rate >>"$tmp/lttng.log" 2>&1
echo "  (the relay's copy: $(du -sm "$tmp/out" | cut -f 1) MB, $($as lttng list rate 2>/dev/null | grep -i -m 1 'discarded' | tr -s ' ' || echo 'no discarded count'))"
$as lttng destroy rate >>"$tmp/lttng.log" 2>&1
wait $probe_pid
$probe count "$TTV" "$(find "$tmp/out" -maxdepth 2 -name 'rate-*' | head -n 1)"

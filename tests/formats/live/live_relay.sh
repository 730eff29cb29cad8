#!/bin/sh
# ttv against real LTTng daemons: a session daemon and a relay daemon on
# loopback ports of the test's own, a live session recording a
# -finstrument-functions program through liblttng-ust-cyg-profile, and
# what ttv reads from the relay's live port (net://) checked against
# babeltrace2 and ttv on the relay's own output directory. As root, the
# daemons run as nobody with LTTNG_HOME in the test's directory (a root
# session daemon would be the machine's one); they are stopped by PID.
set -u
: "${TTV:?}"
skip() { echo "SKIP: $*"; exit 77; }
for t in lttng lttng-sessiond lttng-relayd babeltrace2 gcc python3; do
	command -v "$t" >/dev/null 2>&1 || skip "$t is not installed (Debian: lttng-tools, liblttng-ust-dev, babeltrace2)"
done
ldconfig -p 2>/dev/null | grep -q 'liblttng-ust-cyg-profile\.so\.1 ' ||
    skip "liblttng-ust-cyg-profile.so.1 is not installed (Debian: liblttng-ust-dev)"

tmp=$(mktemp -d)
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
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# The daemons' user: nobody when root, else ourselves.
home=$tmp/home
mkdir -p "$home" "$tmp/out" "$tmp/cache"
chmod 755 "$tmp"
# Each command is run through $as, which execs it: $! of a daemon started
# in the background is the daemon's own PID.
as="env HOME=$home LTTNG_HOME=$home"
if [ "$(id -u)" -eq 0 ]; then
	chown nobody "$home" "$tmp/out" || skip "cannot give nobody a directory"
	as="setpriv --reuid=nobody --regid=$(id -g nobody) --clear-groups $as"
fi

# Three free loopback ports (control, data, live).
set -- $(python3 -c '
import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
pc=$1 pd=$2 pl=$3
live=net://127.0.0.1:$pl

$as lttng-sessiond --no-kernel >"$tmp/sessiond.log" 2>&1 &
pids="$pids $!"
$as lttng-relayd -C tcp://127.0.0.1:$pc -D tcp://127.0.0.1:$pd \
    -L tcp://127.0.0.1:$pl -o "$tmp/out" >"$tmp/relayd.log" 2>&1 &
pids="$pids $!"
# Ready: the session daemon's client socket, the relay's live port.
i=0
until [ -S "$home/.lttng/client-lttng-sessiond" ] && python3 -c "
import socket, sys
socket.create_connection(('127.0.0.1', $pl), 0.5).close()" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || skip "the LTTng daemons did not start: $(tail -n 3 "$tmp/sessiond.log" "$tmp/relayd.log" | tr '\n' ' ')"
	sleep 0.1
done

cat >"$tmp/prog.c" <<'EOF'
#include <stdio.h>
__attribute__((noinline)) static int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) static int mid(int x)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += leaf(x + i);
	return s;
}
int main(void)
{
	int s = 0;
	for (int i = 0; i < 200; i++)
		s += mid(i);
	printf("%d\n", s);
	return 0;
}
EOF
gcc -O1 -g -finstrument-functions "$tmp/prog.c" -o "$tmp/prog" ||
    skip "gcc cannot build the traced program"
chmod 755 "$tmp/prog"

$as lttng create live-test --live=100000 --ctrl-url=tcp://127.0.0.1:$pc \
    --data-url=tcp://127.0.0.1:$pd >"$tmp/lttng.log" 2>&1 &&
$as lttng enable-event -u 'lttng_ust_cyg_profile:*' >>"$tmp/lttng.log" 2>&1 &&
$as lttng enable-event -u 'lttng_ust_statedump:*' >>"$tmp/lttng.log" 2>&1 &&
$as lttng add-context -u -t vpid -t vtid >>"$tmp/lttng.log" 2>&1 &&
$as lttng start >>"$tmp/lttng.log" 2>&1 ||
    skip "lttng could not set up a live session: $(tail -n 2 "$tmp/lttng.log")"
$as env LD_PRELOAD=liblttng-ust-cyg-profile.so.1 "$tmp/prog" >/dev/null ||
    fail "the traced program failed"
# Stopping waits until every buffer has reached the relay; the session
# stays live and listed.
$as lttng stop >>"$tmp/lttng.log" 2>&1 || fail "lttng stop"

export XDG_CACHE_HOME="$tmp/cache"

# --info on the relay lists the session as babeltrace2 does.
"$TTV" --info "$live" >"$tmp/list.ttv" 2>"$tmp/err" || fail "--info $live: $(cat "$tmp/err")"
babeltrace2 -i lttng-live "$live" >"$tmp/list.bt" 2>&1
cmp -s "$tmp/list.ttv" "$tmp/list.bt" ||
    fail "session list differs from babeltrace2's: $(cat "$tmp/list.ttv") / $(cat "$tmp/list.bt")"
url=$(sed -n 's| (timer = 100000, .*||p' "$tmp/list.ttv" | grep '/live-test$')
[ -n "$url" ] || { fail "no live-test session listed: $(cat "$tmp/list.ttv")"; exit 1; }

# The session read over the network.
"$TTV" --stats --tsv "$url" >"$tmp/stats.net" 2>"$tmp/err" ||
    fail "--stats $url: exit $?: $(cat "$tmp/err")"
"$TTV" --info "$url" >"$tmp/info.net" 2>"$tmp/err" || fail "--info $url"
grep -q "^file: $url\$" "$tmp/info.net" || fail "--info names the URL: $(head -n 1 "$tmp/info.net")"
grep -q "^format: ctf" "$tmp/info.net" || fail "--info: a CTF trace"
# The mirror in the cache: the relay's layout, read by babeltrace2 exactly
# as the relay's own output.
mirror=$(find "$tmp/cache/ttv/live" -name metadata | head -n 1)
[ -n "$mirror" ] || fail "no mirror under \$XDG_CACHE_HOME/ttv/live"
ls "$(dirname "$mirror")"/index/*.idx >/dev/null 2>&1 || fail "the mirror has no index files"
babeltrace2 "$tmp/out" >"$tmp/bt.relay" 2>&1 || fail "babeltrace2 on the relay's output"
babeltrace2 "$(dirname "$mirror")" >"$tmp/bt.mirror" 2>&1 || fail "babeltrace2 on the mirror"
cmp -s "$tmp/bt.relay" "$tmp/bt.mirror" ||
    fail "babeltrace2 reads the mirror differently from the relay's output ($(wc -l <"$tmp/bt.mirror") / $(wc -l <"$tmp/bt.relay") events)"
# Every call babeltrace2 sees is a slice ttv read live: 1 + 200 + 600.
entries=$(grep -c 'lttng_ust_cyg_profile:func_entry' "$tmp/bt.relay")
[ "$entries" -eq 801 ] || fail "babeltrace2 sees $entries calls, 801 expected"
calls=$(awk -F '\t' 'NR > 1 { n += $2 } END { print n + 0 }' "$tmp/stats.net")
[ "$calls" = "$entries" ] || fail "ttv read $calls calls live, babeltrace2 $entries"

# From now: attached at the relay's newest packets, nothing is older.
"$TTV" --from-now --stats --tsv "$url" >"$tmp/stats.now" 2>"$tmp/err" ||
    fail "--from-now: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/stats.now")" -eq 1 ] ||
    fail "--from-now read old calls: $(head -n 3 "$tmp/stats.now")"

# The finished trace: the same answers from the relay's directory.
$as lttng destroy >>"$tmp/lttng.log" 2>&1 || fail "lttng destroy"
"$TTV" --stats --tsv "$tmp/out" >"$tmp/stats.dir" 2>"$tmp/err" ||
    fail "--stats on the relay's output: $(cat "$tmp/err")"
cmp -s "$tmp/stats.net" "$tmp/stats.dir" ||
    fail "--stats over the network differs from the finished trace's: $(diff "$tmp/stats.net" "$tmp/stats.dir" | head -n 5)"
grep -q '^main	1	' "$tmp/stats.net" || fail "main called once: $(head -n 3 "$tmp/stats.net")"
# A destroyed session has nothing to read: said, exit 1 (the relay
# unlists it, or refuses the attach while it is closing).
"$TTV" --info "$url" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "a destroyed session: exit $rc, want 1"
grep -q "no live session 'live-test'\|the session has ended" "$tmp/err" ||
    fail "destroyed session message: $(cat "$tmp/err")"

# --follow: a session followed from before its program runs until it is
# destroyed: the calls printed as they come are those of ttv on the
# relay's output of the finished session, and the end is exit 0.
$as lttng create follow-test --live=100000 --ctrl-url=tcp://127.0.0.1:$pc \
    --data-url=tcp://127.0.0.1:$pd >>"$tmp/lttng.log" 2>&1 &&
$as lttng enable-event -u 'lttng_ust_cyg_profile:*' >>"$tmp/lttng.log" 2>&1 &&
$as lttng enable-event -u 'lttng_ust_statedump:*' >>"$tmp/lttng.log" 2>&1 &&
$as lttng add-context -u -t vpid -t vtid >>"$tmp/lttng.log" 2>&1 &&
$as lttng start >>"$tmp/lttng.log" 2>&1 ||
    fail "lttng could not set up the followed session: $(tail -n 2 "$tmp/lttng.log")"
"$TTV" --info "$live" >"$tmp/list.ttv" 2>"$tmp/err"
furl=$(sed -n 's| (timer = 100000, .*||p' "$tmp/list.ttv" | grep '/follow-test$')
[ -n "$furl" ] || { fail "no follow-test session listed: $(cat "$tmp/list.ttv")"; exit 1; }
"$TTV" --follow --search . --tsv "$furl" >"$tmp/follow.out" 2>"$tmp/follow.err" &
follower=$!
pids="$pids $follower"
$as env LD_PRELOAD=liblttng-ust-cyg-profile.so.1 "$tmp/prog" >/dev/null ||
    fail "the traced program failed"
$as lttng stop >>"$tmp/lttng.log" 2>&1 || fail "lttng stop"
$as lttng destroy >>"$tmp/lttng.log" 2>&1 || fail "lttng destroy"
i=0
while kill -0 "$follower" 2>/dev/null && [ $i -lt 600 ]; do
	i=$((i + 1))
	sleep 0.1
done
if kill -0 "$follower" 2>/dev/null; then
	fail "--follow did not end with the session: $(cat "$tmp/follow.err")"
else
	wait "$follower"
	rc=$?
	[ $rc -eq 0 ] || fail "--follow: exit $rc, want 0: $(cat "$tmp/follow.err")"
fi
grep -q "session ended" "$tmp/follow.err" ||
    fail "--follow: no 'session ended': $(cat "$tmp/follow.err")"
fdir=$(find "$tmp/out" -maxdepth 2 -name 'follow-test-*' | head -n 1)
"$TTV" --search . --tsv "$fdir" >"$tmp/follow.fin" 2>"$tmp/err" ||
    fail "--search on the relay's output: $(cat "$tmp/err")"
cut -f 2- "$tmp/follow.out" | sort >"$tmp/follow.a"
cut -f 2- "$tmp/follow.fin" | sort >"$tmp/follow.b"
cmp -s "$tmp/follow.a" "$tmp/follow.b" ||
    fail "--follow printed other rows than the finished trace has: $(diff "$tmp/follow.a" "$tmp/follow.b" | head -n 5)"
[ "$(grep -c '	main$' "$tmp/follow.out")" -eq 1 ] ||
    fail "--follow: main printed $(grep -c '	main$' "$tmp/follow.out") times"

[ $fails -eq 0 ] && echo "PASS: live_relay" || exit 1

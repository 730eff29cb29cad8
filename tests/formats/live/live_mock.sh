#!/bin/sh
# The live client against a mock relay (live_mock_relay.py) playing a
# ctfgen trace: every answer lttng-relayd gives (RETRY, INACTIVE, new
# streams, new metadata, HUP, a dropped connection) leads to the trace the
# directory holds, and every reply that breaks the protocol's bounds to
# "ttv: net://...: message N: what", exit 1, without a hang.
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
tmp=$(mktemp -d)
mock=""
stop_mock() {
	[ -n "$mock" ] && kill "$mock" 2>/dev/null && wait "$mock" 2>/dev/null
	mock=""
}
trap 'stop_mock; rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
export XDG_CACHE_HOME="$tmp/cache"

"$TTV_BUILDDIR/tests/gen/ctfgen" -i -p -n 300 -P 4096 "$tmp/trace" >/dev/null ||
    { echo "FAIL: ctfgen"; exit 1; }
"$TTV" --stats --tsv "$tmp/trace" >"$tmp/stats.dir" || fail "--stats on the trace"

# A trace whose threads move from one stream to the other (as between
# CPUs): a row of a stream behind the others may come before rows of its
# thread already in.
"$TTV_BUILDDIR/tests/gen/ctfgen" -i -p -n 300 -P 4096 -m 5 "$tmp/moving" \
    >/dev/null || { echo "FAIL: ctfgen -m"; exit 1; }

# start SCENARIO [TRACE]: the mock relay in the background, $url its
# session.
start() {
	rm -f "$tmp/port" "$tmp/port.go"
	python3 "$TTV_SRCDIR/tests/formats/live/live_mock_relay.py" "$1" \
	    "${2:-$tmp/trace}" "$tmp/port" &
	mock=$!
	i=0
	until [ -s "$tmp/port" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || { fail "$1: the mock relay did not start"; return 1; }
		sleep 0.05
	done
	relay=net://127.0.0.1:$(cat "$tmp/port")
	url=$relay/host/mockhost/mocksession
}

# run WANT_RC ARGS...: ttv, its outputs in $tmp/out and $tmp/err.
run() {
	want=$1; shift
	"$TTV" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq "$want" ] || fail "$scenario: exit $rc, want $want: $(head -c 600 "$tmp/err")"
	# (an ASan build's reports end in exit 1 too)
	! grep -q "Sanitizer\|runtime error" "$tmp/err" ||
	    fail "$scenario: $(grep -m 3 "Sanitizer\|runtime error" "$tmp/err")"
}

# The conversations that end with the whole trace.
for scenario in base new-streams new-metadata hup reconnect; do
	start $scenario || continue
	run 0 --stats --tsv "$url"
	cmp -s "$tmp/out" "$tmp/stats.dir" ||
	    fail "$scenario: --stats differs from the directory's: $(diff "$tmp/out" "$tmp/stats.dir" | head -n 4)"
	case $scenario in
	hup)
		grep -q "^ttv: $url: session ended\$" "$tmp/err" ||
		    fail "hup: no 'session ended': $(cat "$tmp/err")" ;;
	reconnect)
		grep -q "^ttv: $url: the relay closed the connection (GET_NEXT_INDEX), reconnecting (1 of 3)\$" "$tmp/err" ||
		    fail "reconnect: no message: $(cat "$tmp/err")"
		grep -q "^ttv: $url: reconnected\$" "$tmp/err" ||
		    fail "reconnect: no 'reconnected': $(cat "$tmp/err")" ;;
	*)
		[ -s "$tmp/err" ] && fail "$scenario: said $(cat "$tmp/err")" ;;
	esac
	stop_mock
done

# The mirror is the relay's layout: metadata, streams, index/*.idx.
m=$tmp/cache/ttv/live/127.0.0.1-$(cat "$tmp/port")/mockhost/mocksession/mockhost/mocksession-20250101-000000/ust/uid/0/64-bit
for f in metadata chan_0 chan_1 index/chan_0.idx index/chan_1.idx; do
	[ -f "$m/$f" ] || fail "mirror: no $f in $m"
done
cmp -s "$m/metadata" "$tmp/trace/metadata" || fail "mirror: metadata differs"
cmp -s "$m/chan_0" "$tmp/trace/chan_0" || fail "mirror: chan_0 differs"

# The session list: sessions of one host and name made one (streams
# added), a name's control characters escaped.
scenario=list
start list && {
	run 0 --info "$relay"
	printf '%s\n' \
	    "$relay/host/mockhost/mocksession (timer = 10000, 5 stream(s), 1 client(s) connected)" \
	    "$relay/host/other/s\\e[31m (timer = 10000, 5 stream(s), 0 client(s) connected)" \
	    >"$tmp/want"
	cmp -s "$tmp/out" "$tmp/want" || fail "list: $(cat "$tmp/out")"
	run 1 --stats "$relay"
	grep -q "a relay without a session" "$tmp/err" || fail "list: $(cat "$tmp/err")"
	stop_mock
}

# Damage: what is wrong, which message, exit 1.
check() {
	scenario=$1 pattern=$2
	shift 2
	start "$scenario" || return
	run 1 "$@" "$url"
	grep -q -- "^ttv: $url: $pattern" "$tmp/err" ||
	    fail "$scenario: message: $(head -c 600 "$tmp/err")"
	if LC_ALL=C grep -q "$(printf '\033')" "$tmp/out" "$tmp/err"; then
		fail "$scenario: a raw control character"
	fi
	stop_mock
}
check bad-major "message 1: the relay speaks the live protocol 3.13, ttv 2.4" --info
check bad-session-count "message 3: 1000000000 sessions listed, over the limit of 16384" --info
check bad-string "message 3: session 1 of 1: host name of 64 bytes without its end" --info
check bad-stream-count "message 4: 1000000000 streams announced, over the limit of 16384" --info
check bad-metadata-len "message 5: metadata of 1099511627776 bytes over the limit of 64 MiB" --info
check bad-packet-size "message [0-9]*: GET_NEXT_INDEX of stream 1: packet size of 1099511627776 bytes over the limit of 64 MiB" --stats
check bad-content-size "message [0-9]*: GET_NEXT_INDEX of stream 1: content size of 32776 bits over the packet size of 32768 bits" --stats
check bad-packet-len "message [0-9]*: GET_PACKET: 4097 bytes where 4096 were asked" --stats
check unknown-status "message [0-9]*: unknown GET_NEXT_INDEX status 77 of stream 1" --stats
check truncated "message [0-9]*: the relay closed the connection (GET_NEXT_INDEX) and ttv gave up after 3 reconnections" --stats
check gone "message [0-9]*: the relay closed the connection (GET_NEXT_INDEX) and ttv gave up after 3 reconnections: cannot connect: Connection refused; what was read is kept" --stats
# What came before the relay went away is read.
[ "$(wc -l <"$tmp/out")" -gt 1 ] || fail "gone: nothing read: $(cat "$tmp/out")"
grep -q "^ttv: $url: the relay closed the connection (GET_NEXT_INDEX), reconnecting (1 of 3)" "$tmp/err" ||
    fail "gone: no reconnection said: $(cat "$tmp/err")"
# A relay that stops answering: the timeout, not a hang.
TTV_LIVE_TIMEOUT=300 check stall "message 8: no reply to GET_NEXT_INDEX within 300 ms" --stats

# --follow: rows are printed while the session records (the relay gives
# the second half of the packets only once the test says so, by
# creating port.go), and the session's end ends ttv with status 0; what
# was printed is the finished trace's rows, each once. With threads
# moving between streams, a row is told only once every stream is there
# up to its time (the time merge's horizon): none is lost.
for trace in trace moving; do
scenario=follow-$trace
start follow "$tmp/$trace" && {
	# emptied first: the loop below may look before the shell of the
	# follower truncates it, and must not see an earlier run's rows
	: >"$tmp/out"
	"$TTV" --follow --search . --tsv "$url" >"$tmp/out" 2>"$tmp/err" &
	follower=$!
	i=0
	while [ "$(wc -l <"$tmp/out")" -lt 2 ] && [ $i -lt 600 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	[ "$(wc -l <"$tmp/out")" -ge 2 ] ||
	    fail "$scenario: no row while the session records: $(cat "$tmp/err")"
	kill -0 $follower 2>/dev/null ||
	    fail "$scenario: ttv ended before the session did"
	half=$(wc -l <"$tmp/out")
	touch "$tmp/port.go"
	wait $follower
	rc=$?
	[ $rc -eq 0 ] || fail "$scenario: exit $rc, want 0: $(head -c 600 "$tmp/err")"
	"$TTV" --search . --tsv "$tmp/$trace" >"$tmp/fin"
	cut -f 2- "$tmp/out" | sort >"$tmp/a"
	cut -f 2- "$tmp/fin" | sort >"$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" ||
	    fail "$scenario: rows differ from the trace's: $(diff "$tmp/a" "$tmp/b" | head -n 4)"
	[ "$half" -lt "$(wc -l <"$tmp/fin")" ] ||
	    fail "$scenario: every row came before the second half was sent"
	grep -q "^ttv: $url: session ended\$" "$tmp/err" ||
	    fail "$scenario: no 'session ended': $(cat "$tmp/err")"
	! grep -q "Sanitizer\|runtime error" "$tmp/err" ||
	    fail "$scenario: $(grep -m 3 "Sanitizer\|runtime error" "$tmp/err")"
	stop_mock
}
done

# A quiet stream: the last stream writes one packet and then only
# INACTIVE beacons (at the newest time the relay has) until the session
# ends. The beacons move the time merge past it: every row the session
# has is printed while it still records, not at its end. The rows it has
# are those of a first run whose session ends at once (port.go made
# before ttv starts).
scenario=quiet
start quiet "$tmp/moving" && {
	touch "$tmp/port.go"
	run 0 --follow --search . --tsv "$url"
	cut -f 2- "$tmp/out" | sort >"$tmp/want"
	stop_mock
}
start quiet "$tmp/moving" && {
	# emptied first: the loop below may look before the shell of the
	# follower truncates it, and must not see an earlier run's rows
	: >"$tmp/out"
	"$TTV" --follow --search . --tsv "$url" >"$tmp/out" 2>"$tmp/err" &
	follower=$!
	want=$(wc -l <"$tmp/want")
	i=0
	while [ "$(wc -l <"$tmp/out")" -lt "$want" ] && [ $i -lt 300 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	got=$(wc -l <"$tmp/out")
	kill -0 $follower 2>/dev/null ||
	    fail "quiet: ttv ended before the session did"
	[ "$got" -ge "$want" ] ||
	    fail "quiet: $got lines while the stream is quiet, want $want: rows held back"
	touch "$tmp/port.go"
	wait $follower
	rc=$?
	[ $rc -eq 0 ] || fail "quiet: exit $rc, want 0: $(head -c 600 "$tmp/err")"
	cut -f 2- "$tmp/out" | sort >"$tmp/a"
	cmp -s "$tmp/a" "$tmp/want" ||
	    fail "quiet: rows differ from the session's: $(diff "$tmp/a" "$tmp/want" | head -n 4)"
	stop_mock
}

[ $fails -eq 0 ] && echo "PASS: live_mock" || exit 1

#!/bin/sh
# The CTF reader decodes streams ahead on worker threads (large traces
# only, unless TTV_CTF_PIPE_MIN says otherwise), and the calls of
# cyg-profile traces are kept per stream and thread and built after the
# walk, threads spread over the cores: whatever the threads' timing, the
# model must be the one a single thread makes with every call taken in
# the merged walk (TTV_CTF_CALLS=walk, serial). Here the same traces are
# read that way, serially with the calls kept apart, with workers, and
# with tiny batches (many batch boundaries, packets split across
# batches), and everything ttv says must be the same: --info, --stats,
# the chrome-json export, the decoded events in babeltrace2's layout and
# every message, in order. Traces: ctfgen's in both byte orders, both
# header kinds, with sample events (values copied into batches), with
# discarded events, with a damaged packet (the error must come where the
# walk meets it) and with an index to resume past it (its message too);
# and the real traces of ../shared when they are there.
set -u
: "${TTV:?}" "${TTV_BUILDDIR:?}"
gen="$TTV_BUILDDIR/tests/gen/ctfgen"
dump="$TTV_BUILDDIR/tests/tools/ctf_text_dump"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-ctf-threads.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
checked=0

# run MODE OUT ARGS...: ttv or the dump, serial or with workers
run() {
	mode=$1 out=$2
	shift 2
	case $mode in
	walk) TTV_CTF_CALLS=walk TTV_CTF_PIPE_MIN=999999999999 "$@" \
	    >"$out" 2>&1 ;;
	serial) TTV_CTF_PIPE_MIN=999999999999 "$@" >"$out" 2>&1 ;;
	workers) TTV_CTF_PIPE_MIN=0 "$@" >"$out" 2>&1 ;;
	tiny) TTV_CTF_PIPE_MIN=0 TTV_CTF_BATCH=3 "$@" >"$out" 2>&1 ;;
	esac
	echo "exit $?" >>"$out"
}

same() {	# NAME TRACE [ttv options]
	name=$1 trace=$2
	shift 2
	for what in info stats export dump; do
		for mode in walk serial workers tiny; do
			o="$tmp/$name.$what.$mode"
			case $what in
			info) run "$mode" "$o" "$TTV" --info "$@" "$trace" ;;
			stats) run "$mode" "$o" "$TTV" --stats --tsv "$@" \
			    "$trace" ;;
			export) run "$mode" "$o" "$TTV" --export chrome-json \
			    "$@" "$trace" ;;
			dump) run "$mode" "$o" "$dump" "$trace" ;;
			esac
		done
		for mode in serial workers tiny; do
			if ! cmp -s "$tmp/$name.$what.walk" \
			    "$tmp/$name.$what.$mode"; then
				echo "FAIL: $name: $what differs with $mode:"
				diff "$tmp/$name.$what.walk" \
				    "$tmp/$name.$what.$mode" | head -5
				fails=$((fails + 1))
			fi
		done
	done
	checked=$((checked + 1))
}

"$gen" -n 3000 -t 5 -s 11 "$tmp/le-large" >/dev/null &&
	same le-large "$tmp/le-large"
"$gen" -b -c -n 3000 -t 6 -s 12 -d 3 "$tmp/be-compact" >/dev/null &&
	same be-compact-discards "$tmp/be-compact"
"$gen" -n 20000 -t 8 -S 0 -T 2000 -s 13 "$tmp/pure" >/dev/null &&
	same pure-function-trace "$tmp/pure"

# A packet of chan_0 in the middle with its magic zeroed: the stream ends
# there (error at that offset), or, with the index, resumes after it.
"$gen" -n 3000 -t 4 -s 14 -i -L "$tmp/packets" "$tmp/dmg" >/dev/null || exit 1
off=$(awk '$1 == "chan_0" { n++; if (n == 3) print $2 }' "$tmp/packets")
if [ -n "$off" ]; then
	printf '\000\000\000\000' | dd of="$tmp/dmg/chan_0" bs=1 seek="$off" \
	    conv=notrunc 2>/dev/null
	same damaged-with-index "$tmp/dmg"
	rm -rf "$tmp/dmg/index"
	same damaged "$tmp/dmg"
	grep -q "offset $off" "$tmp/damaged.info.workers" ||
		{ echo "FAIL: damaged: no error at offset $off"; fails=$((fails + 1)); }
else
	echo "FAIL: ctfgen -L listed no third packet of chan_0"
	fails=$((fails + 1))
fi

if [ -n "${TTV_SHARED:-}" ] && [ -d "$TTV_SHARED/traces/ctf" ]; then
	lt="$TTV_SHARED/traces/ctf"
	same lttng-cyg-profile "$lt/lttng-ust-cyg-profile/trace" \
	    --sysroot "$lt/lttng-ust-cyg-profile/sysroot"
	same lttng-tracepoints "$lt/lttng-ust-tracepoints/trace"
	same babeltrace-suite "$lt/babeltrace/succeed"
else
	echo "note: ../shared not found: its real traces are not compared"
fi

echo "$checked traces read the same in the walk, apart, with workers; $fails failures"
[ "$fails" -eq 0 ]

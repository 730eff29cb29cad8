#!/bin/sh
# CTF traces large in what the metadata does not count: data streams,
# trace directories, traced binaries -- written by
# tests/gen/hostile_ctf_meta.py. Each once cost memory or time in the
# square of its count (every stream walked at each packet to report
# progress, 18 KB of buffers and a decoder's slots per stream, per-stream
# arrays indexed by every thread's or function's number, each binary
# looked up among all, each directory among all met), and is held to the
# budget of the README and ttv(1): peak RSS <= 64 MiB + 16 x the input,
# at most 10 s.
set -u
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
# Tens of thousands of files and directories are made and removed: on a
# memory file system when there is one with room (unless TMPDIR says
# where), as a disk under load may take minutes over them.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	avail=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
	if [ "${avail:-0}" -ge 1048576 ]; then
		TMPDIR=/dev/shm
		export TMPDIR
	fi
fi
. "$TTV_SRCDIR/tests/lib/budget.sh"
gen="python3 $TTV_SRCDIR/tests/gen/hostile_ctf_meta.py"

# KIND N [BINARY]: the trace made in $tmp/t.
make_trace() {
	rm -rf "$tmp/t"
	kind=$1 n=$2
	shift 2
	$gen "$kind" "$tmp/t" "$n" "$@" 2>"$tmp/gen.err" ||
	    fail "$kind: not generated: $(head -3 "$tmp/gen.err")"
}

# NAME RECORD: the trace read with --info; RECORD (a line of the records
# it counts) says it was read whole.
read_trace() {
	budget "$1" "$tmp/t" 0 "" --info
	grep -q "^  $2\$" "$tmp/out" ||
	    fail "$1: no '$2' in: $(sed -n '/^records/,/^markers/p' \
	    "$tmp/out" | head -4)"
}

# 20,000 stream files of one packet, each with LTTng's index: 363 MB and
# 13 s, from the progress summing every stream's position at each packet
# and 18 KB of batches, decoder state and slots per stream.
make_trace tsdl-files 20000
read_trace "tsdl-files 20000" "e0: 20000"
# ... and in the 2010 RFC layout, a section each.
make_trace rfc-files 20000
read_trace "rfc-files 20000" "e0: 20000"
# Cyg-profile calls, one per stream, of threads and functions of their
# own: each stream's arrays by thread, function and event class number
# grew with every stream's before it (1.4 GB), the calls read apart from
# the walk or in it.
make_trace tsdl-cyg-files 20000
read_trace "tsdl-cyg-files 20000" "lttng_ust_cyg_profile:func_entry: 20000"
TTV_CTF_CALLS=walk
export TTV_CTF_CALLS
read_trace "tsdl-cyg-files 20000 (in the walk)" \
    "lttng_ust_cyg_profile:func_exit: 20000"
unset TTV_CTF_CALLS
# ... one thread's calls in 20,000 streams: its runs scanned at each call
# (11 s).
make_trace tsdl-cyg-thread 20000
read_trace "tsdl-cyg-thread 20000" "lttng_ust_cyg_profile:func_exit: 20000"
# ... a stream class each: events counted per stream and class (2 GB).
make_trace tsdl-cyg-classes 10000
read_trace "tsdl-cyg-classes 10000" "lttng_ust_cyg_profile:func_entry: 10000"
# 50,000 processes loading a binary each: each statedump event looked
# for its binary among all, each function's address too (16 s).
make_trace tsdl-bins 50000
read_trace "tsdl-bins 50000" "lttng_ust_statedump:bin_info: 50000"
# 5,000 processes loading the same binary (ttv itself): its symbols read
# once for each (240 MB).
make_trace tsdl-bins 5000 "$TTV"
read_trace "tsdl-bins 5000 of one binary" "lttng_ust_statedump:bin_info: 5000"
# 150,000 directories beside a trace: each looked for among those met
# before, in the probe's walk and the reader's (14-20 s).
make_trace tsdl-dirs 150000
read_trace "tsdl-dirs 150000" "e0: 1"
rm -rf "$tmp/t"

finish "CTF streams, directories and binaries within the budget"

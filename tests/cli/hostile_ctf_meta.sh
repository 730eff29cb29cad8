#!/bin/sh
# CTF metadata large in one dimension -- classes, members, labels, types,
# sections -- in each of the three front ends (TSDL, CTF 2's JSON, the
# 2010 RFC layout), written by tests/gen/hostile_ctf_meta.py. Each once
# cost memory or time in the square of its count (an array copied into
# the arena at every item, a look-up walking every name); each is held
# to the budget of the README and ttv(1): peak RSS <= 64 MiB + 16 x the
# input, at most 10 s. Types that expand past the metadata's share of
# the budget are refused with a message.
set -u
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
. "$TTV_SRCDIR/tests/lib/budget.sh"
gen="python3 $TTV_SRCDIR/tests/gen/hostile_ctf_meta.py"

# KIND N WANT_RC MESSAGE_RE RECORD: the trace made, read with --info;
# RECORD (a line of the records it counts) says it was read whole.
case_of() {
	kind=$1 n=$2 rec=$5
	$gen "$kind" "$tmp/$kind" "$n" || { fail "$kind: not generated"; return; }
	budget "$kind $n" "$tmp/$kind" "$3" "$4" --info
	[ -z "$rec" ] || grep -q "^  $rec\$" "$tmp/out" ||
	    fail "$kind $n: no '$rec' in: $(sed -n '/^records/,/^markers/p' \
	    "$tmp/out" | head -4)"
	rm -rf "$tmp/$kind"
}

# KIND N SQL WANT: the same, and one row of a query over what was read
# (the labels of enum values and variant tags).
query_of() {
	kind=$1 n=$2 sql=$3 row=$4
	$gen "$kind" "$tmp/$kind" "$n" || { fail "$kind: not generated"; return; }
	budget "$kind $n" "$tmp/$kind" 0 "" --tsv --query "$sql"
	grep -q "^$row\$" "$tmp/out" ||
	    fail "$kind $n: want '$row', got: $(head -3 "$tmp/out")"
	rm -rf "$tmp/$kind"
}

# CTF 2: each clock, data stream or event record class copied the array
# of them into the arena: 10,000 clock classes (640 KB) took 3.4 GiB,
# 30,000 stream classes and 100,000 event classes (8 MB) ran out of it.
case_of ctf2-clocks 10000 0 "" "e0: 1"
case_of ctf2-streams 30000 0 "" "e0: 1"
case_of ctf2-events 100000 0 "" "e99999: 1"
# ... and each member was checked against every one before it: 72,000
# members took 12 s (alike names: more), as did finding the length of
# each of 36,000 dynamic-length arrays among them.
case_of ctf2-members 72000 0 "" "e0: 1"
case_of ctf2-lengths 72000 0 "" "e0: 1"
# A variant of 70,000 options: each of its values walked the options.
query_of ctf2-options 70000 \
    "select key, display_value, count(*) from args where key = 'sel'" \
    "sel	69999	350000"
# Aliases of structures of the last one: 8^8 members from 3.5 KB.
case_of ctf2-laughs 8 1 "its types expand to more than 32 MiB" ""

# TSDL: a struct of 100,000 members (1.7 MB) took 22 s; 50,000 sequences
# each finding its length among them more.
case_of tsdl-members 100000 0 "" "e0: 1"
case_of tsdl-lengths 100000 0 "" "e0: 1"
# Clocks, stream classes and env entries copied into the arena at each:
# 20,000 clocks (0.5 MB), 30,000 stream classes, 30,000 env entries
# each ran out of memory; 20,000 integers mapped to clocks each walked
# the clocks by name.
case_of tsdl-clocks 20000 0 "" "e0: 1"
case_of tsdl-clockmaps 20000 0 "" "e0: 1"
case_of tsdl-streams 30000 0 "" "e0: 1"
case_of tsdl-env 30000 0 "" "e0: 1"
# 30,000 cyg-profile entry classes, each looking for `vpid` in an env of
# 300,000 entries.
case_of tsdl-cyg-env 30000 0 "" "lttng_ust_cyg_profile:func_entry: 1"
# An enum of 300,000 labels: each value walked them; a variant of
# 100,000 options tagged by one: each label walked the options, and each
# event the labels.
query_of tsdl-enum 300000 \
    "select key, display_value, count(*) from args group by key" \
    "e	l299999	600000"
query_of tsdl-variant 100000 \
    "select key, display_value, count(*) from args where key = 'tag'" \
    "tag	l99999	100000"
# 70,000 event classes of sparse ids: each event walked them.
case_of tsdl-sparse 70000 0 "" "e146798542848: 210000"
# An event header's id enum of 100,000 labels in reverse order: finding
# how many ids are compact took the square of them (27 s).
case_of tsdl-header 100000 0 "" "e0: 1"
# Typedefs of structs of the last one: 8^9 fields from 1 KB.
case_of tsdl-laughs 9 1 "its types expand to more than 32 MiB" ""

# The 2010 RFC layout: the events of a section copied at each (20,000:
# 1.56 GiB), 100,000 fields (2.3 MB) and 50,000 type declarations each
# checked against all before them (22 s, 14-17 s), 30,000 sections each
# with its own copy of the packet and event headers (over the budget),
# 50,000 event context fields copied at each.
case_of rfc-events 20000 0 "" "e0: 1"
case_of rfc-members 100000 0 "" "e0: 1"
case_of rfc-types 50000 0 "" "e0: 1"
case_of rfc-sections 30000 0 "" "e0: 1"
case_of rfc-context 50000 0 "" "e0: 1"

finish "CTF metadata within the budget"

#!/bin/sh
# Function ids and names read by ttv's instrumentation-map reader against
# `llvm-xray extract --symbolize`, on:
#   1. the committed fixtures in tests/data/instrmap (C and C++),
#   2. fixtures rebuilt here with clang (when clang is installed),
#   3. the binaries of ../shared/traces/xray (when ../shared is there);
#      `typed` has a typed-event sled that llvm-xray 14 refuses, so ttv's
#      ids are checked against what its program is known to contain.
# Parts whose tools or data are missing are skipped; all missing = exit 77.
set -u

dump=${TTV_BUILDDIR:-.}/tests/tools/instrmap_dump
data=${TTV_SRCDIR:-.}/tests/data/instrmap
XRAY=${LLVM_XRAY:-$(command -v llvm-xray-14 || command -v llvm-xray || true)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/instrmap.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
ran=0

# Demangled names are only expected when ttv was built with libiberty.
demangles=no
if grep -q '^#define HAVE_CPLUS_DEMANGLE 1' "${TTV_BUILDDIR:-.}/config.h" 2>/dev/null; then
	demangles=yes
fi

# llvm_ids BIN: "ID<TAB>NAME" per function id, from llvm-xray's YAML.
llvm_ids() {
	"$XRAY" extract --symbolize "$1" |
	sed -n 's/^- { id: \([0-9]*\), .* function-name: \(.*\), version: [0-9]* }$/\1	\2/p' |
	awk -F '\t' '!seen[$1]++ {
		name = $2
		if (name ~ /^'\''.*'\''$/) {	# YAML single-quoted
			name = substr(name, 2, length(name) - 2)
			gsub(/'\'\''/, "'\''", name)
		}
		print $1 "\t" name
	}'
}

# compare WHAT BIN: ttv's ids and names must be llvm-xray's
compare() {
	what=$1; bin=$2
	ran=$((ran + 1))
	if ! "$dump" "$bin" > "$tmp/ttv.txt" 2> "$tmp/ttv.err"; then
		echo "FAIL: $what: ttv cannot read the map: $(cat "$tmp/ttv.err")"
		fail=1
		return
	fi
	if ! llvm_ids "$bin" > "$tmp/llvm.txt" || [ ! -s "$tmp/llvm.txt" ]; then
		echo "FAIL: $what: llvm-xray gave no ids"
		fail=1
		return
	fi
	if cmp -s "$tmp/ttv.txt" "$tmp/llvm.txt"; then
		echo "ok: $what: $(wc -l < "$tmp/ttv.txt") ids and names as llvm-xray"
	else
		echo "FAIL: $what: differs from llvm-xray extract --symbolize:"
		diff "$tmp/llvm.txt" "$tmp/ttv.txt" | head -20
		fail=1
	fi
}

# expect WHAT BIN "1<TAB>name" ...: ttv's ids must be exactly these
expect() {
	what=$1; bin=$2; shift 2
	ran=$((ran + 1))
	printf '%s\n' "$@" > "$tmp/want.txt"
	if "$dump" "$bin" > "$tmp/ttv.txt" 2> "$tmp/ttv.err" &&
	    cmp -s "$tmp/ttv.txt" "$tmp/want.txt"; then
		echo "ok: $what: ids $(cut -f2 "$tmp/ttv.txt" | tr '\n' ' ')"
	else
		echo "FAIL: $what: expected:"; cat "$tmp/want.txt"
		echo "got:"; cat "$tmp/ttv.txt" "$tmp/ttv.err"
		fail=1
	fi
}

T="$(printf '\t')"

# --- 1. committed fixtures ----------------------------------------------------
# prog-c has typed-event sleds: llvm-xray 14 refuses it, ttv must not.
expect "prog-c (kind-5 sleds)" "$data/prog-c" \
	"1${T}fact" "2${T}scaled" "3${T}square" "4${T}announce" "5${T}main"
if [ -n "$XRAY" ]; then
	if [ $demangles = yes ]; then
		compare "prog-cxx" "$data/prog-cxx"
	else
		echo "skip: prog-cxx names: ttv built without libiberty's demangler"
	fi
else
	echo "skip: llvm-xray not installed: no comparison with it"
fi

# --- 2. rebuilt with clang ------------------------------------------------------
if [ -n "$XRAY" ] && command -v clang > /dev/null 2>&1 &&
    command -v clang++ > /dev/null 2>&1; then
	mkdir "$tmp/notyped" "$tmp/typed"
	if FIXTURE_CFLAGS=-DNO_TYPED_EVENT sh "$data/make-fixtures.sh" "$tmp/notyped" &&
	    sh "$data/make-fixtures.sh" "$tmp/typed"; then
		compare "rebuilt prog-c" "$tmp/notyped/prog-c"
		[ $demangles = yes ] && compare "rebuilt prog-cxx" "$tmp/notyped/prog-cxx"
		# The typed-event sled changes nothing in the ids and names.
		llvm_ids "$tmp/notyped/prog-c" > "$tmp/llvm.txt"
		set --
		while IFS= read -r line; do set -- "$@" "$line"; done < "$tmp/llvm.txt"
		expect "rebuilt prog-c with typed events" "$tmp/typed/prog-c" "$@"
	else
		echo "FAIL: cannot rebuild the fixtures with clang"
		fail=1
	fi
else
	echo "skip: clang or llvm-xray not installed: fixtures not rebuilt"
fi

# --- 3. the shared corpus ---------------------------------------------------------
x=${TTV_SHARED:-}/traces/xray
if [ -n "${TTV_SHARED:-}" ] && [ -d "$x" ]; then
	expect "shared typed" "$x/typed" \
		"1${T}main" "2${T}note" "3${T}checkpoint" "4${T}filler"
	if [ -n "$XRAY" ]; then
		for b in threads recurse args events tailcall; do
			compare "shared $b" "$x/$b"
		done
	fi
else
	echo "SKIP: ../shared not found (shared corpus part)"
fi

[ $ran -eq 0 ] && exit 77
exit $fail

#!/bin/sh
# Writes what ttv answers about every trace it can find into OUTDIR, so two
# builds can be compared byte for byte (a change that should not change
# behaviour, such as moving code):
#   TTV=build/ttv sh tests/tools/outputs.sh OUTDIR
#   diff -r OUTDIR-before OUTDIR-after
# For each trace of $TTV_SHARED/traces (files, and CTF trace directories)
# and of tests/data: --info, --stats --tsv, --export chrome-json,
# --export collapsed and --tree --tsv, each with its exit status and
# stderr.
set -u
: "${TTV:?}"
out=${1:?usage: outputs.sh OUTDIR}
src=$(cd "$(dirname "$0")/../.." && pwd)
shared=${TTV_SHARED:-$src/../shared}
mkdir -p "$out"

list() {
	for root in "$shared/traces" "$src/tests/data"; do
		[ -d "$root" ] || continue
		# CTF: every directory holding a metadata file, as one trace.
		find "$root" -name metadata -type f | sed 's|/metadata$||'
		# Everything else: files that are not part of a CTF trace and
		# not the oracles' or generators' own files.
		find "$root" -type f ! -name metadata ! -name '*.txt' \
		    ! -name '*.json' ! -name '*.expected' ! -name '*.expect' \
		    ! -name '*.sh' ! -name '*.py' ! -name '*.md' ! -name '*.c' \
		    ! -name '*.cc' ! -name '*.h' ! -name '*.tsdl' \
		    ! -name '*.idx' ! -path '*/index/*' | while read -r f; do
			d=$(dirname "$f")
			[ -f "$d/metadata" ] || echo "$f"
		done
	done | sort -u
}

n=0
list | while read -r t; do
	name=$(echo "$t" | sed "s|^$shared/||; s|^$src/||; s|/|__|g")
	for mode in info stats chrome collapsed tree; do
		case $mode in
		info) set -- --info ;;
		stats) set -- --stats --tsv ;;
		chrome) set -- --export chrome-json ;;
		collapsed) set -- --export collapsed ;;
		tree) set -- --tree --tsv ;;
		esac
		"$TTV" "$@" "$t" >"$out/$name.$mode" 2>"$out/$name.$mode.err"
		echo "exit $?" >>"$out/$name.$mode.err"
	done
	n=$((n + 1))
	echo "$n" >"$out/.count"
done
echo "$(cat "$out/.count" 2>/dev/null || echo 0) traces, 5 outputs each, in $out"

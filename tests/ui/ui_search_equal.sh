#!/bin/sh
# The viewer's / and `ttv --search` find the same matches: for a few
# patterns on three traces, the counts the viewer says (matches, functions,
# log records) are the counts of --search's rows, and the first match the
# viewer jumps to is --search's first row.
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
drv="$TTV_BUILDDIR/tests/ui/ui_screen"
[ -x "$drv" ] || { echo "SKIP: tests/ui/ui_screen was not built (no libvterm)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-search.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
"$drv" --make-fxt "$tmp/ui.fxt" || exit 1
fails=0

plural() { [ "$1" -eq 1 ] && echo "$2" || echo "$3"; }

check() {
	trace=$1 pattern=$2
	"$TTV" --search "$pattern" --tsv "$trace" >"$tmp/rows" 2>/dev/null ||
	    { echo "FAIL: --search $pattern"; fails=$((fails + 1)); return; }
	n=$(tail -n +2 "$tmp/rows" | awk -F'\t' '$4 != "log"' | wc -l)
	l=$(tail -n +2 "$tmp/rows" | awk -F'\t' '$4 == "log"' | wc -l)
	m=$(tail -n +2 "$tmp/rows" | awk -F'\t' '$4 != "log" { print $5 }' |
	    sort -u | wc -l)
	msg="/$pattern/: $n $(plural "$n" match matches) in $m $(plural "$m" function functions)"
	[ "$l" -gt 0 ] && msg="$msg, $l $(plural "$l" "log record" "log records")"
	cat >"$tmp/s.scr" <<EOS
size 250 30
start $trace
wait [Timeline]
key /
type $pattern
key <Enter>
wait $msg
quit
EOS
	if ! (cd "$tmp" && TTV="$TTV" "$drv" "$tmp/s.scr" >"$tmp/log" 2>&1); then
		echo "FAIL: viewer and --search differ on /$pattern/ in $trace"
		echo "  --search: $msg"
		grep -m1 'never appeared' "$tmp/log"
		sed -n '$p' "$tmp/log"
		fails=$((fails + 1))
	else
		echo "ok: /$pattern/ $n matches, $l log records"
	fi
}

check "$tmp/ui.fxt" 'tok'
check "$tmp/ui.fxt" 'boom|red'
check "$tmp/ui.fxt" 'TOK'
full="$TTV_SRCDIR/tests/data/fxt/full.fxt"
[ -f "$full" ] && { check "$full" 'e'; check "$full" 'handle|c_'; }
demo="$TTV_SRCDIR/demo/xray-log.demo.sample"
[ -f "$demo" ] && { check "$demo" 'blur'; check "$demo" 'quantize'; }
[ $fails -eq 0 ] || exit 1
echo "PASS: the viewer's / and --search agree"

#!/bin/sh
# One road to a loaded trace for every mode: a trace that is read but
# refused (--strict on damage, --thread of a tid it lacks) gets from the
# viewer, which opened the terminal before the load (headless tmux), the
# same messages and exit status as from --info, once each.
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}"
if ! command -v tmux >/dev/null 2>&1; then
	echo "SKIP: needs tmux"
	exit 77
fi
demo="$TTV_SRCDIR/demo/xray-log.demo.sample"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-open.XXXXXX") || exit 1
sock="ttv-open-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
head -c 30000 "$demo" >"$tmp/cut.xray"

# viewer NAME ARGS...: runs the viewer in tmux until it ends, its stderr
# and exit status in $tmp/NAME.view
viewer() {
	name=$1; shift
	: >"$tmp/$name.view"
	tmux -L "$sock" -f /dev/null new-session -d -x 80 -y 24 \
	    "env TERM=tmux-256color LANG=C.UTF-8 XDG_STATE_HOME='$tmp' \
	    '$TTV' $* 2>'$tmp/$name.err'; echo \"exit \$?\" >>'$tmp/$name.err'; \
	    mv '$tmp/$name.err' '$tmp/$name.view'"
	i=0
	while [ ! -s "$tmp/$name.view" ] && [ "$i" -lt 1000 ]; do
		sleep 0.01 2>/dev/null || sleep 1
		i=$((i + 1))
	done
}

for case in "strict:--strict $tmp/cut.xray" "thread:--thread 99999 $demo"; do
	name=${case%%:*} args=${case#*:}
	viewer "$name" "$args"
	"$TTV" --info $args >/dev/null 2>"$tmp/$name.info"
	echo "exit $?" >>"$tmp/$name.info"
	grep -q "^exit 1$" "$tmp/$name.info" || fail "$name: --info: $(cat "$tmp/$name.info")"
	cmp -s "$tmp/$name.view" "$tmp/$name.info" ||
	    fail "$name: the viewer says '$(cat "$tmp/$name.view")', --info '$(cat "$tmp/$name.info")'"
done
[ "$fails" -eq 0 ] || exit 1
echo "PASS: the viewer's refused load said as --info says it"

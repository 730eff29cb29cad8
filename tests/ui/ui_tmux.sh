#!/bin/sh
# Smoke test of ttv in headless tmux, the way people run it over SSH:
# starts, moves, suspends with Ctrl-Z and comes back with fg, quits and
# leaves a working shell. Polls the screen with a timeout, never a fixed
# sleep. Uses a private tmux socket and kills only that server.
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
if ! command -v tmux >/dev/null 2>&1; then
	echo "SKIP: tmux not installed"
	exit 77
fi
shell=$(command -v bash || true)
if [ -z "$shell" ]; then
	echo "SKIP: bash (for job control) not installed"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-tmux.XXXXXX") || exit 1
sock="ttv-ui-test-$$"
cleanup() {
	tmux -L "$sock" kill-server >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

if [ -x "$TTV_BUILDDIR/tests/ui/ui_screen" ]; then
	"$TTV_BUILDDIR/tests/ui/ui_screen" --make-fxt "$tmp/ui.fxt" || exit 1
	trace="$tmp/ui.fxt"
	first=main-thread
elif [ -f "$TTV_SRCDIR/demo/xray-log.demo.sample" ]; then
	trace="$TTV_SRCDIR/demo/xray-log.demo.sample"
	first=worker
else
	echo "SKIP: no trace to show (no libvterm driver, no demo)"
	exit 77
fi

# wait_for TEXT [absent]: poll the pane for up to 10 s.
wait_for() {
	i=0
	while [ $i -lt 100 ]; do
		if tmux -L "$sock" capture-pane -p -t ui >"$tmp/screen" 2>/dev/null; then
			if [ "${2:-}" = absent ]; then
				grep -qF -- "$1" "$tmp/screen" || return 0
			else
				grep -qF -- "$1" "$tmp/screen" && return 0
			fi
		fi
		sleep 0.1
		i=$((i + 1))
	done
	echo "FAIL: waiting for '$1' ${2:-}"
	cat "$tmp/screen"
	exit 1
}

tmux -L "$sock" -f /dev/null new-session -d -s ui -x 100 -y 30 \
    "env -u LINES -u COLUMNS TERM=tmux-256color LANG=C.UTF-8 TZ=UTC PS1='ready\$ ' $shell --norc --noprofile -i" ||
    { echo "SKIP: tmux cannot start a session here"; exit 77; }
wait_for 'ready$'
tmux -L "$sock" send-keys -t ui "$TTV $trace" Enter
wait_for "$first"
wait_for "[Timeline]"
tmux -L "$sock" send-keys -t ui j
wait_for "path     "

# Ctrl-Z gives the terminal back to the shell; fg restores the viewer.
tmux -L "$sock" send-keys -t ui C-z
wait_for "[Timeline]" absent
wait_for 'ready$'
tmux -L "$sock" send-keys -t ui "fg" Enter
wait_for "[Timeline]"
wait_for "path     "

# q leaves a clean terminal: the shell echoes what is typed again.
tmux -L "$sock" send-keys -t ui q
wait_for "[Timeline]" absent
tmux -L "$sock" send-keys -t ui "echo back-in-shell-\$((40+2))" Enter
wait_for "back-in-shell-42"

# Ctrl-C also leaves cleanly, with status 0.
tmux -L "$sock" send-keys -t ui "$TTV $trace; echo status=\$?" Enter
wait_for "[Timeline]"
tmux -L "$sock" send-keys -t ui C-c
wait_for "status=0"
wait_for "[Timeline]" absent

# A trace that shrinks while the viewer loads it: the message, status 1,
# and a terminal the shell can use (TTV_TEST_SHRINK cuts it once mapped).
if [ -f "$TTV_SRCDIR/tests/data/fxt/full.fxt" ]; then
	cp "$TTV_SRCDIR/tests/data/fxt/full.fxt" "$tmp/shrink.fxt"
	tmux -L "$sock" send-keys -t ui "clear; TTV_TEST_SHRINK=1 $TTV $tmp/shrink.fxt; echo status=\$?" Enter
	wait_for "changed while being read"
	wait_for "status=1"
	tmux -L "$sock" send-keys -t ui "echo sane-\$((6*7))" Enter
	wait_for "sane-42"
fi

# A pane shrunk under the viewer (200x50 to 80x24) is repainted whole:
# the header, lane headings and the ruler, with no Ctrl-L.
tmux -L "$sock" resize-window -t ui -x 200 -y 50
tmux -L "$sock" send-keys -t ui "clear; $TTV $trace" Enter
wait_for "[Timeline]"
wait_for "$first"
tmux -L "$sock" resize-window -t ui -x 80 -y 24
wait_for "$first"
i=0
while [ $i -lt 50 ]; do
	tmux -L "$sock" capture-pane -p -t ui >"$tmp/screen"
	head -n 1 "$tmp/screen" | grep -q '^ttv .*\[Timeline\]' &&
	    sed -n 2p "$tmp/screen" | grep -q '^+0 ns' && break
	sleep 0.1
	i=$((i + 1))
done
if [ $i -ge 50 ]; then
	echo "FAIL: header or ruler blank after shrinking the pane"
	cat "$tmp/screen"
	exit 1
fi
tmux -L "$sock" send-keys -t ui q
wait_for "[Timeline]" absent
echo "PASS: start, move, Ctrl-Z, fg, q, Ctrl-C, shrink"
exit 0

#!/bin/sh
# The viewer shows its loading progress on the status line: a trace big
# enough to take a while to load (a 256 MB XRay log from the project's
# writer), opened in headless tmux, must show "loading FILE: N%  ... MB/s"
# before the timeline, and then the timeline without it. And the same log
# as the base of :diff in a viewer on a small one: loaded on the worker,
# its progress in the comparison's pane while the viewer answers keys, Esc
# stops it.
set -u
: "${TTV:?}" "${TTV_BUILDDIR:?}"
gen="$TTV_BUILDDIR/tests/gen/xraygen"
if ! command -v tmux >/dev/null 2>&1 || [ ! -x "$gen" ]; then
	echo "SKIP: needs tmux and tests/gen/xraygen"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-load.XXXXXX") || exit 1
sock="ttv-load-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
"$gen" -B 268435456 "$tmp/big.fdr" >/dev/null || exit 1
cd "$tmp" || exit 1
tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 30 \
    "env TERM=tmux-256color LANG=C.UTF-8 '$TTV' big.fdr; sleep 30"

# poll PATTERN SECONDS: until the pane shows PATTERN (an ERE)
poll() {
	i=0
	while [ "$i" -lt $(($2 * 200)) ]; do
		if tmux -L "$sock" capture-pane -p 2>/dev/null |
		    grep -Eq "$1"; then
			return 0
		fi
		sleep 0.005 2>/dev/null || sleep 1
		i=$((i + 1))
	done
	return 1
}

if ! poll 'loading big\.fdr: +[0-9]+%  [0-9]+ of [0-9]+ MB  [0-9]+ MB/s' 20; then
	echo "FAIL: no progress line while loading"
	tmux -L "$sock" capture-pane -p | tail -3
	exit 1
fi
if ! poll '\[Timeline\]' 60; then
	echo "FAIL: the timeline never came"
	exit 1
fi
if tmux -L "$sock" capture-pane -p | grep -q "loading big.fdr"; then
	echo "FAIL: the progress line stayed after loading"
	exit 1
fi
tmux -L "$sock" send-keys q
echo "PASS: progress shown while loading, then the timeline"

"$gen" -B 1048576 "$tmp/small.fdr" >/dev/null || exit 1
# a server of its own: the first one may still be on its way out
tmux -L "$sock" kill-server 2>/dev/null
sock="ttv-diff-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 30 \
    "env TERM=tmux-256color LANG=C.UTF-8 '$TTV' --no-state small.fdr; sleep 30"
if ! poll '\[Timeline\]' 20; then
	echo "FAIL: the small trace's timeline never came"
	exit 1
fi
tmux -L "$sock" send-keys ':diff big.fdr' Enter
if ! poll 'loading big\.fdr: +[0-9]+% of [0-9]+ MB \(Esc stops\)' 20; then
	echo "FAIL: no progress of the base's load in the comparison's pane"
	tmux -L "$sock" capture-pane -p | head -3
	exit 1
fi
tmux -L "$sock" send-keys Escape
if ! poll 'the load of big\.fdr stopped' 5 || ! poll 'no base trace' 5; then
	echo "FAIL: Esc did not stop the base's load"
	tmux -L "$sock" capture-pane -p | head -3
	exit 1
fi
tmux -L "$sock" send-keys q
echo "PASS: :diff loads its base on the worker with its progress; Esc stops it"

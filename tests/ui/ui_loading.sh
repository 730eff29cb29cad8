#!/bin/sh
# The viewer shows its loading progress on the status line: a trace big
# enough to take a while to load (a 256 MB XRay log from the project's
# writer), opened in headless tmux, must show "loading FILE: N%  ... MB/s"
# before the timeline, and then the timeline without it.
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

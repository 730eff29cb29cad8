#!/bin/sh
# The viewer's state between sessions (ui/state.c): saved on quitting,
# restored on the next start, skipped with --no-state, and a state file
# that is damaged, hostile or foreign ignored as a whole with a message.
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
drv="$TTV_BUILDDIR/tests/ui/ui_screen"
if [ ! -x "$drv" ]; then
	echo "SKIP: tests/ui/ui_screen was not built (no libvterm)"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-state.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
XDG_STATE_HOME="$tmp/state"
export TTV TTV_SRCDIR XDG_STATE_HOME
scr="$TTV_SRCDIR/tests/ui/state"
fails=0
run() {
	if "$drv" "$scr/$1.scr"; then
		echo "PASS: $2"
	else
		echo "FAIL: $2"
		fails=$((fails + 1))
	fi
}

run save "a session saves its state"
file=$(ls "$XDG_STATE_HOME"/ttv/*.state 2>/dev/null)
if [ "$(echo "$file" | wc -w)" -ne 1 ]; then
	echo "FAIL: one state file under \$XDG_STATE_HOME/ttv: $file"
	exit 1
fi
grep -q "^range " "$file" || { echo "FAIL: no range saved"; fails=$((fails + 1)); }
grep -q "^mark a " "$file" || { echo "FAIL: no bookmark saved"; fails=$((fails + 1)); }
cp "$file" "$tmp/good"
run restore "the next session restores it"
cp "$file" "$tmp/before"
run fresh "--no-state starts afresh"
cmp -s "$file" "$tmp/before" || { echo "FAIL: --no-state changed the state file"; fails=$((fails + 1)); }

# Each damage alone, on the good file: the viewer ignores the file.
damage() {
	name=$1
	cp "$tmp/good" "$file"
	shift
	"$@"
	run ignored "ignored: $name"
}
damage "a window outside the trace" sed -i 's/^window .*/window 1 2/' "$file"
damage "an unknown setting" sh -c "echo 'format c:' >> '$file'"
damage "a bookmark on a call the trace lacks" sed -i 's/^mark a \(.*\)$/mark a \1 999 0 0/' "$file"
damage "a number that overflows" sed -i 's/^range .*/range 1 99999999999999999999999/' "$file"
damage "a function the trace lacks" sh -c "echo 'function no_such_function' >> '$file'"
damage "another trace's file" sed -i 's/^trace \([0-9]*\)/trace 1\1/' "$file"
damage "not a state file" sh -c "printf '\\033[2J\\377\\000garbage' > '$file'"
damage "larger than 1 MiB" sh -c "head -c 2000000 /dev/zero | tr '\\0' 'x' > '$file'"
damage "a FIFO" sh -c "rm -f '$file' && mkfifo '$file'"
rm -f "$file"
cp "$tmp/good" "$file"
run restore "a sound file is still restored after all that"
[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "PASS"

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
damage "columns of a pane without any" sh -c "echo 'columns timeline count' >> '$file'"
damage "a column the pane lacks" sh -c "echo 'columns functions count,colour' >> '$file'"
damage "no column shown" sh -c "echo 'columns calls ' >> '$file'"
damage "another trace's file" sed -i 's|^trace \([0-9]*\) \([0-9]*\) |trace \1 \2 /elsewhere|' "$file"
damage "not a state file" sh -c "printf '\\033[2J\\377\\000garbage' > '$file'"
damage "larger than 1 MiB" sh -c "head -c 2000000 /dev/zero | tr '\\0' 'x' > '$file'"
damage "a FIFO" sh -c "rm -f '$file' && mkfifo '$file'"
rm -f "$file"
cp "$tmp/good" "$file"
run restore "a sound file is still restored after all that"

# A FIFO where the temporary file went: the viewer quits all the same.
# (Where it would hang, the FIFO is opened for reading once the driver
# gave up, so that the blocked ttv ends.)
STATE_FILE=$file
export STATE_FILE
if timeout 60 "$drv" "$scr/fifo.scr"; then
	echo "PASS: a FIFO at the temporary name"
else
	echo "FAIL: a FIFO at the temporary name"
	fails=$((fails + 1))
fi
for f in "$file".*.tmp; do
	[ -p "$f" ] || continue
	timeout 10 cat "$f" >/dev/null
	rm -f "$f"
done
ls "$XDG_STATE_HOME"/ttv/ | grep -v '\.state$' | grep -q . &&
    { echo "FAIL: files left: $(ls "$XDG_STATE_HOME"/ttv/)"; fails=$((fails + 1)); }
grep -q "^window " "$file" ||
    { echo "FAIL: no state saved beside the FIFO"; fails=$((fails + 1)); }

# A trace path with a newline in it: saved, and restored.
nl="$tmp/new
line"
mkdir "$nl"
cp "$TTV_SRCDIR/demo/xray-log.demo.sample" "$TTV_SRCDIR/demo/demo" "$nl/"
NLTRACE="$nl/xray-log.demo.sample"
export NLTRACE
run nl_save "a trace with a newline in its path: saved"
run nl_restore "a trace with a newline in its path: restored"

# A zoomed window: the next session's cursor is inside it. The same trace
# rewritten (another time stamp) keeps one state file, replaced, and its
# old state is not restored.
mkdir "$tmp/zoom"
cp "$TTV_SRCDIR/demo/xray-log.demo.sample" "$TTV_SRCDIR/demo/demo" "$tmp/zoom/"
ZTRACE="$tmp/zoom/xray-log.demo.sample"
export ZTRACE
run zoom_save "a zoomed window: saved"
run zoom_restore "a zoomed window: the cursor restored inside it"
touch -d '2001-02-03 04:05:06' "$ZTRACE"
run zoom_changed "the trace rewritten: its old state not restored"
n=$(grep -l "^trace .*/zoom/xray-log\.demo\.sample$" \
    "$XDG_STATE_HOME"/ttv/*.state | wc -l)
if [ "$n" -ne 1 ]; then
	echo "FAIL: a rewritten trace has $n state files, not 1"
	fails=$((fails + 1))
else
	echo "PASS: a rewritten trace keeps one state file"
fi

# A log being written (--follow): saved, and restored by the next
# session that follows it, although it grew since (what is restored is
# not a time of one read: ui/state.h).
"$TTV_BUILDDIR/tests/gen/cpgen" --seed 3 --lines 4000 --mode instrumentation \
    --summary none --out "$tmp/full.tracelog" || exit 1
GTRACE="$tmp/grow.tracelog"
export GTRACE
head -c 40000 "$tmp/full.tracelog" >"$GTRACE"
run follow_save "a log being written: saved"
head -c 100000 "$tmp/full.tracelog" | tail -c +40001 >>"$GTRACE"
run follow_restore "a log being written, grown since: restored"

# 1 MiB of function lines on a trace of 80,000 functions: ignored at once.
if command -v python3 >/dev/null 2>&1; then
	BIGTRACE="$tmp/funcs.fxt"
	export BIGTRACE
	python3 "$TTV_SRCDIR/tests/gen/hostile.py" fxt-funcs "$BIGTRACE" 80000
	run open "a trace of 80,000 functions"
	big=$(grep -l "^trace .*/funcs\.fxt$" "$XDG_STATE_HOME"/ttv/*.state)
	if [ -f "$big" ]; then
		awk 'BEGIN { for (i = 0; n < 1048576 - 1024; i++) {
		    l = "function f" (i % 80000); print l; n += length(l) + 1 } }' \
		    >>"$big"
		run lines "1 MiB of function lines"
	else
		echo "FAIL: no state saved for $BIGTRACE"
		fails=$((fails + 1))
	fi
fi
[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "PASS"

#!/bin/sh
# Trace directories a stranger could hand over: the walk reads each trace
# once however links loop, never follows a link out of the tree, never
# waits on a FIFO, and says what it did not read. Built from the project's
# fixture tests/data/ctf/le-large.
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}"
src="$TTV_SRCDIR/tests/data/ctf/le-large"
[ -d "$src" ] || { echo "SKIP: no fixture $src"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-ctf-dirs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

mkdir -p "$tmp/t/sub"
cp -r "$src" "$tmp/t/sub/trace"
"$TTV" --info "$tmp/t" >"$tmp/plain" 2>/dev/null || fail "the plain copy loads"
slices=$(sed -n 's/^slices: //p' "$tmp/plain")
[ -n "$slices" ] || fail "no slice count"

# Loops: a link to the directory itself, to its parent, and two more.
ln -s . "$tmp/t/loop"
ln -s .. "$tmp/t/sub/up"
ln -s ../.. "$tmp/t/sub/trace/upup"
ln -s "$tmp/t" "$tmp/t/sub/abs"
# Special files and bad links beside the streams.
mkfifo "$tmp/t/sub/trace/fifo_0" 2>/dev/null
ln -s /nonexistent "$tmp/t/sub/trace/dangling_0"
echo secret-bytes-never-shown >"$tmp/outside"
ln -s "$tmp/outside" "$tmp/t/sub/trace/outside_0"
mkdir "$tmp/t/sub/trace/dir_0"

timeout 20 "$TTV" --info "$tmp/t" >"$tmp/info" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "exit $rc with loops and special files: $(head -3 "$tmp/err")"
[ "$(sed -n 's/^  traces: //p' "$tmp/info")" = 1 ] ||
    fail "the trace is read once: $(grep 'traces:' "$tmp/info")"
[ "$(sed -n 's/^slices: //p' "$tmp/info")" = "$slices" ] ||
    fail "same slices as the plain copy"
if [ -p "$tmp/t/sub/trace/fifo_0" ]; then
	grep -q "fifo_0: .*a FIFO" "$tmp/info" || fail "the FIFO is said"
fi
grep -q "dangling_0: .*dangling link" "$tmp/info" || fail "the dangling link is said"
grep -q "outside_0: .*outside the trace" "$tmp/info" || fail "the link out is said"
grep -q "secret-bytes" "$tmp/info" "$tmp/err" && fail "bytes of a file outside were shown"

# A big tree with no trace (/usr: the system's own files, tens of
# thousands): the bounded walk answers within seconds. (Not /: whatever
# traces this machine holds would be read, and that takes their time.)
if [ -d /usr ]; then
	start=$(date +%s)
	timeout 60 "$TTV" --info /usr >/dev/null 2>&1
	end=$(date +%s)
	[ $((end - start)) -le 30 ] || fail "ttv /usr took $((end - start)) s"
fi

[ $fails -eq 0 ] || exit 1
echo "PASS: loops, FIFOs, dangling and outside links, a big tree walked"

#!/bin/sh
# The index as a user meets it (doc/index-format.md, ttv(1) THE INDEX):
# built, reused, rebuilt with one line saying why when it is truncated,
# damaged, incomplete, of another format version, or when its trace
# changed or grew (not read on: an XRay FDR log, a CTF stream added with
# packets before what was read); a damaged block met on first touch;
# two processes building it at once; a cache directory that cannot be written;
# --no-index; one index for every spelling of a trace's path (./t, t,
# a symbolic link); eviction of the least recently used indexes past
# TTV_CACHE_MAX and of the indexes of traces that are gone; a trace that
# reads fast left without one unless asked; a CTF directory held to every
# file of it. The traces come from the project's writers (xraygen,
# ctfgen).
set -u
: "${TTV:?}" "${TTV_BUILDDIR:?}"
tmp=$(mktemp -d)
cleanup() {
	chattr -i "$tmp/ro" 2>/dev/null
	umount "$tmp/full" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
unset TTV_CACHE_MAX
cache=$XDG_CACHE_HOME/ttv
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

gen() { "$TTV_BUILDDIR/tests/gen/xraygen" -B "$2" "$1" >/dev/null || exit 1; }
# index_line TRACE [OPTION...]: the "index:" line of --info
index_line() {
	t=$1
	shift
	"$TTV" --info "$@" "$t" 2>"$tmp/err" | grep '^index:'
}
index_file() { ls "$cache"/*.ttvi 2>/dev/null | head -1; }
# the trace's answers, to compare with --no-index
answers() {
	"$TTV" "$@" --stats --tsv "$t0" 2>/dev/null
	"$TTV" "$@" --tree --tsv "$t0" 2>/dev/null
}
# patch FILE OFFSET BYTES: overwrites bytes in place
patch() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null; }

t0=$tmp/a.fdr
gen "$t0" 3000000
answers --no-index >"$tmp/want"

# --no-index neither reads nor writes one
index_line "$t0" --no-index | grep -q '^index: none (--no-index)$' ||
    fail "--no-index: $(index_line "$t0" --no-index)"
[ -z "$(index_file)" ] || fail "--no-index wrote an index"
"$TTV" --index --no-index --info "$t0" >/dev/null 2>&1
[ $? = 2 ] || fail "--index with --no-index is not a usage error"

# a trace that reads fast gets none unless asked, and --info says so
gen "$tmp/small.fdr" 200000
env -u TTV_NO_INDEX "$TTV" --info "$tmp/small.fdr" 2>"$tmp/err" |
    grep -q '^index: skipped: the trace reads fast (--index makes one)$' ||
    fail "fast trace: $(env -u TTV_NO_INDEX "$TTV" --info "$tmp/small.fdr" |
    grep '^index')"
[ -s "$tmp/err" ] && fail "fast trace: said $(cat "$tmp/err")"
[ -z "$(index_file)" ] || fail "a trace that reads fast got an index"
rm -f "$tmp/small.fdr"

# built (asked for: the trace reads fast), then used
index_line "$t0" --index | grep -q "^index: built $cache/a.fdr-.*\.ttvi ([0-9]* bytes)" ||
    fail "not built: $(index_line "$t0" --index)"
f=$(index_file)
[ -n "$f" ] || fail "no index file in $cache"
index_line "$t0" --index | grep -q "^index: used $f (" ||
    fail "not used: $(index_line "$t0" --index)"
# without --index (and without TTV_NO_INDEX) an index there is used
env -u TTV_NO_INDEX "$TTV" --info "$t0" | grep -q "^index: used" ||
    fail "an index there is not used without --index"
answers --index | cmp -s - "$tmp/want" || fail "answers differ with the index"
# built straight into the file (as when memory is short): the same
rm -f "$cache"/*
TTV_INDEX_STORE=1 index_line "$t0" --index | grep -q '^index: built' ||
    fail "not built into the file: $(TTV_INDEX_STORE=1 index_line "$t0" --index)"
answers --index | cmp -s - "$tmp/want" ||
    fail "answers differ with an index built into the file"

# every spelling of the path shares the index: relative, ./, through a
# directory's .., a symbolic link; the model speaks of the path as given
ln -s a.fdr "$tmp/link.fdr"
mkdir "$tmp/sub"
for p in a.fdr ./a.fdr sub/../a.fdr link.fdr "$t0"; do
	line=$(cd "$tmp" && "$TTV" --index --info "$p" 2>/dev/null)
	echo "$line" | grep -q "^index: used $f (" ||
	    fail "$p: $(echo "$line" | grep '^index:')"
	echo "$line" | grep -qx "file: $p" ||
	    fail "$p: $(echo "$line" | grep '^file:')"
	(cd "$tmp" && "$TTV" --index --stats --tsv "$p" 2>/dev/null &&
	    "$TTV" --index --tree --tsv "$p" 2>/dev/null) |
	    cmp -s - "$tmp/want" || fail "$p: answers differ"
done
[ "$(ls "$cache" | wc -l)" = 1 ] ||
    fail "spellings of one path keep $(ls "$cache" | wc -l) indexes"
rm -r "$tmp/link.fdr" "$tmp/sub"

# rebuilt: expect_rebuilt WHAT REASON (after damaging the index)
expect_rebuilt() {
	line=$(index_line "$t0" --index)
	echo "$line" | grep -q "^index: rebuilt .*: .*$2" ||
	    fail "$1: $line"
	grep -q "index rebuilt: .*$2" "$tmp/err" ||
	    fail "$1: no message on stderr: $(cat "$tmp/err")"
	[ "$(grep -c 'index rebuilt\|without an index' "$tmp/err")" = 1 ] ||
	    fail "$1: not one line: $(cat "$tmp/err")"
	answers --index | cmp -s - "$tmp/want" ||
	    fail "$1: answers differ after the rebuild"
}

size=$(wc -c <"$f")
truncate -s $((size / 2)) "$f"
expect_rebuilt truncated "truncated"

f=$(index_file)
patch "$f" 16 '\007'
expect_rebuilt "foreign version" "another version of ttv"

f=$(index_file)
off=$(grep -obUa COMPLETE "$f" | head -1 | cut -d: -f1)
patch "$f" "$off" 'X'
expect_rebuilt incomplete "incomplete"

f=$(index_file)
size=$(wc -c <"$f")
patch "$f" $((size - 8)) '\377'
expect_rebuilt "damaged table" "damaged"

# slices damaged: found at open by the modes that read every call...
f=$(index_file)
patch "$f" $((4096 + 16 * 4096 * 2 + 4)) '\377\377'
"$TTV" --index --tree --tsv "$t0" >/dev/null 2>"$tmp/err"
grep -q "index rebuilt: .*slices damaged" "$tmp/err" ||
    fail "slices damaged, --tree: $(cat "$tmp/err")"
# ... and on first touch by --stats (over a range: the whole trace's
# table is stored and reads no call): exit 1, said, index removed
f=$(index_file)
patch "$f" $((4096 + 16 * 4096 * 2 + 4)) '\377\377'
"$TTV" --index --stats --range 0.. "$t0" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" = 1 ] || fail "damage met on first touch: exit $rc"
grep -q "its index was damaged" "$tmp/err" ||
    fail "damage met on first touch: $(cat "$tmp/err")"
[ -z "$(index_file)" ] || fail "a damaged index is kept"
index_line "$t0" --index | grep -q '^index: built' ||
    fail "not built again after damage"

# the trace changed: rewritten, then grown
cp "$t0" "$tmp/copy"
gen "$t0" 2000000
answers --no-index >"$tmp/want"
expect_rebuilt "trace rewritten" "a.fdr changed size"
head -c 1000 "$t0" >>"$t0"
answers --no-index >"$tmp/want"
expect_rebuilt "trace grown" "the trace grew"

# two processes building the same new index at once: one whole index,
# no file left behind
rm -f "$cache"/*
gen "$t0" 3000000
for i in 1 2 3; do
	"$TTV" --index --stats "$t0" >"$tmp/c$i" 2>"$tmp/c$i.err" &
done
wait
for i in 1 2 3; do
	cmp -s "$tmp/c1" "$tmp/c$i" || fail "concurrent build $i: output differs"
	[ -s "$tmp/c$i.err" ] && fail "concurrent build $i: $(cat "$tmp/c$i.err")"
done
[ "$(ls -A "$cache" | wc -l)" = 1 ] || fail "concurrent builds left: $(ls -A "$cache")"
index_line "$t0" --index | grep -q '^index: used' ||
    fail "concurrent builds: index not used: $(index_line "$t0" --index)"

# a cache directory that cannot be written: read without, said once
mkdir -p "$tmp/ro/ttv"
ro_ok=0
if [ "$(id -u)" = 0 ]; then
	chattr +i "$tmp/ro/ttv" 2>/dev/null && ro_ok=1
else
	chmod 500 "$tmp/ro/ttv" && ro_ok=1
fi
if [ "$ro_ok" = 1 ]; then
	XDG_CACHE_HOME=$tmp/ro "$TTV" --index --stats --tsv "$t0" \
	    >"$tmp/out" 2>"$tmp/err"
	[ $? = 0 ] || fail "read-only cache: exit status"
	"$TTV" --no-index --stats --tsv "$t0" 2>/dev/null | cmp -s - "$tmp/out" ||
	    fail "read-only cache: answers differ"
	[ "$(wc -l <"$tmp/err")" = 1 ] &&
	    grep -q "warning: read without an index: $tmp/ro/ttv: " "$tmp/err" ||
	    fail "read-only cache: $(cat "$tmp/err")"
	chattr -i "$tmp/ro/ttv" 2>/dev/null
	chmod 700 "$tmp/ro/ttv"
else
	echo "SKIP: read-only cache directory (cannot make one)"
fi
# a full one (a tiny file system, when this runs as root)
mkdir -p "$tmp/full"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=256k none "$tmp/full" 2>/dev/null; then
	XDG_CACHE_HOME=$tmp/full "$TTV" --index --stats --tsv "$t0" \
	    >"$tmp/out" 2>"$tmp/err"
	[ $? = 0 ] || fail "full cache: exit status"
	"$TTV" --no-index --stats --tsv "$t0" 2>/dev/null | cmp -s - "$tmp/out" ||
	    fail "full cache: answers differ"
	grep -q "warning: read without an index: .*No space left" "$tmp/err" ||
	    fail "full cache: $(cat "$tmp/err")"
	[ -z "$(ls -A "$tmp/full/ttv")" ] || fail "full cache: left $(ls -A "$tmp/full/ttv")"
	umount "$tmp/full"
else
	echo "SKIP: full cache directory (needs root for a small tmpfs)"
fi

# eviction: three traces, room for two indexes; least recently used
# goes first
rm -f "$cache"/*
for n in x y z w; do gen "$tmp/$n.fdr" 1000000; done
one=$("$TTV" --index --info "$tmp/x.fdr" |
    sed -n 's/^index: built .* (\([0-9]*\) bytes).*/\1/p')
sleep 0.01
"$TTV" --index --info "$tmp/y.fdr" >/dev/null
export TTV_CACHE_MAX=$((one * 5 / 2))
sleep 0.01
"$TTV" --index --info "$tmp/x.fdr" | grep -q '^index: used' || fail "x not used"
sleep 0.01
"$TTV" --index --info "$tmp/z.fdr" >/dev/null
ls "$cache" | grep -q '^x\.fdr-' || fail "eviction: the most recently used went"
ls "$cache" | grep -q '^z\.fdr-' || fail "eviction: the new one went"
ls "$cache" | grep -q '^y\.fdr-' && fail "eviction: the least recently used stayed"
unset TTV_CACHE_MAX
# the index of a trace that is gone is dropped at the next build
rm "$tmp/x.fdr"
"$TTV" --index --info "$tmp/w.fdr" >/dev/null
ls "$cache" | grep -q '^x\.fdr-' && fail "the index of a removed trace stayed"
ls "$cache" | grep -q '^z\.fdr-' || fail "an index of a trace still there went"
# a stack so deep that an index would cost more than it saves: none
"$TTV_BUILDDIR/tests/gen/xraygen" -N 200000 deep "$tmp/deep.fdr" >/dev/null
index_line "$tmp/deep.fdr" --index | grep -q '^index: skipped: the trace is 200000 depths deep' ||
    fail "deep stack: $(index_line "$tmp/deep.fdr" --index)"
# TTV_CACHE_MAX=0: none kept
TTV_CACHE_MAX=0 index_line "$tmp/y.fdr" --index | grep -q '^index: skipped: TTV_CACHE_MAX is 0' ||
    fail "TTV_CACHE_MAX=0: $(TTV_CACHE_MAX=0 index_line "$tmp/y.fdr" --index)"

# A CTF directory is every file of it: the metadata, each stream and
# LTTng's index/*.idx. A file modified, grown, added or removed: rebuilt,
# the line naming it.
rm -f "$cache"/*
t0=$tmp/ctf
"$TTV_BUILDDIR/tests/gen/ctfgen" -i -n 20000 -t 3 "$t0" >/dev/null || exit 1
[ -f "$t0/metadata" ] && [ -f "$t0/chan_1" ] && [ -d "$t0/index" ] ||
    fail "ctfgen wrote: $(ls -R "$t0")"
answers --no-index >"$tmp/want"
index_line "$t0" --index | grep -q "^index: built $cache/ctf-.*\.ttvi (" ||
    fail "CTF: not built: $(index_line "$t0" --index)"
index_line "$t0" --index | grep -q '^index: used' ||
    fail "CTF: not used: $(index_line "$t0" --index)"
answers --index | cmp -s - "$tmp/want" || fail "CTF: answers differ"
for p in ./ctf/ ctf; do
	(cd "$tmp" && "$TTV" --index --info "$p" 2>/dev/null) |
	    grep -q '^index: used' || fail "CTF: $p: not used"
	(cd "$tmp" && "$TTV" --index --stats --tsv "$p" 2>/dev/null &&
	    "$TTV" --index --tree --tsv "$p" 2>/dev/null) |
	    cmp -s - "$tmp/want" || fail "CTF: $p: answers differ"
done
touch -d '2001-02-03 04:05:06' "$t0/chan_1"
expect_rebuilt "CTF stream touched" "ctf/chan_1 was modified"
touch -d '2001-02-03 04:05:06' "$t0/metadata"
expect_rebuilt "CTF metadata touched" "ctf/metadata was modified"
idx=$(ls "$t0"/index/* | head -1)
touch -d '2001-02-03 04:05:06' "$idx"
expect_rebuilt "CTF index file touched" "$(basename "$idx") was modified"
cp "$t0/chan_1" "$t0/chan_9"
answers --no-index >"$tmp/want"
expect_rebuilt "CTF stream added" "the trace grew"
rm "$t0/chan_9"
answers --no-index >"$tmp/want"
expect_rebuilt "CTF stream removed" "ctf/chan_9 is gone"
# a stream cut short: its size differs
size=$(wc -c <"$t0/chan_0")
truncate -s $((size - 1)) "$t0/chan_0"
answers --no-index >"$tmp/want"
expect_rebuilt "CTF stream cut" "ctf/chan_0 changed size"
[ "$(ls "$cache" | wc -l)" = 1 ] ||
    fail "CTF: rebuilds left $(ls "$cache")"

exit $((fails > 0))

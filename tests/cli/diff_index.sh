#!/bin/sh
# ttv --diff from the two traces' persistent indexes (doc/index-format.md):
# the same rows as without them, by function and by path, over a range,
# through the gate; each index checked on first touch, so damage met in
# one is said of its own trace ("ttv: FILE: its index was damaged..."),
# that index removed and its trace read again, the rows still those of
# the traces (base first when both are damaged); an index rebuilt at open
# said of its trace. The traces come from the project's writer (xraygen:
# a base run, and a changed one).
set -u
: "${TTV:?}" "${TTV_BUILDDIR:?}"
xraygen="$TTV_BUILDDIR/tests/gen/xraygen"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
unset TTV_CACHE_MAX
cache=$XDG_CACHE_HOME/ttv
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# patch FILE OFFSET BYTES: overwrites bytes in place
patch() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null; }
index_of() { ls "$cache/$1"-*.ttvi 2>/dev/null | head -1; }
# damage NAME: two bytes of slices past the index's header (a block of
# the first large depth), found only when that block is read
damage() { patch "$(index_of "$1")" $((4096 + 16 * 4096 * 2 + 4)) '\377\377'; }

a=$tmp/a.fdr b=$tmp/b.fdr
"$xraygen" -B 3000000 "$a" >/dev/null && "$xraygen" -X -B 3000000 "$b" \
    >/dev/null || { echo "FAIL: xraygen"; exit 1; }

# the rows of each diff without any index
diffs() {
	"$TTV" "$@" --diff "$a" --tsv "$b"
	"$TTV" "$@" --diff "$a" --by path --tsv "$b"
	"$TTV" "$@" --diff "$a" --range 0.. --tsv "$b"
}
diffs --no-index >"$tmp/want" 2>"$tmp/err" || fail "--no-index: exit $?"
[ "$(wc -l <"$tmp/want")" -gt 20 ] || fail "few rows: $(wc -l <"$tmp/want")"

"$TTV" --index --info "$a" >/dev/null && "$TTV" --index --info "$b" \
    >/dev/null || fail "indexes not built"
[ -n "$(index_of a.fdr)" ] && [ -n "$(index_of b.fdr)" ] ||
    fail "no index: $(ls "$cache")"

# from the indexes: the same rows, nothing said, both indexes used
diffs --index >"$tmp/out" 2>"$tmp/err" || fail "indexed: exit $?"
cmp -s "$tmp/out" "$tmp/want" || fail "indexed: rows differ"
[ -s "$tmp/err" ] && fail "indexed: said $(cat "$tmp/err")"
"$TTV" --index --info "$b" | grep -q '^index: used' ||
    fail "index not kept: $("$TTV" --index --info "$b" | grep '^index')"
TTV_INDEX_CHECK=all diffs --index | cmp -s - "$tmp/want" ||
    fail "TTV_INDEX_CHECK=all: rows differ"

# expect_reread WANT_RC WANT_ERR ARGS...: one diff by path over a range
# (checked on first touch: a diff by path of the whole traces checks
# both indexes at open) after damage, its exit status, its stderr whole
expect_reread() {
	want_rc=$1 want_err=$2
	shift 2
	"$TTV" --index --diff "$a" --by path --range 0.. --tsv "$@" "$b" \
	    >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = "$want_rc" ] || fail "--diff $*: exit $rc, want $want_rc"
	[ "$(cat "$tmp/err")" = "$want_err" ] ||
	    fail "--diff $*: said '$(cat "$tmp/err")', want '$want_err'"
}
said() { echo "ttv: $1: its index was damaged: the index is removed, the trace is read again"; }
"$TTV" --no-index --diff "$a" --by path --range 0.. --tsv "$b" \
    >"$tmp/want_path"

# the new trace's index damaged: said of it, read again, the same rows
damage b.fdr
old_a=$(index_of a.fdr)
expect_reread 0 "$(said "$b")"
cmp -s "$tmp/out" "$tmp/want_path" || fail "new damaged: rows differ"
[ "$(index_of a.fdr)" = "$old_a" ] || fail "new damaged: the base's index went"
"$TTV" --index --info "$b" | grep -q '^index: used' ||
    fail "new damaged: not built again"

# the base's
damage a.fdr
expect_reread 0 "$(said "$a")"
cmp -s "$tmp/out" "$tmp/want_path" || fail "base damaged: rows differ"

# both: the base first
damage a.fdr
damage b.fdr
expect_reread 0 "$(said "$a")
$(said "$b")"
cmp -s "$tmp/out" "$tmp/want_path" || fail "both damaged: rows differ"

# the gate decides on the rows read again: exit 3, the offenders after
damage b.fdr
"$TTV" --no-index --diff "$a" --by path --range 0.. --fail-above 20 "$b" \
    >/dev/null 2>"$tmp/gate"
[ $? = 3 ] || fail "gate without the index: not 3"
expect_reread 3 "$(said "$b")
$(cat "$tmp/gate")" --fail-above 20
cmp -s "$tmp/out" "$tmp/want_path" || fail "gate: rows differ"

# damage found at open (a table; the slices by a diff by path of the
# whole traces): the index rebuilt, said of its trace
"$TTV" --no-index --diff "$a" --by path --tsv "$b" >"$tmp/want_path"
f=$(index_of b.fdr)
size=$(wc -c <"$f")
patch "$f" $((size - 8)) '\377'
damage a.fdr
"$TTV" --index --diff "$a" --by path --tsv "$b" >"$tmp/out" 2>"$tmp/err" ||
    fail "damaged at open: exit $?"
grep -q "^ttv: $a: index rebuilt: .*slices damaged" "$tmp/err" ||
    fail "slices damaged at open: said '$(cat "$tmp/err")'"
grep -q "^ttv: $b: index rebuilt: .*damaged" "$tmp/err" ||
    fail "table damaged: said '$(cat "$tmp/err")'"
[ "$(wc -l <"$tmp/err")" = 2 ] || fail "damaged at open: $(cat "$tmp/err")"
cmp -s "$tmp/out" "$tmp/want_path" || fail "damaged at open: rows differ"

[ $fails -eq 0 ] || exit 1
echo "PASS: --diff from the indexes"

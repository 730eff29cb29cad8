#!/bin/sh
# The layers, from the ground up: the core (src/), the readers (formats/),
# the viewer (ui/), the program (cli/). No #include and no call runs from
# a layer to one above it: every quoted include of a layer's file names a
# header of its own layer or one below, and no object of a layer's
# library needs a symbol that only a higher layer defines (nm).
set -u
: "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
cd "$TTV_SRCDIR" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

layer() {
	case $1 in
	src/*) echo 1 ;; formats/*) echo 2 ;; ui/*) echo 3 ;; cli/*) echo 4 ;;
	*) echo 0 ;;
	esac
}
files=$(find src formats ui cli -name '*.[ch]' -o -name '*.def' | sort)
[ -n "$files" ] || { echo "SKIP: no sources"; exit 77; }
# every header by its name (the build searches every layer's folders)
for f in $files; do
	case $f in *.h|*.def) echo "$(basename "$f") $(layer "$f") $f" ;; esac
done >"${TMPDIR:-/tmp}/ttv-layers.$$"
trap 'rm -f "${TMPDIR:-/tmp}/ttv-layers.$$"' EXIT
for f in $files; do
	lf=$(layer "$f")
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		hl=$(awk -v b="$(basename "$inc")" '$1 == b { print $2 " " $3 }' \
		    "${TMPDIR:-/tmp}/ttv-layers.$$" | sort -n | head -1)
		[ -n "$hl" ] && [ "${hl%% *}" -gt "$lf" ] &&
		    fail "$f includes ${hl#* } (a higher layer)"
	done
done

if command -v nm >/dev/null 2>&1 && [ -f "$TTV_BUILDDIR/libttvcore.a" ]; then
	b=$TTV_BUILDDIR
	defined() { nm -g --defined-only "$@" 2>/dev/null |
	    awk 'NF == 3 { print $3 }' | sort -u; }
	needed() { nm -u "$@" 2>/dev/null | awk '{ print $NF }' | sort -u; }
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp" "${TMPDIR:-/tmp}/ttv-layers.$$"' EXIT
	defined "$b/libttvformats.a" >"$tmp/formats"
	defined "$b/libttvui.a" >"$tmp/ui"
	defined "$b"/cli/*.o >"$tmp/cli"
	needed "$b/libttvcore.a" >"$tmp/core-needs"
	needed "$b/libttvformats.a" >"$tmp/formats-needs"
	needed "$b/libttvui.a" >"$tmp/ui-needs"
	for pair in core:formats core:ui core:cli formats:ui formats:cli \
	    ui:cli; do
		lo=${pair%:*} hi=${pair#*:}
		up=$(comm -12 "$tmp/$lo-needs" "$tmp/$hi" | tr '\n' ' ')
		[ -z "$up" ] || fail "the $lo calls the $hi: $up"
	done
else
	echo "no nm or no libraries built: includes checked, calls not"
fi
[ "$fails" -eq 0 ] || exit 1
echo "PASS: no include and no call runs up a layer"

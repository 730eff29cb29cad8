#!/bin/sh
# The keys in man/ttv.1 are the viewer's key table: the block between the
# `.\" ttv-keys-begin` and `.\" ttv-keys-end` lines must be exactly what
# ui/keys-man prints from ui/keys.c (the same table `?` shows).
set -u
: "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
man="$TTV_SRCDIR/man/ttv.1"
gen="$TTV_BUILDDIR/ui/keys-man"
if [ ! -x "$gen" ]; then
	echo "SKIP: ui/keys-man not built"
	exit 77
fi
if ! grep -q '^\.\\" ttv-keys-begin' "$man" 2>/dev/null; then
	echo "SKIP: man/ttv.1 has no generated key list yet"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-man.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
sed -n '/^\.\\" ttv-keys-begin/,/^\.\\" ttv-keys-end/p' "$man" |
    sed '1d;$d' >"$tmp/man"
"$gen" >"$tmp/table"
if ! diff -u "$tmp/table" "$tmp/man"; then
	echo "FAIL: man/ttv.1 key list differs from the key table;" \
	    "regenerate it with ui/keys-man"
	exit 1
fi
echo "PASS: man/ttv.1 documents every key of the table"

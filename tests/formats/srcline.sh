#!/bin/sh
# Source lines (formats/srcline.c) of cyg-profile functions: a program
# built with -g -finstrument-functions, as LTTng's cyg-profile traces
# are, its function made by the CTF reader's address path
# (tests/formats/srcline_check.c), and the line found in its DWARF: the
# line of the function's name. A binary built without -g, one that is not
# ELF, a FIFO and a missing file each get their reason, never a hang.
set -u
: "${TTV_BUILDDIR:?}"
chk="$TTV_BUILDDIR/tests/formats/srcline_check"
CC=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-srcline.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
cat >"$tmp/prog.c" <<'EOT'
#include <stdio.h>

static int
leaf(int x)
{
	return x * 2;
}

int
main(void)
{
	printf("%d\n", leaf(21));
	return 0;
}
EOT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
for flags in "-g -O0 -fPIE -pie" "-g -O0 -no-pie" "-gdwarf-4 -O1 -fPIE -pie"; do
	case $flags in *-no-pie*) kind=exec ;; *) kind=pie ;; esac
	# shellcheck disable=SC2086
	if ! $CC $flags -finstrument-functions -o "$tmp/prog" "$tmp/prog.c" \
	    2>/dev/null; then
		echo "SKIP: $CC cannot build with $flags"
		continue
	fi
	addr=$(nm "$tmp/prog" | awk '$3 == "leaf" { print "0x" $1 }')
	[ -n "$addr" ] || { fail "no symbol leaf ($flags)"; continue; }
	got=$("$chk" "$tmp/prog" "$addr" $kind) || fail "$flags: $got"
	want="leaf $tmp/prog.c 4"
	[ "$got" = "$want" ] && echo "PASS: $flags: $got" ||
	    fail "$flags: '$got', want '$want'"
done
$CC -O0 -fPIE -pie -o "$tmp/nodebug" "$tmp/prog.c" || exit 1
addr=$(nm "$tmp/nodebug" | awk '$3 == "leaf" { print "0x" $1 }')
printf 'not an ELF file\n' >"$tmp/text"
mkfifo "$tmp/fifo"
got=$(timeout 20 "$chk" "$tmp/nodebug" "$addr" pie "$tmp/text" "$tmp/fifo" \
    "$tmp/missing")
expect() {
	echo "$got" | grep -qF "$1" && echo "PASS: $1" || fail "no '$1' in: $got"
}
expect "leaf - no debug info in $tmp/nodebug (built without -g?)"
expect "$tmp/text - $tmp/text: not an ELF file"
expect "$tmp/fifo - $tmp/fifo: not a regular file"
expect "$tmp/missing - $tmp/missing: No such file or directory"
[ $fails -eq 0 ] || exit 1
echo "PASS"

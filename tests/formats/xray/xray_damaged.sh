#!/bin/sh
# Damaged XRay logs from the project's writer (tests/data/xray/damaged-*):
# the real binary reports the damage as "ttv: FILE: offset N: ...", exits
# 1 (0 where nothing is wrong in the bytes), keeps everything before the
# damage — each complete call of a truncated log is a call of the intact
# log — and refuses nothing readable unless --strict.
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
data="$TTV_SRCDIR/tests/data/xray"
dump="$TTV_BUILDDIR/tests/tools/xray_dump"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-xray-dmg.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect_msg LOG STATUS REGEX: --info exits STATUS and stderr matches
expect_msg() {
	"$TTV" --info "$1" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$2" ]; then
		echo "FAIL: $1: exit status $rc, want $2"
		cat "$tmp/err"
		fail=1
	fi
	if ! grep -Eq "$3" "$tmp/err"; then
		echo "FAIL: $1: no message matching '$3' in:"
		cat "$tmp/err"
		fail=1
	fi
}

# complete calls (no flags) of LOG must all be calls of the intact EXPECT
subset() {
	"$dump" "$1" 2>/dev/null | awk '$1 == "slice" && $8 == "-"' |
	    LC_ALL=C sort >"$tmp/part"
	awk '$1 == "slice"' "$2" | LC_ALL=C sort >"$tmp/whole"
	n=$(wc -l <"$tmp/part")
	extra=$(LC_ALL=C comm -23 "$tmp/part" "$tmp/whole" | wc -l)
	if [ "$n" -lt "$3" ] || [ "$extra" -ne 0 ]; then
		echo "FAIL: $1: $n complete calls (want >= $3), $extra not in $2"
		LC_ALL=C comm -23 "$tmp/part" "$tmp/whole" | head
		fail=1
	fi
}

t="$data/damaged-v5-truncated.xray"
expect_msg "$t" 1 "^ttv: .*damaged-v5-truncated.xray: offset 1533: buffer extents of 480 bytes run 29 bytes past the end of the file"
subset "$t" "$data/fdr-v5-le.expect" 80
if "$TTV" --strict --info "$t" >/dev/null 2>&1; then
	echo "FAIL: --strict accepted a truncated log"
	fail=1
fi

t="$data/damaged-basic-truncated.xray"
expect_msg "$t" 1 "offset 2976: 24 bytes at the end of the file are not a whole 32-byte record"
subset "$t" "$data/basic-v3-le.expect" 30

# the clang 14 typed-event bug: extents 16 bytes short; what is left
# parses cleanly and the thread simply ends early
t="$data/damaged-v5-typedbug.xray"
"$TTV" --info "$t" >"$tmp/out" 2>"$tmp/err" || {
	echo "FAIL: $t: exit status $?"
	fail=1
}
grep -q "function-enter: 175$" "$tmp/out" || {
	echo "FAIL: $t: want 175 entries (176 written, one cut off)"
	fail=1
}
subset "$t" "$data/fdr-v5-le.expect" 150

# a custom event whose payload runs past the end of its buffer: damage
# (exit 1, the offset), the records before it kept
cp "$data/fdr-v5-le.xray" "$tmp/payload.xray"
# the first custom event record (0x1f 0x?? with kind 5 or 7): make its
# size huge so that the payload crosses the buffer's end
off=$(od -An -v -tu1 -w1 "$tmp/payload.xray" | awk '
    { b[NR - 1] = $1 }
    END { for (i = 32; i + 16 <= NR; i += 1)
	if (b[i] == 11 && i % 8 == 0) { print i; exit } }')
if [ -n "$off" ]; then
	printf '\377\377\000\000' | dd of="$tmp/payload.xray" bs=1 seek=$((off + 1)) \
	    conv=notrunc 2>/dev/null
	expect_msg "$tmp/payload.xray" 1 "offset $off: custom event payload of [0-9]+ bytes crosses the end of its buffer"
fi

# a header that is not XRay, or too short: refused with a message
printf 'XRAY\011\000\000\000' >"$tmp/short.log"
expect_msg "$tmp/short.log" 1 "short|not|unknown|format"
head -c 32 "$data/fdr-v5-le.xray" >"$tmp/header-only.log"
"$TTV" --info "$tmp/header-only.log" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -gt 1 ]; then
	echo "FAIL: header-only log: exit status $rc"
	fail=1
fi
# unknown version in a good file
cp "$data/fdr-v5-le.xray" "$tmp/v9.log"
printf '\011' | dd of="$tmp/v9.log" bs=1 conv=notrunc 2>/dev/null
expect_msg "$tmp/v9.log" 1 "."
# Damage that would cost quadratic work if followed naively: 300000 exits
# without entry (each would become the parent of the whole thread),
# 300000 arguments for one call, and 300000 exits that match none of
# 300000 open calls. All must load promptly.
if command -v python3 >/dev/null 2>&1; then
	python3 - "$tmp" <<'EOF2'
import struct, sys
def log(path, recs):
    body = bytearray()
    body += bytes([0x01]) + struct.pack("<i", 7) + bytes(11)  # NewBuffer
    body += bytes([0x09]) + bytes(15)                         # Walltime
    body += bytes([0x13]) + struct.pack("<i", 1) + bytes(11)  # Pid
    body += bytes([0x05]) + struct.pack("<HQ", 0, 1000) + bytes(5)
    body += recs
    hdr = struct.pack("<HHIQQQ", 5, 1, 3, 1000000000, 1 << 20, 0)
    ext = bytes([0x0f]) + struct.pack("<Q", len(body)) + bytes(7)
    open(path, "wb").write(hdr + ext + body)
n = 300000
log(sys.argv[1] + "/orphans.log", struct.pack("<II", 5 << 4 | 2, 10) * n)
log(sys.argv[1] + "/args.log", struct.pack("<II", 6 << 4, 10) +
    (bytes([0x0d]) + struct.pack("<Q", 1) + bytes(7)) * n)
log(sys.argv[1] + "/deep.log", struct.pack("<II", 6 << 4, 10) * n +
    struct.pack("<II", 7 << 4 | 2, 10) * n)
EOF2
	to=""
	command -v timeout >/dev/null 2>&1 && to="timeout 30"
	for f in orphans args deep; do
		$to "$TTV" --info "$tmp/$f.log" >"$tmp/$f.out" 2>"$tmp/err"
		rc=$?
		if [ "$rc" -ne 0 ]; then
			echo "FAIL: $f.log: exit status $rc (124: too slow)"
			fail=1
		fi
	done
	# every orphan exit is still a slice, and the loss is marked
	grep -q "^slices: 300000$" "$tmp/orphans.out" &&
	    grep -q "dropped: 1$" "$tmp/orphans.out" || {
		echo "FAIL: orphans.log: want 300000 slices and a dropped marker"
		fail=1
	}
	grep -q "^slices: 600000$" "$tmp/deep.out" || {
		echo "FAIL: deep.log: want 600000 slices"
		fail=1
	}
fi
exit $fail

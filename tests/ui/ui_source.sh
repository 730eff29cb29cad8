#!/bin/sh
# Jump to source (ui/source.c, formats/srcline.c): the demo program built
# again with -g beside the demo trace, so that its functions' lines come
# from the binary's DWARF; the details pane shows them and O runs the
# editor as `EDITOR +LINE FILE` (here a script that writes down its
# arguments). The committed demo binary has no debug info: O says so.
# With the shared corpus, the same of an LTTng cyg-profile trace.
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
drv="$TTV_BUILDDIR/tests/ui/ui_screen"
if [ ! -x "$drv" ]; then
	echo "SKIP: tests/ui/ui_screen was not built (no libvterm)"
	exit 77
fi
CC=${CLANG:-clang}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-source.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
# The flags of demo/make-demo.sh, and -g; built from the source tree by a
# relative path, as make does, so the debug info names the file relative
# to the directory the compiler ran in.
if ! (cd "$TTV_SRCDIR" && "$CC" -std=c2x -g -O0 -fxray-instrument \
    -fxray-instruction-threshold=1 -fxray-always-emit-customevents \
    -c -o "$tmp/demo.o" demo/demo.c) 2>/dev/null ||
    ! "$CC" -fxray-instrument -fxray-modes=xray-fdr -pthread \
    -Wl,--gc-sections -o "$tmp/demo" "$tmp/demo.o" 2>/dev/null; then
	echo "SKIP: no clang with the XRay runtime to build demo.c with -g"
	exit 77
fi
# the committed demo (no debug info), where its path is short
mkdir "$tmp/plain"
cp "$TTV_SRCDIR/demo/xray-log.demo.sample" "$TTV_SRCDIR/demo/demo" \
    "$tmp/plain/"
PLAIN_TRACE="$tmp/plain/xray-log.demo.sample"
export PLAIN_TRACE
mkdir "$tmp/trace"
cp "$TTV_SRCDIR/demo/xray-log.demo.sample" "$tmp/trace/"
mv "$tmp/demo" "$tmp/trace/demo"
cat >"$tmp/editor" <<EOT
#!/bin/sh
printf '%s\n' "\$@" >"$tmp/editor.log"
stty -a >"$tmp/editor.tty" 2>&1
EOT
chmod +x "$tmp/editor"
SOURCE_TRACE="$tmp/trace/xray-log.demo.sample"
EDITOR_LOG="$tmp/editor.log"
# the terminal's modes as the editor found them: the viewer's raw mode
# given back (icanon, echo) while it runs
EDITOR_TTY="$tmp/editor.tty"
EDITOR="$tmp/editor"
VISUAL=
XDG_STATE_HOME="$tmp/state"
export TTV TTV_SRCDIR SOURCE_TRACE EDITOR_LOG EDITOR_TTY EDITOR VISUAL XDG_STATE_HOME
# the line of quadtree's name in demo.c, where the editor must open
# (the editor opens at the line of the function's name)
DEMO_C="$TTV_SRCDIR/demo/demo.c"
export DEMO_C
scripts="xray nodebug"
CTF_CYG="${TTV_SHARED:-$TTV_SRCDIR/../shared}/traces/ctf/lttng-ust-cyg-profile"
if [ -d "$CTF_CYG/sysroot" ]; then
	scripts="$scripts ctf"
	export CTF_CYG
else
	echo "SKIP: ctf (no $CTF_CYG)"
fi
fails=0
for s in $scripts; do
	if "$drv" "$TTV_SRCDIR/tests/ui/source/$s.scr"; then
		echo "PASS: $s"
	else
		echo "FAIL: $s"
		fails=$((fails + 1))
	fi
done
[ $fails -eq 0 ] || exit 1
echo "PASS"

#!/bin/sh
# Screen tests of the real ttv: each tests/ui/*.scr script runs ttv in a
# pseudo-terminal through libvterm (tests/ui/ui_screen.c) and checks the
# screen. The test trace is written by the driver itself; ttv runs in a
# scratch directory so the header shows "ui.fxt" whatever the paths.
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
drv="$TTV_BUILDDIR/tests/ui/ui_screen"
if [ ! -x "$drv" ]; then
	echo "SKIP: tests/ui/ui_screen was not built (no libvterm)"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-ui.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
"$drv" --make-fxt "$tmp/ui.fxt" || exit 1
export TTV TTV_SRCDIR
cd "$tmp" || exit 1
fail=0
# UI_SCRIPTS="async sql" runs only those (the ThreadSanitizer build runs
# the scripts that use the worker thread).
for s in "$TTV_SRCDIR"/tests/ui/*.scr; do
	name=$(basename "$s" .scr)
	case " ${UI_SCRIPTS:-$name} " in
	*" $name "*) ;;
	*) continue ;;
	esac
	# A script on a trace of the source tree skips when it is absent.
	trace=$(sed -n 's/^start \$TTV_SRCDIR\/\([^ ]*\).*/\1/p' "$s" |
	    head -n 1)
	if [ -n "$trace" ] && [ ! -f "$TTV_SRCDIR/$trace" ]; then
		echo "SKIP: $name (no $trace)"
		continue
	fi
	need=$(sed -n 's/^# needs-terminfo: \([^ ]*\).*/\1/p' "$s")
	if [ -n "$need" ] && ! infocmp "$need" >/dev/null 2>&1; then
		echo "SKIP: $name (no terminfo entry $need)"
		continue
	fi
	# Each script starts with no saved state of the viewer's.
	XDG_STATE_HOME="$tmp/state-$name"
	export XDG_STATE_HOME
	if "$drv" "$s"; then
		echo "PASS: $name"
	else
		echo "FAIL: $name"
		fail=1
	fi
done
exit $fail

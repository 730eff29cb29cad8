#!/bin/sh
# Screen tests of the real ttv: each tests/ui/*.scr script runs ttv in a
# pseudo-terminal through libvterm (tests/ui/ui_screen.c) and checks the
# screen. The test trace is written by the driver itself, the cut log by
# the project's CoreProfiler writer; ttv runs in a scratch directory so the
# header shows "ui.fxt" whatever the paths.
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
# diff*.scr: the two runs of tests/gen/diffpair.h, whose differences are
# known by construction.
fxtgen="$TTV_BUILDDIR/tests/gen/fxtgen"
if [ -x "$fxtgen" ]; then
	"$fxtgen" -D base "$tmp/base.fxt" && "$fxtgen" -D new "$tmp/new.fxt" ||
	    exit 1
	# follow_open_fxt.scr: a call open on one thread while the others go on
	"$fxtgen" -L -R 35 -B 100000 "$tmp/long-call.fxt" >/dev/null || exit 1
fi
# ... and across formats: an FXT base with names by address, a CTF run
ctfgen="$TTV_BUILDDIR/tests/gen/ctfgen"
if [ -x "$fxtgen" ] && [ -x "$ctfgen" ]; then
	"$fxtgen" -A -D base "$tmp/base-a.fxt" &&
	    "$ctfgen" -D new "$tmp/new-ctf" >/dev/null || exit 1
fi
# ... and with markers: two runs of the XRay writer's FDR log, the second
# at half its clock rate (every time twice as late)
xraygen="$TTV_BUILDDIR/tests/gen/xraygen"
if [ -x "$xraygen" ]; then
	"$xraygen" full "$tmp/run1.fdr" >/dev/null &&
	    "$xraygen" -f 1000000000 full "$tmp/run2.fdr" >/dev/null &&
	    "$xraygen" -f 200000 full "$tmp/long.fdr" >/dev/null || exit 1
fi
# follow_live.scr: a CTF trace, copied into a directory being followed and
# played by the live client tests' mock relay as a session that records
# (tests/formats/live/live_mock_relay.py)
if [ -x "$ctfgen" ] && command -v python3 >/dev/null 2>&1; then
	"$ctfgen" -i -p -n 300 -P 4096 "$tmp/live-trace" >/dev/null || exit 1
fi
# A CoreProfiler log cut before its threads ended (unfinished.scr): the
# project's writer, cut at a line.
"$TTV_BUILDDIR/tests/gen/cpgen" --seed 3 --lines 4000 --mode instrumentation \
    --summary none --out "$tmp/full.tracelog" || exit 1
head -n 2500 "$tmp/full.tracelog" >"$tmp/cut.tracelog"
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
	case $name in
	diff*) if [ ! -f "$tmp/new.fxt" ] || [ ! -d "$tmp/new-ctf" ] ||
	    [ ! -f "$tmp/run2.fdr" ]; then
		echo "SKIP: $name (no tests/gen/fxtgen, ctfgen, xraygen)"
		continue
	fi ;;
	follow_live) if [ ! -d "$tmp/live-trace" ]; then
		echo "SKIP: $name (no tests/gen/ctfgen or python3)"
		continue
	fi ;;
	follow_open_fxt) if [ ! -f "$tmp/long-call.fxt" ]; then
		echo "SKIP: $name (no tests/gen/fxtgen)"
		continue
	fi ;;
	long_trace) if [ ! -f "$tmp/long.fdr" ]; then
		echo "SKIP: $name (no tests/gen/xraygen)"
		continue
	fi ;;
	esac
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

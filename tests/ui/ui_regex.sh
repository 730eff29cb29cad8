#!/bin/sh
# The viewer's regexes held to the budget (README, "budget"): the scripts
# of tests/ui/regex/ on traces from tests/gen/hostile.py, where (a+)+$
# costs too much (costly.fxt, strings.fxt) or seconds (slow.fxt). /, f, F
# and a filter restored from the saved state answer at once or work on
# the worker while keys are answered; Esc stops them; what the budget
# cannot decide is said and not applied.
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
drv="$TTV_BUILDDIR/tests/ui/ui_screen"
if [ ! -x "$drv" ]; then
	echo "SKIP: tests/ui/ui_screen was not built (no libvterm)"
	exit 77
fi
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-regex.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
hostile="python3 $TTV_SRCDIR/tests/gen/hostile.py"
$hostile fxt-names "$tmp/costly.fxt" 1000 30 &&
    $hostile fxt-names "$tmp/slow.fxt" 3000 16 &&
    $hostile fxt-strings "$tmp/strings.fxt" 1000 30 || exit 1
export TTV TTV_SRCDIR
cd "$tmp" || exit 1
scr="$TTV_SRCDIR/tests/ui/regex"
fails=0
run() {
	XDG_STATE_HOME="$tmp/state-$3"
	export XDG_STATE_HOME
	if "$drv" "$scr/$1.scr"; then
		echo "PASS: $2"
	else
		echo "FAIL: $2"
		fails=$((fails + 1))
	fi
}

run costly "/, f and F: too costly, said, nothing applied" costly
run strings "/ over log records and string arguments" strings
run stop "slow patterns on the worker: keys answered, Esc stops" stop

# A filter saved by one session, made costly, restored by the next.
saved() {	# TRACE STATE-DIR: a session saves ^a, prints the state file
	XDG_STATE_HOME="$tmp/$2" TRACE=$1 "$drv" "$scr/save_filter.scr" ||
	    return 1
	ls "$tmp/$2"/ttv/*.state 2>/dev/null
}

# Too costly: said once and dropped from the state, so the next start is
# clean.
state=$(saved costly.fxt state-costly)
if [ "$(echo "$state" | wc -w)" -ne 1 ] ||
    ! grep -q '^filter show ^a$' "$state"; then
	echo "FAIL: no saved filter in '$state'"
	exit 1
fi
sed -i 's/^filter show .*/filter show (a+)+$/' "$state"
run restore_costly "a restored filter too costly: said, not applied" costly
if grep -q '^filter ' "$state"; then
	echo "FAIL: the costly filter stays saved: $(grep '^filter' "$state")"
	fails=$((fails + 1))
fi

# Seconds of work: on the worker while keys are answered, then applied.
state=$(saved slow.fxt state-slow)
sed -i 's/^filter show .*/filter show (a+)+$|!7$/' "$state"
run restore_slow "a restored filter that takes seconds: on the worker" slow

[ $fails -eq 0 ] || exit 1

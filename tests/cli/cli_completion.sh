#!/bin/sh
# The bash completion offers every long option of `ttv --help`, every sort
# key --sort takes, and completes values where they are known.
set -u
: "${TTV:?}" "${TTV_SRCDIR:?}"
comp="$TTV_SRCDIR/scripts/completion/ttv.bash"
if ! command -v bash >/dev/null 2>&1; then
	echo "SKIP: no bash"
	exit 77
fi
fail=0
# Every long option of --help is offered after "--".
opts=$("$TTV" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
offered=$(bash -c ". '$comp'; COMP_WORDS=(ttv --); COMP_CWORD=1; _ttv;
    printf '%s\n' \"\${COMPREPLY[@]}\"" | sort -u)
for o in $opts; do
	printf '%s\n' "$offered" | grep -qx -- "$o" ||
	    { echo "FAIL: $o is not completed"; fail=1; }
done
for o in $offered; do
	printf '%s\n' "$opts" | grep -qx -- "$o" ||
	    { echo "FAIL: $o is completed but not in --help"; fail=1; }
done
# Every sort key is accepted by ttv, and completed.
keys=$(bash -c ". '$comp'; COMP_WORDS=(ttv --sort ''); COMP_CWORD=2; _ttv;
    printf '%s\n' \"\${COMPREPLY[@]}\"")
[ -n "$keys" ] || { echo "FAIL: no sort keys completed"; fail=1; }
for k in $keys; do
	"$TTV" --stats --sort "$k" /nonexistent 2>&1 | grep -q 'unknown sort key' &&
	    { echo "FAIL: sort key $k is refused by ttv"; fail=1; }
done
# --export values are the ones ttv takes.
for f in $(bash -c ". '$comp'; COMP_WORDS=(ttv --export ''); COMP_CWORD=2;
    _ttv; printf '%s\n' \"\${COMPREPLY[@]}\""); do
	"$TTV" --export "$f" /nonexistent 2>&1 | grep -q 'unknown export' &&
	    { echo "FAIL: export format $f is refused"; fail=1; }
done
[ $fail -eq 0 ] && echo "PASS: completion matches --help, sort keys, formats"
exit $fail

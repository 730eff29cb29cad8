# The README's budget for one run of ttv, shared by the hostile-input
# scripts (tests/cli/hostile*.sh): sourced, not run.
#
# Sets tmp (a directory removed on exit), asan (true under
# AddressSanitizer, where RSS is reported, not enforced: its shadow
# memory is not ttv's), fails, and defines:
#   fail MESSAGE
#   budget NAME FILE WANT_RC MESSAGE_RE ARGS...
#       runs ttv ARGS FILE (a file or a directory) and holds it to peak
#       RSS <= 64 MiB + 16 x the input and at most 10 s of CPU (user +
#       system: on a shared machine the wall clock measures the neighbours;
#       a run that blocks is caught by the 30 s timeout), with exit status
#       WANT_RC and a line of stderr matching MESSAGE_RE (unless empty);
#       leaves the output in $tmp/out and $tmp/err. With out_max set
#       (bytes), the output is cut there (ttv then ends on SIGPIPE), so
#       that an output out of proportion fails without filling the disk.
#   finish     exits 1 if anything failed, else says PASS: $1.
: "${TTV:?}" "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
[ -x /usr/bin/time ] || { echo "SKIP: no /usr/bin/time"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-hostile.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
asan=false
case "${ASAN_OPTIONS:-}" in *?*) asan=true ;; esac
fails=0
fail() { printf 'FAIL: %s\n' "$*"; fails=$((fails + 1)); }

budget() {
	name=$1 file=$2 want=$3 re=$4
	shift 4
	if [ -d "$file" ]; then
		size=$(cat "$file"/* 2>/dev/null | wc -c)
	else
		size=$(stat -c %s "$file")
	fi
	limit_kb=$((65536 + 16 * size / 1024))
	if [ -n "${out_max:-}" ]; then
		{ /usr/bin/time -f '%M %U %S' -o "$tmp/usage" timeout 30 \
		    "$TTV" "$@" "$file" 2>"$tmp/err"; echo $? >"$tmp/rc"; } |
		    head -c "$out_max" >"$tmp/out"
		rc=$(cat "$tmp/rc")
	else
		/usr/bin/time -f '%M %U %S' -o "$tmp/usage" timeout 30 "$TTV" \
		    "$@" "$file" >"$tmp/out" 2>"$tmp/err"
		rc=$?
	fi
	set -- $(tail -n 1 "$tmp/usage")
	kb=${1:-0}
	secs=$(awk -v u="${2:-99}" -v s="${3:-0}" 'BEGIN { printf "%.2f", u + s }')
	echo "$name: $size bytes, exit $rc, peak RSS $kb KB (budget" \
	    "$limit_kb KB), $secs s CPU"
	[ "$rc" -eq "$want" ] || fail "$name: exit $rc, want $want"
	[ -z "$re" ] || grep -Eq "$re" "$tmp/err" ||
	    fail "$name: no message matching '$re': $(head -3 "$tmp/err")"
	if ! $asan && [ "$kb" -gt "$limit_kb" ]; then
		fail "$name: peak RSS $kb KB over the budget of $limit_kb KB"
	fi
	awk -v s="$secs" 'BEGIN { exit !(s <= 10) }' ||
	    fail "$name: $secs s of CPU, over 10 s"
}

finish() {
	[ $fails -eq 0 ] || exit 1
	echo "PASS: $1"
}

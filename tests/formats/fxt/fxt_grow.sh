#!/bin/sh
# An FXT file read as it grows (fxt_grow.c), at every record and with
# every record cut in two: the writer's fixtures and its scoped durations
# written as complete events, inner first (threads whose events come out
# of time order: read again from the start where a whole read would sort
# them), and traces whose events come in order, in both byte orders,
# with a call open on one thread while the others go on (it runs to now),
# which must be read on at every write, never again from the start.
# Then the same with the reader's state written as bytes and made again
# after each read (-r), as a run that finds it in the trace's index does,
# and that state at every record, made again and damaged (fxt_save).
set -u
: "${TTV_SRCDIR:?}" "${TTV_BUILDDIR:?}"
gen=$TTV_BUILDDIR/tests/gen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$gen/fxtgen" -L -R 12 -B 100000 "$tmp/le.fxt" >/dev/null &&
    "$gen/fxtgen" -b -L -R 12 -B 100000 "$tmp/be.fxt" >/dev/null &&
    "$gen/fxtgen" -O -L -R 12 -B 100000 "$tmp/ooo.fxt" >/dev/null ||
    { echo "FAIL: fxtgen"; exit 1; }
# Each read also with its events replayed by a worker and its scan in
# halves from the start (TTV_FXT_PIPE_MIN=0: as on a big trace), the
# reading thread taking a share of the threads.
for pipe in "" 0; do
	for reload in "" -r; do
		TTV_FXT_PIPE_MIN=$pipe TTV_FXT_READER_SHARE=${pipe:+4} \
		    "$TTV_BUILDDIR/tests/formats/fxt/fxt_grow" $reload \
		    "$TTV_SRCDIR/tests/data/fxt/full.fxt" \
		    "$TTV_SRCDIR/tests/data/fxt/full-be.fxt" "$tmp/ooo.fxt" \
		    -n "$tmp/le.fxt" -n "$tmp/be.fxt" || exit 1
	done
done
# The state as bytes at every record, made again, and damaged (fxt_save.c).
"$TTV_BUILDDIR/tests/formats/fxt/fxt_save" \
    "$TTV_SRCDIR/tests/data/fxt/full.fxt" \
    "$TTV_SRCDIR/tests/data/fxt/full-be.fxt" "$tmp/ooo.fxt" \
    "$tmp/le.fxt" "$tmp/be.fxt" || exit 1
echo "PASS: fxt_grow"

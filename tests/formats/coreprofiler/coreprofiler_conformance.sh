#!/bin/sh
# Conformance with the shared CoreProfiler corpus: for each log in
# $TTV_SHARED/traces/coreprofiler, the collapsed stacks ttv exports (sample
# weighted, or exact times for instrumentation logs), per-thread sample
# counts and maximum depths, record counts and damaged lines equal the
# summary the generator wrote beside it.
: "${TTV:?}" "${TTV_SRCDIR:?}"
S=${TTV_SHARED:-}/traces/coreprofiler
if [ -z "${TTV_SHARED:-}" ] || [ ! -d "$S" ]; then
	echo "SKIP: ../shared not found"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not found"
	exit 77
fi
fail=0
n=0
for log in "$S"/*.log; do
	[ -f "${log%.log}.summary.json" ] || continue
	n=$((n + 1))
	python3 "$TTV_SRCDIR/tests/formats/coreprofiler/coreprofiler_conformance.py" "$TTV" "$log" \
	    "${log%.log}.summary.json" || fail=1
done
if [ $n -eq 0 ]; then
	echo "FAIL: no logs with summaries in $S"
	fail=1
fi
exit $fail

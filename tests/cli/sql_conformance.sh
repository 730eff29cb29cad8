#!/bin/sh
# SQL conformance (tests/cli/sql_conformance.py) over every trace of
# $TTV_SHARED/traces and tests/data: GROUP BY name against --stats, table
# counts against --info and the chrome-json export, parent_id chains
# against the call tree, planned lookups against plain scans, Perfetto's
# documented queries.
: "${TTV:?}" "${TTV_SRCDIR:?}"
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not found"
	exit 77
fi
D=$TTV_SRCDIR/tests/data
set --
for f in "$D"/xray/*.xray "$D"/fxt/*.fxt "$D"/coreprofiler/*.tracelog \
    "$D"/ctf/*/; do
	[ -e "$f" ] && set -- "$@" "${f%/}"
done
S=${TTV_SHARED:-}/traces
if [ -n "${TTV_SHARED:-}" ] && [ -d "$S" ]; then
	for f in "$S"/xray/xray-log.*.fdr "$S"/xray/xray-log.*.basic \
	    "$S"/fxt/*.fxt "$S"/fxt/real/*.ftf "$S"/coreprofiler/*.log \
	    "$S"/ctf/lttng-ust-*/trace/ "$S"/ctf/lttng-ust-*/trace-slow/ \
	    "$S"/ctf/babeltrace/succeed/*/; do
		[ -e "$f" ] && set -- "$@" "${f%/}"
	done
else
	echo "note: ../shared not found: tests/data only"
fi
fail=0
for f in "$@"; do
	python3 "$TTV_SRCDIR/tests/cli/sql_conformance.py" "$TTV" "$f" || fail=1
done
exit $fail

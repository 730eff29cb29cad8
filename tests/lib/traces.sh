# The traces of the shared corpus and of tests/data, one path a line,
# sorted: sourced, not run (tests/cli/index_outputs.sh,
# tests/tools/outputs.sh).
#   trace_list ROOT...
# CTF: every directory holding a metadata file, as one trace. Everything
# else: files that are not part of a CTF trace and not the oracles' or
# generators' own files.
trace_list() {
	for root in "$@"; do
		[ -d "$root" ] || continue
		find "$root" -name metadata -type f | sed 's|/metadata$||'
		find "$root" -type f ! -name metadata ! -name '*.txt' \
		    ! -name '*.json' ! -name '*.expected' ! -name '*.expect' \
		    ! -name '*.sh' ! -name '*.py' ! -name '*.md' ! -name '*.c' \
		    ! -name '*.cc' ! -name '*.h' ! -name '*.tsdl' \
		    ! -name '*.idx' ! -path '*/index/*' | while read -r f; do
			d=$(dirname "$f")
			[ -f "$d/metadata" ] || echo "$f"
		done
	done | sort -u
}

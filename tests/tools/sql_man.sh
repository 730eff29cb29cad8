#!/bin/sh
# The TABLES section of man/ttv-sql.7, made from the tables' own
# description (src/sql_schema.def) as ttv lists it in ttv_tables and
# ttv_columns:
#   TTV=build/ttv sh tests/tools/sql_man.sh            print the section
#   TTV=build/ttv sh tests/tools/sql_man.sh -w MANPAGE rewrite it in place
# tests/cli/sql_man.sh holds the manual to it.
set -eu
: "${TTV:?}"
src=$(cd "$(dirname "$0")/../.." && pwd)
trace=$src/tests/data/xray/fdr-v5-le.xray

section() {
	"$TTV" --tsv --query "SELECT t.name, t.kind, COALESCE(t.columns_of, ''),
	    t.description, c.cid, c.name, c.type, c.kind,
	    COALESCE(c.lookup, ''), c.description
	    FROM ttv_tables t JOIN ttv_columns c ON c.table_name = t.name
	    ORDER BY t.rowid, c.cid" "$trace" | awk -F '\t' '
	# roff text: backslashes and dashes escaped, `x` in bold, lines
	# of at most 72 columns that do not start with a control character
	function roff(s,    out, i, n, w, line, parts) {
		gsub(/\\/, "\\e", s)
		gsub(/-/, "\\-", s)
		out = ""
		n = split(s, parts, "`")
		for (i = 1; i <= n; i++)
			out = out (i % 2 == 0 ? "\\fB" parts[i] "\\fR" : parts[i])
		n = split(out, parts, " ")
		line = ""
		s = ""
		for (i = 1; i <= n; i++) {
			w = parts[i]
			if (line != "" && length(line) + 1 + length(w) > 72) {
				s = s fix(line) "\n"
				line = w
			} else {
				line = line == "" ? w : line " " w
			}
		}
		return s fix(line)
	}
	function fix(l) {
		return l ~ /^[.\047]/ ? "\\&" l : l
	}
	function ops(s,    n, i, p, out) {
		n = split(s, p, ", ")
		out = ""
		for (i = 1; i <= n; i++)
			out = out (i > 1 ? ", " : "") "\\fB" p[i] "\\fR"
		return out
	}
	BEGIN {
		print ".SH TABLES"
		print "Every table and column, as the tables \\fBttv_tables\\fR and"
		print "\\fBttv_columns\\fR list them: each column with its declared type"
		print "and, where the table answers it without a scan, the operators it"
		print "takes (see \\fBWhat is fast\\fR)."
	}
	NR == 1 { next }	# the header
	{
		if ($1 != table) {
			table = $1
			if ($3 != "") {
				# its heading names its first argument,
				# which comes after the columns of `like`
				pending = 1
			} else {
				print ".SS " $1
				print roff($4)
				pending = 0
			}
			tdoc = $4
			like = $3
		}
		if (like != "" && $8 != "argument")
			next
		if (pending) {
			print ".SS " table "(\\fI" $6 "\\fR)"
			print roff(tdoc)
			print "Its columns are those of \\fB" like "\\fR that \\fBSELECT *\\fR"
			print "shows; its argument:"
			pending = 0
		}
		print ".TP"
		h = "\\fB" $6 "\\fR"
		if ($7 != "")
			h = h " \\fI" $7 "\\fR"
		if ($8 == "hidden")
			h = h ", hidden (not in \\fBSELECT *\\fR)"
		print h
		d = roff($10)
		if ($9 != "")
			d = d "\nFast: " ops($9) "."
		print d
	}'
}

if [ "${1:-}" = "-w" ]; then
	man=${2:?usage: sql_man.sh [-w MANPAGE]}
	# (through the environment: awk -v would read the backslashes)
	new=$(section)
	NEW=$new awk '
	/^\.SH TABLES/ { print ENVIRON["NEW"]; skip = 1; next }
	skip && /^\.SH / { skip = 0 }
	!skip { print }' "$man" >"$man.tmp"
	mv "$man.tmp" "$man"
else
	section
fi

#!/bin/sh
# The manual's TABLES section is what the tables' description
# (src/sql_schema.def) says, as tests/tools/sql_man.sh writes it from
# ttv_tables and ttv_columns; and the tables are what the description
# says: every table listed answers, with the columns, types and hidden
# columns ttv_columns gives.
: "${TTV:?}" "${TTV_SRCDIR:?}"
T=$TTV_SRCDIR/tests/data/xray/fdr-v5-le.xray
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ttv-sql-man.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

TTV=$TTV sh "$TTV_SRCDIR/tests/tools/sql_man.sh" >"$tmp/want" ||
    fail "sql_man.sh failed"
awk '/^\.SH TABLES/ { on = 1 } on && /^\.SH / && !/^\.SH TABLES/ { on = 0 }
    on' "$TTV_SRCDIR/man/ttv-sql.7" >"$tmp/got"
if ! cmp -s "$tmp/want" "$tmp/got"; then
	fail "man/ttv-sql.7's TABLES section is not the tables' description;" \
	    "rewrite it with: TTV=build/ttv sh tests/tools/sql_man.sh -w" \
	    "man/ttv-sql.7"
	diff "$tmp/got" "$tmp/want" | head -20
fi
[ "$(grep -c '^\.SS ' "$tmp/want")" -ge 16 ] || fail "too few tables listed"

# every table listed answers, with the columns ttv_columns gives
"$TTV" --tsv --query "SELECT name, columns_of IS NOT NULL FROM ttv_tables" \
    "$T" | tail -n +2 >"$tmp/tables"
[ -s "$tmp/tables" ] || fail "ttv_tables is empty"
while IFS="$(printf '\t')" read -r name fn; do
	from=$name
	[ "$fn" = 1 ] && from="$name(0)"
	"$TTV" --query "SELECT * FROM $from LIMIT 0" "$T" >/dev/null 2>"$tmp/err" ||
	    fail "$name: $(cat "$tmp/err")"
	a=$("$TTV" --tsv --query "SELECT name, type, hidden != 0
	    FROM pragma_table_xinfo('$name')" "$T")
	b=$("$TTV" --tsv --query "SELECT name, type, kind != 'column'
	    FROM ttv_columns WHERE table_name = '$name' ORDER BY cid" "$T")
	[ "$(echo "$a" | tail -n +2)" = "$(echo "$b" | tail -n +2)" ] ||
	    fail "$name: its columns are not those of ttv_columns"
done <"$tmp/tables"

[ $fails -eq 0 ] || exit 1
echo "ok"

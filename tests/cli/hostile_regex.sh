#!/bin/sh
# Regexes held to the budget of the README and ttv(1) (at most 10 s,
# 64 MiB + 16 x the input), on traces from tests/gen/hostile.py. A match
# PCRE2 gives up on (a limit hit) is an error, never a "no": exit 2 with
# the pattern and the limit, nothing written; the work of one pattern is
# bounded in total, whatever the number of strings.
set -u
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
. "$TTV_SRCDIR/tests/lib/budget.sh"
hostile="python3 $TTV_SRCDIR/tests/gen/hostile.py"

# 1,000 names of 30 letters a, "!" and a number: (a+)+$ backtracks 2^31
# steps on each. Each string's match limit ran out in silence (PCRE2's
# default, 10^7 steps, after 20-25 s in all): --hide kept every function,
# --function, --calls and --search printed nothing, exit 0.
$hostile fxt-names "$tmp/costly.fxt" 1000 30
limit="too costly: match limit of [0-9]+ steps hit on string 1 of 1000"
budget "--function" "$tmp/costly.fxt" 2 \
    "^ttv: .*costly.fxt: --function regex '\(a\+\)\+\\$' $limit" \
    --function '(a+)+$' --stats
budget "--hide" "$tmp/costly.fxt" 2 "costly.fxt: --hide regex '.*' $limit" \
    --hide '(a+)+$' --stats
[ -s "$tmp/out" ] && fail "--hide: wrote $(wc -l <"$tmp/out") lines"
budget "--calls" "$tmp/costly.fxt" 2 "regex '.*' $limit" --calls '(a+)+$'
[ -s "$tmp/out" ] && fail "--calls: wrote $(wc -l <"$tmp/out") lines"
budget "--search, names" "$tmp/costly.fxt" 2 "regex '.*' $limit" \
    --search '(a+)+$'
[ -s "$tmp/out" ] && fail "--search: wrote $(wc -l <"$tmp/out") lines"

# 1,000 log records and 1,000 string arguments of the same kind: 46-83 s.
$hostile fxt-strings "$tmp/strings.fxt" 1000 30
budget "--search, logs and args" "$tmp/strings.fxt" 2 \
    "regex '.*' too costly: match limit of [0-9]+ steps hit on string" \
    --search '(a+)+$'

# 22 letters a: 2^23 steps a name, under PCRE2's default limit, so every
# match ended, after 12 s or more in all. The limit of one string is now
# the budget shared among the strings (10^9 / 1,000): said at once.
$hostile fxt-names "$tmp/n22.fxt" 1000 22
budget "--function, 2^23 steps a name" "$tmp/n22.fxt" 2 \
    "match limit of 1000000 steps hit on string 1 of 1000" \
    --function '(a+)+$' --stats

# 16 letters a: 2^17 steps a name, within the share: the right answer.
$hostile fxt-names "$tmp/slow.fxt" 1000 16
budget "--function within the budget" "$tmp/slow.fxt" 0 "" \
    --function '(a+)+$|!7$' --stats --tsv
[ "$(cut -f1 "$tmp/out" | tail -n +2)" = "aaaaaaaaaaaaaaaa!7" ] ||
    fail "--function within the budget: $(head -3 "$tmp/out")"
budget "--search within the budget" "$tmp/slow.fxt" 0 "" \
    --search '(a+)+$|!7$' --tsv
[ "$(wc -l <"$tmp/out")" -eq 2 ] ||
    fail "--search within the budget: $(head -3 "$tmp/out")"

# Work PCRE2 does not count as steps: a lookahead rescans each of 1,000
# log records of 5,000 letters from every position (20 s in all). The
# CPU time, read between strings, ends it after 3 s (here 0.5 s, as the
# machine running the tests may be busy).
$hostile fxt-long-log "$tmp/long.fxt" 1000 5000
export TTV_REGEX_SECONDS=0.5
budget "--search, uncounted work" "$tmp/long.fxt" 2 \
    "too costly: stopped after 0.5 s of work, at string [0-9]+ of 1001" \
    --search '(?=\w+[0-9])'
unset TTV_REGEX_SECONDS

# A JIT stack that overflows on a 20 KB record was a silent "no".
$hostile fxt-long-log "$tmp/one.fxt" 1 20000
budget "--search, JIT stack" "$tmp/one.fxt" 2 \
    "too costly: JIT stack limit of 32 KiB hit on string 2 of 2" \
    --search '(?:\w)+[0-9]'

finish "regexes within the budget"

#!/bin/sh
# Rebuilds the FXT fixtures and their expected facts with the project's own
# writer: `make fxt-fixtures` (or: regen.sh FXTGEN DIR).
#   full      every record and argument type, little-endian
#   full-be   the same scenario, big-endian
#   trunc     the scenario ending in a truncated record
#   trunc-be  the same, big-endian
set -e
gen=${1:?usage: regen.sh FXTGEN DIR}
dir=${2:?usage: regen.sh FXTGEN DIR}
"$gen" full "$dir/full.fxt" "$dir/full.expected"
"$gen" -b full "$dir/full-be.fxt" "$dir/full-be.expected"
"$gen" -t full "$dir/trunc.fxt" "$dir/trunc.expected"
"$gen" -b -t full "$dir/trunc-be.fxt" "$dir/trunc-be.expected"

#!/bin/sh
# Regenerates the XRay fixtures in this directory with the project's own
# writer (tests/gen/xraygen.c): each NAME.xray comes with NAME.expect, what
# the reader must rebuild from it (see tests/formats/xray/xray_fixtures.sh).
#   regen.sh XRAYGEN [DIR]
set -eu
gen=${1:?usage: regen.sh XRAYGEN [DIR]}
dir=${2:-$(dirname "$0")}
mk() {
	name=$1
	shift
	"$gen" -e "$dir/$name.expect" "$@" "$dir/$name.xray"
}
for v in 1 2 3 4 5; do
	mk fdr-v$v-le -v $v full
done
mk fdr-v1-be -b -v 1 full
mk fdr-v3-be -b -v 3 full
mk fdr-v5-be -b -v 5 full
mk fdr-v5-ring -v 5 ring
mk fdr-v3-ring-be -b -v 3 ring
mk fdr-v1-ring -v 1 ring
mk fdr-v5-freq0 -f 0 -v 5 full
mk fdr-v4-1ghz -f 1000000000 -v 4 full
mk fdr-v5-bigbuf -f 500000000 -s 16384 -v 5 full
for v in 1 2 3; do
	mk basic-v$v-le -v $v basic
done
mk basic-v3-be -b -v 3 basic
# damaged logs: what the reader keeps is checked by tests/formats/xray/xray_damaged.sh
"$gen" -v 5 -T 2000 full "$dir/damaged-v5-truncated.xray"
"$gen" -v 5 -Y full "$dir/damaged-v5-typedbug.xray"
"$gen" -v 3 -T 3000 basic "$dir/damaged-basic-truncated.xray"

#!/bin/sh
# (.tracelog, not .log: *.log is ignored as test output.)
# Rewrites the CoreProfiler fixtures from the project's own writer:
#   regen.sh CPGEN DIR
# Each X.tracelog gets its expected results in X.summary.json, written by cpgen
# from its simulation state (see tests/gen/cpgen.c). Commit the result.
set -e
CPGEN=$1
DIR=$2
"$CPGEN" --seed 11 --lines 2500 --threads 3 --out "$DIR/sampling.tracelog"
"$CPGEN" --seed 12 --lines 2500 --mode instrumentation --ptr-bits 64 \
    --threads 3 --out "$DIR/instrumentation.tracelog"
"$CPGEN" --seed 13 --lines 4000 --malformed --stack-track --ip-style bare \
    --threads 4 --out "$DIR/malformed.tracelog"
"$CPGEN" --seed 14 --lines 4000 --malformed --mode instrumentation \
    --threads 2 --out "$DIR/malformed_instr.tracelog"
# Small enough to be cut at every byte by tests/coreprofiler_malformed.
"$CPGEN" --seed 15 --lines 120 --threads 2 --stack-track --out "$DIR/tiny.tracelog"

#!/bin/sh
# Installs what is missing, builds ttv, and opens it on the demo trace
# (an XRay log of demo/demo.c, whose binary beside it gives the names).
set -e
cd "$(dirname "$0")/.."
./scripts/setup.sh >&2
if [ -t 0 ] && [ -t 1 ]; then
	exec ./build/ttv demo/xray-log.demo.sample
fi
# No terminal to draw on: show what the viewer would open.
./build/ttv --info demo/xray-log.demo.sample
./build/ttv --stats demo/xray-log.demo.sample

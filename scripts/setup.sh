#!/bin/sh
# Installs what ttv needs to build and test (Debian/Ubuntu), then
# configures and builds it in build/. Safe to run again: it only does what
# is missing.
set -e
cd "$(dirname "$0")/.."

# Build: autotools, ncursesw, pcre2, libelf, libdw (source lines from
# DWARF), jansson (CTF 2 metadata), libiberty (C++ demangling), sqlite3
# (--query and the SQL pane).
# Tests: cmocka, libvterm (screen tests), tmux, ncurses-term (direct-colour
# terminfo), python3 (JSON oracles), clang and llvm (XRay fixtures and
# llvm-xray as reference), babeltrace2 (CTF reference), time (benchmarks),
# lttng-tools and liblttng-ust-dev (the live tests' session and relay
# daemons, and the cyg-profile tracer of their traced program).
PKGS="autoconf automake pkg-config make gcc libncurses-dev libpcre2-dev
libelf-dev libdw-dev libjansson-dev libiberty-dev libsqlite3-dev libcmocka-dev
libvterm-dev tmux ncurses-term python3 clang llvm babeltrace2 time
lttng-tools liblttng-ust-dev"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	SUDO=""
	[ "$(id -u)" -ne 0 ] && SUDO="sudo"
	echo "ttv: installing:$missing"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi
# Built out of the source tree, in build/ (the ASan build of check.sh sits
# beside it in build-asan/). A tree configured in place before cannot hold
# a build beside it: its configuration is cleaned away first.
if [ -f Makefile ] && [ -f config.status ]; then
	echo "ttv: cleaning the in-tree build (builds now go to build/)"
	make distclean >/dev/null 2>&1 || rm -f Makefile config.status config.h
fi
mkdir -p build
[ -f build/Makefile ] || (cd build && ../configure --enable-werror)
make -C build -j"$(nproc)"

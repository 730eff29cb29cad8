#!/bin/sh
# Installs what ttv needs to build and test (Debian/Ubuntu), then
# configures and builds it. Safe to run again: it only does what is missing.
set -e
cd "$(dirname "$0")/.."

# Build: autotools, ncursesw, pcre2, libelf, libiberty (C++ demangling),
# sqlite3 (--query).
# Tests: cmocka, libvterm (screen tests), tmux, ncurses-term (direct-colour
# terminfo), python3 (JSON oracles), clang and llvm (XRay fixtures and
# llvm-xray as reference), babeltrace2 (CTF reference), time (benchmarks).
PKGS="autoconf automake pkg-config make gcc libncurses-dev libpcre2-dev
libelf-dev libiberty-dev libsqlite3-dev libcmocka-dev libvterm-dev tmux ncurses-term
python3 clang llvm babeltrace2 time"

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
[ -f Makefile ] || ./configure --enable-werror
make -j"$(nproc)"

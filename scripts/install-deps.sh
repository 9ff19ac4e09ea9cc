#!/bin/sh
# install-deps.sh - installs what flameprof needs to build, test and demo.
#
# The Makefile runs this when a header or tool is missing. On Debian or
# Ubuntu it installs the packages with apt-get (as root, or through sudo);
# elsewhere it prints exactly what to install and fails.
set -eu

PKGS="erlang-nox erlang-dev libzstd-dev zlib1g-dev zstd gzip pkg-config make gcc python3 perl chromium python3-jsonschema"

missing() {
	command -v erl >/dev/null 2>&1 || return 0
	command -v erlc >/dev/null 2>&1 || return 0
	command -v zstd >/dev/null 2>&1 || return 0
	command -v gzip >/dev/null 2>&1 || return 0
	command -v python3 >/dev/null 2>&1 || return 0
	command -v chromium >/dev/null 2>&1 || return 0
	{ python3 -c 'import jsonschema' || /usr/bin/python3 -c 'import jsonschema'; } >/dev/null 2>&1 || return 0
	command -v prove >/dev/null 2>&1 || return 0
	command -v pkg-config >/dev/null 2>&1 || return 0
	command -v clang >/dev/null 2>&1 || return 0
	command -v valgrind >/dev/null 2>&1 || return 0
	command -v prlimit >/dev/null 2>&1 || return 0
	command -v chattr >/dev/null 2>&1 || return 0
	[ -f "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ] ||
		ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 || return 0
	pkg-config --exists libzstd zlib || return 0
	ei=$(erl -noshell -eval 'io:format("~s",[code:lib_dir(erl_interface)]),halt().' 2>/dev/null) || return 0
	[ -f "$ei/include/ei.h" ] || return 0
	return 1
}

if [ "${1:-}" = "--check" ]; then
	if missing; then exit 1; else exit 0; fi
fi

missing || exit 0

if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-deps: no apt-get here; install Erlang/OTP with erl_interface (erlang-dev), libzstd, zlib, zstd, gzip, pkg-config, python3 and perl's prove, then run make again" >&2
	exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
	SUDO=
elif command -v sudo >/dev/null 2>&1; then
	SUDO=sudo
else
	echo "install-deps: not root and no sudo; run as root: apt-get install $PKGS" >&2
	exit 1
fi
echo "install-deps: installing $PKGS" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq $PKGS >&2
if missing; then
	echo "install-deps: packages installed but something is still missing; check 'erl', 'pkg-config --exists libzstd zlib' and erl_interface's ei.h" >&2
	exit 1
fi

#!/bin/sh
# install-deps.sh [--check] [TARGET] - installs what one make target needs.
#
#   build  what `make` needs: Erlang/OTP with erl_interface's headers, a C
#          compiler, pkg-config, libzstd and zlib (default)
#   demo   build, and what examples/demo.sh runs (nothing more today)
#   check  build, and every tool the tests run: clang with its libFuzzer
#          runtime, valgrind, chromium (report_html.t drives it from Python,
#          tests/report/html_drive.py), python3 with jsonschema, perl's
#          prove, zstd, gzip, prlimit, chattr, hostname, go, elixir (with mix),
#          GNU time, tmux (drives `flameprof top` on a terminal)
#   fuzz   build, and clang with its libFuzzer runtime (make fuzz, make
#          check-fuzz)
#   demo-elixir  build, and elixir (examples/demo_elixir.sh)
#
# The Makefile runs it before building (build), and from `make demo` and
# `make check`. Each tool is listed with the Debian package that has it: on
# Debian or Ubuntu the missing packages are installed with apt-get (as root,
# or through sudo); elsewhere, or when that fails, it names each missing tool
# and exits 1. --check only says (exit 0: nothing missing).
set -eu

check=0
[ "${1:-}" = --check ] && { check=1; shift; }
target=${1:-build}

# "test:what:package": test is cmd (a command on PATH), file (a program at
# that path: /usr/bin/time, which a shell's own `time` hides from cmd), hdr (a C header in
# /usr/include), pc (a pkg-config
# module), ei (erl_interface's ei.h), py (a python3 module) or fuzzer (the
# libFuzzer runtime of the clang on PATH).
BUILD="cmd:erl:erlang-nox cmd:erlc:erlang-nox cmd:epmd:erlang-nox ei:ei.h:erlang-dev
cmd:cc:gcc hdr:stdio.h:libc6-dev cmd:make:make cmd:pkg-config:pkg-config pc:libzstd:libzstd-dev pc:zlib:zlib1g-dev
cmd:od:coreutils"
DEMO="$BUILD"
FUZZ="$BUILD cmd:clang:clang fuzzer:libclang_rt.fuzzer:libclang-rt-dev"
CHECK="$FUZZ cmd:valgrind:valgrind
cmd:chromium:chromium cmd:python3:python3 py:jsonschema:python3-jsonschema cmd:prove:perl
cmd:zstd:zstd cmd:gzip:gzip cmd:prlimit:util-linux cmd:chattr:e2fsprogs cmd:hostname:hostname
cmd:timeout:coreutils cmd:go:golang-go cmd:elixir:elixir cmd:mix:elixir file:/usr/bin/time:time cmd:tmux:tmux
cmd:perf:linux-perf"

case $target in
build) NEED=$BUILD ;;
demo) NEED=$DEMO ;;
demo-elixir) NEED="$BUILD cmd:elixir:elixir" ;;
fuzz) NEED=$FUZZ ;;
check) NEED=$CHECK ;;
*) echo "install-deps: unknown target '$target'; use build, demo, demo-elixir, fuzz or check" >&2; exit 64 ;;
esac

# The fuzzer runtime ships with the clang of the same major version:
# libclang-rt-14-dev on bookworm, libclang-rt-19-dev on trixie. Without
# clang yet there is no version to ask: clang is installed first.
fuzzer_package() {
	v=$(clang -dumpversion 2>/dev/null | cut -d. -f1)
	if [ -n "$v" ]; then echo "libclang-rt-$v-dev"; fi
}

present() {
	case $1 in
	cmd) command -v "$2" >/dev/null 2>&1 ;;
	file) [ -x "$2" ] ;;
	pc) command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$2" ;;
	hdr) [ -f "/usr/include/$2" ] ;;
	py) python3 -c "import $2" >/dev/null 2>&1 ;;
	ei) ei=$(erl -noshell -eval 'io:format("~s",[code:lib_dir(erl_interface)]),halt().' 2>/dev/null) &&
		[ -f "$ei/include/ei.h" ] ;;
	fuzzer) command -v clang >/dev/null 2>&1 && {
		[ -f "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ] ||
			ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1; } ;;
	esac
}

# Sets MISSING ("tool (package), ...") and PKGS (the packages, once each).
scan() {
	MISSING= PKGS=
	for item in $NEED; do
		kind=${item%%:*} rest=${item#*:}
		what=${rest%%:*} pkg=${rest#*:}
		present "$kind" "$what" && continue
		if [ "$kind" = fuzzer ]; then
			pkg=$(fuzzer_package)
			[ -z "$pkg" ] && { MISSING="${MISSING:+$MISSING, }$what (libclang-rt-<clang's version>-dev)"; continue; }
		fi
		MISSING="${MISSING:+$MISSING, }$what ($pkg)"
		case " $PKGS " in *" $pkg "*) ;; *) PKGS="${PKGS:+$PKGS }$pkg" ;; esac
	done
}

# how the user asked for it
goal="make $target"
[ "$target" = build ] && goal=make

scan
[ -z "$MISSING" ] && exit 0
[ $check = 1 ] && { echo "install-deps: '$goal' needs $MISSING" >&2; exit 1; }

if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-deps: '$goal' needs $MISSING; install them (no apt-get here), then run make again" >&2
	exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
	SUDO=
elif command -v sudo >/dev/null 2>&1; then
	SUDO=sudo
else
	echo "install-deps: '$goal' needs $MISSING; not root and no sudo, so run as root: apt-get install $PKGS" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: '$goal' needs $MISSING; installing $PKGS" >&2
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends $PKGS >/dev/null ||
	{ echo "install-deps: apt-get could not install $PKGS" >&2; exit 1; }
# clang's version is known only once clang is there: its fuzzer runtime second
scan
case $NEED in *fuzzer:*) second=1 ;; *) second=0 ;; esac
if [ -n "$PKGS" ] && [ $second = 1 ]; then
	echo "install-deps: installing $PKGS" >&2
	$SUDO apt-get install -y -qq --no-install-recommends $PKGS >/dev/null ||
		{ echo "install-deps: apt-get could not install $PKGS" >&2; exit 1; }
	scan
fi
if [ -n "$MISSING" ]; then
	echo "install-deps: still missing after installing: $MISSING; install them by hand, then run make again" >&2
	exit 1
fi

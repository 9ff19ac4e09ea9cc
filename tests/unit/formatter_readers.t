#!/bin/sh
# formatter_readers.t - the formatter's output, hostile atoms included, passes
# every perf-script reader rule (tests/readers.py, doc/output-format.md), plain
# and compressed. Run from the repo root by prove (make check-unit), after
# build/tests/test_formatter is built; it builds nothing itself.
bin=${FP_TEST_BIN:-build/tests}/test_formatter
if [ ! -x "$bin" ]; then
	echo "1..0 # SKIP $bin not built (make $bin)"
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 not found"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fp_readers.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
out=$tmp/hostile.perf
n=0
check() { # description, command...
	desc=$1; shift
	n=$((n + 1))
	if "$@" >"$tmp/log" 2>&1; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		sed 's/^/# /' "$tmp/log"
	fi
}

check "test_formatter writes the sample file" env FP_READERS_OUT="$out" "$bin"
check "readers.py accepts the plain file" python3 tests/readers.py "$out"
check "readers.py accepts it gzipped" sh -c 'gzip -c "$1" > "$1.gz" && python3 tests/readers.py "$1.gz"' sh "$out"
if command -v zstd >/dev/null 2>&1; then
	check "readers.py accepts it zstd-compressed" sh -c 'zstd -q -c "$1" > "$1.zst" && python3 tests/readers.py "$1.zst"' sh "$out"
else
	n=$((n + 1)); echo "ok $n # SKIP zstd not found"
fi
# The checker must not be a rubber stamp: a '+' in a symbol fails it.
check "readers.py rejects a symbol with '+'" sh -c '
	sed "0,/^\t0 [^[]/s/^\t0 /\t0 x+/" "$1" > "$1.bad" && ! python3 tests/readers.py "$1.bad"' sh "$out"
echo "1..$n"

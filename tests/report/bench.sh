#!/bin/sh
# bench.sh [EVENTS] - measures `report` on a generated top-100-like capture:
# EVENTS events (default 1,000,000) from bigen.c, zstd-compressed into a
# scratch directory (deleted afterwards), rendered as flame graph + heatmap.
# Prints samples per second. Uses $FLAMEPROF, else build/flameprof.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
fp=${FLAMEPROF:-$root/build/flameprof}
n=${1:-1000000}
t=$(mktemp -d "${TMPDIR:-/tmp}/fp-bench.XXXXXX")
trap 'rm -rf "$t"' EXIT
${CC:-cc} -O2 -o "$t/bigen" "$root/tests/report/bigen.c"
"$t/bigen" "$n" | zstd -q -3 -T0 -o "$t/flameprof_bench.perf.zst"
bytes=$(stat -c %s "$t/flameprof_bench.perf.zst")
s=$(date +%s.%N)
"$fp" report "$t/flameprof_bench.perf.zst" -o "$t/flame.svg" --heatmap "$t/heat.svg" -q
e=$(date +%s.%N)
echo "$n events ($bytes bytes zstd) in $(echo "$e - $s" | bc) s:" \
	"$(echo "$n / ($e - $s)" | bc) samples/s;" \
	"flame graph $(stat -c %s "$t/flame.svg") bytes, heatmap $(stat -c %s "$t/heat.svg") bytes"

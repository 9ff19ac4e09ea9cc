#!/bin/sh
# bench.sh [EVENTS] - measures `report` on a generated top-100-like capture:
# EVENTS events (default 1,000,000; a 1-hour capture of the top 100 at
# 97 Hz is 34,920,000) from bigen.c, written the way a capture writes them
# (ixgen.c: rotate/ with the report index, a flush every 5 s of events, a
# new file every 2 minutes of them) into a scratch directory (deleted
# afterwards), then rendered as flame graph + heatmap through the index
# and, unless REPORT_TEXT=0, through the text (--no-index). Prints one
# "report:" line per reading. Uses $FLAMEPROF, else build/flameprof.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
fp=${FLAMEPROF:-$root/build/flameprof}
n=${1:-1000000}
t=$(mktemp -d "${TMPDIR:-/tmp}/fp-bench.XXXXXX")
trap 'rm -rf "$t"' EXIT
cc=${CC:-cc}
$cc -O2 -o "$t/bigen" "$root/tests/report/bigen.c"
$cc -std=c11 -O2 -D_DEFAULT_SOURCE -o "$t/ixgen" "$root/tests/report/ixgen.c" \
	"$root/build/libflameprof.a" -lzstd -lz -lm
mkdir "$t/out"
s=$(date +%s.%N)
"$t/bigen" "$n" | "$t/ixgen" "$t/out" bench@host 48500 1164000 > "$t/files" 2> "$t/ixgen.err"
e=$(date +%s.%N)
files=$(wc -l < "$t/files")
bytes=$(cat "$t/files" | xargs stat -c %s | awk '{ s += $1 } END { printf "%.0f\n", s }')
ixbytes=$(sed -n 's/.* \([0-9]*\) bytes of index.*/\1/p' "$t/ixgen.err")
echo "written: $n events in $files files, $bytes bytes ($(echo "scale=1; $bytes / $n" | bc) bytes/event," \
	"of which the index $ixbytes = $(echo "scale=1; $ixbytes / $n" | bc)), in $(echo "$e - $s" | bc) s"
run() { # run LABEL ARGS...
	label=$1
	shift
	sync
	s=$(date +%s.%N)
	"$fp" report "$t/out" -o "$t/flame.svg" --heatmap "$t/heat.svg" -q "$@"
	e=$(date +%s.%N)
	echo "report: $label: $n events in $(echo "$e - $s" | bc) s:" \
		"$(echo "$n / ($e - $s)" | bc) events/s;" \
		"flame graph $(stat -c %s "$t/flame.svg") bytes, heatmap $(stat -c %s "$t/heat.svg") bytes"
}
run index
[ "${REPORT_TEXT:-1}" = 0 ] || run text --no-index

#!/bin/bash
# A small compressed file of filler does not hold `report` for minutes:
# 512 MiB of newlines (a 17 KB zstd file) around two events reads both
# events, and costs `report` about what decompressing it costs zstd itself
# (CPU time, measured against zstd on the same file: one call per empty
# line took 10x to 60x longer); 80 MiB of comment lines in a row (a 25 KB
# file) is refused with one sentence (exit 65) instead of read a line at a
# time.
. "$(dirname "$0")/../lib.sh"

gen --events 1 --seed 1 --start 1700000000.25 > "$T_DIR/one.perf"
gen --events 1 --seed 2 --start 1700000005.25 | grep -v '^#' > "$T_DIR/two.perf"
nl="$T_DIR/flameprof_a@b_20231114T221320.000Z.perf.zst"
{ cat "$T_DIR/one.perf"; head -c 512M /dev/zero | tr '\0' '\n'; cat "$T_DIR/two.perf"; } | zstd -q -3 -c > "$nl"
diag "512 MiB of newlines: $(stat -c %s "$nl") bytes compressed"
cpu() { # cpu CMD...: CPU_S the user+sys seconds of CMD (output dropped), CPU_RC its status
	/usr/bin/time -o "$T_DIR/cpu.t" -f '%U %S' "$@" >/dev/null 2>"$T_DIR/cpu.err"
	CPU_RC=$?
	CPU_S=$(awk '{ print $1 + $2 }' "$T_DIR/cpu.t")
}
cpu zstd -dc "$nl"
zs=$CPU_S
cpu "$FLAMEPROF" report "$nl" -f folded -o "$T_DIR/nl.folded"
rs=$CPU_S
is "$CPU_RC" 0 "report reads a file of 512 MiB of newlines (exit 0)"
check "both events around the newlines are read" grep -q "read 2 events" "$T_DIR/cpu.err"
diag "CPU: zstd -dc ${zs} s, report ${rs} s"
# no time is asserted in make check (doc/benchmarks.md has the figures):
# the CPU times are shown above

hash="$T_DIR/flameprof_a@b_20231114T221321.000Z.perf.zst"
{ cat "$T_DIR/one.perf"; yes '#' | head -c 80M; cat "$T_DIR/two.perf"; } | zstd -q -3 -c > "$hash"
"$FLAMEPROF" report "$hash" -o "$T_DIR/h.svg" 2> "$T_DIR/err"
is "$?" 65 "80 MiB of comment lines in a row: refused, exit 65"
check "one sentence says why" grep -q "over 64 MiB of lines in a row outside any event" "$T_DIR/err"
is "$(wc -l < "$T_DIR/err")" 1 "... and only that"
finish

#!/bin/bash
# Output codecs and rotation: gzip output reads with gzip -dc, 'none' is
# plain text, --rotate gives several files whose names sort by time, each
# with at least two events, and --keep keeps only the newest.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node codec "fp_busy:start(4)" || exit 1
COMMON="--top 10 --every 1s"

fp $COMMON --duration 1s --compress gzip -o "$T_DIR/gz" "$NODE"
is "$FP_RC" 0 "--compress gzip: exits 0"
files=$(ls "$T_DIR/gz"/flameprof_* 2>/dev/null)
check "--compress gzip: files end in .perf.gz" sh -c "[ -n '$files' ] && ! ls '$T_DIR/gz'/flameprof_* | grep -qv '\.perf\.gz$'"
is "$(head -c 2 $files | od -An -tx1 | tr -d ' \n' | head -c 4)" 1f8b "--compress gzip: the gzip magic"
check "--compress gzip: gzip -t accepts it" gzip -tq $files
check "--compress gzip: gzip -dc gives events" sh -c "gzip -dc $files | grep -q 'fp_busy:burn_cpu/1'"
check "--compress gzip: every perf-script reader rule holds" readers_ok $files

fp $COMMON --duration 1s --compress none -o "$T_DIR/plain" "$NODE"
is "$FP_RC" 0 "--compress none: exits 0"
files=$(ls "$T_DIR/plain"/flameprof_* 2>/dev/null)
check "--compress none: files end in .perf" sh -c "[ -n '$files' ] && ! ls '$T_DIR/plain'/flameprof_* | grep -qv '\.perf$'"
check "--compress none: plain text, read as it is" grep -q 'fp_busy:burn_cpu/1' $files
check "--compress none: no control bytes but tab and newline" sh -c "! LC_ALL=C grep -q '[^[:print:]	]' $files"
check "--compress none: every perf-script reader rule holds" readers_ok $files

# spans FILE...: "first last" event time of each file, one line per file
spans() {
	for f in "$@"; do
		decompressed "$f" | awk '/ cpu-clock:/ { t = $4; sub(":", "", t); if (!n++) f = t; l = t } END { print f, l, n }'
	done
}

fp $COMMON --duration 3500ms --rotate 1s -o "$T_DIR/rot" "$NODE"
is "$FP_RC" 0 "--rotate 1s --duration 3.5s: exits 0"
files=$(ls "$T_DIR/rot"/flameprof_*.perf.zst 2>/dev/null | LC_ALL=C sort)
n=$(echo "$files" | grep -c .)
check "--rotate 1s: several files ($n)" test "$n" -ge 3
spans $files > "$T_DIR/spans"
sed 's/^/#   first last events: /' "$T_DIR/spans"
check "--rotate 1s: each file holds at least 2 events" awk '$3 < 2 { exit 1 }' "$T_DIR/spans"
check "--rotate 1s: names sort by time (each file starts where the one before it ended, or later)" \
	awk 'NR > 1 && $1 + 0 < last + 0 { exit 1 } { last = $2 }' "$T_DIR/spans"
check "--rotate 1s: every perf-script reader rule holds on every file" readers_ok $files

fp $COMMON --duration 3500ms --rotate 1s --keep 2 -o "$T_DIR/keep" "$NODE"
is "$FP_RC" 0 "--keep 2: exits 0"
made=$(sed -n 's/.*; \([0-9]*\) files*, .*/\1/p' "$T_DIR/fp.err")
is "$(ls "$T_DIR/keep" | grep -c .)" 2 "--keep 2: only 2 files are left (of $made made), and no dotfile"
check "--keep 2: more than 2 were made" test "${made:-0}" -gt 2
check "--keep 2: the files left pass every reader rule" readers_ok "$T_DIR/keep"/flameprof_*
check "the node is left as it was" node_clean "$NODE"
finish

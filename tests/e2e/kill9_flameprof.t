#!/bin/bash
# flameprof is killed with kill -9 mid-run: the agent sees the C-node go
# (monitor_node) and restores the node by itself within seconds; the
# in-progress dotfile decompresses up to its last flush and holds only whole
# events that pass every reader rule; the next run starts cleanly.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node k9f "fp_busy:start(4)" || exit 1

fp_bg --top 10 --every 1s --flush 200ms -o "$T_DIR/out" "$NODE"
check "the agent is running on the node" \
	wait_until 10 sh -c "[ \"\$('$ERL_CALL' -name '$NODE' -c '$T_COOKIE' -timeout 10 -a 'erlang whereis [flameprof_agent]')\" != undefined ]"
# the kill comes once samples are on disk: at least 51 events flushed to the
# dotfile (2 s of sampling on a quiet machine; on a loaded one it takes longer)
flushed_enough() {
	local f
	f=$(ls "$T_DIR/out"/.flameprof_*.perf.zst 2>/dev/null | head -1)
	[ -n "$f" ] && [ "$(zstd -dcq "$f" 2>/dev/null | grep -c 'cpu-clock:')" -gt 50 ]
}
check "more than 50 events are flushed to the dotfile" wait_until 60 flushed_enough
check "flameprof is still running" kill -0 "$FP_PID"
kill_quietly 9 "$FP_PID"
t0=$(now_ms)
check "within 5 s the node is restored (agent unregistered, module purged, backtrace_depth 13)" \
	node_clean_within 5 "$NODE"
diag "restored after $(( $(now_ms) - t0 )) ms"

dots=$(ls -A "$T_DIR/out" | grep '^\.flameprof_.*\.perf\.zst$')
is "$(echo "$dots" | grep -c .)" 1 "one in-progress dotfile is left (the partial data is kept)"
check "the dotfile decompresses up to its last flush, whole events, every reader rule holds" \
	dot_ok "$T_DIR/out/$dots"
check "it holds the samples flushed before the kill ($(grep -c 'cpu-clock:' "$T_DIR/dot_prefix.txt") events)" \
	test "$(grep -c 'cpu-clock:' "$T_DIR/dot_prefix.txt")" -gt 50
# zstd itself, as an operator would run it, gets the same text
zstd -dc "$T_DIR/out/$dots" 2>/dev/null | awk '{ b = b $0 "\n" } /^$/ { printf "%s", b; b = "" }' > "$T_DIR/zstd_whole.txt"
check "zstd -dc gives the same whole events" cmp -s "$T_DIR/zstd_whole.txt" "$T_DIR/dot_prefix.txt"

# the dead run's file is not hidden: report reads it and says so ...
"$FLAMEPROF" report -f folded -o "$T_DIR/dead.folded" "$T_DIR/out" 2>"$T_DIR/report.err"
is "$?" 0 "report DIR reads the dead run's dotfile (exit 0)"
check "report says it reads the file of a run that died" \
	grep -q "reading '.*/\.flameprof_.*', the file of a run that died" "$T_DIR/report.err"
check "with its samples" test -s "$T_DIR/dead.folded"

# ... and the next run into the directory gives it its final name
final=${dots#.}
fp --duration 1s --top 5 -o "$T_DIR/out" "$NODE"
is "$FP_RC" 0 "a new run into the same directory works (exit 0)"
check "the dead run's file has its final name" test -f "$T_DIR/out/$final"
check "no dotfile is left" sh -c "! ls -A '$T_DIR/out' | grep -q '^\.flameprof_'"
check "the run says so in one line" grep -q "1 file(s) of runs that died before finishing them (.* bytes, e.g. '$final') renamed" "$T_DIR/fp.err"
check "and leaves the node as it was" node_clean "$NODE"

# a file being written is never taken: a recording runs while another starts
fp_bg --top 5 --every 1s --flush 200ms -o "$T_DIR/live" "$NODE"
live_dot() { ls -A "$T_DIR/live" 2>/dev/null | grep -q '^\.flameprof_.*\.perf\.zst$'; }
check "a live recording has its dotfile" wait_until 20 live_dot
sleep 1
"$FLAMEPROF" report -f folded -o "$T_DIR/live.folded" "$T_DIR/live" 2>"$T_DIR/report.err"
check "report leaves a live run's dotfile alone" sh -c "! grep -q 'run that died' '$T_DIR/report.err'"
kill -INT "$FP_PID"
fp_wait 30
is "$FP_RC" 0 "the live recording ends normally"
finish

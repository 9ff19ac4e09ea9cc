#!/bin/bash
# The target dies (kill -9) mid-capture: flameprof notices at once (the
# connection closes), says so in one sentence naming the node, exits 75,
# and what it wrote is closed, renamed and readable. (A frozen
# target, given up after --silence-timeout: fault_target_sigstop.t.)
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node victim "fp_busy:start(4)" || exit 1

fp_bg --top 10 --every 1s --flush 500ms --silence-timeout 3s -o "$T_DIR/out" "$NODE"
sleep 3
check "flameprof is running after 3 s" kill -0 "$FP_PID"
t0=$(now_ms)
kill_quietly 9 "$NODE_PID"
T_PIDS=$(echo "$T_PIDS" | sed "s/ $NODE_PID\b//")
fp_wait 15
el=$(( $(now_ms) - t0 ))
is "$FP_RC" 75 "exit status 75 (EX_TEMPFAIL: target lost mid-capture)"
check "it exits within the silence timeout (3 s) + 3 s (${el} ms)" test "$el" -lt 6000
is "$(grep -c "$NODE" "$T_DIR/fp.err")" 1 "stderr has one sentence naming the node"
check "that sentence says the node was lost" grep -q "^flameprof: .*'$NODE'.*\(lost\|went down\|closed\)" "$T_DIR/fp.err"
check "that sentence is one short line" \
	test "$(grep "$NODE" "$T_DIR/fp.err" | wc -c)" -lt 300
check "no in-progress dotfile is left" test -z "$(ls -A "$T_DIR/out" | grep '^\.')"
files=$(ls "$T_DIR/out"/*.perf.zst 2>/dev/null)
check "a closed .zst file is there" test -n "$files"
check "every file decompresses whole (zstd -t)" zstd -tq $files
decompressed $files > "$T_DIR/all.txt"
check "events from before the kill are in it ($(grep -c 'cpu-clock:' "$T_DIR/all.txt"))" \
	test "$(grep -c 'cpu-clock:' "$T_DIR/all.txt")" -gt 50
check "every perf-script reader rule holds" readers_ok $files

finish

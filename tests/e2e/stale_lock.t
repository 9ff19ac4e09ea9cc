#!/bin/bash
# A lock left by a run that died before its agent started: the name
# flameprof_agent held by a bare lock process (erlang:hibernate/3, no link)
# whose group leader, the pid of the run that took it, is on a node that is
# gone. The next run takes it over; while that owner is still connected, the
# lock is respected and the run exits 69.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node stale "fp_busy:start(4)" || exit 1
TARGET=$NODE

# take_lock: on the ghost node (the one running it), a bare lock on the
# target, registered and marked with the ghost's pid as its group leader
take_lock="T = '$TARGET', P = rpc:call(T, erlang, spawn, [erlang, hibernate, [erlang, exit, [normal]]]), true = rpc:call(T, erlang, register, [flameprof_agent, P]), true = rpc:call(T, erlang, group_leader, [self(), P])"
holder() {
	echo 'case whereis(flameprof_agent) of undefined -> none; P -> element(2, erlang:process_info(P, initial_call)) end.' |
		"$ERL_CALL" -name "$TARGET" -c "$T_COOKIE" -timeout 10 -e 2>&1 | tr -d ' \n'
}

start_node ghost "$take_lock" || exit 1
GHOST_PID=$NODE_PID
is "$(holder)" "{ok,{erlang,hibernate,3}}" "a bare lock holds the name while its owner is connected"
fp --duration 1s --top 5 -o "$T_DIR/out1" "$TARGET"
is "$FP_RC" 69 "its owner still connected: the lock is respected (exit 69)"
check "and the message says the node is being profiled" grep -q 'already being profiled' "$T_DIR/fp.err"
is "$(holder)" "{ok,{erlang,hibernate,3}}" "the lock is untouched"

kill -9 "$GHOST_PID"
check "the owner's node is gone, and the target knows it" \
	wait_until 15 sh -c "! epmd -port $ERL_EPMD_PORT -names | grep -q 'ghost_' && ! \"$ERL_CALL\" -name '$TARGET' -c '$T_COOKIE' -timeout 10 -a 'erlang nodes [connected]' | grep -q 'ghost_'"
is "$(holder)" "{ok,{erlang,hibernate,3}}" "the bare lock outlives its owner"
fp --duration 2s --top 5 --every 500ms -o "$T_DIR/out2" "$TARGET"
is "$FP_RC" 0 "the next run takes the stale lock over and records"
files=$(ls "$T_DIR/out2"/*.perf.zst 2>/dev/null)
check "it wrote samples" sh -c "zstd -dcq $files | grep -q 'cpu-clock:'"
check "the node is left as it was" node_clean "$TARGET"
finish

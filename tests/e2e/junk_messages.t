#!/bin/bash
# Any process on the node can send flameprof anything (issue 50): a
# fun, a term nested 200 deep, {'EXIT', 1, 2} with no pid, atoms, and a
# flood of 50,000 tuples. None of it is the agent's or the tracer's, so a
# capture and `flameprof calls` both drop it and end as they would have:
# exit 0, their samples and counts written, no sentence blaming the agent
# (each ended with exit 76, "cannot read a message from the agent").
: "${T_TIMEOUT:=90}"
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node junk "fp_busy:start(2)" || exit 1

# JUNK: every kind of junk to each hidden node named flameprof_* (a
# message to any registered name there reaches flameprof as one to its
# pid does). @prints how many nodes got it
JUNK='Ns = [N || N <- erlang:nodes(hidden), lists:prefix("flameprof", atom_to_list(N))],
	Deep = lists:foldl(fun(_, A) -> [A] end, [], lists:seq(1, 200)),
	[begin Q = {junk, N}, Q ! fun() -> ok end, Q ! Deep, Q ! {'"'"'EXIT'"'"', 1, 2}, Q ! hello,
	       [Q ! {junk, I} || I <- lists:seq(1, 50000)] end || N <- Ns],
	length(Ns)'
# send_junk: once flameprof is connected, the junk
send_junk() {
	local n=0
	for _ in $(seq 50); do
		n=$(rpc_eval "$NODE" "$JUNK")
		[ "$n" -gt 0 ] 2>/dev/null && break
		sleep 0.2
	done
	echo "$n"
}

fp_bg --duration 4s --top 3 -o "$T_DIR/cap" "$NODE"
sent=$(send_junk)
fp_wait 30
check "the junk went to flameprof ($sent node)" test "$sent" -ge 1 2>/dev/null
is "$FP_RC" 0 "a capture sent junk by a process on the node: exit 0"
check "... no sentence about an unreadable message" sh -c "! grep -q 'cannot be read\|cannot read a message' '$T_DIR/fp.err'"
check "... its samples written" sh -c "zstd -dcq '$T_DIR'/cap/flameprof_* | grep -q 'cpu-clock'"
check "the node is left as it was" node_clean_within 10 "$NODE"

fpc_bg -p fp_busy:deep_loop/0 -p erlang:phash2/1 --duration 4s "$NODE"
sent=$(send_junk)
fp_wait 30
check "the junk went to flameprof calls ($sent node)" test "$sent" -ge 1 2>/dev/null
is "$FP_RC" 0 "flameprof calls sent junk by a process on the node: exit 0"
check "... its table written" grep -q 'phash2' "$T_DIR/fp.out"
check "... no sentence about an unreadable message" sh -c "! grep -q 'cannot read' '$T_DIR/fp.err'"
check "the tracer is gone" wait_until 10 tracer_gone "$NODE"
finish

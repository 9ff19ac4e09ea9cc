#!/bin/bash
# The target node is frozen with SIGSTOP for longer than the silence timeout
# (3 s here): flameprof calls it lost within that deadline, closes and
# renames its file, exits 75 with one sentence. Twice: once the node is
# resumed afterwards (and then cleans up after itself: the agent sees the
# C-node gone), once it stays frozen.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads || exit 1

for mode in resumed frozen; do
	start_node "stop_$mode" "fp_busy:start(4)" || exit 1
	fp_bg --top 10 --every 1s --flush 500ms --silence-timeout 3s -o "$T_DIR/$mode" "$NODE"
	check "$mode: a dotfile is being written" wait_until 20 sh -c "ls -A '$T_DIR/$mode' | grep -q '^\.flameprof_'"
	sleep 1.5
	kill -STOP "$NODE_PID"
	t0=$(date +%s%N)
	fp_wait 20
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	is "$FP_RC" 75 "$mode: flameprof exits 75 when the node is frozen"
	check "$mode: it gave up after the 3 s silence timeout, not much later ($ms ms)" \
		sh -c "test $ms -ge 2000 && test $ms -lt 6000"
	check "$mode: one sentence says so: $(fp_errors | head -1)" one_sentence
	check "$mode: no dotfile is left" test -z "$(ls -A "$T_DIR/$mode" | grep '^\.')"
	check "$mode: every closed file decompresses and passes every reader rule" \
		closed_some_ok "$T_DIR/$mode"
	if [ $mode = resumed ]; then
		kill -CONT "$NODE_PID"
		check "resumed: the node cleans up by itself (agent gone, module purged, depth 13)" \
			node_clean_within 20 "$NODE"
	fi
	kill_quietly 9 "$NODE_PID"
done
finish

#!/bin/bash
# flameprof is killed with kill -9 at random points, from the connect through
# the agent's start to the middle of a capture with rotations (FP_KILL9_RUNS
# runs, 3 here, 20 in tests/long/). Each time: on the node the agent stops by
# itself, backtrace_depth is restored and the module is gone (killed while it
# held the node's lock before its agent started, the lock stays until its
# timer, and the next run must take it over); on disk every
# closed file is complete and the in-progress dotfile decompresses up to its
# last flush and holds only whole events. FP_KILL9_SEED replays a run.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node k9 "fp_busy:start(6)" || exit 1

runs=${FP_KILL9_RUNS:-3}
# lock_holder NODE: the initial call of whatever holds the name flameprof_agent
lock_holder() {
	echo 'case whereis(flameprof_agent) of undefined -> none; P -> element(2, erlang:process_info(P, initial_call)) end.' |
		"$ERL_CALL" -name "$1" -c "$T_COOKIE" -timeout 10 -e 2>&1 | tr -d ' \n'
}
mod=$(our_module agent)
seed=${FP_KILL9_SEED:-$$}
RANDOM=$seed
diag "seed $seed, $runs runs"
for run in $(seq "$runs"); do
	odir="$T_DIR/out$run"
	# 0..4 s in ms; every third run early (0..400 ms: connect, load, start)
	if [ $((run % 3)) -eq 1 ]; then delay=$((RANDOM % 400)); else delay=$((RANDOM % 4000)); fi
	fp_bg --top 20 --every 500ms --flush 300ms --rotate 1s --silence-timeout 3s -o "$odir" "$NODE"
	sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
	kill_quietly 9 "$FP_PID"
	if node_clean_within 15 "$NODE"; then
		ok 0 "run $run (killed after $delay ms): the node cleans up by itself"
	elif [ "$(rpc "$NODE" "erlang whereis [flameprof_agent]")" = undefined ] &&
	     [ "$(rpc "$NODE" "erlang system_flag [backtrace_depth, 13]")" = 13 ]; then
		# Killed between code:load_binary and the agent's start: no agent
		# ran, so the module's on_load watchdog removes it after 60 s.
		diag "run $run: module left without an agent; waiting for its watchdog (60 s)"
		check "run $run (killed after $delay ms): the watchdog removes the module an agent never started from" \
			node_clean_within 80 "$NODE"
	elif [ "$(lock_holder "$NODE")" = "{ok,{erlang,hibernate,3}}" ]; then
		# Killed between taking the lock and starting the agent: the bare
		# lock names a run that is gone, so the next run takes it over.
		diag "run $run: a bare lock is left; the next run must take it over"
		fp --duration 1s --top 5 --every 500ms -o "$odir.next" "$NODE"
		is "$FP_RC" 0 "run $run (killed after $delay ms): the next run takes the stale lock over and records"
		check "run $run: the node is clean after that run" node_clean_within 80 "$NODE"
	else
		ok 1 "run $run (killed after $delay ms): the node cleans up by itself"
	fi
	check "run $run: every closed file is complete and passes every reader rule" closed_ok "$odir"
	dots=$(ls -A "$odir" 2>/dev/null | grep '^\.flameprof_')
	check "run $run: at most one in-progress file ($(echo $dots | wc -w))" test "$(echo $dots | wc -w)" -le 1
	for d in $dots; do
		check "run $run: the in-progress file decompresses up to its last flush, whole events only" dot_ok "$odir/$d"
	done
	diag "run $run: $(ls "$odir" 2>/dev/null | wc -l) closed file(s)"
done
finish

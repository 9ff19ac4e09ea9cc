#!/bin/bash
# Whatever ends the agent's processes on the node, the node is left as it
# was. Each of them is killed mid-capture (exit(P, kill)):
#   the coordinator, the guardian, the lock, the lock and the guardian
#   together, the lock and then the guardian while it waits for the code
#   server to delete the module (nothing of the agent is left to remove
#   it; the code server is held for that moment), every process of ours
#   at once (nothing of the agent is left to say so or to restore the
#   node: the coordinator's link to us tells flameprof): flameprof
#   says so in one sentence within 2 s and exits 70; its file is whole; a
#   run started as soon as it has exited works (the node is ready: no old
#   code left that nobody purges);
#   a worker, the scanner: the capture goes on (they are started again)
#   and ends normally with exit 0; the reader of the receives' lines too
#   (not started again: the modules it has not read yet stay as read).
# Every time: no process of ours is left, backtrace_depth is restored, the
# module is deleted and purged.
T_SCHEDULERS=2 # processes running on several schedulers at once are part of what it checks (lib.sh)
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node victim "fp_busy:start(4)" || exit 1
MOD=$(our_module agent)

# eval EXPR: evaluates EXPR on the node.
eval_on() { echo "$1" | "$ERL_CALL" -name "$NODE" -c "$T_COOKIE" -timeout 10 -e 2>&1; }
# kill_ours FUN ARITY: kills the first of our module's processes started in
# FUN/ARITY; prints {ok, how many there were}.
kill_ours() {
	eval_on "Ps = [P || P <- erlang:processes(), erlang:process_info(P, initial_call) =:= {initial_call, {'$MOD', $1, $2}}], [exit(P, kill) || P <- lists:sublist(Ps, 1)], length(Ps)."
}
no_process_of_ours() {
	[ "$(eval_on "[P || P <- erlang:processes(), element(1, element(2, erlang:process_info(P, initial_call))) =:= '$MOD']." )" = "{ok, []}" ]
}

for victim in "init 1 coordinator 70" "guardian 4 guardian 70" "lock - lock 70" "guardian 4 lock+guardian 70" "guardian 4 lock,guardian 70" "- - all 70" "worker 5 worker 0" "scanner 2 scanner 0" "reader 1 reader 0"; do
	set -- $victim
	fun=$1 arity=$2 what=$3 want=$4
	# what the sentence names: the first of them the coordinator hears of
	said=$what
	[ "$what" = lock+guardian ] && said='\(lock\|guardian\)'
	[ "$what" = lock,guardian ] && said=lock
	[ "$what" = all ] && said='coordinator ended: killed'
	fp_bg --duration 6s --top 5 --every 1s --node-name "fp_${what//[+,]/_}" -o "$T_DIR/$what" "$NODE"
	check "$what: the agent is running" wait_until 10 sh -c "[ \"\$('$ERL_CALL' -name '$NODE' -c '$T_COOKIE' -timeout 10 -a 'erlang whereis [flameprof_agent]')\" != undefined ]"
	sleep 1.5
	if [ "$what" = lock ]; then
		eval_on "exit(whereis(flameprof_agent), kill)." >/dev/null
	elif [ "$what" = lock+guardian ]; then
		eval_on "exit(whereis(flameprof_agent), kill), [exit(P, kill) || P <- erlang:processes(), erlang:process_info(P, initial_call) =:= {initial_call, {'$MOD', guardian, 4}}]." >/dev/null
	elif [ "$what" = all ]; then
		eval_on "Ps = [P || P <- erlang:processes(), {initial_call, {'$MOD', _, _}} <- [erlang:process_info(P, initial_call)]], [exit(P, kill) || P <- [whereis(flameprof_agent) | Ps]], length(Ps)." >/dev/null
	elif [ "$what" = lock,guardian ]; then
		eval_on "CS = whereis(code_server), erlang:suspend_process(CS), exit(whereis(flameprof_agent), kill), receive after 300 -> ok end, [exit(P, kill) || P <- erlang:processes(), erlang:process_info(P, initial_call) =:= {initial_call, {'$MOD', guardian, 4}}], erlang:resume_process(CS)." >/dev/null
	else
		n=$(kill_ours "$fun" "$arity")
		is "$n" "{ok, $( [ "$what" = worker ] && echo 5 || echo 1 )}" "$what: found and killed"
	fi
	t0=$(now_ms)
	fp_wait 20
	el=$(( $(now_ms) - t0 ))
	is "$FP_RC" "$want" "$what: flameprof exits $want"
	if [ "$want" = 70 ]; then
		check "$what: within 2 s (${el} ms)" test "$el" -lt 2000
		check "$what: one sentence saying the agent ended unexpectedly" \
			sh -c "grep -q \"^flameprof: the agent on '$NODE' ended unexpectedly (.*$said\" '$T_DIR/fp.err'"
		check "$what: and only that one" one_sentence
		cp "$T_DIR/fp.err" "$T_DIR/$what.err"
		# at once: no waiting for the node to clean up
		fp --duration 300ms --top 5 --node-name "fp_${what//[+,]/_}_next" -o "$T_DIR/$what-next" "$NODE"
		is "$FP_RC" 0 "$what: a run started right after the exit works"
		cp "$T_DIR/$what.err" "$T_DIR/fp.err"
	else
		check "$what: no error" test -z "$(fp_errors)"
	fi
	check "$what: the file is closed and whole" closed_some_ok "$T_DIR/$what"
	check "$what: samples before the kill are kept" test -n "$(decompressed "$T_DIR/$what"/*.perf.zst | grep -m1 'cpu-clock:')"
	check "$what: the node is left as it was" node_clean_within 5 "$NODE"
	check "$what: no process of our module is left" wait_until 5 no_process_of_ours
done
finish

#!/bin/bash
# Advice that works, the "try again" kind (issue 30): each refusal that
# tells the operator to try again is provoked on a real node by what
# causes it there, the cause then goes as it would by itself, and the
# retry gets through (exit 0); the node is left clean. advice.t has the
# advice that names an option; trace_sessions.t has "try again once that
# tracing is off".
#
# 1. "still purging ... try again in a few seconds", for calls' tracer and
#    the capture's agent: one purge of flameprof's runs at a time (the
#    registered name flameprof_purge, tracer/fp_purge.hrl), so a process
#    of the node holding that name (as an earlier run's purge of another
#    module does while it runs) keeps our purge waiting: the run's own
#    module stays loaded after it, and the next run is refused. The holder
#    ends (as that purge would), our purge goes on by itself, and a retry
#    gets through.
# 2. "ended flameprof's tracing lock ... try again once nothing on the node
#    sends to that name": the lock (node/lock.c) ends at its first message;
#    a process of the node sends one to flameprof_tracer as soon as a run
#    of ours has taken it (its group leader is ours then), before the
#    tracer adopts it (the code server held meanwhile, as a saturated
#    node's is slow, so that the tracer's load cannot outrun the message).
#    Once it has stopped, a retry starts and completes; for calls and for
#    requests (the lock and this sentence are tracer/'s, shared).
# 3. Old code of the agent whose purge never started: the next run purges
#    it and starts, no refusal.
# No timing is asserted: the node's own clock says how long each removal
# took after its cause went (a diagnostic in the test's name).
T_TIMEOUT=120
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node adr "code:ensure_loaded(fp_calls_wl)" || exit 1
AGENT=$(our_module agent)
TRACER=${AGENT/agent/tracer}
# the blocked runs wait --connect-timeout for the purge: short, to keep the test short
SHORT="--connect-timeout 2s"

# hold: a process of the node registers flameprof_purge and keeps it until
# told; its dictionary names none of our modules (a purge of another one)
hold() {
	rpc_eval "$NODE" "Me = self(), spawn(fun() -> register(flameprof_purge, self()), Me ! held, receive fp_test_stop -> ok end end), receive held -> held after 5000 -> not_held end"
}
# release MOD: the holder ends; prints the ms until MOD has neither code
# nor old code left on the node, as the node's clock says (none: not
# within 10 s)
release() {
	rpc_eval "$NODE" "T0 = erlang:monotonic_time(millisecond), flameprof_purge ! fp_test_stop, W = fun L() -> case erlang:module_loaded($1) orelse erlang:check_old_code($1) of false -> erlang:monotonic_time(millisecond) - T0; true -> case erlang:monotonic_time(millisecond) - T0 > 10000 of true -> none; false -> receive after 2 -> L() end end end end, W()"
}
purge_name_free() { [ "$(rpc "$NODE" "erlang whereis [flameprof_purge]")" = undefined ]; }
tracer_clean() { tracer_gone "$NODE" && purge_name_free; }
agent_clean() { node_clean "$NODE" && purge_name_free; }

# ---------------------------------------------------------------- 1. calls: still purging the tracer
is "$(hold)" held "calls: a process of the node holds flameprof_purge"
fpc $SHORT -p fp_calls_wl:target/1 --duration 1s "$NODE"
is "$FP_RC" 0 "calls: a run while it is held ends 0 (its results are whole)"
check "... and says its tracer's removal is under way and goes on by itself" \
	grep -q "module '$TRACER' is still loaded on '.*': flameprof's removal of it is under way (behind another purge of flameprof's, if one is running: one at a time) and goes on by itself" "$T_DIR/fp.err"
fpc $SHORT -p fp_calls_wl:target/1 --duration 1s "$NODE"
is "$FP_RC" 69 "calls: the next run is refused (exit 69)"
check "... with one sentence" one_sentence
check "... saying the tracer is still purging, and to try again in a few seconds" \
	grep -q "is still purging the tracer of an earlier run (a purge asks every process, and flameprof's purges run one at a time); it finishes by itself, try again in a few seconds" "$T_DIR/fp.err"
ms=$(release "$TRACER")
check "calls: the holder ended, the tracer is removed by itself (in $ms ms, the node's clock)" test "$ms" != none
fpc -p fp_calls_wl:target/1 --duration 1s "$NODE"
is "$FP_RC" 0 "calls: trying again gets through (exit 0)"
check "... and finds the node free: no warning" bash -c "! grep -q 'still loaded' '$T_DIR/fp.err'"
check "calls: no tracer is left, nor the purge's name" wait_until 10 tracer_clean

# ---------------------------------------------------------------- 1. the capture: still purging the agent
is "$(hold)" held "capture: a process of the node holds flameprof_purge"
fp $SHORT --duration 1s -o "$T_DIR/o1" "$NODE"
is "$FP_RC" 0 "capture: a run while it is held ends 0"
check "... and says its agent's removal is under way and goes on by itself" \
	grep -q "module '$AGENT' is still loaded on '.*': flameprof's removal of it is under way" "$T_DIR/fp.err"
fp $SHORT --duration 1s -o "$T_DIR/o2" "$NODE"
is "$FP_RC" 69 "capture: the next run is refused (exit 69)"
check "... with one sentence" one_sentence
check "... saying the agent is still purging, and to try again in a few seconds" \
	grep -q "is still purging the agent of an earlier run .*; it finishes by itself, try again in a few seconds" "$T_DIR/fp.err"
ms=$(release "$AGENT")
check "capture: the holder ended, the agent is removed by itself (in $ms ms, the node's clock)" test "$ms" != none
fp --duration 1s -o "$T_DIR/o3" "$NODE"
is "$FP_RC" 0 "capture: trying again gets through (exit 0)"
check "... with its file" closed_some_ok "$T_DIR/o3"
check "capture: the node is left clean, the purge's name free" wait_until 10 agent_clean

# ---------------------------------------------------------------- 2. the tracing lock ended before the tracer adopted it
# the sender: a process of the node that polls every ms for a
# flameprof_tracer whose group leader is on another node (a run of ours has
# taken it: node/lock.c) and sends it one message. Meanwhile the node's code
# server is held (sys:suspend, as a saturated node's code server is slow:
# doc/benchmarks.md) so that loading the tracer cannot outrun the message
# (the load goes through it, and nothing before it does); it is let go as
# soon as the message is sent, or after 20 s whatever happens.
SENDER="Me = self(), spawn(fun() -> register(fp_test_sender, self()), ok = sys:suspend(code_server), Me ! up,
  Loop = fun L(N) ->
    P = whereis(flameprof_tracer),
    Taken = is_pid(P) andalso
            case erlang:process_info(P, group_leader) of {group_leader, G} -> node(G) =/= node(); _ -> false end,
    if Taken -> P ! fp_test_hello, sent;
       N > 20000 -> not_seen;
       true -> receive after 1 -> L(N + 1) end
    end end,
  Sent = try Loop(0) after sys:resume(code_server) end,
  receive {fp_test_ask, From} -> From ! {sender, Sent} after 60000 -> ok end end),
  receive up -> up after 5000 -> not_up end"
# lock_case COMMAND ARGS...: the sender ready, a run of COMMAND (calls or
# requests) refused, the sender done, a retry through
lock_case() {
	local cmd=$1
	shift
	is "$(rpc_eval "$NODE" "$SENDER")" up "$cmd lock: a process of the node is ready to send a message to our lock once it is taken"
	fp_cmd "$cmd" "$@" "$NODE"
	is "$FP_RC" 69 "$cmd lock: a run is refused (exit 69)"
	check "... with one sentence" one_sentence
	check "... that says the lock ended before the tracer adopted it, by a message or the timer" \
		grep -q "ended flameprof's tracing lock (the process registered as flameprof_tracer) before the tracer could adopt it: a message to that name ends it, and so does its 150 s timer when the start takes longer; try again once nothing on the node sends to that name, or when the node is less busy" "$T_DIR/fp.err"
	is "$(rpc_eval "$NODE" "fp_test_sender ! {fp_test_ask, self()}, receive {sender, S} -> S after 5000 -> no_answer end")" sent \
		"$cmd lock: the sender sent its message (and ends)"
	fp_cmd "$cmd" "$@" "$NODE"
	is "$FP_RC" 0 "$cmd lock: trying again starts and completes (exit 0)"
}
lock_case calls -p fp_calls_wl:target/1 --duration 1s
check "... with its result" grep -q "no calls of the traced functions\|fp_calls_wl:target/1" "$T_DIR/fp.out"
check "calls lock: no tracer is left (the refused run's module included)" wait_until 10 tracer_gone "$NODE"
lock_case requests --entry fp_calls_wl:target/1 --duration 1s
check "requests lock: no tracer is left (the refused run's module included)" wait_until 10 tracer_gone "$NODE" requests

# ---------------------------------------------------------------- 3. old code whose purge never started
# An earlier run's agent deleted and its purge never started (all of its
# processes killed at once, its flameprof gone): the module is not loaded,
# its old code is, still run by a process. Made here with a module of the
# agent's name whose one process waits in its receive while the module is
# deleted. The next run does not refuse: it purges that old code itself
# (which ends the process running it, as an earlier agent's would be) and
# starts. (code:load_binary/3's not_purged, the refusal for old code that
# appears between that purge and the load, is left to a race no test makes.)
# The module is compiled here, not on the node: beside two busy loops the
# node once took over 10 s to load its compiler for compile:forms/1, the
# test's erl_call gave up, and the deletion then ran into the next run's
# own agent (its init undef). The rpc still gets 60 s.
mkdir -p "$T_DIR/old"
printf -- '-module(%s).\n-export([wait/0]).\nwait() -> receive stop -> ok end.\n' "$AGENT" >"$T_DIR/old/$AGENT.erl"
erlc -o "$T_DIR/old" "$T_DIR/old/$AGENT.erl"
OLD="{ok, Bin} = file:read_file(\"$T_DIR/old/$AGENT.beam\"),
  {module, M} = code:load_binary($AGENT, \"fp_test_old\", Bin),
  register(fp_test_old, spawn(M, wait, [])), true = code:delete(M),
  {erlang:module_loaded(M), erlang:check_old_code(M)}"
is "$(rpc_eval "$NODE" "$OLD" 60)" "{false, true}" "old code: the agent's module deleted, its old code still run by a process"
fp --duration 1s -o "$T_DIR/o4" "$NODE"
is "$FP_RC" 0 "old code: the next run purges it and starts (exit 0)"
check "... with its file" closed_some_ok "$T_DIR/o4"
is "$(rpc "$NODE" "erlang whereis [fp_test_old]")" undefined "... the process that ran the old code ended by the purge"
check "the node is left clean" node_clean_within 10 "$NODE"
is "$(rpc_eval "$NODE" "[N || N <- [fp_test_sender, fp_test_old, flameprof_purge, flameprof_tracer, flameprof_agent], whereis(N) =/= undefined]")" "[]" \
	"no name of ours or of the test's is left registered"
finish

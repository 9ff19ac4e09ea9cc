#!/bin/bash
# No seq_trace token of flameprof requests outlives its run, on a node
# whose processes keep passing it (a long-lived connection: fp_req_pp's
# pair hands it back and forth every millisecond, forever): not after a
# normal end, not after kill -9 of flameprof. Without another token on the
# node the tracer resets the node's tokens at once; with the application's
# own token on a process, it clears ours one by one and leaves that one.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../requests_lib.sh"
start_epmd && compile_workloads && start_node rtk "fp_req_pp:start()" || exit 1
ours() { rpc "$NODE" "fp_req_pp ours []"; }
none_left() { [ "$(ours)" = 0 ]; }
pair_alive() {
	[ "$(rpc_eval "$NODE" "[erlang:is_process_alive(whereis(N)) || N <- [fp_pp_a, fp_pp_b]]")" = "[true, true]" ]
}

is "$(ours)" 0 "before: no process carries a token"
fpr --entry fp_req_pp:hit/1 --duration 3s -v "$NODE"
is "$FP_RC" 0 "a run on the pair exits 0"
check "it timed the pair's requests" grep -q '^hit  *_total' "$T_DIR/fp.out"
check "it says it cleared the tokens" grep -q 'seq_trace tokens of this run cleared from [0-9]' "$T_DIR/fp.err"
is "$(ours)" 0 "right after: no process carries one of our tokens"
sleep 2
is "$(ours)" 0 "2 s later, the pair still talking: none has come back"
check "the pair is still talking" pair_alive
check "nothing else is left on the node" wait_until 5 requests_gone "$NODE"

# the application's own token elsewhere: ours go one by one, its stays
rpc "$NODE" "fp_req_pp foreign []" >/dev/null
is "$(rpc "$NODE" "fp_req_pp label [fp_pp_f]")" 42 "an application's token (label 42) on another process"
fpr --entry fp_req_pp:hit/1 --duration 3s -v "$NODE"
is "$FP_RC" 0 "a run beside it exits 0"
check "it says it cleared the tokens" grep -q 'seq_trace tokens of this run cleared from [0-9]' "$T_DIR/fp.err"
sleep 2
is "$(ours)" 0 "2 s later: no process carries one of ours"
is "$(rpc "$NODE" "fp_req_pp label [fp_pp_f]")" 42 "the application's token is still there"
check "nothing else is left on the node" wait_until 5 requests_gone "$NODE"

# kill -9 of flameprof mid-run: the node cleans up by itself
fpr_bg --entry fp_req_pp:hit/1 --duration 60s "$NODE"
carrying() { [ "$(ours)" -ge 2 ]; }
check "kill -9: meanwhile the pair carries our token" wait_until 20 carrying
kill_quietly 9 "$FP_PID"
check "kill -9: within 10 s no process carries one" wait_until 10 none_left
sleep 2
is "$(ours)" 0 "kill -9: 2 s later still none"
is "$(rpc "$NODE" "fp_req_pp label [fp_pp_f]")" 42 "kill -9: the application's token is still there"
check "kill -9: nothing else is left on the node" wait_until 10 requests_gone "$NODE"
check "the pair is still talking" pair_alive
finish

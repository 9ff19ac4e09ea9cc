#!/bin/bash
# flameprof calls and requests beside the application's own tracing. On OTP
# 27+ they trace in a trace session of their own: while dbg traces the same
# functions on every process, both see the calls (ours counted exactly,
# theirs delivered), and theirs is intact afterwards, also after kill -9 of
# flameprof (no session of ours is left). OTP 25 and 26 have no sessions
# (flameprof refuses there instead, see calls_errors.t): those tests skip.
# seq_trace has no sessions on any release: requests refuses a node with a
# sequential tracer of somebody else's, in one sentence, and starts once it
# is off, as the sentence advises; on OTP 25 and 26 so does an entry dbg
# traces.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../requests_lib.sh"
start_epmd && compile_workloads && start_node tss "kv_service:start(1), code:ensure_loaded(fp_calls_wl)" || exit 1
MFA="{fp_calls_wl,target,1}"

# ---------------------------------------------------------------- seq_trace, any release
rpc_eval "$NODE" "register(tss_seq, spawn(fun() -> receive stop -> ok end end)), seq_trace:set_system_tracer(whereis(tss_seq))" >/dev/null
fpr --entry kv_service:request/2 --duration 1s "$NODE"
is "$FP_RC" 69 "a sequential tracer of somebody else's: requests exits 69"
check "in one sentence" one_sentence
check "saying the node has a sequential tracer" grep -q 'already has a sequential tracer' "$T_DIR/fp.err"
is "$(rpc_eval "$NODE" "seq_trace:get_system_tracer() =:= whereis(tss_seq)")" true "their sequential tracer is untouched"
rpc_eval "$NODE" "seq_trace:set_system_tracer(false)" >/dev/null
check "nothing of ours is left" wait_until 5 kv_clean "$NODE"
fpr --entry kv_service:request/2 --duration 1s "$NODE"
is "$FP_RC" 0 "once that tracer is off, as the sentence advises: requests exits 0"
check "nothing of ours is left after it" wait_until 5 kv_clean "$NODE"

rel=$(otp_release "$NODE")
if [ "${rel:-0}" -lt 27 ] 2>/dev/null; then
	# No sessions: requests refuses an entry somebody else traces, and
	# says to try again once that tracing is off; doing so gets past it.
	is "$(rpc_eval "$NODE" "{ok, _} = dbg:tracer(), {ok, _} = dbg:p(all, c), {ok, _} = dbg:tpl(kv_service, request, 2, []), ok")" ok \
		"OTP $rel: dbg traces kv_service:request/2"
	fpr --entry kv_service:request/2 --duration 1s "$NODE"
	is "$FP_RC" 69 "OTP $rel: requests on an entry dbg traces exits 69"
	check "... in one sentence" one_sentence
	check "... saying it is traced by someone else, to try again once that is off" \
		grep -q "is already traced on '$NODE' by someone else.*try again once that tracing is off" "$T_DIR/fp.err"
	rpc_eval "$NODE" "dbg:stop_clear()" >/dev/null
	fpr --entry kv_service:request/2 --duration 1s "$NODE"
	is "$FP_RC" 0 "OTP $rel: once dbg is off, as it advises: requests exits 0"
	check "nothing of ours is left" wait_until 5 kv_clean "$NODE"
	skip "OTP $rel has no trace sessions (they came with OTP 27): beside dbg not tested"
	finish; exit
fi

# ---------------------------------------------------------------- theirs: dbg on every process
# dbg's handler forwards every trace message to a collector that counts the
# calls of each function.
is "$(rpc_eval "$NODE" "Loop = fun L(M) -> receive {get, F, K} -> F ! {n, maps:get(K, M, 0)}, L(M); {trace, _, call, {Mo, Fu, As}} -> K = {Mo, Fu, length(As)}, L(M#{K => maps:get(K, M, 0) + 1}); _ -> L(M) end end, register(tss_col, spawn(fun() -> Loop(#{}) end)), {ok, _} = dbg:tracer(process, {fun(Msg, St) -> tss_col ! Msg, St end, ok}), {ok, _} = dbg:p(all, c), {ok, _} = dbg:tpl(fp_calls_wl, target, 1, []), {ok, _} = dbg:tpl(kv_service, db, 2, []), ok")" ok \
	"dbg traces fp_calls_wl:target/1 and kv_service:db/2 on every process"
# theirs MFA: how many calls of MFA dbg's handler has seen
theirs() { rpc_eval "$NODE" "tss_col ! {get, self(), $1}, receive {n, N} -> N after 5000 -> timeout end"; }
# theirs_reach MFA N: dbg has seen at least N calls of MFA (delivered async)
theirs_reach() { [ "$(theirs "$1")" -ge "$2" ] 2>/dev/null; }
# theirs_info WHAT ITEM: trace_info in the sessions that are not flameprof's
# (dbg's own session on OTP 27+, or the global one), those that set it
theirs_info() { rpc_eval "$NODE" "[I || {N, _} = S <- trace:session_info(all), not lists:member(N, [flameprof_calls, flameprof_requests]), I <- [case N of legacy -> erlang:trace_info($1, $2); _ -> trace:info(S, $1, $2) end], I =/= {$2, false}, I =/= {$2, []}]"; }
their_pattern() { theirs_info "$MFA" traced; }
is "$(their_pattern)" "[{traced, local}]" "dbg's pattern is set"
set_on() { [ "$(breakpoint "$NODE" "$MFA" "$1")" != "{$1, false}" ]; }
K=2000

# counted: the calls of target/1 in fp.out's table
counted() { awk '$1 == "fp_calls_wl:target/1" { print $2 }' "$T_DIR/fp.out"; }

# ---------------------------------------------------------------- ours beside theirs: count, then time on all
for type in count time; do
	extra=""; [ "$type" = time ] && extra=--all
	before=$(theirs "$MFA")
	fpc_bg --type "$type" $extra -p fp_calls_wl:target/1 --duration 60s "$NODE"
	check "$type: flameprof's breakpoint is set, in its own session" wait_until 20 set_on "call_$type"
	rpc "$NODE" "fp_calls_wl hit [$K]" >/dev/null
	kill -INT "$FP_PID"
	fp_wait 30
	is "$FP_RC" 0 "$type beside dbg: exit 0"
	is "$(counted)" "$K" "$type beside dbg: flameprof counts exactly $K calls"
	check "$type beside dbg: dbg saw the $K calls too" wait_until 10 theirs_reach "$MFA" $((before + K))
	check "$type: nothing of ours is left" wait_until 5 tracer_gone "$NODE"
	is "$(their_pattern)" "[{traced, local}]" "$type: dbg's pattern is untouched"
done

# ---------------------------------------------------------------- theirs intact after ours
before=$(theirs "$MFA")
rpc "$NODE" "fp_calls_wl hit [$K]" >/dev/null
check "after flameprof: dbg still sees every call" wait_until 10 theirs_reach "$MFA" $((before + K))
is "$(theirs_info new flags)" "[{flags, [call]}]" \
	"after flameprof: new processes still get dbg's call flag"

# ---------------------------------------------------------------- kill -9 of flameprof
fpc_bg --type time --all -p fp_calls_wl:target/1 --duration 60s "$NODE"
check "kill -9: flameprof's breakpoint is set" wait_until 20 set_on call_time
kill_quietly 9 "$FP_PID"
check "kill -9: within 5 s no session, tracer or module of ours is left" wait_until 5 tracer_gone "$NODE"
before=$(theirs "$MFA")
rpc "$NODE" "fp_calls_wl hit [$K]" >/dev/null
check "kill -9: dbg still sees every call" wait_until 10 theirs_reach "$MFA" $((before + K))
is "$(their_pattern)" "[{traced, local}]" "kill -9: dbg's pattern is untouched"

# ---------------------------------------------------------------- requests beside dbg
DB="{kv_service,db,2}"
before=$(theirs "$DB")
fpr $KV_TIERS --duration 4s "$NODE"
is "$FP_RC" 0 "requests beside dbg: exit 0"
n=$(awk '$2 == "db" { s += $3 } END { print s + 0 }' "$T_DIR/fp.out")
check "requests beside dbg: it measured the db tier ($n requests)" test "$n" -gt 0
check "requests beside dbg: dbg saw db calls meanwhile" wait_until 10 theirs_reach "$DB" $((before + 1))
check "requests: nothing of ours is left" wait_until 10 requests_gone "$NODE"
fpr_bg $KV_TIERS --duration 60s "$NODE"
check "requests kill -9: the entry pattern is set" wait_until 20 kv_traced "$NODE"
kill_quietly 9 "$FP_PID"
check "requests kill -9: within 5 s nothing of ours is left" wait_until 5 requests_gone "$NODE"
before=$(theirs "$DB")
check "requests kill -9: dbg still sees db calls" wait_until 10 theirs_reach "$DB" $((before + 1))
is "$(theirs_info "$DB" traced)" "[{traced, local}]" "requests kill -9: dbg's pattern is untouched"
finish

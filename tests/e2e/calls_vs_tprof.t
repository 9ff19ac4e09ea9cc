#!/bin/bash
# On OTP 27 or later, flameprof calls counts what OTP's own tprof counts.
#  1. The same run: a tprof server (its own trace session, OTP 27) and
#     flameprof trace fp_calls_wl together while the workload runs once;
#     every function's count must be the same in both. If the node's tprof
#     shares the global breakpoints instead, flameprof refuses to touch them
#     (exit 69) and that part SKIPs with the reason.
#  2. The same workload: tprof:profile/4 on hit(K) against flameprof calls
#     around an rpc of hit(K): the same counts for every function.
# On older nodes (no tprof) every check SKIPs with the reason.
T_SCHEDULERS=2 # processes running on several schedulers at once are part of what it checks (lib.sh)
. "$(dirname "$0")/../lib.sh"
OTP=$(erl -noshell -eval 'io:format("~s", [erlang:system_info(otp_release)]), halt().')
if [ "$OTP" -lt 27 ]; then
	for c in "same run: counts equal tprof's" "same workload: counts equal tprof:profile's" "nothing left"; do
		ok 0 "$c # SKIP OTP's tprof needs OTP 27, this machine runs OTP $OTP (run it with SUITE=trixie)"
	done
	finish; exit
fi
start_epmd && compile_workloads && start_node cvt "code:ensure_loaded(fp_calls_wl)" || exit 1
K=4321
set_on() { [ "$(breakpoint "$NODE" "{fp_calls_wl,target,1}" call_count)" != "{call_count, false}" ]; }
# flameprof's folded count lines as "m:f/a=N", sorted, one line
fp_counts() { awk '{ print $1 "=" $2 }' "$T_DIR/fp.out" | sort | tr '\n' ' ' | sed 's/ $//'; }
# tprof's {call_count, [{M, F, A, [{all, N, N}]}]} the same way. Without
# module_info: tprof:set_pattern/3 calls Mod:module_info(functions) itself
# once its breakpoints are set (OTP 27.x: 1 call counted before flameprof
# started); flameprof reads the function list with a BIF, not that call.
TPROF_FMT='string:join(lists:sort([lists:flatten(io_lib:format("~w:~w/~w=~w", [M, F, A, N])) || {M, F, A, [{all, N, _}]} <- Rows, F =/= module_info]), " ")'
strip() { sed -e 's/^"//' -e 's/"$//'; }

# ---------------------------------------------------------------- 1. the same run
rpc_eval "$NODE" "{ok, _} = tprof:start(#{type => call_count}), tprof:set_pattern(fp_calls_wl, '_', '_')" >/dev/null
fpc_bg -p fp_calls_wl --format folded --duration 60s "$NODE"
if wait_until 20 set_on; then
	rpc "$NODE" "fp_calls_wl hit [$K]" >/dev/null
	kill -INT "$FP_PID"
	fp_wait 30
	theirs=$(rpc_eval "$NODE" "{call_count, Rows} = tprof:collect(), $TPROF_FMT" | strip)
	diag "flameprof: $(fp_counts)"
	diag "tprof:     $theirs"
	is "$(fp_counts)" "$theirs" "same run: counts equal tprof's, function by function"
else
	fp_wait 30
	if [ "$FP_RC" = 69 ] && grep -q 'already traced' "$T_DIR/fp.err"; then
		ok 0 "same run: counts equal tprof's # SKIP this node's tprof sets the global breakpoints, which flameprof leaves alone"
	else
		ok 1 "same run: flameprof started next to tprof (exit $FP_RC)"
	fi
fi
rpc_eval "$NODE" "tprof:stop()" >/dev/null

# ---------------------------------------------------------------- 2. the same workload
fpc_bg -p fp_calls_wl --format folded --duration 60s "$NODE"
wait_until 20 set_on || diag "breakpoint not set"
rpc "$NODE" "fp_calls_wl hit [$K]" >/dev/null
kill -INT "$FP_PID"
fp_wait 30
theirs=$(rpc_eval "$NODE" "{_, {call_count, Rows}} = tprof:profile(fp_calls_wl, hit, [$K], #{type => call_count, pattern => [{fp_calls_wl, '_', '_'}], report => return}), $TPROF_FMT" | strip)
diag "flameprof: $(fp_counts)"
diag "tprof:     $theirs"
is "$(fp_counts)" "$theirs" "same workload: counts equal tprof:profile's, function by function"
check "nothing left" wait_until 5 tracer_gone "$NODE"
finish

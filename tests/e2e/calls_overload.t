#!/bin/bash
# flameprof calls backs off: tracing makes every traced call dearer, so
# when the node falls behind (its run queues stay past --max-run-queue, or
# 4x their length at the start, for two checks half a second apart) the
# tracer ends the run by itself, removes everything and sends what it
# counted; flameprof prints it with a warning that says why (exit 0).
T_SCHEDULERS=2 # processes running on several schedulers at once are part of what it checks (lib.sh)
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node cov "code:ensure_loaded(fp_calls_wl)" || exit 1
set_on() { [ "$(breakpoint "$NODE" "{fp_calls_wl,target,1}" call_time)" != "{call_time, false}" ]; }

fpc_bg --type time -p fp_calls_wl:target/1 --max-run-queue 20 --duration 60s --json "$T_DIR/o.json" "$NODE"
check "the breakpoint is set" wait_until 20 set_on
rpc "$NODE" "fp_calls_wl hit [10]" >/dev/null
t0=$(now_ms)
# 200 processes busy for 4 s: the run queues reach far past 20
rpc_eval "$NODE" "[spawn(fp_calls_wl, spin_ms, [4000]) || _ <- lists:seq(1, 200)], ok" >/dev/null
fp_wait 30
took=$(( $(now_ms) - t0 ))
is "$FP_RC" 0 "the run ends by itself with exit 0"
# two checks half a second apart end it; 30 s leaves a loaded machine room
# and is still half of --duration
check "soon after the overload, not after --duration (took $took ms)" test "$took" -lt 30000
check "a warning says the node fell behind and the run ended early" \
	grep -q "fell behind (run queues [0-9]*, limit [0-9]*): the tracer ended the run after" "$T_DIR/fp.err"
is "$(awk '$1 == "fp_calls_wl:target/1" { print $2 }' "$T_DIR/fp.out")" 10 "what it counted before is printed (10 calls)"
# the limit is 20, or 4x the run queues at the start on a loaded machine
check "the JSON says it ended early" grep -q '"ended_early": {"run_queue": [0-9]*, "limit": [0-9]*}' "$T_DIR/o.json"
check "nothing is left on the node" wait_until 5 tracer_gone "$NODE"
is "$(breakpoint "$NODE" "{fp_calls_wl,target,1}" call_time)" "{call_time, false}" "no breakpoint is left"
# a destroyed trace session (OTP 27+) leaves each process's flags as that
# process is next scheduled: 200 processes still spinning take a moment
no_flags() { [ "$(traced_procs "$NODE")" = 0 ]; }
check "no process keeps a trace flag (within 10 s)" wait_until 10 no_flags
finish

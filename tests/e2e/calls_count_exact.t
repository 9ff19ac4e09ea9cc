#!/bin/bash
# flameprof calls --type count: a workload calls fp_calls_wl:target/1
# exactly K times while the breakpoints are set; the count printed (table
# and JSON) is exactly K, and afterwards the node holds no breakpoint, no
# tracer module and no registered name of ours.
T_SCHEDULERS=2 # processes running on several schedulers at once are part of what it checks (lib.sh)
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node cce "code:ensure_loaded(fp_calls_wl)" || exit 1
K=12345

# traced: the breakpoint is on the node (flameprof has finished setting up)
traced() { [ "$(breakpoint "$NODE" "{fp_calls_wl,target,1}" call_count)" != "{call_count, false}" ]; }
fpc_bg --pattern fp_calls_wl:target/1 --duration 60s --json "$T_DIR/calls.json" "$NODE"
check "the breakpoint is set within 20 s" wait_until 20 traced
rpc "$NODE" "fp_calls_wl hit [$K]" >/dev/null
kill -INT "$FP_PID"
fp_wait 30
is "$FP_RC" 0 "Ctrl-C ends the run with exit 0 and the results"
sed "s/^/#   /" "$T_DIR/fp.out"
is "$(awk '$1 == "fp_calls_wl:target/1" { print $2 }' "$T_DIR/fp.out")" "$K" "the table counts exactly $K calls"
check "the table has tprof's header" grep -q '^FUNCTION  *CALLS  *\[ *%\]$' "$T_DIR/fp.out"
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([r["calls"] for r in d["rows"] if r["mfa"]=="fp_calls_wl:target/1"][0])' "$T_DIR/calls.json")
is "$got" "$K" "the JSON row says $K calls too"
is "$(breakpoint "$NODE" "{fp_calls_wl,target,1}" call_count)" "{call_count, false}" "no call_count breakpoint is left"
check "no tracer name, module or old code is left" wait_until 5 tracer_gone "$NODE"

# a second, --duration-bounded run counts from zero: nothing carried over
fpc -p fp_calls_wl:target -p fp_calls_wl:hit/2 --duration 300ms "$NODE"
is "$FP_RC" 0 "a run bounded by --duration ends by itself (exit 0)"
is "$(grep -c 'fp_calls_wl' "$T_DIR/fp.out")" 0 "nothing called meanwhile: no rows"
check "it says so" grep -q 'no calls of the traced functions' "$T_DIR/fp.out"
finish

#!/bin/bash
# Code loaded while flameprof calls runs: loading a module again gives it
# code without breakpoints. The tracer notices within half a second, sets
# them again on the new code, and the run says which module was reloaded
# and that its earlier calls are not in the count.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node crl "code:ensure_loaded(fp_calls_wl)" || exit 1
MFA="{fp_calls_wl,target,1}"
set_on() { [ "$(breakpoint "$NODE" "$MFA" call_count)" != "{call_count, false}" ]; }

fpc_bg -p fp_calls_wl:target/1 --duration 60s "$NODE"
check "the breakpoint is set" wait_until 20 set_on
rpc "$NODE" "fp_calls_wl hit [100]" >/dev/null
rpc "$NODE" "c l [fp_calls_wl]" >/dev/null
check "the reloaded module gets its breakpoint again within 5 s" wait_until 5 set_on
rpc "$NODE" "fp_calls_wl hit [50]" >/dev/null
kill -INT "$FP_PID"
fp_wait 30
is "$FP_RC" 0 "exit 0"
is "$(awk '$1 == "fp_calls_wl:target/1" { print $2 }' "$T_DIR/fp.out")" 50 "the calls made on the new code are counted exactly (50)"
check "the run says fp_calls_wl was loaded again and earlier calls are not counted" \
	grep -q "warning: module 'fp_calls_wl' was loaded again during the run" "$T_DIR/fp.err"
check "nothing is left on the node" wait_until 5 tracer_gone "$NODE"
is "$(breakpoint "$NODE" "$MFA" call_count)" "{call_count, false}" "no breakpoint on the new code either"
finish

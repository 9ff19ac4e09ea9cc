#!/bin/bash
# flameprof calls leaves the node as it found it, whatever happens: kill -9
# of flameprof mid-run (the session sees the C-node go), the session
# process killed on the node (its guardian cleans up), SIGTERM. One tracing
# session per node: a second run is refused with exit 69 while the first
# goes on, and counts exactly.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node ccl "code:ensure_loaded(fp_calls_wl)" || exit 1
MFA="{fp_calls_wl,target,1}"
set_on() { [ "$(breakpoint "$NODE" "$MFA" "$1")" != "{$1, false}" ]; }
# clean TYPE: no breakpoint of TYPE, no trace flag on any process or on new
# ones, no tracer name, module or old code.
clean() {
	[ "$(breakpoint "$NODE" "$MFA" "$1")" = "{$1, false}" ] && [ "$(traced_procs "$NODE")" = 0 ] &&
	[ "$(breakpoint "$NODE" new flags)" = "{flags, []}" ] && tracer_gone "$NODE"
}

# ---------------------------------------------------------------- kill -9
fpc_bg --type time -p fp_calls_wl:target/1 --duration 60s "$NODE"
check "kill -9: the breakpoint is set" wait_until 20 set_on call_time
check "kill -9: processes carry the call flag meanwhile ($(traced_procs "$NODE"))" test "$(traced_procs "$NODE")" -gt 10
kill_quietly 9 "$FP_PID"
t0=$(now_ms)
check "kill -9: within 5 s no breakpoint, no trace flag, no tracer is left" wait_until 5 clean call_time
diag "restored after $(( $(now_ms) - t0 )) ms"

# ---------------------------------------------------------------- the session killed on the node
fpc_bg --type time -p fp_calls_wl:target/1 --duration 60s "$NODE"
check "session killed: the breakpoint is set" wait_until 20 set_on call_time
killed=$(kill_session "$NODE" tracer)
is "$killed" 1 "session killed: one session process found and killed"
fp_wait 20
is "$FP_RC" 75 "session killed: flameprof exits 75"
check "session killed: it says the guardian cleaned up" grep -q 'its guardian removed the breakpoints' "$T_DIR/fp.err"
check "session killed: nothing is left on the node" wait_until 5 clean call_time

# ---------------------------------------------------------------- one session at a time
fpc_bg -p fp_calls_wl:target/1 --duration 60s "$NODE"
first=$FP_PID
check "busy: the first run has its breakpoint" wait_until 20 set_on call_count
# another node name: the same user's second run would be stopped on this
# host already (one connection per node name, checked below)
timeout -s KILL 30 "$FLAMEPROF" calls --cookie-file "$T_DIR/cookie" --node-name fp_second -p fp_calls_wl:hit/2 --duration 1s "$NODE" \
	>"$T_DIR/second.out" 2>"$T_DIR/second.err"
is "$?" 69 "busy: a second run exits 69"
sed 's/^/#   second: /' "$T_DIR/second.err"
is "$(grep -c . "$T_DIR/second.err")" 1 "busy: with one sentence"
check "busy: that names the tracing session" grep -q 'already has a flameprof tracing session' "$T_DIR/second.err"
timeout -s KILL 30 "$FLAMEPROF" calls --cookie-file "$T_DIR/cookie" -p fp_calls_wl:hit/2 --duration 1s "$NODE" \
	>"$T_DIR/third.out" 2>"$T_DIR/third.err"
is "$?" 69 "busy: a second run under the same node name exits 69 before connecting"
check "busy: and says so" grep -q "under our node name 'flameprof_calls_" "$T_DIR/third.err"
check "busy: the first run's breakpoint is still there" set_on call_count
rpc "$NODE" "fp_calls_wl hit [777]" >/dev/null
FP_PID=$first
kill -TERM "$FP_PID"
fp_wait 30
is "$FP_RC" 0 "busy: SIGTERM ends the first run with its results"
is "$(awk '$1 == "fp_calls_wl:target/1" { print $2 }' "$T_DIR/fp.out")" 777 "busy: and it counted exactly 777 calls"
check "busy: nothing is left on the node" wait_until 5 clean call_count
finish

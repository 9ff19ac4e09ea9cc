#!/bin/bash
# flameprof calls --type time and --type memory, checked against what the
# workload was built to spend: spin_ms(20) stays 20 ms on a scheduler per
# call (call_time counts only scheduled-in time, so a busy loop, not a
# sleep), and no more than the calls' wall time as the caller measured it
# (a busy machine can stretch a call past its 20 ms); alloc_list(1000) builds 1000 cons cells, 2000 heap words. Memory
# needs OTP 26: on older nodes the run must refuse with one sentence
# (exit 69) instead, and the memory checks SKIP. Per process, folded lines
# and JSON carry the same numbers.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node ctm "code:ensure_loaded(fp_calls_wl)" || exit 1
OTP=$(erl -noshell -eval 'io:format("~s", [erlang:system_info(otp_release)]), halt().')
N=5 MS=20

set_on() { [ "$(breakpoint "$NODE" "$1" "$2")" != "{$2, false}" ]; }
# run_measured TYPE MFA RPC ARGS...: flameprof in the background until the
# breakpoint is set, the workload through rpc, then Ctrl-C.
run_measured() {
	local type=$1 mfa=$2 call=$3; shift 3
	fpc_bg --type "$type" --duration 60s "$@" "$NODE"
	wait_until 20 set_on "$mfa" "call_$type" || diag "breakpoint $mfa not set"
	RPC_OUT=$(rpc "$NODE" "$call")
	kill -INT "$FP_PID"
	fp_wait 30
	sed 's/^/#   /' "$T_DIR/fp.out"
}

# ---------------------------------------------------------------- time
run_measured time "{fp_calls_wl,spin_ms,1}" "fp_calls_wl spin [$N, $MS]" -p fp_calls_wl:spin_ms/1 --json "$T_DIR/t.json"
is "$FP_RC" 0 "time: exit 0"
read -r calls us <<<"$(awk '$1 == "fp_calls_wl:spin_ms/1" { print $2, $3 }' "$T_DIR/fp.out")"
is "$calls" "$N" "time: exactly $N calls"
wall=$RPC_OUT lo=$(( N * MS * 1000 * 8 / 10 ))
check "time: $us us is within [$lo, $wall + 2 %] (workload: $N x $MS ms on a scheduler, $wall us of wall time)" \
	awk -v u="${us:-0}" -v lo="$lo" -v w="$wall" 'BEGIN { exit !(w ~ /^[0-9]+$/ && u >= lo && u <= w * 1.02 + 1000) }'
check "time: the header is tprof's" grep -q '^FUNCTION  *CALLS  *TIME (us)  *PER CALL  *\[ *%\]$' "$T_DIR/fp.out"
jus=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"][0]; print(r["time_us"], r["calls"], "pid" in r)' "$T_DIR/t.json")
is "$jus" "$us $N False" "time: the JSON row has the same time_us and calls, and no pid"
is "$(breakpoint "$NODE" "{fp_calls_wl,spin_ms,1}" call_time)" "{call_time, false}" "time: no call_time breakpoint is left"
flags_left() { breakpoint "$NODE" new flags; }
is "$(flags_left)" "{flags, []}" "time: new processes get no trace flags any more"
is "$(traced_procs "$NODE")" 0 "time: no process keeps a trace flag"
check "time: no tracer left" wait_until 5 tracer_gone "$NODE"

# per process: the rex process that ran the workload gets its own table
run_measured time "{fp_calls_wl,spin_ms,1}" "fp_calls_wl spin [2, 5]" -p fp_calls_wl:spin_ms/1 --per-process
is "$FP_RC" 0 "per process: exit 0"
check "per process: a table under '****** Process <0.N.S>'" grep -Eq '^\*\*\*\*\*\* Process <0\.[0-9]+\.[0-9]+>  --  100\.00 % of total \*\*\*$' "$T_DIR/fp.out"
is "$(awk '$1 == "fp_calls_wl:spin_ms/1" { print $2 }' "$T_DIR/fp.out")" 2 "per process: 2 calls in that process"
check "per process: no tracer left" wait_until 5 tracer_gone "$NODE"

# folded: "<pid>;mod:fun/arity VALUE"
run_measured time "{fp_calls_wl,spin_ms,1}" "fp_calls_wl spin [1, 5]" -p fp_calls_wl:spin_ms/1 --per-process --format folded
check "folded: one '<pid>;fp_calls_wl:spin_ms/1 US' line" grep -Eq '^<0\.[0-9]+\.[0-9]+>;fp_calls_wl:spin_ms/1 [0-9]+$' "$T_DIR/fp.out"
check "folded: no tracer left" wait_until 5 tracer_gone "$NODE"

# ---------------------------------------------------------------- memory
if [ "$OTP" -lt 26 ]; then
	fpc --type memory -p fp_calls_wl:alloc_list/1 --duration 1s "$NODE"
	is "$FP_RC" 69 "memory on OTP $OTP: refused with exit 69"
	check "memory on OTP $OTP: one sentence naming the release" one_sentence
	check "memory on OTP $OTP: it says OTP 26 is needed" grep -q "runs OTP $OTP and call memory tracing needs OTP 26 or later" "$T_DIR/fp.err"
	check "memory on OTP $OTP: nothing left on the node" wait_until 5 tracer_gone "$NODE"
	for i in 1 2 3 4 5 6; do ok 0 "memory # SKIP call_memory needs OTP 26 or later, this node runs OTP $OTP"; done
else
	ok 0 "memory refused before OTP 26 # SKIP this node runs OTP $OTP, which has call_memory"
	ok 0 "memory refusal sentence # SKIP this node runs OTP $OTP"
	ok 0 "memory refusal cleanup # SKIP this node runs OTP $OTP"
	ok 0 "memory refusal wording # SKIP this node runs OTP $OTP"
	L=1000
	run_measured memory "{fp_calls_wl,alloc_list,1}" "fp_calls_wl alloc [$N, $L]" -p fp_calls_wl:alloc_list/1 --json "$T_DIR/m.json"
	is "$FP_RC" 0 "memory: exit 0"
	read -r calls words <<<"$(awk '$1 == "fp_calls_wl:alloc_list/1" { print $2, $3 }' "$T_DIR/fp.out")"
	is "$calls" "$N" "memory: exactly $N calls"
	check "memory: $words words is $N x 2 x $L (+ at most 16 per call)" \
		test "${words:-0}" -ge $(( N * 2 * L )) -a "${words:-0}" -le $(( N * (2 * L + 16) ))
	check "memory: no tracer left" wait_until 5 tracer_gone "$NODE"
	is "$(breakpoint "$NODE" "{fp_calls_wl,alloc_list,1}" call_memory)" "{call_memory, false}" "memory: no call_memory breakpoint left"
	is "$(traced_procs "$NODE")" 0 "memory: no process keeps a trace flag"
fi
finish

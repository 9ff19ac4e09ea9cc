# requests_lib.sh - helpers of the `flameprof requests` tests (sourced after
# lib.sh).

KV_TIERS="--entry kv_service:request/2 --identity arg:1 --tier parse=kv_service:parse/2 \
--tier handle=kv_service:handle/2 --tier db=kv_service:db/2 --tier format=kv_service:format/2"

# fpr / fpr_bg ARGS...: as fp and fp_bg, for `flameprof requests`.
fpr() {
	timeout -s KILL "${FP_DEADLINE:-120}" $FP_WRAP "$FLAMEPROF" requests --cookie-file "$T_DIR/cookie" "$@" \
		>"$T_DIR/fp.out" 2>"$T_DIR/fp.err"
	FP_RC=$?
	sed 's/^/#   stderr: /' "$T_DIR/fp.err" | head -20
	return 0
}
fpr_bg() {
	$FP_WRAP "$FLAMEPROF" requests --cookie-file "$T_DIR/cookie" "$@" >"$T_DIR/fp.out" 2>"$T_DIR/fp.err" &
	FP_PID=$!
	T_PIDS="$T_PIDS $FP_PID"
}

# requests_gone NODE: no tracer of ours (the lock, the module, old code).
requests_gone() {
	local mod
	mod=$("$FLAMEPROF" --version | sed 's/.*(agent \(.*\))/\1/; s/agent/requests/')
	[ "$(rpc "$1" "erlang whereis [flameprof_tracer]")" = undefined ] &&
	[ "$(rpc "$1" "erlang module_loaded [$mod]")" = false ] &&
	[ "$(rpc "$1" "erlang check_old_code [$mod]")" = false ] &&
	[ "$(fp_sessions "$1")" = 0 ]
}

# kv_clean NODE: no pattern on the example's functions, no trace flag on
# any process or on new ones, no tracer.
kv_clean() {
	[ "$(rpc_eval "$1" "TI = $FP_TRACE_INFO, lists:usort([TI({kv_service, F, 2}, traced) || F <- [request, parse, handle, db, format]])")" = \
	  "[{traced, false}]" ] &&
	[ "$(traced_procs "$1")" = 0 ] &&
	[ "$(breakpoint "$1" new flags)" = "{flags, []}" ] && requests_gone "$1"
}

# kv_traced NODE: the entry pattern is set.
kv_traced() { [ "$(breakpoint "$1" "{kv_service, request, 2}" traced)" = "{traced, local}" ]; }

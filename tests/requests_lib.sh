# requests_lib.sh - helpers of the `flameprof requests` tests (sourced after
# lib.sh).

KV_TIERS="--entry kv_service:request/2 --identity arg:1 --tier parse=kv_service:parse/2 \
--tier handle=kv_service:handle/2 --tier db=kv_service:db/2 --tier format=kv_service:format/2"

# fpr / fpr_bg ARGS...: as fp and fp_bg, for `flameprof requests`.
fpr() { fp_cmd requests "$@"; }
fpr_bg() { fp_cmd_bg requests "$@"; }

# requests_gone NODE: no tracer of ours (the lock, the module, old code).
requests_gone() { tracer_gone "$1" requests; }

# kv_clean NODE: no pattern on the example's functions (the entry's
# call_count neither), no trace flag on any process or on new ones, no
# tracer.
kv_clean() {
	[ "$(rpc_eval "$1" "TI = $FP_TRACE_INFO, lists:usort([TI({kv_service, F, 2}, traced) || F <- [request, parse, handle, db, format]])")" = \
	  "[{traced, false}]" ] &&
	[ "$(breakpoint "$1" "{kv_service, request, 2}" call_count)" = "{call_count, false}" ] &&
	[ "$(traced_procs "$1")" = 0 ] &&
	[ "$(breakpoint "$1" new flags)" = "{flags, []}" ] && requests_gone "$1"
}

# kv_traced NODE: the entry pattern is set.
kv_traced() { [ "$(breakpoint "$1" "{kv_service, request, 2}" traced)" = "{traced, local}" ]; }

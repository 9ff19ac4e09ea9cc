#!/bin/bash
# flameprof requests groups by what --identity-fun returns (an atom, a
# string or undefined), evaluated on the node; a fun that crashes or loops
# makes every request "_identity_fun_failed", never the tracer stop.
# --full MOD:FUN/ARITY times a function as a tier named by its MFA.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../requests_lib.sh"
start_epmd && compile_workloads && start_node rid "kv_service:start(2)" || exit 1
ids() { awk '$2 == "_total" { print $1 }' "$T_DIR/fp.out" | sort | tr '\n' ' '; }

# one request of each kind from the test itself (the clients' random ones
# may miss a kind on a busy machine), then SIGINT
fpr_bg --entry kv_service:request/2 \
	--identity-fun 'fun({kv_service, request, [Op, _]}) when Op =:= read -> "reading"; ({_, _, [create, _]}) -> undefined; ({_, _, [Op, _]}) -> Op end' \
	--full kv_service:db/2 --duration 120s "$NODE"
wait_until 20 kv_traced "$NODE" || diag "the entry pattern was not set in 20 s"
for op in create read update delete; do rpc "$NODE" "kv_service request [$op, 1]" >/dev/null; done
kill -INT "$FP_PID"
fp_wait 30
is "$FP_RC" 0 "--identity-fun: exits 0"
is "$(ids)" "delete reading undefined update " "--identity-fun: atoms, strings and undefined name the kinds"
check "--full: kv_service:db/2 is a tier of its own" grep -q '^update  *kv_service:db/2 ' "$T_DIR/fp.out"
check "--full: it says the cost up front" grep -q 'every call of the 1 function(s) traced is timed' "$T_DIR/fp.err"

fpr --entry kv_service:request/2 --identity-fun 'fun(_) -> timer:sleep(infinity) end' --duration 3s "$NODE"
is "$FP_RC" 0 "a fun that never returns: exits 0"
is "$(ids)" "_identity_fun_failed " "a fun that never returns: its requests are _identity_fun_failed"
fpr --entry kv_service:request/2 --identity-fun 'fun(_) -> 1 = 2 end' --duration 3s "$NODE"
is "$(ids)" "_identity_fun_failed " "a fun that crashes: the same"
fpr --entry kv_service:request/2 --identity-fun 'fun(A, B) -> A end' --duration 3s "$NODE"
is "$FP_RC" 64 "a fun of two arguments: exits 64"
check "with a sentence that says so" grep -q 'other than a fun of one argument' "$T_DIR/fp.err"
check "the node is clean afterwards" wait_until 10 kv_clean "$NODE"
finish

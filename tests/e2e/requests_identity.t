#!/bin/bash
# flameprof requests groups by what --identity-fun returns (an atom, a
# string or undefined), evaluated on the node; a fun that crashes or loops
# names that request "_identity_fun_failed", never the later ones nor the
# tracer stop, and the table says how many (even with -q). Source that is
# not a fun expression of one argument is refused before anything of it
# runs.
# --full MOD:FUN/ARITY times a function as a tier named by its MFA.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../requests_lib.sh"
start_epmd && compile_workloads && start_node rid "kv_service:start(2)" || exit 1
ids() { awk '$2 == "_total" { print $1 }' "$T_DIR/fp.out" | LC_ALL=C sort | tr '\n' ' '; }

fpr --entry kv_service:request/2 \
	--identity-fun 'fun({kv_service, request, [Op, _]}) when Op =:= read -> "reading"; ({_, _, [create, _]}) -> undefined; ({_, _, [Op, _]}) -> Op end' \
	--full kv_service:db/2 --duration 4s "$NODE"
is "$FP_RC" 0 "--identity-fun: exits 0"
is "$(ids)" "delete reading undefined update " "--identity-fun: atoms, strings and undefined name the kinds"
check "--full: kv_service:db/2 is a tier of its own" grep -q '^update  *kv_service:db/2 ' "$T_DIR/fp.out"
check "--full: it says the cost up front" grep -q 'every call of the 1 function(s) traced is timed' "$T_DIR/fp.err"

fpr --entry kv_service:request/2 --identity-fun 'fun(_) -> timer:sleep(infinity) end' --duration 3s "$NODE"
is "$FP_RC" 0 "a fun that never returns: exits 0"
is "$(ids)" "_identity_fun_failed " "a fun that never returns: its requests are _identity_fun_failed"
fpr --entry kv_service:request/2 --identity-fun 'fun(_) -> 1 = 2 end' --duration 3s "$NODE"
is "$(ids)" "_identity_fun_failed " "a fun that crashes: the same"
check "the table counts them" grep -q '^# [1-9][0-9]* requests named _identity_fun_failed' "$T_DIR/fp.out"
fpr -q --entry kv_service:request/2 \
	--identity-fun 'fun({_, _, [delete, _]}) -> 1 = 2; ({_, _, [Op, _]}) -> Op end' --duration 4s "$NODE"
is "$FP_RC" 0 "a fun that crashes on one kind only: exits 0"
is "$(ids)" "_identity_fun_failed create read update " "one failure does not name the later requests: the other kinds keep their names"
failed=$(awk '$1 == "_identity_fun_failed" && $2 == "_total" { print $3 }' "$T_DIR/fp.out")
check "with -q, the table says how many failed ($failed)" \
	grep -q "^# $failed requests named _identity_fun_failed: --identity-fun crashed" "$T_DIR/fp.out"
fpr --entry kv_service:request/2 --identity-fun 'fun(A, B) -> A end' --duration 3s "$NODE"
is "$FP_RC" 64 "a fun of two arguments: exits 64"
check "with a sentence that says so" grep -q 'not a fun expression of one argument' "$T_DIR/fp.err"
mark="$T_DIR/evaluated"
fpr --entry kv_service:request/2 --duration 3s "$NODE" \
	--identity-fun "begin file:write_file(\"$mark\", <<\"x\">>), fun(_) -> a end end"
is "$FP_RC" 64 "an expression that makes a fun: refused (exit 64)"
check "nothing of it ran on the node" test ! -e "$mark"
fpr --entry kv_service:request/2 --duration 3s "$NODE" --identity-fun "file:write_file(\"$mark\", <<\"x\">>)"
is "$FP_RC" 64 "a call: refused"
check "nothing of it ran either" test ! -e "$mark"
is "$(rpc "$NODE" "erlang is_alive []")" true "the node is still up"
check "the node is clean afterwards" wait_until 10 kv_clean "$NODE"
finish

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

# fpr_each ARGS...: flameprof requests until one request of each kind has
# been sent by the test itself (the clients' random ones may miss a kind on
# a busy machine), then SIGINT
fpr_each() {
	fpr_bg "$@" --duration 120s "$NODE"
	wait_until 20 kv_traced "$NODE" || diag "the entry pattern was not set in 20 s"
	for op in create read update delete; do rpc "$NODE" "kv_service request [$op, 1]" >/dev/null; done
	kill -INT "$FP_PID"
	fp_wait 30
}
fpr_each --entry kv_service:request/2 \
	--identity-fun 'fun({kv_service, request, [Op, _]}) when Op =:= read -> "reading"; ({_, _, [create, _]}) -> undefined; ({_, _, [Op, _]}) -> Op end' \
	--full kv_service:db/2
is "$FP_RC" 0 "--identity-fun: exits 0"
is "$(ids)" "delete reading undefined update " "--identity-fun: atoms, strings and undefined name the kinds"
check "--full: kv_service:db/2 is a tier of its own" grep -q '^update  *kv_service:db/2 ' "$T_DIR/fp.out"
check "--full: it says the cost up front" grep -q 'every call of the 1 function(s) traced is timed' "$T_DIR/fp.err"

fpr_each --entry kv_service:request/2 --identity-fun 'fun(_) -> timer:sleep(infinity) end'
is "$FP_RC" 0 "a fun that never returns: exits 0"
is "$(ids)" "_identity_fun_failed " "a fun that never returns: its requests are _identity_fun_failed"
fpr_each --entry kv_service:request/2 --identity-fun 'fun(_) -> 1 = 2 end'
is "$(ids)" "_identity_fun_failed " "a fun that crashes: the same"
check "the table counts them" grep -q '^# [1-9][0-9]* requests named _identity_fun_failed' "$T_DIR/fp.out"
fpr_each -q --entry kv_service:request/2 \
	--identity-fun 'fun({_, _, [delete, _]}) -> 1 = 2; ({_, _, [Op, _]}) -> Op end'
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

# identities are what clients send: a terminal escape, a NUL, a byte that is
# not UTF-8. The run goes on, the table shows escapes, the JSON parses.
umask 022
fpr_each --entry kv_service:request/2 --identity-fun 'fun(_) -> <<27, "]0;pwn", 7, 0, 255, "\"">> end' \
	--stats "$T_DIR/stats.jsonl"
is "$FP_RC" 0 "an identity with ESC, BEL, NUL and 0xff: exits 0"
check "no ESC or BEL reaches the table" python3 -c "import sys; d = open(sys.argv[1], 'rb').read(); sys.exit(b'\\x1b' in d or b'\\x07' in d)" "$T_DIR/fp.out"
check "the table shows them as \\xNN" grep -qF '\x1b]0;pwn\x07' "$T_DIR/fp.out"
check "--stats is JSON with the identity escaped (NUL and 0xff as U+FFFD)" python3 - "$T_DIR/stats.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
assert rows and all(r["identity"] == '\x1b]0;pwn\x07\ufffd\ufffd"' for r in rows), rows[:2]
PY
is "$(stat -c %a "$T_DIR/stats.jsonl")" 640 "a new --stats file is created 0640"
printf 'not yours\n' > "$T_DIR/victim"
ln -s "$T_DIR/victim" "$T_DIR/link.jsonl"
fpr --entry kv_service:request/2 --stats "$T_DIR/link.jsonl" --duration 1s "$NODE"
is "$FP_RC" 73 "--stats at a symlink: refused, exit 73"
check "with a sentence that says so" grep -q "cannot open '$T_DIR/link.jsonl'.*symbolic link" "$T_DIR/fp.err"
is "$(cat "$T_DIR/victim")" "not yours" "the symlink's target is not written"
check "the node is clean afterwards" wait_until 10 kv_clean "$NODE"
finish

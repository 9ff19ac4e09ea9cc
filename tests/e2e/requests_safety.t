#!/bin/bash
# flameprof requests leaves the node as it found it, whatever happens: kill
# -9 of flameprof, SIGINT, a module reloaded mid-run (patterns set again),
# the circuit breaker tripping under a flood of trace messages (paused,
# counted, resumed). One tracing session per node, shared with `calls`.
# Patterns that match nothing and a bad --identity-fun are refused with one
# sentence and exit 64. --sample-requests starts about that share.
T_SCHEDULERS=2 # processes running on several schedulers at once are part of what it checks (lib.sh)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../requests_lib.sh"
start_epmd && compile_workloads && start_node rsf "kv_service:start(1), code:ensure_loaded(fp_req_wl)" || exit 1

# ---------------------------------------------------------------- kill -9
fpr_bg $KV_TIERS --duration 60s "$NODE"
check "kill -9: the entry pattern is set" wait_until 20 kv_traced "$NODE"
flagged() { [ "$(traced_procs "$NODE")" -gt 10 ] 2>/dev/null; }
check "kill -9: processes carry the call flag meanwhile" wait_until 20 flagged
kill_quietly 9 "$FP_PID"
check "kill -9: within 5 s no pattern, no flag, no tracer is left" wait_until 5 kv_clean "$NODE"

# ---------------------------------------------------------------- the session killed on the node
fpr_bg $KV_TIERS --duration 60s "$NODE"
check "session killed: the entry pattern is set" wait_until 20 kv_traced "$NODE"
killed=$(kill_session "$NODE" requests)
is "$killed" 1 "session killed: one session process found and killed"
fp_wait 20
is "$FP_RC" 75 "session killed: flameprof exits 75"
check "session killed: it says the guardian cleaned up" grep -q 'its guardian removed the patterns' "$T_DIR/fp.err"
check "session killed: nothing is left on the node" wait_until 5 kv_clean "$NODE"

# ---------------------------------------------------------------- SIGINT, and one session at a time
fpr_bg $KV_TIERS --duration 60s "$NODE"
first=$FP_PID
check "SIGINT: the entry pattern is set" wait_until 20 kv_traced "$NODE"
timeout -s KILL 30 "$FLAMEPROF" calls --cookie-file "$T_DIR/cookie" -p kv_service:db/2 --duration 1s "$NODE" \
	>"$T_DIR/second.out" 2>"$T_DIR/second.err"
is "$?" 69 "busy: flameprof calls meanwhile exits 69"
# under the same node name this host's lock refuses it first; calls has no --node-name
check "busy: saying the node is taken" grep -qE 'already has a flameprof tracing session|another flameprof of yours is connected' "$T_DIR/second.err"
timeout -s KILL 30 "$FLAMEPROF" requests --cookie-file "$T_DIR/cookie" --node-name second --entry kv_service:request/2 \
	--duration 1s "$NODE" >"$T_DIR/second.out" 2>"$T_DIR/second.err"
is "$?" 69 "busy: a second flameprof requests (another node name) exits 69"
check "busy: the node's lock refused it: one tracing session per node" grep -q 'already has a flameprof tracing session' "$T_DIR/second.err"
rpc "$NODE" "kv_service request [create, 1]" >/dev/null
FP_PID=$first
kill -INT "$FP_PID"
fp_wait 30
is "$FP_RC" 0 "SIGINT: exits 0"
check "SIGINT: with the summary table" grep -q '^create .*_total' "$T_DIR/fp.out"
check "SIGINT: nothing is left on the node" wait_until 5 kv_clean "$NODE"

# ---------------------------------------------------------------- reload
fpr_bg $KV_TIERS --duration 6s --every 500ms "$NODE"
check "reload: the entry pattern is set" wait_until 20 kv_traced "$NODE"
sleep 1
is "$(rpc_eval "$NODE" 'code:purge(kv_service), {module, kv_service} = code:load_file(kv_service), ok')" ok \
	"reload: kv_service loaded again mid-run"
check "reload: the patterns are set again on the new code" wait_until 5 kv_traced "$NODE"
fp_wait 30
is "$FP_RC" 0 "reload: the run goes on and exits 0"
check "reload: it says the module was loaded again" grep -q "module 'kv_service' was loaded again" "$T_DIR/fp.err"
check "reload: nothing is left on the node" wait_until 5 kv_clean "$NODE"

# ---------------------------------------------------------------- circuit breaker
fpr_bg --entry fp_req_wl:run/1 --tier tick=fp_req_wl:tick/1 --max-queue 1000 --every 200ms --duration 60s \
	--stats "$T_DIR/breaker.jsonl" "$NODE"
run_traced() { [ "$(breakpoint "$NODE" "{fp_req_wl, run, 1}" traced)" = "{traced, local}" ]; }
tick_clean() { [ "$(breakpoint "$NODE" "{fp_req_wl, tick, 1}" traced)" = "{traced, false}" ] && requests_gone "$NODE"; }
check "breaker: the entry pattern is set" wait_until 20 run_traced
rpc "$NODE" "fp_req_wl run [300000]" >/dev/null
sleep 3
for _ in 1 2 3 4 5; do rpc "$NODE" "fp_req_wl run [10]" >/dev/null; done
sleep 0.5
kill -INT "$FP_PID"
fp_wait 30
is "$FP_RC" 0 "breaker: the run exits 0"
check "breaker: it says tracing paused" grep -q 'tracing paused' "$T_DIR/fp.err"
check "breaker: and resumed (requests after the pause measured)" \
	test "$(awk '$1 == "run" && $2 == "_total" { print $3 }' "$T_DIR/fp.out")" -ge 5
check "breaker: the table says which part of the run it covers" \
	grep -qE '^# covers [0-9.]+ % of the run: the circuit breaker paused tracing [1-9][0-9]* time\(s\), [0-9.]+ s of [0-9.]+ s' "$T_DIR/fp.out"
check "breaker: and where the entry calls went, the node's count first" \
	grep -qE '^# [1-9][0-9]* entry calls on the node \(its call_count\): [0-9]+ in the table' "$T_DIR/fp.out"
check "breaker: --stats says the paused time of its windows" grep -q '"paused_us":[1-9]' "$T_DIR/breaker.jsonl"
check "breaker: nothing is left on the node" wait_until 5 tick_clean

# ---------------------------------------------------------------- the breaker with -q: the table still says it
fpr_bg -q --entry fp_req_wl:run/1 --tier tick=fp_req_wl:tick/1 --max-queue 1000 --duration 60s "$NODE"
check "breaker -q: the entry pattern is set" wait_until 20 run_traced
rpc "$NODE" "fp_req_wl start_loop []" >/dev/null
rpc "$NODE" "fp_req_wl run [300000]" >/dev/null
sleep 0.5
kill -INT "$FP_PID"
fp_wait 30
is "$FP_RC" 0 "breaker -q: exits 0"
check "breaker -q: nothing on stderr" test ! -s "$T_DIR/fp.err"
check "breaker -q: the table says the pause and the entry calls it did not trace" \
	grep -qE '^# covers [0-9.]+ % of the run: .* \(paused at the end\)$' "$T_DIR/fp.out" &&
	grep -qE '^# [0-9]+ entry calls on the node \(its call_count\): [0-9]+ in the table, [1-9][0-9]* not traced while the circuit breaker paused tracing' "$T_DIR/fp.out"
sed 's/^/#   /' "$T_DIR/fp.out" | tail -3
check "breaker -q: nothing is left on the node" wait_until 5 tick_clean

# ---------------------------------------------------------------- sampling
# the loop's entries counted from before flameprof starts to after it has
# exited: on a busy machine connecting, stopping and each rpc can take
# seconds, so no window read from outside matches the traced one. This one
# holds it all: the share can only come out lower than the true one, and
# 20 s traced keep it well above the lower bound.
before=$(rpc "$NODE" "fp_req_wl loop_count []")
fpr_bg --entry fp_req_wl:run/1 --sample-requests 0.25 --duration 120s "$NODE"
wait_until 20 run_traced || diag "the entry pattern was not set in 20 s"
sleep 20
kill -INT "$FP_PID"
fp_wait 30
after=$(rpc "$NODE" "fp_req_wl loop_count []")
got=$(awk '$1 == "run" && $2 == "_total" { print $3 }' "$T_DIR/fp.out")
diag "sampled $got of $(( after - before )) entries"
check "--sample-requests 0.25: between 12 % and 40 % of entries measured" \
	awk -v g="${got:-0}" -v n="$(( after - before ))" 'BEGIN { exit !(n > 0 && g >= 0.12 * n && g <= 0.40 * n) }'
check "--sample-requests: the table says it is a sample" \
	grep -q '^# a sample: requests started only in the first 250 ms of each second' "$T_DIR/fp.out"

# ---------------------------------------------------------------- refusals
fpr --entry kv_service:nosuch/2 "$NODE"
is "$FP_RC" 64 "no match: exits 64"
check "no match: one sentence naming the pattern" one_sentence
check "no match: naming it" grep -q "kv_service:nosuch/2' matches no function" "$T_DIR/fp.err"
fpr --entry kv_service:request/2 --tier db=kv_nosuch:db/2 "$NODE"
is "$FP_RC" 64 "module not loaded: exits 64"
check "module not loaded: says so" grep -q "module 'kv_nosuch' is not loaded" "$T_DIR/fp.err"
fpr --entry kv_service:request/2 --identity-fun 'fun(X) -> X' "$NODE"
is "$FP_RC" 64 "bad --identity-fun: exits 64"
check "bad --identity-fun: one sentence" one_sentence
fpr --tier db=kv_service:db/2 "$NODE"
is "$FP_RC" 64 "no --entry: exits 64"
check "after the refusals nothing is left on the node" wait_until 5 kv_clean "$NODE"
finish

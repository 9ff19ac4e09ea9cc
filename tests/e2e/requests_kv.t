#!/bin/bash
# flameprof requests on the kv_service example: each request kind's time
# per tier, across the client, the gen_server and a pool worker, matches
# what the node itself measured each step of the same requests to take
# (median within 20 %), and is never less than what the example was built
# to spend (its steps sleep, which a busy machine can only stretch); --stats
# and --slow write JSON lines with the documented fields; the node is clean
# afterwards. The run lasts until the node has seen 30 requests of each
# kind followed (at least 16 s, at most 150 s), so a busy machine makes it
# longer, not thinner.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../requests_lib.sh"
start_epmd && compile_workloads && start_node rkv "kv_service:start(1)" || exit 1

is "$(rpc "$NODE" "kv_service measure")" ok "the node keeps each step's own time"
fpr_bg $KV_TIERS --duration 150s --every 2s --stats "$T_DIR/stats.jsonl" --slow 90ms \
	--slow-file "$T_DIR/slow.jsonl" "$NODE"
started=$(now_ms)
enough() {
	[ $(( $(now_ms) - started )) -ge 16000 ] || return 1
	for op in create read update delete; do
		[ "$(rpc "$NODE" "kv_service taken [$op]")" -ge 30 ] 2>/dev/null || return 1
	done
}
wait_until 140 enough || diag "the node saw fewer than 30 requests of some kind in 140 s"
diag "stopped after $(( ($(now_ms) - started) / 1000 )) s"
# flameprof stops first, the node's own measure after it: the node then
# kept every request the table has, and at most the one in flight besides.
# The other way round, the requests that ended while flameprof was still
# stopping were in the table alone; under load that was several, and on the
# two-humped times of a busy machine (p50 20 ms, p90 145) they moved the
# table's median away from the node's (read/parse, once).
kill -INT "$FP_PID"
fp_wait 30
rpc "$NODE" "kv_service measure_end" >/dev/null
is "$FP_RC" 0 "the run exits 0 on SIGINT, with its table"
sed 's/^/#   /' "$T_DIR/fp.out"

# the table's p50 (column 5, ms) against the node's own median of the same
# step (kv_service:taken/2, us), and at least kv_service:cost/2's 80 %;
# handle waits for db
for op in create read update delete; do
	for tier in parse handle db format; do
		built=$(rpc "$NODE" "kv_service cost [$op, $tier]")
		[ "$tier" = handle ] && built=$(( built + $(rpc "$NODE" "kv_service cost [$op, db]") ))
		seen=$(rpc "$NODE" "kv_service taken [$op, $tier]")
		got=$(awk -v i="$op" -v t="$tier" '$1 == i && $2 == t { print $5 }' "$T_DIR/fp.out")
		check "$op/$tier: p50 $got ms is within 20 % of the node's own median ${seen} us (built: $built ms)" \
			awk -v g="${got:-0}" -v s="$seen" -v b="$built" \
			'BEGIN { w = s / 1000; exit !(s ~ /^[0-9]+$/ && g >= w * 0.8 && g <= w * 1.2 && g >= b * 0.8) }'
	done
	n=$(awk -v i="$op" '$1 == i && $2 == "_total" { print $3 }' "$T_DIR/fp.out")
	check "$op: _total counted $n requests" test "${n:-0}" -ge 30
done

check "--stats: every line is JSON with the documented fields" python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines, "no lines"
for l in lines:
    o = json.loads(l)
    for k in ("window_end", "identity", "tier", "count", "sum_us", "p50_us", "p99_us", "max_us"):
        assert k in o, k
    assert o["count"] > 0 and o["p50_us"] <= o["p99_us"] <= o["max_us"] * 1.04 + 1
' "$T_DIR/stats.jsonl"
check "--stats: several windows" test "$(cut -d, -f1 "$T_DIR/stats.jsonl" | sort -u | wc -l)" -ge 3
check "--slow: only requests over 90 ms, each with its tiers and 3 processes" python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines, "no slow request"
for l in lines:
    o = json.loads(l)
    assert o["total_us"] >= 90000 and set(o["tiers"]) == {"parse", "handle", "db", "format"}, o
    assert len(o["pids"]) == 3, o
' "$T_DIR/slow.jsonl"
check "the node is clean afterwards (patterns, flags, tracer)" wait_until 10 kv_clean "$NODE"
is "$(rpc_eval "$NODE" 'kv_service:request(read, 7) =:= <<"{read,7,ok}">>')" true "and still serves requests"
finish

#!/bin/bash
# flameprof requests on the kv_service example: each request kind's time
# per tier, across the client, the gen_server and a pool worker, matches
# what the example was built to spend (median within 20 %); --stats and
# --slow write JSON lines with the documented fields; the node is clean
# afterwards.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../requests_lib.sh"
start_epmd && compile_workloads && start_node rkv "kv_service:start(1)" || exit 1

fpr $KV_TIERS --duration 16s --every 2s --stats "$T_DIR/stats.jsonl" --slow 90ms \
	--slow-file "$T_DIR/slow.jsonl" "$NODE"
is "$FP_RC" 0 "the run exits 0"
sed 's/^/#   /' "$T_DIR/fp.out"

# the table's p50 (column 6, ms) against kv_service:cost/2; handle waits for db
for op in create read update delete; do
	for tier in parse handle db format; do
		want=$(rpc "$NODE" "kv_service cost [$op, $tier]")
		[ "$tier" = handle ] && want=$(( want + $(rpc "$NODE" "kv_service cost [$op, db]") ))
		got=$(awk -v i="$op" -v t="$tier" '$1 == i && $2 == t { print $5 }' "$T_DIR/fp.out")
		check "$op/$tier: p50 $got ms is within 20 % of $want ms" \
			awk -v g="${got:-0}" -v w="$want" 'BEGIN { exit !(g >= w * 0.8 && g <= w * 1.2) }'
	done
	n=$(awk -v i="$op" '$1 == i && $2 == "_total" { print $3 }' "$T_DIR/fp.out")
	check "$op: _total counted $n requests" test "${n:-0}" -ge 10
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

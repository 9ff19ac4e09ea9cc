#!/bin/bash
# demo_requests.sh FLAMEPROF - starts the kv_service example node (2
# clients), runs `flameprof requests` on it for 15 s with the live table,
# and leaves the per-window JSON lines and the slow requests in
# ./demo-requests-out. The node uses its own epmd port and cookie, listens
# on 127.0.0.1 only, and is stopped on exit.
set -eu
FP=${1:?usage: demo_requests.sh path/to/flameprof}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/examples/demo_lib.sh"
demo_begin demo_kv demo-requests-out 15
demo_erl kv_service "kv_service:start(2)" kv

rm -rf "$OUT" && mkdir -p "$OUT"
echo "demo: timing kv_service requests on $NODE for $SECS s"
"$FP" requests --cookie-file "$WORK/cookie" --duration "${SECS}s" --every 1s \
	--entry kv_service:request/2 --identity arg:1 \
	--tier parse=kv_service:parse/2 --tier handle=kv_service:handle/2 \
	--tier db=kv_service:db/2 --tier format=kv_service:format/2 \
	--stats "$OUT/stats.jsonl" --slow 120ms --slow-file "$OUT/slow.jsonl" "$NODE"
echo
echo "demo: built-in costs (ms): create parse 12 handle 20 db 60 format 8; read 8 12 24 28;"
echo "      update 16 16 44 8; delete 8 16 16 8 (handle includes the db step it waits for)"
echo "demo: per-window JSON lines: $OUT/stats.jsonl ($(wc -l < "$OUT/stats.jsonl") lines)"
echo "demo: slow requests (> 120 ms): $OUT/slow.jsonl ($(wc -l < "$OUT/slow.jsonl") lines)"

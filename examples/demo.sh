#!/bin/bash
# demo.sh FLAMEPROF - starts the demo shop node, profiles it for 20 s, and
# leaves the capture plus a flame graph and a heatmap in ./demo-out.
# The demo node uses its own epmd port and cookie, listens on 127.0.0.1
# only, and is stopped on exit.
set -eu
FP=${1:?usage: demo.sh path/to/flameprof}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${DEMO_OUT:-$PWD/demo-out}
SECS=${DEMO_SECONDS:-20}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flameprof-demo.XXXXXX")
export ERL_EPMD_PORT=${ERL_EPMD_PORT:-$(( 40000 + $$ % 10000 ))}
NODE="demo_shop_$$@127.0.0.1"

cleanup() {
	[ -n "${NODE_PID:-}" ] && kill "$NODE_PID" 2>/dev/null
	epmd -port "$ERL_EPMD_PORT" -kill >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT

od -An -N12 -tx1 /dev/urandom | tr -d ' \n' > "$WORK/cookie"
chmod 400 "$WORK/cookie"
erlc -o "$WORK" "$ROOT/examples/demo_shop.erl"
epmd -daemon -port "$ERL_EPMD_PORT" -address 127.0.0.1 -relaxed_command_check
erl -name "$NODE" -setcookie "$(cat "$WORK/cookie")" -noshell -noinput \
	-kernel inet_dist_use_interface '{127,0,0,1}' -pa "$WORK" \
	-eval "demo_shop:start(), file:write_file(\"$WORK/ready\", \"\")" >"$WORK/node.log" 2>&1 &
NODE_PID=$!
for _ in $(seq 100); do [ -f "$WORK/ready" ] && break; sleep 0.1; done
[ -f "$WORK/ready" ] || { cat "$WORK/node.log" >&2; echo "demo: the demo node did not start" >&2; exit 1; }

echo "demo: profiling $NODE for $SECS s (top 100 at 97 Hz) into $OUT"
rm -rf "$OUT"
"$FP" --cookie-file "$WORK/cookie" --duration "${SECS}s" --every 2s --rotate 10s \
	--categories initial_call,name,queue,seq_trace -o "$OUT" "$NODE"
# weighted by reductions spent since each process's previous sample: where the CPU went
"$FP" report "$OUT" -o "$OUT/flame.svg" --weight reductions_delta --heatmap "$OUT/heatmap.svg" \
	--title "demo_shop, $SECS s, weighted by reductions"
echo
echo "demo: capture files:  $(ls "$OUT"/flameprof_*.perf.zst | tr '\n' ' ')"
echo "demo: flame graph:    $OUT/flame.svg"
echo "demo: heatmap:        $OUT/heatmap.svg"
echo "demo: open the SVGs in a browser; for Flamescope see examples/flamescope.md"

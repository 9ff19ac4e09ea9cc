#!/bin/bash
# demo.sh FLAMEPROF - starts the demo shop node, profiles it for 20 s, and
# leaves the capture plus a flame graph, a heatmap and profile.html (both
# and any range's flame graph in one page) in ./demo-out.
# The demo node uses its own epmd port and cookie, listens on 127.0.0.1
# only, and is stopped on exit.
set -eu
FP=${1:?usage: demo.sh path/to/flameprof}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/examples/demo_lib.sh"
demo_begin demo_shop demo-out 20
demo_erl demo_shop "demo_shop:start()" demo

echo "demo: profiling $NODE for $SECS s (top 100 at 97 Hz) into $OUT"
rm -rf "$OUT"
"$FP" --cookie-file "$WORK/cookie" --duration "${SECS}s" --every 2s --rotate 10s \
	--categories initial_call,name,queue,seq_trace -o "$OUT" "$NODE"
# weighted by reductions spent since each process's previous sample: where the CPU went
"$FP" report "$OUT" -o "$OUT/flame.svg" --weight reductions_delta --heatmap "$OUT/heatmap.svg" \
	--title "demo_shop, $SECS s, weighted by reductions"
# one page: the heatmap, the flame graph of any range dragged on it, and the difference of two
"$FP" report -q "$OUT" -o "$OUT/profile.html" --title "demo_shop, $SECS s"
echo
echo "demo: capture files:  $(ls "$OUT"/flameprof_*.perf.zst | tr '\n' ' ')"
echo "demo: flame graph:    $OUT/flame.svg"
echo "demo: heatmap:        $OUT/heatmap.svg"
echo "demo: open the SVGs in a browser; for Flamescope see examples/flamescope.md"
echo "demo: all in one page: $OUT/profile.html (open it in a browser; drag across its heatmap)"

#!/bin/bash
# demo.sh FLAMEPROF - starts the demo shop node, profiles it for 20 s, and
# leaves the capture plus profile.html (the heatmap and any range's flame
# graph in one page, on-CPU or wall-clock), a flame graph and a heatmap in
# ./demo-out.
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
# --status all: the waiting samples too, so that the page can switch to the
# wall-clock view (where the processes wait); every picture starts on-CPU
"$FP" --cookie-file "$WORK/cookie" --duration "${SECS}s" --every 2s --rotate 10s --status all \
	--categories initial_call,name,queue,seq_trace -o "$OUT" "$NODE"
# one page: the heatmap, the flame graph of any range dragged on it, and the difference of two
"$FP" report -q "$OUT" -o "$OUT/profile.html" --title "demo_shop, $SECS s"
# the same flame graph and heatmap as SVG files, weighted and cut alike (samples, on-CPU)
"$FP" report -q "$OUT" -o "$OUT/flame.svg" --heatmap "$OUT/heatmap.svg" --title "demo_shop, $SECS s"
echo
echo "demo: capture files:  $(ls "$OUT"/flameprof_*.perf.zst | tr '\n' ' ')"
echo "demo: flame graph:    $OUT/flame.svg"
echo "demo: heatmap:        $OUT/heatmap.svg"
echo "demo: open the SVGs in a browser; for Flamescope see examples/flamescope.md"
echo "demo: all in one page: $OUT/profile.html (open it in a browser; drag across its heatmap,"
echo "      and switch to wall-clock: where the processes wait)"

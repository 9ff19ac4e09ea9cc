#!/bin/bash
# demo_elixir.sh FLAMEPROF - starts the Elixir example (examples/elixir_shop/
# shop.exs) on its own node, profiles it for 10 s, counts Shop.Tax.rate/1
# calls, and leaves the capture, a flame graph in Elixir's names and the
# folded stacks in ./demo-elixir-out. The node uses its own epmd port and
# cookie, listens on 127.0.0.1 only, and is stopped on exit.
set -eu
FP=${1:?usage: demo_elixir.sh path/to/flameprof}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/examples/demo_lib.sh"
demo_begin shop demo-elixir-out 10
elixir --name "$NODE" --cookie "$(cat "$WORK/cookie")" --erl "-kernel inet_dist_use_interface {127,0,0,1}" \
	"$ROOT/examples/elixir_shop/shop.exs" "$WORK/ready" >"$WORK/node.log" 2>&1 &
NODE_PID=$!
demo_wait Elixir

echo "demo: profiling $NODE for $SECS s into $OUT (names: Elixir's, found by --names auto)"
rm -rf "$OUT"
"$FP" --cookie-file "$WORK/cookie" --duration "${SECS}s" --every 2s -o "$OUT" "$NODE"
"$FP" report "$OUT" -o "$OUT/flame.svg" --title "Shop (Elixir), $SECS s"
"$FP" report "$OUT" -q -f folded -o "$OUT/stacks.folded"
echo "demo: the hottest running stacks of Shop.Pricing:"
sort -t' ' -k2 -nr "$OUT/stacks.folded" | grep '^running.*Shop.Pricing.handle_call' | head -3 | sed 's/^/  /'
echo "demo: counting Shop.Tax.rate/1 (--pattern in Elixir's syntax) while Shop.Checkout.run(1000) runs"
"$FP" calls --cookie-file "$WORK/cookie" --pattern Shop.Tax.rate/1 --duration 8s "$NODE" &
CALLS=$!
sleep 3 # the breakpoint is set within a second or two
erl_call=$(erl -noshell -eval 'io:format("~s",[code:lib_dir(erl_interface)]),halt().')/bin/erl_call
echo "'Elixir.Shop.Checkout':run(1000)." | "$erl_call" -name "$NODE" -c "$(cat "$WORK/cookie")" -e >/dev/null
wait "$CALLS"
echo
echo "demo: flame graph:    $OUT/flame.svg"
echo "demo: folded stacks:  $OUT/stacks.folded"

#!/bin/bash
# A real Elixir node (Debian's elixir) running the example application
# examples/elixir_shop/shop.exs, profiled end to end:
# - record finds the node runs Elixir (--names auto) and writes names=elixir
#   in each file's header; report then draws Elixir's spelling
#   (Shop.Pricing.handle_call/3, :gen_server.handle_msg/6) in folded,
#   SVG and speedscope, and --names erlang switches back;
# - the files stay readable by every perf-script reader (tests/readers.py);
# - pprof, read by go tool pprof, names the same frames;
# - calls --pattern Elixir.Shop.Tax:rate/1 counts exactly the k calls of
#   Shop.Checkout.run(k); RELEASE_COOKIE stands for a mix release's cookie;
# - requests times a tier inside Shop.Pricing.handle_call/3, grouped by an
#   --identity-fun in Elixir's syntax (refused unless one fn of one argument,
#   and on the Erlang node);
# - an Erlang node beside it keeps its header and Erlang's spelling;
# - each node is left clean after each run.
T_SCHEDULERS=2 # its checks need on-CPU samples of an Elixir shop whose processes seldom run: on one scheduler a trixie run had none (lib.sh)
. "$(dirname "$0")/../lib.sh"
if ! command -v elixir >/dev/null 2>&1; then
	echo "1..0 # SKIP elixir is not installed (scripts/install-deps.sh check installs it)"
	exit 0
fi
start_epmd || exit 1

start_elixir_node shop || exit 1

fp --top 10 --every 1s --duration 4s -o "$T_DIR/out" "$NODE"
is "$FP_RC" 0 "record on the Elixir node exits 0"
files=$(ls "$T_DIR"/out/flameprof_*.perf.zst 2>/dev/null)
check "the header records names=elixir" sh -c "zstd -dcq $files | grep -q '^# settings: .* names=elixir'"
check "the file holds the node's own atoms" sh -c "zstd -dcq $files | grep -q 'Elixir.Shop.Pricing:handle_call/3'"
check "every perf-script reader reads the files" readers_ok $files
check "the node is left clean after record" node_clean_within 10 "$NODE"

"$FLAMEPROF" report -q -f folded -o "$T_DIR/f.folded" "$T_DIR/out"
is "$?" 0 "report --format folded exits 0"
# gen_server:handle_msg's arity is OTP's own business (6 on 25, 3 on 29)
check "folded: Shop.Pricing.handle_call/3 under :gen_server.handle_msg/N" \
	grep -Eq ':gen_server.handle_msg/[0-9]+;.*Shop.Pricing.handle_call/3' "$T_DIR/f.folded"
check "folded: the initial call in Elixir's spelling" grep -q 'initial_call:Shop.Pricing.init/1' "$T_DIR/f.folded"
check "folded: no Erlang spelling of Elixir modules left" sh -c "! grep -q 'Elixir\\.Shop' '$T_DIR/f.folded'"
check "folded: every line is frames without spaces, then a count" \
	sh -c "! grep -qv '^[^ ]* [0-9][0-9]*\$' '$T_DIR/f.folded'"
grep -o 'anonymous_fn/[0-9]*_in_Shop[^;]*' "$T_DIR/f.folded" | sort -u | head -3 | sed 's/^/#   anonymous: /'

# running samples only: a frame narrower than a pixel is not drawn
"$FLAMEPROF" report -q --status running -o "$T_DIR/f.svg" "$T_DIR/out"
check "SVG: Shop.Pricing.handle_call/3" grep -q 'Shop.Pricing.handle_call/3' "$T_DIR/f.svg"
"$FLAMEPROF" report -q -f speedscope -o "$T_DIR/f.json" "$T_DIR/out"
check "speedscope: a frame named Shop.Pricing.handle_call/3" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = {f["name"] for f in d["shared"]["frames"]}
assert "Shop.Pricing.handle_call/3" in names, sorted(names)[:20]
assert any(n.startswith(":gen_server.handle_msg/") for n in names), sorted(names)[:20]
' "$T_DIR/f.json"

if command -v go >/dev/null 2>&1 && HOME="$T_DIR" GOCACHE="$ROOT/build/gocache" go tool pprof -h >/dev/null 2>&1; then
	"$FLAMEPROF" report -q --status running -f pprof -o "$T_DIR/p.pb.gz" "$T_DIR/out"
	check "pprof (go tool pprof): Shop.Pricing.handle_call/3" sh -c "HOME='$T_DIR' GOCACHE='$ROOT/build/gocache' \
		go tool pprof -traces '$T_DIR/p.pb.gz' 2>/dev/null | grep -q 'Shop.Pricing.handle_call/3'"
else
	skip "pprof read by go tool pprof" "go not found (make check installs golang-go)"
fi
"$FLAMEPROF" report -q -f folded --names erlang -o "$T_DIR/e.folded" "$T_DIR/out"
check "--names erlang: Erlang's spelling again" grep -Eq 'gen_server:handle_msg/[0-9]+;.*Elixir.Shop.Pricing:handle_call/3' "$T_DIR/e.folded"

fp --names erlang --status all --top 5 --every 1s --duration 1500ms -o "$T_DIR/erl" "$NODE"
is "$FP_RC" 0 "record --names erlang exits 0"
check "its header records names=erlang" sh -c "zstd -dcq $T_DIR/erl/flameprof_*.perf.zst | grep -q '^# settings: .* names=erlang'"
"$FLAMEPROF" report -q --status all -f folded -o "$T_DIR/e2.folded" "$T_DIR/erl"
check "report follows the capture's choice" grep -q 'initial_call:Elixir.Shop.Pricing:init/1' "$T_DIR/e2.folded"
check "the node is left clean again" node_clean_within 10 "$NODE"

# calls: Shop.Checkout.run(K) calls Shop.Tax.rate/1 exactly K times
K=4321
traced() { [ "$(breakpoint "$NODE" "{'Elixir.Shop.Tax',rate,1}" call_count)" != "{call_count, false}" ]; }
fpc_bg --pattern Elixir.Shop.Tax:rate/1 --duration 60s "$NODE"
check "the breakpoint on Shop.Tax.rate/1 is set within 20 s" wait_until 20 traced
rpc_eval "$NODE" "'Elixir.Shop.Checkout':run($K)" >/dev/null
kill -INT "$FP_PID"
fp_wait 30
is "$FP_RC" 0 "calls ends with exit 0"
sed "s/^/#   /" "$T_DIR/fp.out"
is "$(awk '$1 == "Shop.Tax.rate/1" { print $2 }' "$T_DIR/fp.out")" "$K" "calls counts exactly $K calls of Shop.Tax.rate/1 (spelled as Elixir does: --names auto)"
check "no tracer is left" wait_until 5 tracer_gone "$NODE"
check "the node is left clean after calls" node_clean_within 10 "$NODE"

# a mix release's way: the cookie in RELEASE_COOKIE, no cookie file (an
# empty HOME: no ~/.erlang.cookie to fall back on)
mkdir -p "$T_DIR/home"
HOME="$T_DIR/home" RELEASE_COOKIE="$T_COOKIE" timeout -s KILL 60 "$FLAMEPROF" calls \
	--pattern Elixir.Shop.Tax:rate/1 --duration 300ms "$NODE" >"$T_DIR/rc.out" 2>"$T_DIR/rc.err"
is "$?" 0 "RELEASE_COOKIE is the cookie when no --cookie-file is given"
HOME="$T_DIR/home" RELEASE_COOKIE="wrong$T_COOKIE" timeout -s KILL 60 "$FLAMEPROF" calls \
	--pattern Elixir.Shop.Tax:rate/1 --duration 300ms "$NODE" >"$T_DIR/rc.out" 2>"$T_DIR/rc.err"
is "$?" 77 "a wrong RELEASE_COOKIE is refused by the node (exit 77)"

# requests: the tier of Shop.Pricing.handle_call/3 per priced basket,
# grouped by an identity fun in Elixir's syntax (the call's tag, :price);
# a fn of two arguments, or code around a fn, is refused in one sentence
timeout -s KILL 60 "$FLAMEPROF" requests --cookie-file "$T_DIR/cookie" \
	--entry Elixir.Shop.Pricing:handle_call/3 --tier pricing=Elixir.Shop.Pricing:handle_call/3 \
	--identity-fun 'fn {_m, _f, [{kind, _} | _]} -> kind end' --duration 2s "$NODE" >"$T_DIR/fp.out" 2>"$T_DIR/fp.err"
is "$?" 0 "requests: an Elixir fn as --identity-fun exits 0"
sed 's/^/#   /' "$T_DIR/fp.out" | head -4
check "... and names the requests by what it returns (price)" grep -q '^price  *_total  *[1-9]' "$T_DIR/fp.out"
for bad in 'fn a, b -> a end' 'IO.puts("x"); fn x -> x end' 'fn x -> x end.(1)' 'fn x ->'; do
	timeout -s KILL 60 "$FLAMEPROF" requests --cookie-file "$T_DIR/cookie" \
		--entry Elixir.Shop.Pricing:handle_call/3 --identity-fun "$bad" --duration 1s "$NODE" \
		>"$T_DIR/fp.out" 2>"$T_DIR/fp.err"
	is "$?" 64 "requests --identity-fun '$bad': exit 64"
	sed 's/^/#   stderr: /' "$T_DIR/fp.err"
	check "... in one sentence" one_sentence
done
check "nothing of the refused funs ran (no \"x\" printed on the node)" sh -c "! grep -qx x '$T_DIR/$(basename "$NODE" @127.0.0.1).log'"
timeout -s KILL 60 "$FLAMEPROF" requests --cookie-file "$T_DIR/cookie" \
	--entry Elixir.Shop.Pricing:handle_call/3 --tier pricing=Elixir.Enum:map/2 \
	--duration 2s "$NODE" >"$T_DIR/fp.out" 2>"$T_DIR/fp.err"
is "$?" 0 "requests on Shop.Pricing.handle_call/3 exits 0"
sed 's/^/#   /' "$T_DIR/fp.out" | head -8
check "requests: the pricing tier (Enum.map/2 inside Shop.Pricing.handle_call/3) has requests" grep -q '^handle_call  *pricing  *[1-9]' "$T_DIR/fp.out"
check "the node is left clean at the end" node_clean_within 10 "$NODE"
check "no tracer is left at the end" wait_until 5 tracer_gone "$NODE"

# an Erlang node beside it: --names auto writes nothing, so its files are as
# they always were, and the report draws Erlang's names
ELIXIR_NODE=$NODE
compile_workloads && start_node plain "fp_busy:start(1)" || exit 1
fp --top 5 --every 1s --duration 1500ms -o "$T_DIR/plain" "$NODE"
is "$FP_RC" 0 "record on an Erlang node exits 0"
check "its header says nothing of names" sh -c "! zstd -dcq $T_DIR/plain/flameprof_*.perf.zst | grep -q 'names='"
"$FLAMEPROF" report -q -f folded -o "$T_DIR/p.folded" "$T_DIR/plain"
check "its report keeps Erlang's spelling (mod:fun/arity)" grep -Eq ';[a-z_]+:[a-z_0-9]+/[0-9]+( |;)' "$T_DIR/p.folded"
check "... and no Elixir spelling" sh -c "! grep -q ';:' '$T_DIR/p.folded'"
# both nodes' files in one directory: each node drawn in its own language
mkdir "$T_DIR/both" && cp "$T_DIR"/out/flameprof_*.perf.zst "$T_DIR"/plain/flameprof_*.perf.zst "$T_DIR/both/"
"$FLAMEPROF" report -f folded -o "$T_DIR/b.folded" "$T_DIR/both" 2>"$T_DIR/b.err"
is "$?" 0 "report of the Elixir node's and the Erlang node's files together exits 0"
check "... it says each node is drawn in its own language" grep -q "frames in each node's own language" "$T_DIR/b.err"
check "... the Elixir node's stacks in Elixir's spelling" sh -c "grep '^node:$ELIXIR_NODE;' '$T_DIR/b.folded' | grep -q 'Shop.Pricing.handle_call/3'"
check "... none of them in Erlang's spelling of Elixir code" sh -c "! grep '^node:$ELIXIR_NODE;' '$T_DIR/b.folded' | grep -q 'Elixir\.'"
check "... the Erlang node's stacks in Erlang's spelling" sh -c "grep '^node:$NODE;' '$T_DIR/b.folded' | grep -Eq ';[a-z_]+:[a-z_0-9]+/[0-9]+( |;)' && ! grep '^node:$NODE;' '$T_DIR/b.folded' | grep -q ';:'"
timeout -s KILL 60 "$FLAMEPROF" requests --cookie-file "$T_DIR/cookie" \
	--entry lists:reverse/1 --identity-fun 'fn x -> x end' --duration 1s "$NODE" >"$T_DIR/fp.out" 2>"$T_DIR/fp.err"
is "$?" 64 "an Elixir fn as --identity-fun on an Erlang node: exit 64"
sed 's/^/#   stderr: /' "$T_DIR/fp.err"
check "... in one sentence that says the node does not run Elixir" \
	sh -c "[ \$(wc -l <'$T_DIR/fp.err') -eq 1 ] && grep -q 'does not run Elixir' '$T_DIR/fp.err'"
check "the Erlang node is left clean" node_clean_within 10 "$NODE"
finish

#!/bin/bash
# Functions and names written in Elixir's syntax, on a real Elixir node
# (examples/elixir_shop/shop.exs):
# - calls --pattern Shop.Tax.rate/1 counts exactly the k calls of
#   Shop.Checkout.run(k), as does 'Elixir.Shop.Tax':rate/_ (a quoted Erlang
#   atom, quotes taken off); :"Shop.Legacy".ping/1 names an Erlang atom;
# - Shop.Legacy, an Erlang module named like an alias, is found by what
#   is loaded ('Elixir.Shop.Legacy' is not, 'Shop.Legacy' is), and a
#   module that is neither says both names it tried (exit 64);
# - --name takes an alias (Shop.Supervisor) and :atom (:pricer_1);
# - requests --entry/--tier/--full and record --tier in Elixir's syntax;
# - calls and requests print Elixir's spelling (--names auto), Erlang's
#   with --names erlang;
# - top shows Elixir's spelling, Erlang's with --names erlang;
# - the node is left clean after each run.
T_SCHEDULERS=2 # its top view needs on-CPU samples of processes that seldom run: one scheduler left it 1 of 378 (lib.sh)
. "$(dirname "$0")/../lib.sh"
if ! command -v elixir >/dev/null 2>&1; then
	echo "1..0 # SKIP elixir is not installed (scripts/install-deps.sh check installs it)"
	exit 0
fi
start_epmd || exit 1

start_elixir_node syntax || exit 1

# count_calls K L PATTERN...: calls with the patterns while Shop.Tax.rate/1
# is called K times and 'Shop.Legacy':ping/1 L times; the table in fp.out
count_calls() {
	local k=$1 l=$2
	shift 2
	traced() { [ "$(breakpoint "$NODE" "{'Shop.Legacy',ping,1}" call_count)" != "{call_count, false}" ]; }
	fpc_bg "$@" --duration 60s "$NODE"
	check "the breakpoints are set within 20 s ($*)" wait_until 20 traced
	rpc_eval "$NODE" "'Elixir.Shop.Checkout':run($k), [ 'Shop.Legacy':ping(I) || I <- lists:seq(1, $l)], ok" >/dev/null
	kill -INT "$FP_PID"
	fp_wait 30
	is "$FP_RC" 0 "calls $* exits 0"
	sed "s/^/#   /" "$T_DIR/fp.out"
}
row() { awk -v m="$1" '$1 == m { print $2 }' "$T_DIR/fp.out"; }

count_calls 4321 17 --pattern Shop.Tax.rate/1 --pattern Shop.Legacy.ping/_
is "$(row Shop.Tax.rate/1)" 4321 "Shop.Tax.rate/1: exactly the 4321 calls (the rows spelled as Elixir does: --names auto)"
is "$(row ':"Shop.Legacy".ping/1')" 17 "Shop.Legacy.ping/_ is the Erlang module 'Shop.Legacy' (the one loaded): 17 calls"
check "no tracer is left" wait_until 5 tracer_gone "$NODE"
check "the node is left clean" node_clean_within 10 "$NODE"

count_calls 999 5 --names erlang --pattern "'Elixir.Shop.Tax':rate/_" --pattern ':"Shop.Legacy".ping/1'
is "$(row Elixir.Shop.Tax:rate/1)" 999 "'Elixir.Shop.Tax':rate/_ (a quoted atom): exactly 999 calls (--names erlang: Erlang's spelling)"
is "$(row Shop.Legacy:ping/1)" 5 ':"Shop.Legacy".ping/1: exactly 5 calls'
check "the node is left clean again" node_clean_within 10 "$NODE"

fpc --pattern Shop.Nope --duration 1s "$NODE"
is "$FP_RC" 64 "a module loaded under neither name: exit 64"
check "... in one sentence" one_sentence
check "... naming both names tried" grep -q "neither 'Elixir.Shop.Nope' nor 'Shop.Nope' is loaded on '$NODE'" "$T_DIR/fp.err"
fpc --pattern ':"Elixir.Shop.Nope' --duration 1s "$NODE"
is "$FP_RC" 64 "an unclosed quote: exit 64"
check "... in one sentence" one_sentence

fpc --type time --pattern Shop.Pricing.handle_call/3 --name Shop.Supervisor --name :pricer_1 --duration 1s "$NODE"
is "$FP_RC" 0 "--name Shop.Supervisor (an alias) and --name :pricer_1 are found"
fpc --type time --pattern Shop.Pricing.handle_call/3 --name Shop.Nobody --duration 1s "$NODE"
is "$FP_RC" 64 "--name of no registered process: exit 64"
check "... saying which" grep -q "no process 'Shop.Nobody'" "$T_DIR/fp.err"
check "the node is left clean after the names" node_clean_within 10 "$NODE"

timeout -s KILL 60 "$FLAMEPROF" requests --cookie-file "$T_DIR/cookie" \
	--entry Shop.Pricing.handle_call/3 --tier pricing=Enum.map/2 --tier line=:erlang.rem/2 \
	--duration 2s "$NODE" >"$T_DIR/fp.out" 2>"$T_DIR/fp.err"
is "$?" 0 "requests --entry Shop.Pricing.handle_call/3 --tier pricing=Enum.map/2 exits 0"
sed 's/^/#   /' "$T_DIR/fp.out" | head -8
check "requests: the pricing tier (Enum.map/2) has requests" grep -q '^handle_call  *pricing  *[1-9]' "$T_DIR/fp.out"
check "the node is left clean after requests" node_clean_within 10 "$NODE"
check "no tracer is left after requests" wait_until 5 tracer_gone "$NODE"

timeout -s KILL 60 "$FLAMEPROF" requests --cookie-file "$T_DIR/cookie" \
	--entry Shop.Pricing.handle_call/_ --full Shop.Pricing.line_total/2 --duration 2s --stats "$T_DIR/stats.jsonl" "$NODE" \
	>"$T_DIR/fp.out" 2>"$T_DIR/fp.err"
is "$?" 0 "requests --full Shop.Pricing.line_total/2 exits 0"
sed 's/^/#   /' "$T_DIR/fp.out" | head -8
check "... its tiers named as Elixir does (Shop.Pricing.line_total/2)" grep -q '^handle_call  *Shop.Pricing.line_total/2  *[1-9]' "$T_DIR/fp.out"
check "... in --stats too" grep -q '"tier":"Shop.Pricing.line_total/2"' "$T_DIR/stats.jsonl"
check "the node is left clean after requests --full" node_clean_within 10 "$NODE"

# Until a sample inside handle_call is on disk (3 s on a quiet machine; under
# make check-loaded a 3 s capture held none), then stopped as an operator
# stops it
fp_bg --top 10 --every 1s --duration 90s --flush 200ms --tier pricing=Shop.Pricing.handle_call/_ \
	--name Shop.Supervisor --status all -o "$T_DIR/out" "$NODE"
sleep 3
wait_until 60 sh -c "zstd -dcq $T_DIR/out/.flameprof_*.perf.zst 2>/dev/null | grep -q 'tier:pricing'"
kill -TERM "$FP_PID"
fp_wait 30
is "$FP_RC" 0 "record --tier pricing=Shop.Pricing.handle_call/_ --name Shop.Supervisor exits 0 (SIGTERM)"
check "... the supervisor (registered as an alias) is found: no warning of a missing process" \
	sh -c "! grep -q 'no live process' '$T_DIR/fp.err'"
check "... and sampled (its name frame)" sh -c "zstd -dcq $T_DIR/out/flameprof_*.perf.zst | grep -q 'name:Elixir.Shop.Supervisor'"
check "samples carry the tier frame" sh -c "zstd -dcq $T_DIR/out/flameprof_*.perf.zst | grep -q 'tier:pricing'"
check "the node is left clean after record" node_clean_within 10 "$NODE"
# top spells as the node's language does (--names auto), Erlang's with --names erlang
fpt -n 3 --interval 500ms --every 500ms --view processes --rows 60 --name Shop.Supervisor "$NODE"
is "$FP_RC" 0 "top on the Elixir node exits 0"
sed "s/^/#   /" "$T_DIR/fp.out"
check "top: the supervisor by its alias, Shop.Supervisor" grep -q ' Shop\.Supervisor ' "$T_DIR/fp.out"
check "top: no name in Erlang's spelling of Elixir code" sh -c "! grep -q 'Elixir\.' '$T_DIR/fp.out'"
# The functions view counts on-CPU samples only, and the shop's pricers
# are seldom on a CPU: a bare trixie root (OTP 27) showed 1 of 70, 3 of 195
# and 4 of 310 samples on-CPU in its three 500 ms screens, and once none;
# 4 s make an empty view unlikely.
# Under make check-loaded a 4 s view held 0 of 170 samples on a CPU: it is
# run again (at most 4 times) until its last screen counted some.
for _ in 1 2 3 4; do
	fpt -n 8 --interval 500ms --every 500ms --rows 60 "$NODE"
	grep 'functions by self' "$T_DIR/fp.out" | tail -1 | grep -Eq ' [1-9][0-9]*/[0-9]+ on-CPU' && break
done
sed "s/^/#   /" "$T_DIR/fp.out"
check "top's functions: Elixir's spelling (Module.fun/N or :mod.fun/N), none in Erlang's" \
	sh -c "grep -Eq '(^| )(:[a-z_]+|[A-Z][A-Za-z.]*)\.[a-z_]+[!?]?/[0-9]+' '$T_DIR/fp.out' && ! grep -q 'Elixir\.' '$T_DIR/fp.out'"
fpt --names erlang -n 3 --interval 500ms --every 500ms --view processes --rows 60 --name Shop.Supervisor "$NODE"
check "top --names erlang: the node's atom 'Elixir.Shop.Supervisor'" grep -q 'Elixir\.Shop\.Supervisor' "$T_DIR/fp.out"
check "the node is left clean after top" node_clean_within 10 "$NODE"
finish

#!/bin/bash
# Attaching to a real `mix release`, as an Elixir operator does:
# - the release is built by mix (MIX_ENV=prod mix release) from a fresh
#   `mix new` project and started with long names
#   (RELEASE_DISTRIBUTION=name RELEASE_NODE=NAME@127.0.0.1 bin/APP start);
# - its releases/COOKIE is readable by all, as mix writes it: given as
#   --cookie-file it is refused (exit 77) in one sentence that names
#   RELEASE_COOKIE, and RELEASE_COOKIE=$(cat releases/COOKIE) attaches;
# - calls --pattern RelShop.hello/0 counts exactly the k calls made;
# - record (of two processes named :code_server and :application_controller,
#   the release being idle) finds the node runs Elixir (names=elixir);
# - the node is left clean after each run.
T_SCHEDULERS=2 # its checks need on-CPU samples of a release whose processes seldom run, as elixir_shop.t's, which had none once on one scheduler (lib.sh)
. "$(dirname "$0")/../lib.sh"
if ! command -v mix >/dev/null 2>&1; then
	echo "1..0 # SKIP mix is not installed (Debian's elixir has it; scripts/install-deps.sh check installs it)"
	exit 0
fi
start_epmd || exit 1

# mix keeps its archives and caches under HOME: a scratch one
export HOME="$T_DIR/home" MIX_ENV=prod
mkdir -p "$HOME"
( cd "$T_DIR" && timeout 300 mix new rel_shop >"$T_DIR/mix.log" 2>&1 &&
	cd rel_shop && timeout 300 mix release --quiet >>"$T_DIR/mix.log" 2>&1 )
is "$?" 0 "mix release builds the release"
REL="$T_DIR/rel_shop/_build/prod/rel/rel_shop"
[ -x "$REL/bin/rel_shop" ] || { sed 's/^/#   /' "$T_DIR/mix.log"; finish; exit 1; }
# the release's own cookie file, as mix leaves it (0644), holding this
# test's cookie so that the helpers reach the node too
printf '%s' "$T_COOKIE" >"$REL/releases/COOKIE"
check "releases/COOKIE is readable by all, as mix writes it" sh -c "[ \$(stat -c %a '$REL/releases/COOKIE') = 644 ]"

NODE="rel_$$@127.0.0.1"
RELEASE_DISTRIBUTION=name RELEASE_NODE="$NODE" "$REL/bin/rel_shop" start >"$T_DIR/rel.log" 2>&1 &
NODE_PID=$!
disown "$NODE_PID"
T_PIDS="$T_PIDS $NODE_PID"
up() { [ "$(rpc "$NODE" "erlang system_flag [backtrace_depth, 13]")" -ge 0 ] 2>/dev/null; }
check "the release answers within 60 s" wait_until 60 up || { sed 's/^/#   /' "$T_DIR/rel.log"; finish; exit 1; }
rpc "$NODE" "erlang system_flag [backtrace_depth, 13]" >/dev/null

timeout -s KILL 60 "$FLAMEPROF" calls --cookie-file "$REL/releases/COOKIE" --pattern RelShop --duration 1s "$NODE" \
	>"$T_DIR/fp.out" 2>"$T_DIR/fp.err"
is "$?" 77 "--cookie-file releases/COOKIE (0644) is refused: exit 77"
sed 's/^/#   stderr: /' "$T_DIR/fp.err"
check "... in one sentence" one_sentence
check "... naming RELEASE_COOKIE" grep -q 'RELEASE_COOKIE=' "$T_DIR/fp.err"

K=2345
traced() { [ "$(breakpoint "$NODE" "{'Elixir.RelShop',hello,0}" call_count)" != "{call_count, false}" ]; }
RELEASE_COOKIE=$(cat "$REL/releases/COOKIE") "$FLAMEPROF" calls --pattern RelShop.hello/0 --duration 60s "$NODE" \
	>"$T_DIR/fp.out" 2>"$T_DIR/fp.err" &
FP_PID=$!
T_PIDS="$T_PIDS $FP_PID"
check "RELEASE_COOKIE attaches: the breakpoint is set within 20 s" wait_until 20 traced
rpc_eval "$NODE" "[ 'Elixir.RelShop':hello() || _ <- lists:seq(1, $K)], ok" >/dev/null
kill -INT "$FP_PID"
fp_wait 30
is "$FP_RC" 0 "calls on the release exits 0"
sed 's/^/#   /' "$T_DIR/fp.out"
is "$(awk '$1 == "RelShop.hello/0" { print $2 }' "$T_DIR/fp.out")" "$K" "exactly $K calls of RelShop.hello/0"
check "no tracer is left" wait_until 5 tracer_gone "$NODE"
check "the node is left clean after calls" node_clean_within 10 "$NODE"

RELEASE_COOKIE=$(cat "$REL/releases/COOKIE") timeout -s KILL 60 "$FLAMEPROF" -q --top 0 --name :code_server --name :application_controller --duration 2s \
	--status all -o "$T_DIR/out" "$NODE"
is "$?" 0 "record on the release exits 0"
check "the header records names=elixir" sh -c "zstd -dcq $T_DIR/out/flameprof_*.perf.zst | grep -q '^# settings: .* names=elixir'"
check "the node is left clean after record" node_clean_within 10 "$NODE"
finish

#!/bin/bash
# Explicit targets: with --top 0 only the processes named by --pid and
# --name are sampled; a registered name that does not exist is never turned
# into an atom on the node. With --top 0, targets that name no live process
# are an error (64, also under -q): nothing would be sampled; when only some
# are missing, a warning names them (also under -q) and the others are
# sampled. A hibernated process is sampled at erlang:hibernate/3.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node explicit "fp_busy:start(4)" || exit 1

cs=$(rpc "$NODE" "erlang whereis [code_server]")
idle=$(rpc "$NODE" "erlang whereis [fp_idle_server]")
cs_local=$(pid_local "$cs")
check "erl_call gives code_server's pid ($cs), written as the node does: $cs_local" \
	grep -qE '^<0\.[0-9]+\.[0-9]+>$' <<<"$cs_local"
# the tids these two must show up as
want=$(for p in "$cs" "$idle"; do pid_tid "$p"; done | sort -u)

# both are idle: their samples are waiting ones, written with --status all
fp --duration 2s --top 0 --every 1s --status all --pid "$cs_local" --name fp_idle_server -o "$T_DIR/out" "$NODE"
is "$FP_RC" 0 "--top 0 --pid --name --status all: exits 0"
files=$(ls "$T_DIR/out"/*.perf.zst 2>/dev/null)
check "a file is written" test -n "$files"
is "$(event_pids $files | tr '\n' ' ')" "$(echo $want) " "only the two explicit processes appear as tids"
decompressed $files > "$T_DIR/all.txt"
check "both are sampled many times ($(grep -c 'cpu-clock:' "$T_DIR/all.txt") events)" \
	test "$(grep -c 'cpu-clock:' "$T_DIR/all.txt")" -gt 40
check "the 'name:fp_idle_server ([category])' frame appears" grep -q 'name:fp_idle_server (\[category\])' "$T_DIR/all.txt"
check "the 'name:code_server ([category])' frame appears (--pid)" grep -q 'name:code_server (\[category\])' "$T_DIR/all.txt"
check "no burn_cpu process is sampled with --top 0" test "$(grep -c 'fp_busy:burn_cpu' "$T_DIR/all.txt")" -eq 0
check "every perf-script reader rule holds" readers_ok $files
check "the node is left as it was" node_clean "$NODE"

# A name nobody registered: list_to_existing_atom fails before and after,
# so neither flameprof nor its agent created the atom on the node.
absent() { grep -q badarg <<<"$(rpc "$NODE" "erlang list_to_existing_atom [\"no_such_name_xyz\"]")"; }
check "the atom no_such_name_xyz does not exist on the node before" absent
fp --duration 1s --top 0 --name no_such_name_xyz -o "$T_DIR/out2" "$NODE"
is "$FP_RC" 64 "--top 0 --name no_such_name_xyz: exits 64 (nothing to sample)"
check "one sentence names the missing name and says what to do" \
	grep -q "^flameprof: no live process on '$NODE' for 'no_such_name_xyz'; with --top 0 nothing is left to sample: give a live --pid" "$T_DIR/fp.err"
check "... and it is the only error line" one_sentence
check "no file is written" test -z "$(ls "$T_DIR/out2"/ 2>/dev/null)"
check "the atom no_such_name_xyz still does not exist on the node after" absent
check "the node is left as it was" node_clean "$NODE"

# A hibernated process has no stack left: erlang:hibernate/3 is where it is
# (OTP 27's Elixir supervisors hibernate), not an empty stack.
rpc_eval "$NODE" "register(fp_hibernated, spawn(erlang, hibernate, [timer, sleep, [infinity]])), ok" >/dev/null
fp --duration 2s --top 0 --every 1s --status all --name fp_hibernated -o "$T_DIR/out5" "$NODE"
is "$FP_RC" 0 "--top 0 --name of a hibernated process: exits 0"
check "its samples are at erlang:hibernate/3" \
	grep -q 'erlang:hibernate/3' <(decompressed "$T_DIR"/out5/*.perf.zst)
rpc_eval "$NODE" "exit(whereis(fp_hibernated), kill), ok" >/dev/null
check "the node is left as it was" node_clean "$NODE"

fp -q --duration 1s --top 0 --pid '<0.99999.0>' -o "$T_DIR/out3" "$NODE"
is "$FP_RC" 64 "-q --top 0 --pid '<0.99999.0>' (no such process): exits 64"
check "... and says so under -q too" grep -q "^flameprof: no live process on '$NODE' for '<0.99999.0>'" "$T_DIR/fp.err"
check "the node is left as it was" node_clean "$NODE"

# one of two missing: the other is sampled, the missing one named, under -q too
fp -q --duration 2s --top 0 --status all --name fp_idle_server --name no_such_name_xyz -o "$T_DIR/out4" "$NODE"
is "$FP_RC" 0 "-q --top 0, one live --name and one missing: exits 0"
check "a warning names the missing one under -q" \
	grep -q "^flameprof: warning: no live process on '$NODE' for 'no_such_name_xyz'; sampling the others" "$T_DIR/fp.err"
check "the live one is sampled" grep -q 'name:fp_idle_server (\[category\])' <(decompressed "$T_DIR"/out4/*.perf.zst)
check "the atom no_such_name_xyz still does not exist on the node after" absent
check "the node is left as it was" node_clean "$NODE"
finish

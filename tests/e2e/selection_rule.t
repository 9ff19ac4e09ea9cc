#!/bin/bash
# One selection rule in every window (issue 19, point 2): the first window
# picks --top by reductions gained, as every later one does, not by
# lifetime reductions (which picked long-lived servers that were busy once,
# and made the first window unlike the others); how many processes were
# selected is in the summary and in each file's header.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node select "fp_busy:start(3), fp_busy:was_busy()" || exit 1

# fp_was_busy has burned its reductions (about 3 million) and now idles
registered() { [ "$(rpc "$NODE" "erlang whereis [fp_was_busy]")" != undefined ]; }
check "fp_was_busy is registered: its burst is over" wait_until 60 registered
reds=$(rpc_eval "$NODE" "element(2, erlang:process_info(erlang:whereis(fp_was_busy), reductions))" | tr -dc '0-9')
diag "fp_was_busy's lifetime reductions: $reds"
check "... many of them (over a million)" test "${reds:-0}" -gt 1000000

# one long window: everything written is the first window's selection
fp --duration 3s --top 20 --every 60s --status all -o "$T_DIR/out" "$NODE"
is "$FP_RC" 0 "--top 20 --every 60s: exits 0"
decompressed "$T_DIR"/out/*.perf.zst > "$T_DIR/all.txt"
check "the busy processes are sampled ($(grep -c 'fp_busy:burn_cpu' "$T_DIR/all.txt") burn_cpu frames)" grep -q 'fp_busy:burn_cpu' "$T_DIR/all.txt"
check "the first window does not pick fp_was_busy (lifetime reductions, none gained)" \
	test "$(grep -c 'name:fp_was_busy' "$T_DIR/all.txt")" -eq 0
n=$(sed -n 's/^# settings: top=20 selected=\([0-9]*\) (when this file began) .*/\1/p' "$T_DIR/all.txt" | head -1)
check "the file's header says how many processes were selected (${n:-none})" test -n "$n"
pids=$(event_pids "$T_DIR"/out/*.perf.zst | wc -l)
diag "processes in the file: $pids"
check "the first window selects those that gained reductions: fewer than --top 20 on this node ($pids)" \
	test "$pids" -ge 3 -a "$pids" -lt 20
sel=$(sed -n 's/^flameprof: .* requested, \([0-9]*\) process\(es\)\? selected).*/\1/p' "$T_DIR/fp.err")
check "the summary names the processes selected (${sel:-none}), as many as the file holds" test "${sel:-0}" -eq "$pids"
check "the node is left as it was" node_clean "$NODE"
finish

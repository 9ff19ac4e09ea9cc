#!/bin/bash
# Cheap samples: a process that has not run since its last sample (the
# same reductions) is read without a signal, its stack taken from that
# sample. That must never keep a stale stack: a process that moves from one
# receive to another between two samples (the least it can do: 9
# reductions on OTP 25) is seen where it went, in every sample after the
# move. (Right after a full sample, one more reduction is still taken for
# "has not run": reading the stack charged it; any wake-up costs at least
# 5, measured. That window is one period long and not aimed at here.)
T_SCHEDULERS=2 # processes running on several schedulers at once are part of what it checks (lib.sh)
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node cheap "fp_hop:start()" || exit 1

fp_bg --duration 4s --top 0 --name fp_hop --status all --every 1s -o "$T_DIR/out" "$NODE"
check "the agent is running" wait_until 10 sh -c "[ \"\$('$ERL_CALL' -name '$NODE' -c '$T_COOKIE' -timeout 10 -a 'erlang whereis [flameprof_agent]')\" != undefined ]"
sleep 1.5
is "$(rpc "$NODE" "erlang send [fp_hop, hop]")" hop "the process is told to move"
fp_wait 30
is "$FP_RC" 0 "flameprof exits 0"
files=$(ls "$T_DIR/out"/*.perf.zst 2>/dev/null)
check "a file is written" test -n "$files"
# one line per sample, in time order: the leaf-most of our two functions
decompressed $files | awk '/ cpu-clock:/ { if (f != "") print f; f = "none" }
	/fp_hop:wait_a/ && f == "none" { f = "a" } /fp_hop:wait_b/ && f == "none" { f = "b" }
	END { if (f != "") print f }' > "$T_DIR/seq.txt"
n=$(wc -l < "$T_DIR/seq.txt")
# 4 s at 97 Hz asks for ~390; a loaded machine delivers far fewer (under 150
# on a busy CI root), and 20 are plenty to see both sides of the move
check "sampled all along ($n samples)" test "$n" -ge 20
check "every sample shows one of the two functions" test "$(grep -vc '^[ab]$' "$T_DIR/seq.txt")" -eq 0
check "first in wait_a" test "$(head -1 "$T_DIR/seq.txt")" = a
check "last in wait_b" test "$(tail -1 "$T_DIR/seq.txt")" = b
# a, a, ..., b, b, ...: once moved, never seen back where it was
is "$(uniq "$T_DIR/seq.txt" | tr -d '\n')" ab "once in wait_b, every later sample shows wait_b"
check "every perf-script reader rule holds" readers_ok $files
check "the node is left as it was" node_clean_within 5 "$NODE"
finish

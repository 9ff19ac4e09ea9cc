#!/bin/bash
# A node with 100,000 processes (idle ones, plus a few busy): the agent's
# selection walks all of them every window; flameprof samples the busiest,
# the output passes every reader rule, the summary reports samples, and the
# node is left as it was.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads || exit 1
start_node many "[spawn(fun() -> receive stop -> ok end end) || _ <- lists:seq(1, 100000)], fp_busy:start(4)" || exit 1
is "$(rpc "$NODE" "erlang system_info [process_count]" | awk '{print ($1 > 100000) ? "yes" : $1}')" yes \
	"the node runs more than 100,000 processes"

fp --top 100 --hz 20 --every 1s --duration 5s -o "$T_DIR/out" "$NODE"
is "$FP_RC" 0 "flameprof exits 0"
files=$(ls "$T_DIR/out"/flameprof_*.perf.zst 2>/dev/null)
check "every perf-script reader rule holds" readers_ok $files
decompressed $files > "$T_DIR/all.txt"
check "the busy processes are found among 100,000" grep -q 'fp_busy:burn_cpu/1' "$T_DIR/all.txt"
n=$(sed -n 's/^flameprof: \([0-9]*\) samples in .*/\1/p' "$T_DIR/fp.err")
# Only output that parses is required here: on this 2-core machine the rate
# collapses (about 80 samples in 5 s of 2000/s asked, see the issue 4 report).
check "samples were written (${n:-0})" test "${n:-0}" -gt 10
# code:purge walks every process: on 100,000 it outlasts flameprof's 5 s
# request deadline, so the agent's own cleanup may finish after flameprof.
check "the node is left as it was (within 120 s)" node_clean_within 120 "$NODE"
finish

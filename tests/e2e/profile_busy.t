#!/bin/bash
# A busy node is profiled for a few seconds: its busy functions are in the
# output, the deep stack is seen whole, every reader rule holds, the files
# are closed and renamed, and the node is left as it was.
T_SCHEDULERS=2 # processes running on several schedulers at once are part of what it checks (lib.sh)
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node busy "fp_busy:start(8)" || exit 1

fp --duration 4s --top 20 --every 1s -o "$T_DIR/out" "$NODE"
is "$FP_RC" 0 "flameprof exits 0 after --duration"
files=$(ls "$T_DIR/out"/flameprof_*.perf.zst 2>/dev/null)
check "a closed .zst file is there" test -n "$files"
check "no in-progress dotfile is left" test -z "$(ls -A "$T_DIR/out" | grep '^\.')"
is "$(stat -c %a $files | sort -u)" 640 "files are created 0640"
check "the file name carries the node name" grep -q "busy_$$@127.0.0.1" <<<"$files"
decompressed $files > "$T_DIR/all.txt"
check "zstd -d reads every file" test -s "$T_DIR/all.txt"
check "the busy function is sampled" grep -q "fp_busy:burn_cpu/1 (.*fp_busy.erl:[0-9]*)" "$T_DIR/all.txt"
events=$(grep -c 'cpu-clock:' "$T_DIR/all.txt")
# on-CPU samples only: of the 9 busy processes at most 2 run at any instant
# on the node's 2 schedulers, and the agent's round takes one of them while
# it reads (doc/truth.md): about 97 a second
check "on-CPU events all along the 4 s ($events)" test "$events" -gt 100
deep=$(awk '/cpu-clock:/{n=0; d=0} /fp_busy:deep_(even|odd)\/2/{d++} /^$/{ if (d > m) m = d } END {print m+0}' "$T_DIR/all.txt")
check "the 50-deep recursion is seen whole, past the node's depth of 13 ($deep frames)" test "$deep" -ge 50
check "the proc_lib/initial call category frame is there" grep -q 'initial_call:fp_busy:burn_cpu/1 (\[category\])' "$T_DIR/all.txt"
check "every perf-script reader rule holds" readers_ok $files
check "the summary names the samples and the directory" grep -q "samples in .*'$T_DIR/out'" "$T_DIR/fp.err"
check "the node is left as it was (agent gone, module purged, backtrace_depth 13)" node_clean "$NODE"
finish

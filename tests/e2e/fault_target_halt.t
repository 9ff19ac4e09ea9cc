#!/bin/bash
# The target node is halted cleanly (init:stop() through rpc) mid-capture:
# flameprof notices, closes and renames its file, exits 75 with one sentence,
# and every sample flushed before the halt is in the closed file.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node halted "fp_busy:start(6)" || exit 1

fp_bg --top 20 --every 1s --flush 500ms --rotate 0 --silence-timeout 3s -o "$T_DIR/out" "$NODE"
check "a dotfile is being written" wait_until 20 sh -c "ls -A '$T_DIR/out' | grep -q '^\.flameprof_'"
sleep 2.2
dot=$(ls -A "$T_DIR/out" | grep '^\.flameprof_' | head -1)
cp "$T_DIR/out/$dot" "$T_DIR/before.zst"
t0=$(date +%s%N)
rpc "$NODE" "init stop []" >/dev/null
fp_wait 20
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
is "$FP_RC" 75 "flameprof exits 75 (target lost) when the node halts"
check "it noticed within the silence timeout of 3 s ($ms ms)" test "$ms" -lt 4000
check "one sentence says so: $(fp_errors | head -1)" one_sentence
check "no dotfile is left" test -z "$(ls -A "$T_DIR/out" | grep '^\.')"
files=$(ls "$T_DIR/out"/flameprof_*.perf.zst 2>/dev/null)
check "every closed file decompresses and passes every reader rule" closed_some_ok "$T_DIR/out"
decompressed $files > "$T_DIR/after.txt"
zst_split "$T_DIR/before.zst" "$T_DIR/before_ok.zst" >/dev/null
zstd -dcq "$T_DIR/before_ok.zst" > "$T_DIR/before.txt"
n=$(wc -c < "$T_DIR/before.txt")
check "what was flushed before the halt ($n bytes) is all in the closed file" \
	sh -c "test $n -gt 1000 && cmp -s -n $n '$T_DIR/before.txt' '$T_DIR/after.txt'"
check "the node is gone" wait_until 10 sh -c "! kill -0 $NODE_PID 2>/dev/null"
finish

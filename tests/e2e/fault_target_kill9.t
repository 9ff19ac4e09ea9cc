#!/bin/bash
# The target node is killed with kill -9 in the middle of a capture:
# flameprof notices at once (the connection closes), closes and renames its
# file, exits 75 with one sentence, and nothing flushed before the kill is
# lost: the text of the in-progress file just before the kill is a prefix
# of the closed file's text.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node victim "fp_busy:start(6)" || exit 1

fp_bg --top 20 --every 1s --flush 500ms --rotate 0 --silence-timeout 3s -o "$T_DIR/out" "$NODE"
check "a dotfile is being written" wait_until 20 sh -c "ls -A '$T_DIR/out' | grep -q '^\.flameprof_'"
sleep 2.2
dot=$(ls -A "$T_DIR/out" | grep '^\.flameprof_' | head -1)
cp "$T_DIR/out/$dot" "$T_DIR/before.zst"
kill_quietly 9 "$NODE_PID"
t0=$(date +%s%N)
fp_wait 20
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
is "$FP_RC" 75 "flameprof exits 75 (target lost) after the node is killed"
check "it noticed within 3 s ($ms ms)" test "$ms" -lt 3000
check "one sentence says the node was lost: $(fp_errors | head -1)" one_sentence
check "the sentence names the node" grep -q "$NODE" <<<"$(fp_errors)"
check "no dotfile is left: the file was closed and renamed" test -z "$(ls -A "$T_DIR/out" | grep '^\.')"
files=$(ls "$T_DIR/out"/flameprof_*.perf.zst 2>/dev/null)
check "the closed file is there" test -n "$files"
check "every closed file decompresses and passes every reader rule" closed_ok "$T_DIR/out"
decompressed $files > "$T_DIR/after.txt"
zst_split "$T_DIR/before.zst" "$T_DIR/before_ok.zst" >/dev/null
zstd -dcq "$T_DIR/before_ok.zst" > "$T_DIR/before.txt"
n=$(wc -c < "$T_DIR/before.txt")
check "what was flushed before the kill ($n bytes) is all in the closed file" \
	sh -c "test $n -gt 1000 && cmp -s -n $n '$T_DIR/before.txt' '$T_DIR/after.txt'"
check "the summary line is printed" grep -q ' samples in ' "$T_DIR/fp.err"
finish

#!/bin/bash
# Several nodes in one run (flameprof NODE...): three real nodes, one of
# them killed with kill -9 mid-run. The lost node is named with its reason
# in one sentence, the other two go on until --duration; the run exits 79
# (some nodes failed, the others' files are complete); the survivors'
# files are closed, pass every reader rule and 'flameprof report DIR'
# draws them under node:NAME frames; the survivors are clean afterwards.
# Then a node that cannot be reached among reachable ones (named, the
# other sampled, 79), a node another flameprof holds (69 for it, 79 for
# the run), all nodes unreachable (the first one's status, 69),
# and the bound on the number of nodes (64, nothing touched). SIGTERM stops
# every node cleanly (exit 0).
T_TIMEOUT=300
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads || exit 1
# the three nodes boot at once
start_node_bg mna "fp_busy:start(2)"
A=$NODE
start_node_bg mnb "fp_busy:start(2)"
B=$NODE
start_node_bg mnc "fp_busy:start(2)"
C=$NODE
C_PID=$NODE_PID
node_up "$A" && node_up "$B" && node_up "$C" || exit 1
odir="$T_DIR/out"

fp_bg --connect-timeout 30s --duration 8s --every 500ms --flush 500ms --silence-timeout 3s -o "$odir" "$A" "$B" "$C"
check "node C's file is being written" wait_until 30 sh -c "ls -A '$odir' | grep -q '^\.flameprof_mnc_'"
sleep 1
kill_quietly 9 "$C_PID"
fp_wait 60
is "$FP_RC" 79 "the run exits 79: one node lost, the others' captures complete"
is "$(fp_errors | wc -l)" 1 "one error sentence: $(fp_errors | head -1)"
check "it names the lost node and why" grep -q "lost the connection to '$C'" "$T_DIR/fp.err"
is "$(fp_errors | grep -c "'$A'\|'$B'")" 0 "no error names the surviving nodes"
check "the summary has a line for each survivor" sh -c "grep -q \"^flameprof: '$A': [0-9]* samples in\" '$T_DIR/fp.err' && grep -q \"^flameprof: '$B': [0-9]* samples in\" '$T_DIR/fp.err'"
check "no dotfile is left, the lost node's included" test -z "$(ls -A "$odir" | grep '^\.')"
for n in mna mnb mnc; do
	check "node $n has closed files" sh -c "ls '$odir' | grep -q '^flameprof_${n}_.*\.perf\.zst$'"
done
check "every closed file decompresses and passes every reader rule" closed_ok "$odir"
"$FLAMEPROF" report "$odir" -f folded -o "$T_DIR/all.folded" 2>"$T_DIR/rep.err"
is "$?" 0 "flameprof report over the directory exits 0"
check "node A's stacks are under node:$A" grep -q "^node:$A;.*fp_busy:burn_cpu/1 [0-9]*$" "$T_DIR/all.folded"
check "node B's stacks are under node:$B" grep -q "^node:$B;.*fp_busy:burn_cpu/1 [0-9]*$" "$T_DIR/all.folded"
check "node A is clean afterwards" node_clean "$A"
check "node B is clean afterwards" node_clean "$B"

# SIGTERM stops every node cleanly
fp_bg --connect-timeout 30s --every 500ms -o "$T_DIR/out5" "$A" "$B"
check "both nodes' files are being written" wait_until 30 sh -c "ls -A '$T_DIR/out5' | grep -q '^\.flameprof_mna_' && ls -A '$T_DIR/out5' | grep -q '^\.flameprof_mnb_'"
kill -TERM "$FP_PID"
fp_wait 60
is "$FP_RC" 0 "SIGTERM: exit 0, both nodes stopped"
check "no dotfile is left" test -z "$(ls -A "$T_DIR/out5" | grep '^\.')"
check "node A is clean after SIGTERM" node_clean "$A"
check "node B is clean after SIGTERM" node_clean "$B"

# an unreachable node among reachable ones
ghost="ghost_$$@127.0.0.1"
out2="$T_DIR/out2"
fp --duration 2s --every 500ms -o "$out2" "$A" "$ghost"
is "$FP_RC" 79 "an unreachable node among reachable ones: exit 79"
is "$(fp_errors | wc -l)" 1 "one error sentence: $(fp_errors | head -1)"
check "it names the unreachable node" grep -q "cannot reach '$ghost'" "$T_DIR/fp.err"
check "the reachable node was sampled" sh -c "ls '$out2' | grep -q '^flameprof_mna_.*\.perf\.zst$'"
check "node A is clean afterwards" node_clean "$A"

# a node another flameprof holds, among one that is free
"$FLAMEPROF" --cookie-file "$T_DIR/cookie" -q --every 500ms -o "$T_DIR/held" "$A" 2>"$T_DIR/holder.err" &
HOLDER=$!
T_PIDS="$T_PIDS $HOLDER"
check "another flameprof holds node A" wait_until 30 sh -c "ls -A '$T_DIR/held' 2>/dev/null | grep -q '^\.flameprof_mna_'"
fp --connect-timeout 30s --duration 2s --every 500ms -o "$T_DIR/out6" "$A" "$B"
is "$FP_RC" 79 "a node held by another flameprof among a free one: exit 79"
is "$(fp_errors | wc -l)" 1 "one error sentence: $(fp_errors | head -1)"
check "it names the held node" grep -q "'$A'" <<<"$(fp_errors)"
check "the free node was sampled" sh -c "ls '$T_DIR/out6' | grep -q '^flameprof_mnb_.*\.perf\.zst$'"
kill -TERM "$HOLDER"; wait "$HOLDER"
is "$?" 0 "the other flameprof ends well"
check "node A is clean afterwards" node_clean "$A"
check "node B is clean afterwards" node_clean "$B"

# every node unreachable: the first one's status, as a run on it alone
fp --duration 2s -o "$T_DIR/out3" "$ghost" "ghost2_$$@127.0.0.1"
is "$FP_RC" 69 "every node unreachable: exit 69, the first one's status"

# the bound
set --
for k in $(seq 33); do set -- "$@" "n$k@127.0.0.1"; done
fp --duration 1s -o "$T_DIR/out4" "$@"
is "$FP_RC" 64 "33 nodes are refused with exit 64"
check "the refusal says the bound: $(fp_errors | head -1)" grep -q "at most 32" "$T_DIR/fp.err"
check "nothing was written" test ! -e "$T_DIR/out4"
finish

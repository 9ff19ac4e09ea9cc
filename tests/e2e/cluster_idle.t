#!/bin/bash
# Every node named is in the result: --cluster over three nodes, one idle
# (no process of it gains reductions: nothing is selected). The idle node
# gets its idle record (the header, a '# idle: ' line, no event), the run
# says so and exits 0, every file passes the reader rules (the idle record
# as the one file with no event), and 'flameprof report DIR' lists the
# three nodes and names the idle one. A node whose samples are all of a
# status --status does not write gets one too.
T_TIMEOUT=300
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads || exit 1
start_node cia "fp_busy:start(1)" || exit 1
A=$NODE
start_node cib "fp_busy:start(1)" || exit 1
B=$NODE
# idle: every process of the node asleep, none gains reductions (the
# distribution's ticks come every 15 s, after the run)
start_node cic "ok" || exit 1
C=$NODE
is "$(rpc "$A" "net_kernel connect_node ['$B']")" true "A connects to B"
is "$(rpc "$A" "net_kernel connect_node ['$C']")" true "A connects to C"
# A's connections go on in the background (global syncs C with A and
# connects it to B): C is idle once none of its processes but the one
# asking gains reductions for a second. Once failed on a loaded CI machine
# with C's processes still busy in the run's first seconds.
quiet() { [ "$(rpc_eval "$1" "R = fun() -> [{P, element(2, process_info(P, reductions))} || P <- processes(), P =/= self(), process_info(P, reductions) =/= undefined] end, A = R(), timer:sleep(1000), B = maps:from_list(R()), length([P || {P, N} <- A, maps:get(P, B, N) =/= N])")" = 0 ]; }
check "C is quiet before the run" wait_until 30 quiet "$C"

odir="$T_DIR/out"
fp --cluster --duration 3s --every 500ms --top 5 -o "$odir" "$A"
is "$FP_RC" 0 "--cluster over A, B and an idle C: exit 0"
grep -q "^flameprof: '$C': .*no process selected" "$T_DIR/fp.err"; said=$?
check "the summary says C selected no process" test "$said" = 0
[ "$said" = 0 ] || grep "'$C'" "$T_DIR/fp.err" >&2
check "... and that C was idle, with a file that says so" grep -q "^flameprof: '$C' was idle: its file in '$odir' holds a note saying so" "$T_DIR/fp.err"
cfile=$(ls "$odir"/flameprof_cic_*.perf.zst 2>/dev/null)
check "C has one file" test "$(echo "$cfile" | grep -c .)" = 1
decompressed $cfile > "$T_DIR/c.txt"
grep "^# idle" "$T_DIR/c.txt" | sed 's/^/#   /'
check "... its header says it was idle" grep -q "^# idle: profiled for [0-9.]* s from [0-9T.]*Z, no event: no process selected" "$T_DIR/c.txt"
is "$(grep -c ' cpu-clock:' "$T_DIR/c.txt")" 0 "... and it holds no event"
check "... it starts with the header, as every file" test "$(head -1 "$T_DIR/c.txt")" = "# ========"
check "every file passes every reader rule (the idle record too)" readers_ok "$odir"/*.perf.zst

"$FLAMEPROF" report "$odir" -o "$T_DIR/all.svg" 2> "$T_DIR/rep.err"
is "$?" 0 "report over the directory: exit 0"
sed 's/^/#   report: /' "$T_DIR/rep.err"
check "report says the directory holds 3 nodes" grep -q "holds the files of 3 nodes" "$T_DIR/rep.err"
check "... and names C as profiled and idle" grep -q "^flameprof: '$C' was profiled and idle: profiled for" "$T_DIR/rep.err"
"$FLAMEPROF" report "$odir" --node "$C" -o "$T_DIR/c.svg" 2> "$T_DIR/rep.err"
is "$?" 65 "report --node C alone: nothing to draw (exit 65)"
check "... saying it holds only idle records" grep -q "holds only idle records" "$T_DIR/rep.err"

# samples taken, none of a status --status writes
fp --status exiting --duration 2s --every 500ms -o "$T_DIR/out2" "$A"
is "$FP_RC" 0 "--status exiting on a busy node: exit 0"
check "... it says the node was idle" grep -q "^flameprof: the node was idle: its file in '$T_DIR/out2' holds a note" "$T_DIR/fp.err"
check "... and does not offer to open it" bash -c "! grep -q 'open them with' '$T_DIR/fp.err'"
decompressed "$T_DIR/out2"/*.perf.zst > "$T_DIR/a.txt"
check "its idle record says why: samples, none of a status --status writes" \
	grep -q "^# idle: .* no event: [0-9]* samples, none of a status --status writes (running [0-9]*" "$T_DIR/a.txt"
for n in "$A" "$B" "$C"; do
	check "$n is clean afterwards" node_clean "$n"
done
finish

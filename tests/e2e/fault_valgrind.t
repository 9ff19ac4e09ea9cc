#!/bin/bash
# flameprof under valgrind memcheck: one full capture (connect, agent,
# rotation, --duration stop, unload), a SIGTERM stop, and the error paths
# (an unknown node, a full disk through RLIMIT_FSIZE, the target killed),
# then flameprof report on the capture. Zero errors, zero
# definite leaks: valgrind would exit 99 and its log would say so.
# (make check VALGRIND=1 runs every e2e test this way.)
. "$(dirname "$0")/../lib.sh"
command -v valgrind >/dev/null || { plan 1; skip "valgrind is not installed"; exit 0; }
start_epmd && compile_workloads && start_node vg "fp_busy:start(4)" || exit 1

vg() {
	log="$T_DIR/vg_$1.log"; shift
	FP_WRAP="valgrind $FP_VG_OPTS --log-file=$log" FP_DEADLINE=180 fp "$@"
}
vg_clean() {
	grep -q 'ERROR SUMMARY: 0 errors' "$1" && ! grep -q 'definitely lost: [1-9]' "$1" ||
		{ sed 's/^/#   valgrind: /' "$1" | tail -40; return 1; }
}

vg capture --top 10 --every 1s --flush 500ms --rotate 2s --duration 4s -o "$T_DIR/out" "$NODE"
is "$FP_RC" 0 "a full capture under valgrind exits 0 (99 would be a memcheck error)"
check "no memcheck error and no definite leak in the capture" vg_clean "$T_DIR/vg_capture.log"
check "its files pass every reader rule" closed_ok "$T_DIR/out"
check "the node is left as it was" node_clean "$NODE"

vg unknown --connect-timeout 2s -o "$T_DIR/out2" "nobody_$$@127.0.0.1"
is "$FP_RC" 69 "an unknown node under valgrind exits 69"
check "no memcheck error and no definite leak on the connect error path" vg_clean "$T_DIR/vg_unknown.log"

FP_WRAP_SAVE=$FP_WRAP
log="$T_DIR/vg_full.log"
FP_WRAP="prlimit --fsize=16384 -- valgrind $FP_VG_OPTS --log-file=$log" FP_DEADLINE=180 \
	fp --top 10 --every 1s --flush 200ms --rotate 0 --duration 60s -o "$T_DIR/out3" "$NODE"
is "$FP_RC" 74 "a full disk under valgrind exits 74"
check "no memcheck error and no definite leak on the disk-full path" vg_clean "$log"
check "the node is left as it was" node_clean "$NODE"

# stopped by SIGTERM, then the target lost mid-capture (exit 75)
FP_WRAP="valgrind $FP_VG_OPTS --log-file=$T_DIR/vg_term.log" fp_bg --top 10 --every 1s -o "$T_DIR/out4" "$NODE"
sleep 6; kill -TERM "$FP_PID"; fp_wait 120
is "$FP_RC" 0 "SIGTERM under valgrind exits 0"
check "no memcheck error and no definite leak on the SIGTERM path" vg_clean "$T_DIR/vg_term.log"
FP_WRAP="valgrind $FP_VG_OPTS --log-file=$T_DIR/vg_lost.log" fp_bg --top 10 --every 1s -o "$T_DIR/out5" "$NODE"
sleep 6; kill -9 "$NODE_PID"; fp_wait 120
is "$FP_RC" 75 "the target killed under valgrind: exit 75"
check "no memcheck error and no definite leak on the target-lost path" vg_clean "$T_DIR/vg_lost.log"
check "the files written before the loss pass every reader rule" closed_ok "$T_DIR/out5"

# flameprof report is C too: flame graph, heatmap, folded, speedscope
FP_WRAP="valgrind $FP_VG_OPTS --log-file=$T_DIR/vg_report.log"
timeout -s KILL 180 $FP_WRAP "$FLAMEPROF" report "$T_DIR/out" -o "$T_DIR/flame.svg" --weight reductions_delta \
	--heatmap "$T_DIR/heat.svg" >/dev/null 2>&1
is "$?" 0 "flameprof report under valgrind exits 0"
check "no memcheck error and no definite leak in report" vg_clean "$T_DIR/vg_report.log"
FP_WRAP="valgrind $FP_VG_OPTS --log-file=$T_DIR/vg_speedscope.log"
timeout -s KILL 180 $FP_WRAP "$FLAMEPROF" report "$T_DIR/out" --format speedscope -o "$T_DIR/s.json" >/dev/null 2>&1
is "$?" 0 "flameprof report --format speedscope under valgrind exits 0"
check "no memcheck error and no definite leak in the speedscope writer" vg_clean "$T_DIR/vg_speedscope.log"
finish

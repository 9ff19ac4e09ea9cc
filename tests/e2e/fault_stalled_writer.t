#!/bin/bash
# A stalled writer: flameprof is stopped (SIGSTOP) for 8 s while it samples
# 40 busy processes at 97 Hz, on a node whose distribution buffer is small
# (+zdbbl 64). The agent's nosuspend sends fail and are dropped and counted
# (the summary's "dropped" > 0); the node's own work goes on meanwhile (its
# progress counter advances during the stop); flameprof catches up after
# SIGCONT with its memory bounded, and finishes normally.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads || exit 1
ERL_FLAGS="+zdbbl 64" start_node flood "fp_flood:start(40)" || exit 1

fp_bg --top 40 --hz 97 --every 1s --flush 1s --connect-timeout 30s -o "$T_DIR/out" "$NODE"
check "flameprof is writing" wait_until 20 sh -c "ls -A '$T_DIR/out' | grep -q '^\.flameprof_'"
sleep 2
rss0=$(rss_kb "$FP_PID")
kill -STOP "$FP_PID"
p0=$(rpc "$NODE" "fp_flood progress []")
sleep 4
p1=$(rpc "$NODE" "fp_flood progress []")
sleep 4
p2=$(rpc "$NODE" "fp_flood progress []")
diag "progress during the stop: $p0 -> $p1 -> $p2"
check "the node's work goes on while flameprof is stopped ($p0 < $p1 < $p2)" \
	sh -c "test '$p1' -gt '$p0' && test '$p2' -gt '$p1'"
kill -CONT "$FP_PID"
sleep 4
rss1=$(rss_kb "$FP_PID")
diag "flameprof RSS: ${rss0} KiB before the stop, ${rss1} KiB after catching up"
check "flameprof's memory stays bounded after the stall (${rss1} KiB < 256 MiB)" test "${rss1:-999999999}" -lt 262144
check "flameprof is still running after the stall" kill -0 "$FP_PID"
p3=$(rpc "$NODE" "fp_flood progress []")
check "the node's work goes on after it ($p3 > $p2)" test "$p3" -gt "$p2"
kill -TERM "$FP_PID"
fp_wait 30
is "$FP_RC" 0 "flameprof exits 0 on SIGTERM after the stall"
dropped=$(sed -n 's/.*, dropped \([0-9]*\),.*/\1/p' "$T_DIR/fp.err")
check "the agent's nosuspend sends were dropped and counted (dropped ${dropped:-?})" test "${dropped:-0}" -gt 0
check "every closed file passes every reader rule" closed_ok "$T_DIR/out"
check "the node is left as it was" node_clean "$NODE"
finish

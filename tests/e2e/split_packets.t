#!/bin/bash
# A node whose packets arrive in two parts, 300 ms apart (a loaded machine,
# a slow network): flameprof reads each packet whole, whatever its own wait
# between looks at the node. ei drops what it has read of a packet when its
# read times out halfway, and the connection cannot be read after that; a
# run waited 20 ms for a packet on its way and lost the node. The link is
# tests/workloads/fp_split_proxy.py, a name in epmd that leads to the real
# node and cuts every read of the node's side over 512 bytes in two.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node split "fp_busy:start(3)" || exit 1
PROXY="slow_$$"
python3 "$ROOT/tests/workloads/fp_split_proxy.py" "$ERL_EPMD_PORT" "$PROXY" "${NODE%@*}" "$T_DIR/proxy.ready" \
	>"$T_DIR/proxy.log" 2>&1 &
T_PIDS="$T_PIDS $!"
check "the slow link is in epmd" wait_until 20 test -f "$T_DIR/proxy.ready" || { sed 's/^/#   /' "$T_DIR/proxy.log"; }

fp --connect-timeout 30s --duration 3s --every 1s --top 5 -o "$T_DIR/out" "$PROXY@127.0.0.1"
sed "s/^/#   /" "$T_DIR/fp.err" | tail -5
is "$FP_RC" 0 "the run through the slow link exits 0"
files=$(ls "$T_DIR/out"/*.perf.zst 2>/dev/null)
check "a file is written" test -n "$files"
decompressed $files > "$T_DIR/all.txt"
n=$(grep -c ' cpu-clock:' "$T_DIR/all.txt")
# 3 s at 97 Hz asks for ~290 a process; the link delays, it does not drop
check "samples were taken all along ($n)" test "$n" -ge 20
check "the busy processes are in them" grep -q 'fp_busy:burn_cpu' "$T_DIR/all.txt"
check "every perf-script reader rule holds" readers_ok $files
check "the node is left clean" node_clean "$NODE"
finish

#!/bin/bash
# --test-compile-on-target (hidden): the agent is compiled on the node from
# its embedded source (the path taken when our .beam does not load on the
# target's OTP) instead of loading the .beam: samples appear and the node is
# left as it was. Whatever happens, a failed start leaves the node clean.
. "$(dirname "$0")/../lib.sh"
# An idle node: on a busy one, loading the compiler's modules alone takes
# 20-40 s on this machine (flameprof allows 60 s); the test stays short.
start_epmd && compile_workloads &&
	start_node cot "register(fp_idle_server, spawn(fp_busy, idle_server, []))" || exit 1

# The embedded source is preprocessed (erlc -P): erl_parse:parse_form/1
# refuses -define and ?MACRO.

# the idle server's samples are waiting ones: --status all writes them
fp --test-compile-on-target --duration 2s --top 5 --every 1s --status all --name fp_idle_server -o "$T_DIR/out" "$NODE"
is "$FP_RC" 0 "compiled on the target: exits 0"
check "no 'cannot compile the agent' error" test -z "$(grep 'cannot compile the agent' "$T_DIR/fp.err")"
files=$(ls "$T_DIR/out"/*.perf.zst 2>/dev/null)
check "samples appear: the idle server is sampled" \
	sh -c "[ -n '$files' ] && zstd -dcq $files | grep -q 'name:fp_idle_server'"
check "every perf-script reader rule holds" sh -c "[ -n '$files' ] && python3 '$READERS' $files >/dev/null"
check "the node is left as it was (agent gone, module purged, backtrace_depth 13)" node_clean "$NODE"
fp --duration 1s --top 5 -o "$T_DIR/after" "$NODE"
is "$FP_RC" 0 "a normal run afterwards works"
check "and leaves the node as it was" node_clean "$NODE"
finish

#!/bin/bash
# A node started with -sname (name@<short host>) is profiled as well as the
# long-named nodes of the other tests: flameprof picks short names for
# itself from the target's form. Reached as name@127.0.0.1 too, it writes
# the same series of files: they are named after the node's own node().
. "$(dirname "$0")/../lib.sh"
host=$(hostname -s)
if ! getent ahostsv4 "$host" | grep -q '^127\.'; then
	echo "1..0 # SKIP the short host name '$host' does not resolve to loopback"
	exit 0
fi
start_epmd && compile_workloads && start_snode short "fp_busy:start(4)" || exit 1
check "the node has a short name ($NODE)" sh -c "case '$NODE' in *@*.*) false;; *@?*) true;; *) false;; esac"

fp --duration 2s --top 10 --every 1s -o "$T_DIR/out" "$NODE"
is "$FP_RC" 0 "profiling '$NODE' exits 0"
files=$(ls "$T_DIR/out"/*.perf.zst 2>/dev/null)
check "a closed .zst file is there, named after the node" sh -c "[ -n '$files' ] && echo '$files' | grep -q '$NODE'"
check "the busy function is sampled" sh -c "zstd -dcq $files | grep -q 'fp_busy:burn_cpu/1'"
check "every perf-script reader rule holds" readers_ok $files
check "the node is left as it was (agent gone, module purged, backtrace_depth 13)" snode_clean "$NODE"

# the same node reached by its address: one series of files, named by node()
fp -v --duration 2s --top 10 --every 1s -o "$T_DIR/out" "${NODE%@*}@127.0.0.1"
is "$FP_RC" 0 "profiling it as '${NODE%@*}@127.0.0.1' exits 0"
check "flameprof says the node calls itself '$NODE'" grep -q "'${NODE%@*}@127.0.0.1' calls itself '$NODE'; the files are named after that" "$T_DIR/fp.err"
n=$(ls "$T_DIR/out" | grep -c '^flameprof_.*\.perf\.zst$')
is "$n" 2 "two closed files in the directory"
is "$(ls "$T_DIR/out" | grep -c "^flameprof_${NODE}_.*\.perf\.zst$")" 2 "both named after '$NODE' (none after 127.0.0.1)"
last=$(ls "$T_DIR"/out/flameprof_*.perf.zst | tail -1)
is "$(zstd -dcq "$last" | sed -n 's/^# node: //p')" "$NODE" "the second file's header names the node by its own name"
"$FLAMEPROF" report -q "$T_DIR/out" -o "$T_DIR/flame.svg" 2>"$T_DIR/fp.err"
is "$?" 0 "the report draws the directory as one node"
check "... no 'holds the files of' warning" test -z "$(grep 'holds the files of' "$T_DIR/fp.err")"
check "the node is left as it was" snode_clean "$NODE"

fp --connect-timeout 2s --duration 1s -o "$T_DIR/none" "nosuch_$$@$host"
is "$FP_RC" 69 "an unknown short name: exit 69"
check "naming the node epmd knows, and epmd's port" grep -q "epmd on port $ERL_EPMD_PORT knows .*'${NODE%@*}'" "$T_DIR/fp.err"
finish

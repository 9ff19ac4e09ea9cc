#!/bin/bash
# A node started with -sname (name@<short host>) is profiled as well as the
# long-named nodes of the other tests: flameprof picks short names for
# itself from the target's form.
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

fp --connect-timeout 2s --duration 1s -o "$T_DIR/none" "nosuch_$$@$host"
is "$FP_RC" 69 "an unknown short name: exit 69"
check "naming the node epmd knows" grep -q "epmd knows .*'${NODE%@*}'" "$T_DIR/fp.err"
finish

#!/bin/bash
# Stopping: --duration ends the run by itself; SIGTERM and SIGINT mid-run
# stop the agent, restore the node, and leave closed, readable files.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node stop "fp_busy:start(4)" || exit 1

t0=$(now_ms)
fp --duration 2s --top 10 --every 1s -o "$T_DIR/dur" "$NODE"
el=$(( $(now_ms) - t0 ))
is "$FP_RC" 0 "--duration 2s: exits 0"
check "--duration 2s stops by itself within a few seconds (${el} ms, deadline 6000)" test "$el" -lt 6000
check "--duration 2s ran at least 2 s (${el} ms)" test "$el" -ge 2000
check "--duration: the summary line is printed" grep -q 'samples in .* s (' "$T_DIR/fp.err"
check "--duration: the node is left as it was" node_clean "$NODE"

# signal NAME: a run without --duration, sent NAME after ~3 s.
signal() {
	sig=$1 out="$T_DIR/$1"
	fp_bg --top 10 --every 1s -o "$out" "$NODE"
	sleep 3
	check "SIG$sig: flameprof was still running after 3 s" kill -0 "$FP_PID"
	t0=$(now_ms)
	kill -s "$sig" "$FP_PID"
	fp_wait 15
	el=$(( $(now_ms) - t0 ))
	is "$FP_RC" 0 "SIG$sig: exits 0"
	check "SIG$sig: stops within the connect timeout + margin (${el} ms, deadline 8000)" test "$el" -lt 8000
	check "SIG$sig: no in-progress dotfile is left" test -z "$(ls -A "$out" | grep '^\.')"
	files=$(ls "$out"/*.perf.zst 2>/dev/null)
	check "SIG$sig: a closed .zst file is there" test -n "$files"
	check "SIG$sig: every file decompresses whole (zstd -t)" zstd -tq $files
	decompressed $files > "$out.txt"
	check "SIG$sig: the busy function is in it ($(grep -c 'cpu-clock:' "$out.txt") events)" \
		grep -q 'fp_busy:burn_cpu/1' "$out.txt"
	check "SIG$sig: every perf-script reader rule holds" readers_ok $files
	check "SIG$sig: the summary line is printed" grep -q 'samples in .* s (' "$T_DIR/fp.err"
	check "SIG$sig: the node is left as it was" node_clean "$NODE"
}
signal TERM
signal INT
finish

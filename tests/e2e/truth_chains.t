#!/bin/bash
# check: alone (perf's samples and flameprof's over the same seconds: another test's CPU would be in both; Makefile)
# What the comparison of Erlang leaves cannot see, named by perf itself
# (issue 33): time in C. A perf sample in a BIF's C code has no Erlang leaf,
# so truth_perf.t counts it for neither side, while flameprof draws that
# time at the Erlang function that called the BIF (RabbitMQ's writer at
# erlang:port_command/2, 16-37 % of flameprof's Erlang leaves). Recorded
# with DWARF call chains, perf unwinds the emulator's C code up to the JIT's
# stub that called it, and the stub says what the C was for: tests/truth.py
# --chains. The writing shape of tests/workloads/fp_truth.erl (a process
# writing 4 KiB to a port at every turn, beside the fib spinner) must come
# out as such: port_command's C named as a BIF, fib as Erlang code, and
# flameprof's share for the writer what perf's chains give it.
T_TIMEOUT=120
. "$(dirname "$0")/../lib.sh"

perf_jit_or_skip 5 --call-graph dwarf
start_epmd && compile_workloads || exit 1

# record: the writing shape under perf (DWARF chains) and flameprof over the
# same 6 s; tests/truth.py's reading in $T_DIR/r.json
record() {
	rm -rf "$T_DIR/out" "$T_DIR/truth_chains_$$.ready"   # a second run starts afresh
	T_ERL_ARGS="+S 2:2 +JPperf true" start_node truth_chains "fp_truth:start(writing)" || return 1
	sleep 1
	perf record -q -e cpu-clock -F 997 --call-graph dwarf,16384 -p "$NODE_PID" -o "$T_DIR/p.data" -- sleep 6 \
		>"$T_DIR/perf.log" 2>&1 &
	local perf_pid=$!
	fp --duration 6s --max-cost 0 -o "$T_DIR/out" "$NODE"
	wait "$perf_pid"
	perf script -i "$T_DIR/p.data" -F ip,sym,dso --hide-call-graph >"$T_DIR/p.txt" 2>/dev/null
	perf script -i "$T_DIR/p.data" -F comm,ip,sym,dso >"$T_DIR/chains.txt" 2>/dev/null
	kill "$NODE_PID" 2>/dev/null
	rm -f "/tmp/perf-$NODE_PID.map"
	"$FLAMEPROF" report -q -f folded "$T_DIR/out" -o "$T_DIR/f.txt"
	python3 "$ROOT/tests/truth.py" "$T_DIR/p.txt" "$T_DIR/f.txt" --chains "$T_DIR/chains.txt" | sed 's/^/# /'
	python3 "$ROOT/tests/truth.py" "$T_DIR/p.txt" "$T_DIR/f.txt" --chains "$T_DIR/chains.txt" --json >"$T_DIR/r.json"
}
# writer_shares: flameprof's part of its on-CPU samples that are the
# writer's, and perf's part of the schedulers' samples that its BIF's C and
# its Erlang code make up, in $fp_writer and $perf_writer
writer_shares() {
	local writer all
	writer=$(grep -E '^running;initial_call:fp_truth:writer/0;' "$T_DIR/f.txt" | awk '{n += $NF} END {print n + 0}')
	all=$(awk '{n += $NF} END {print n + 0}' "$T_DIR/f.txt")
	fp_writer=$(python3 -c 'import sys; print(round(int(sys.argv[1]) / max(int(sys.argv[2]), 1), 3))' "$writer" "$all")
	perf_writer=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
erl = sum(v for k, v in r["perf_top"] if k in ("erlang:port_command/2", "fp_truth:write/2"))
print(round(dict(r.get("c_bifs", [])).get("erts_internal_port_command_3", 0) + r.get("c_time", {}).get("Erlang code", 0) * erl, 3))' \
		"$T_DIR/r.json" 2>/dev/null || echo 0)
}
close() { python3 -c 'import sys; sys.exit(0 if abs(float(sys.argv[1]) - float(sys.argv[2])) <= 0.15 else 1)' "$fp_writer" "$perf_writer"; }

record || exit 1
writer_shares
# Both are statistics of a few hundred samples on a shared 2-core machine:
# a run outside the bound runs once more, and says so.
if ! close; then
	diag "the writer's share: flameprof $fp_writer, perf $perf_writer: once more"
	record || exit 1
	writer_shares
fi
is "$FP_RC" 0 "the capture beside perf exits 0"
# A perf that leaves the JIT's frames out of its chains (perf 7.2 with OTP
# 29 was seen so) has no such reading to check.
none=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("c_time_none", ""))' "$T_DIR/r.json" 2>/dev/null)
if [ -n "$none" ]; then
	for i in $(seq 4); do skip "no reading of perf's call chains here: $none ($(perf --version))"; done
	finish; exit
fi
# share KIND | share bif NAME: a share of the normal schedulers' samples
share() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["c_time"].get(sys.argv[3], 0) if sys.argv[2] == "kind" else dict(r["c_bifs"]).get(sys.argv[3], 0))' \
		"$T_DIR/r.json" "$1" "$2" 2>/dev/null || echo 0
}
ge() { python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)' "${1:-0}" "$2"; }

# The writer runs on one scheduler, fib on the other: each about half.
pc=$(share bif erts_internal_port_command_3)
erl=$(share kind "Erlang code")
check "perf's chains name port_command's C as a BIF ($pc of the schedulers' samples)" ge "$pc" 0.10
check "and fib's time as Erlang code ($erl)" ge "$erl" 0.25
check "most of the writer's CPU is the BIF's, not its Erlang code ($pc against the whole BIF share $(share kind BIFs))" \
	ge "$(share kind BIFs)" 0.15
# flameprof draws the writer's CPU as the writer's: the part of its on-CPU
# samples that are the writer's is the part of perf's that its C and its
# Erlang code make up, where the comparison of Erlang leaves puts the writer
# at 0.3 % of perf's samples and flameprof 0.45 away. Measured: flameprof
# 0.39-0.49, perf 0.45-0.55 (runs of 4 s here and in the trixie and forky
# roots); CI's bookworm root once found them more than 0.1 apart, so 0.15,
# far from the 0.45 the leaves alone give.
check "the writer's share: flameprof $fp_writer of its on-CPU samples, perf $perf_writer with the BIF's C (within 0.15)" close
finish

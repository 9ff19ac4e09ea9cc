#!/bin/bash
# check: alone (perf's samples and flameprof's over the same seconds: another test's CPU would be in both; Makefile)
# The truth of the on-CPU picture (issue 33), measured against an instrument
# none of us wrote: Linux perf, sampling the node's scheduler threads on a
# CPU (cpu-clock), with the node started with +JPperf true so that its JIT
# writes /tmp/perf-<pid>.map and perf names every sample of Erlang code.
# Over the same seconds flameprof records at its defaults; both sides are
# reduced to the leaf Erlang function of each on-CPU sample (flameprof's own
# modules, and perf's samples in C, left out: tests/truth.py) and compared:
# the module-level total variation distance at most 0.1, and at most 5 % of
# flameprof's weight on functions perf saw in under 0.5 % of its samples.
# Three shapes (tests/workloads/fp_truth.erl): spinners, a service of
# frequent short wake-ups (where flameprof drew the CPU at timer:sleep/1
# and receive loops: module distance 0.9 before), a saturated node.
# Leaves only, as the issue's method says: perf's call chains through the
# emulator's C code (no frame pointers) are not to be trusted (tests/truth.py).
T_TIMEOUT=300
. "$(dirname "$0")/../lib.sh"

perf_jit_or_skip 13
start_epmd && compile_workloads || exit 1

SECS=${TRUTH_SECS:-12}
# shape NAME SCHEDULERS: a node of that shape; perf and flameprof over the
# same seconds; the distances in $T_DIR/NAME.json
shape() {
	local shape=$1
	rm -rf "$T_DIR/$shape" "$T_DIR/truth_${shape}_$$.ready"   # a second run starts afresh
	T_ERL_ARGS="+S $2:$2 +JPperf true" start_node "truth_$shape" "fp_truth:start($shape)" || return 1
	sleep 1  # past the start of every process
	perf record -q -e cpu-clock -F 997 -p "$NODE_PID" -o "$T_DIR/$shape.data" -- sleep "$SECS" \
		>"$T_DIR/$shape.perf.log" 2>&1 &
	local perf_pid=$!
	# --max-cost 0: every selected process every round (the budget would
	# sample a part of them on the busy shapes: fewer samples, the same rule)
	fp --duration "${SECS}s" --max-cost 0 -o "$T_DIR/$shape" "$NODE"
	wait "$perf_pid"
	# perf names the JIT's code from the map when it reads its samples back
	perf script -i "$T_DIR/$shape.data" -F ip,sym,dso >"$T_DIR/$shape.perf.txt" 2>/dev/null
	kill "$NODE_PID" 2>/dev/null
	rm -f "/tmp/perf-$NODE_PID.map"
	"$FLAMEPROF" report -q -f folded "$T_DIR/$shape" -o "$T_DIR/$shape.folded"
	python3 "$ROOT/tests/truth.py" "$T_DIR/$shape.perf.txt" "$T_DIR/$shape.folded" | sed 's/^/# /'
	python3 "$ROOT/tests/truth.py" "$T_DIR/$shape.perf.txt" "$T_DIR/$shape.folded" --json >"$T_DIR/$shape.json"
}
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$T_DIR/$1.json" "$2" 2>/dev/null; }
le() { python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)' "${1:-9}" "$2"; }

# The bound: the issue's 0.1, for every shape. The spinners (and the
# saturated node's eight) compute without allocating, each in one module's
# code: where a process spends its time in the garbage collector, perf sees
# C and flameprof the process's Erlang frames, and where a loop makes short
# calls into another module, flameprof's stack reads (at the ends of time
# slices, at calls) land in the callee more than its time there; with the
# spinners that did both (a list and a gb_tree built at every turn) the
# distance was 0.056-0.100 for the spinners and 0.062-0.115 for the
# saturated node in 18 runs, 0.03-0.08 of it the two instruments' floor
# (doc/truth.md; `make truth` measures both limits: shapes allocating and
# calls). Measured with these shapes on a quiet machine (11-28, OTP 25):
# spinners 0.013-0.075 in 7 runs, saturated 0.004-0.092 in 17. The test
# still catches a picture gone wrong (spinners 0.20-0.31 and the service
# 0.99 before issue 33; 0.13-0.14 in half the spinners' runs with the
# put-back's weights of the round before).
within() { le "$(field "$1" tvd_module)" "$3" && le "$(field "$1" rare_weight)" 0.05 && le "$(field "$1" floor_module)" 0.05; }
for s in "spinners 2 0.1" "service 2 0.1" "saturated 2 0.1"; do
	set -- $s
	shape "$1" "$2"
	# Both are statistics of a few hundred samples on a shared 2-core
	# machine: a shape outside its bounds runs once more, and says so.
	if ! within "$1" "$2" "$3"; then
		diag "$1: module distance $(field "$1" tvd_module), rare weight $(field "$1" rare_weight): once more"
		shape "$1" "$2"
	fi
	is "$FP_RC" 0 "$1: the capture exits 0"
	check "$1: module distance to perf $(field "$1" tvd_module) (at most $3)" le "$(field "$1" tvd_module)" "$3"
	check "$1: weight on functions perf saw under 0.5 %: $(field "$1" rare_weight) (at most 0.05)" \
		le "$(field "$1" rare_weight)" 0.05
	# The bound means something only where the samples are enough: two
	# perfect samplers with these sample sizes would be this far apart
	# (the median of tests/truth.py's draws; 0.011-0.018 on this VM).
	check "$1: enough samples for the bound: sample size alone gives $(field "$1" floor_module) (at most 0.05)" \
		le "$(field "$1" floor_module)" 0.05
done

# The service's processes that wake and sleep are caught on a CPU now and
# then, but their stacks are read when they next serve a signal: at their
# receive. Such a sample is written with [ran_to_receive], never with the
# receive or timer:sleep/1 it waits in.
check "service: no on-CPU sample has timer:sleep/1 as its leaf" \
	test -z "$(grep -E ';timer:sleep/1 [0-9]+$' "$T_DIR/service.folded")"
check "service: its short runs are written as [ran_to_receive]" grep -q ';\[ran_to_receive\] [0-9]*$' "$T_DIR/service.folded"
check "service: every perf-script reader rule holds" readers_ok "$T_DIR"/service/*.perf.zst

# Spinners never wait: their on-CPU samples are read where they run, and
# almost none is [ran_to_receive] (a rule that took a spinner's BIF call
# for a receive once made 85 % of them so, which the distances above,
# over Erlang leaves only, cannot see).
for s in spinners saturated; do
	late=$(grep -E ';\[ran_to_receive\] [0-9]+$' "$T_DIR/$s.folded" | awk '{n += $NF} END {print n + 0}')
	all=$(awk '{n += $NF} END {print n + 0}' "$T_DIR/$s.folded")
	check "$s: at most 5 % of the on-CPU samples are [ran_to_receive] ($late of $all)" test $((late * 20)) -le "$all"
done

# Nothing that works only because flameprof samples is selected.
check "no process busy only because of flameprof is drawn (kernel_refc, the dirty signal handlers)" \
	test -z "$(grep -E 'kernel_refc|erts_dirty_process_signal_handler' "$T_DIR"/*.folded)"
finish

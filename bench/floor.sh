#!/bin/bash
# bench/floor.sh - the floor under a sample: what the VM itself charges for
# the reads flameprof's agent makes, with no flameprof (bench/fp_floor.erl
# says how). Each mode runs in RUNS fresh VMs of +S SCHED for SECS seconds
# after an idle window as long, since a VM settles in one of two states for
# its whole life (below). Prints every run and, per mode, the minimum,
# median and maximum of node CPU per read; doc/benchmarks.md quotes them.
#
#   RUNS=5 SECS=5 SCHED=2 MODES="round cheap direct stack nogc worker table" bench/floor.sh
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-5} SECS=${SECS:-5} SCHED=${SCHED:-2}
MODES=${MODES:-round cheap direct worker table}
W=$(mktemp -d "${TMPDIR:-/tmp}/fp-floor.XXXXXX")
trap 'rm -rf "$W"' EXIT
erlc -o "$W" "$ROOT/bench/fp_floor.erl" || exit 1
echo "floor: $RUNS fresh VMs per mode, +S $SCHED, ${SECS}s idle then ${SECS}s of 97 rounds/s over 100 targets; $(erl -noshell -eval 'io:format("OTP ~s", [erlang:system_info(otp_release)]), halt().'), $(nproc) cores"
for m in $MODES; do
	for r in $(seq "$RUNS"); do
		erl +S "$SCHED" -noshell -pa "$W" -run fp_floor main "$m" "$SECS" | tee -a "$W/$m.out"
	done
	sed -n 's/^[a-z]* \([0-9.-]*\) us\/read.*/\1/p' "$W/$m.out" | sort -g |
		awk -v m="$m" '{ v[NR] = $1 } END { if (NR) printf "floor: %s: min %.2f, median %.2f, max %.2f us/read (%d runs)\n", m, v[1], v[int((NR + 1) / 2)], v[NR], NR }'
done

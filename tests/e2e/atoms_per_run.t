#!/bin/bash
# No atom per run: the target keeps every node name it sees as an atom for
# good, so flameprof connects under the same name each time
# (flameprof_<user>, or --node-name). 50 runs against one node raise its
# atom_count by at most a constant (the first run's: our module's atoms).
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node atoms "fp_busy:start(2)" || exit 1

atoms() { rpc "$NODE" "erlang system_info [atom_count]"; }
run_once() {
	timeout -s KILL 60 "$FLAMEPROF" --cookie-file "$T_DIR/cookie" --duration 200ms --top 3 -q \
		-o "$T_DIR/out" "$NODE" >/dev/null 2>>"$T_DIR/runs.err"
}
run_once; first=$?
is "$first" 0 "a first run (it brings our module's atoms) exits 0"
before=$(atoms)
failed=0
for _ in $(seq 50); do run_once || failed=$((failed + 1)); done
after=$(atoms)
is "$failed" 0 "50 more runs all exit 0"
diag "atom_count $before before the 50 runs, $after after"
check "atom_count rose by at most 10 over 50 runs (by $(( after - before )))" test $(( after - before )) -le 10
check "the node is left as it was" node_clean_within 5 "$NODE"
finish

#!/bin/bash
# Starting on a saturated node on a busy host (issue 30, part 2): a node of
# 1,000 CPU-bound processes on 2 schedulers, this machine busy beside it
# (make check-loaded's busy loops). The capture, calls, requests and top
# each run 10 times in a row; every run must start and end with exit 0,
# none refused by the purge of its predecessor's module ("still purging").
# Runs only under `make check-loaded` (FP_CHECK_LOADED=1, set by
# scripts/check-loaded.sh): it is a test of starting under load, and
# without the load it would only repeat other tests. The bound is
# generous (a run must end within 60 s of its start); the times go into
# the TAP output as comments, and their figures into doc/benchmarks.md.
T_TIMEOUT=1500
T_SCHEDULERS=2 # processes running on several schedulers at once are part of what it checks (lib.sh)
. "$(dirname "$0")/../lib.sh"
if [ "${FP_CHECK_LOADED:-}" != 1 ]; then
	echo "1..0 # SKIP only under make check-loaded (FP_CHECK_LOADED=1)"
	exit 0
fi
start_epmd && compile_workloads && ERL_AFLAGS="+S 2" start_node sat "fp_busy:start(1000)" || exit 1
RUNS=${FP_SAT_RUNS:-10}
FP_DEADLINE=60
# the handshake alone is answered by normal-priority processes of the node
# (net_kernel and its connection): seconds on this node, so 30 s for it
CT="--connect-timeout 30s"

# started T0: once the run's -v line says it started (sampling, counting,
# tracing or watching), the ms since T0 into $T_DIR/started
started() {
	while :; do
		if grep -Eq "^flameprof: (sampling|counting calls|tracing requests|watching) " "$T_DIR/fp.err" 2>/dev/null; then
			echo $(( $(now_ms) - $1 )) > "$T_DIR/started"
			return
		fi
		sleep 0.05
	done
}

# runs NAME COMMAND ARGS...: RUNS runs of one command in a row; each must
# exit 0; says each run's start (from the command to its -v line saying
# it started, connection included) and wall time (a run of --duration 1s:
# the rest is its start and its stop) and whether any was refused as
# "still purging".
runs() {
	local name=$1 bad=0 purging=0 times="" starts="" t0 ms max=0 smax=0 st poll
	shift
	for _ in $(seq "$RUNS"); do
		rm -f "$T_DIR/fp.err" "$T_DIR/started"
		t0=$(now_ms)
		started "$t0" & poll=$!
		"$@"
		ms=$(( $(now_ms) - t0 ))
		kill "$poll" 2>/dev/null; wait "$poll" 2>/dev/null
		st=$(cat "$T_DIR/started" 2>/dev/null || echo none)
		times="$times $ms" starts="$starts $st"
		[ "$ms" -gt "$max" ] && max=$ms
		[ "$st" != none ] && [ "$st" -gt "$smax" ] && smax=$st
		[ "$FP_RC" = 0 ] || { bad=$((bad + 1)); diag "$name: exit $FP_RC after $ms ms"; }
		grep -q 'still purging' "$T_DIR/fp.err" && purging=$((purging + 1))
	done
	# on stderr too: prove shows it, so make check-loaded's log keeps the figures
	for line in "$name: ms to start:$starts (max $smax)" "$name: wall ms per run (--duration 1s):$times (max $max)"; do
		diag "$line"; diag "$line" >&2
	done
	is "$bad" 0 "$name: $RUNS runs in a row all start and exit 0"
	is "$purging" 0 "$name: none is refused by its predecessor's purge"
}
runs record fp $CT -v --duration 1s -o "$T_DIR/out" "$NODE"
runs calls fpc $CT -v -p fp_busy:idle_server/0 --duration 1s "$NODE"
. "$(dirname "$0")/../requests_lib.sh"
runs requests fpr $CT -v --entry fp_busy:idle_server/0 --duration 1s "$NODE"
runs top fpt $CT -v --once --every 1s "$NODE"
check "the node is left as it was" node_clean_within 30 "$NODE"
check "no tracer is left" wait_until 30 tracer_gone "$NODE"
finish

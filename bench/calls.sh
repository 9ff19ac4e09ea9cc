#!/bin/bash
# bench/calls.sh FLAMEPROF - what `flameprof calls` costs the node: the
# time each traced call adds, and the throughput of a hot function while it
# is traced. Starts its own epmd (private port, loopback) and node.
#
# Prints "calls: KEY VALUE" lines (bench/run.sh keeps them):
#   calls: ns_untraced    ns per call of fp_calls_wl:target/1 untraced
#   calls: ns_count       ... with its call_count breakpoint
#   calls: ns_time        ... with call_time (every process traced)
#   calls: rate_untraced  calls/s of 2 processes calling it in a loop
#   calls: rate_count     ... while counted
#   calls: rate_time      ... while timed
#   CALLS_N (default 2000000) calls per timing, CALLS_MS (5000) per rate,
#   CALLS_REPS (3) repetitions, the median kept. CALLS_ERL (erl): the
#   command that starts the node, e.g. "taskset -c 0-1 erl +S 2".
set -u
FP=${1:?usage: bench/calls.sh path/to/flameprof}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${CALLS_N:-2000000} MS=${CALLS_MS:-5000} REPS=${CALLS_REPS:-3}
D=$(mktemp -d "${TMPDIR:-/tmp}/fp-bench-calls.XXXXXX")
COOKIE="bc$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
export ERL_EPMD_PORT=$(( 20000 + ($$ + 7) % 12000 )) # below the ephemeral ports (32768 and up)
printf '%s\n' "$COOKIE" > "$D/cookie" && chmod 400 "$D/cookie"
ERL_CALL=$(erl -noshell -eval 'io:format("~s",[code:lib_dir(erl_interface)]),halt().')/bin/erl_call
PIDS=""
cleanup() { for p in $PIDS; do kill -9 "$p" 2>/dev/null; done; epmd -port "$ERL_EPMD_PORT" -kill >/dev/null 2>&1; rm -rf "$D"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
say() { echo "bench: calls: $*" >&2; }
rpc() { "$ERL_CALL" -name "$NODE" -c "$COOKIE" -timeout 120 -a "$1" 2>&1; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "n/a"; else print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

epmd -daemon -port "$ERL_EPMD_PORT" -address 127.0.0.1 -relaxed_command_check
for _ in $(seq 50); do epmd -port "$ERL_EPMD_PORT" -names >/dev/null 2>&1 && break; sleep 0.1; done
mkdir -p "$D/ebin" && erlc -o "$D/ebin" "$ROOT/tests/workloads/fp_calls_wl.erl" 2>/dev/null
NODE="bcalls_$$@127.0.0.1"
${CALLS_ERL:-erl} -name "$NODE" -setcookie "$COOKIE" -noshell -noinput -kernel inet_dist_use_interface '{127,0,0,1}' \
	-pa "$D/ebin" -eval "code:ensure_loaded(fp_calls_wl), file:write_file(\"$D/ready\", \"\")" >"$D/node.log" 2>&1 &
PIDS="$PIDS $!"
disown $! # no "Killed" notice when cleanup stops it
for _ in $(seq 300); do [ -f "$D/ready" ] && break; sleep 0.1; done
[ -f "$D/ready" ] || { say "node did not start"; exit 1; }

# measure TYPE: one timing and one rate, flameprof tracing target/1 with
# TYPE (none: untraced). Prints "NS RATE".
measure() {
	local fp_pid="" ns rate
	if [ "$1" != none ]; then
		"$FP" calls --cookie-file "$D/cookie" --type "$1" -p fp_calls_wl:target/1 --duration 10m "$NODE" \
			>"$D/fp.out" 2>"$D/fp.err" &
		fp_pid=$!
		for _ in $(seq 200); do
			[ "$(rpc "erlang trace_info [{fp_calls_wl,target,1}, call_$1]")" != "{call_$1, false}" ] && break
			sleep 0.1
		done
	fi
	ns=$(awk -v us="$(rpc "fp_calls_wl timed_hit [$N]")" -v n="$N" 'BEGIN { printf "%.1f", us * 1000 / n }')
	rate=$(rpc "fp_calls_wl hot_rate [2, $MS]")
	if [ -n "$fp_pid" ]; then
		kill -INT "$fp_pid"; wait "$fp_pid" || say "flameprof calls --type $1 exited $?: $(tail -1 "$D/fp.err")"
		grep -q 'fp_calls_wl:target/1' "$D/fp.out" || say "no row for target/1 with --type $1"
	fi
	echo "$ns $rate"
}

for t in none count time; do : > "$D/$t"; done
for r in $(seq "$REPS"); do
	for t in none count time; do
		measure "$t" >> "$D/$t"
		say "rep $r $t: $(tail -1 "$D/$t") (ns per call, calls/s)"
	done
done
for t in none count time; do
	name=$t; [ "$t" = none ] && name=untraced
	echo "calls: ns_$name $(awk '{ print $1 }' "$D/$t" | median)"
	echo "calls: rate_$name $(awk '{ print $2 }' "$D/$t" | median)"
done

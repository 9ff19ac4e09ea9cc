#!/bin/bash
# bench/prio.sh - chooses the agent's priority by measurement (issue 9).
# Builds the agent with its coordinator and workers at max and at high
# (ERLC_FLAGS=-DPRIO=...), and for each, on a node saturated with 200
# busy normal-priority processes (+S 2), records for SECS seconds:
#   fidelity: samples per second delivered of those requested (--top 100
#             --hz 97), and the round times flameprof reports;
#   the cost: how late a high- and a max-priority probe of the node wake
#             from `receive after 1` (p50 p99 max, microseconds).
# A run without flameprof gives the baseline. Then the load bound: what
# the default (high) agent delivers when asked for far more (--top 200
# --hz 1000 --force). Prints the figures; doc/benchmarks.md quotes them.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${SECS:-10}
W=$(mktemp -d "${TMPDIR:-/tmp}/fp-prio.XXXXXX")
export ERL_EPMD_PORT=$(( 20000 + $$ % 12000 )) # below the ephemeral ports (32768 and up)
COOKIE="prio$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
printf '%s\n' "$COOKIE" > "$W/cookie"; chmod 400 "$W/cookie"
ERL_CALL=$(erl -noshell -eval 'io:format("~s",[code:lib_dir(erl_interface)]),halt().')/bin/erl_call
NODE_PID=
cleanup() { [ -n "$NODE_PID" ] && kill "$NODE_PID" 2>/dev/null; epmd -port "$ERL_EPMD_PORT" -kill >/dev/null 2>&1; rm -rf "$W"; }
trap cleanup EXIT
epmd -daemon -port "$ERL_EPMD_PORT" -address 127.0.0.1 -relaxed_command_check
erlc -o "$W" "$ROOT/bench/fp_prio.erl"
for p in max high; do
	make -C "$ROOT" -s B="build-prio-$p" ERLC_FLAGS="-DPRIO=$p" "build-prio-$p/flameprof" >/dev/null || exit 1
done
rpc() { "$ERL_CALL" -name "$NODE" -c "$COOKIE" -timeout 10 -a "$1"; }

one() { # one LABEL [FLAMEPROF ARGS...]
	local label=$1; shift
	NODE="prio_$$_$RANDOM@127.0.0.1"
	erl +S 2 -name "$NODE" -setcookie "$COOKIE" -noshell -noinput -kernel inet_dist_use_interface '{127,0,0,1}' \
		-pa "$W" -eval "fp_prio:saturate(200), fp_prio:probe(high), fp_prio:probe(max), file:write_file(\"$W/ready\", \"\")" &
	NODE_PID=$!
	for _ in $(seq 100); do [ -f "$W/ready" ] && break; sleep 0.1; done
	rm -f "$W/ready"; sleep 2
	rpc "fp_prio report [high]" >/dev/null; rpc "fp_prio report [max]" >/dev/null
	local summary="(no flameprof)"
	if [ $# -gt 0 ]; then
		"$@" --cookie-file "$W/cookie" --duration "${SECS}s" -o "$W/out" "$NODE" 2>"$W/fp.err"
		summary=$(grep -o '[0-9]* samples in .*p99 [0-9.]* ms' "$W/fp.err")
	else
		sleep "$SECS"
	fi
	printf '%-30s high probe %-20s max probe %-20s %s\n' "$label" \
		"$(rpc "fp_prio report [high]")" "$(rpc "fp_prio report [max]")" "$summary"
	kill "$NODE_PID"; wait "$NODE_PID" 2>/dev/null; NODE_PID=
	rm -rf "$W/out"
}
echo "lateness of 'receive after 1' in us (p50 p99 max); flameprof's own summary"
one "baseline"
one "agent at max" "$ROOT/build-prio-max/flameprof" --top 100 --hz 97
one "agent at high" "$ROOT/build-prio-high/flameprof" --top 100 --hz 97
one "high, top 200 hz 1000 (force)" "$ROOT/build-prio-high/flameprof" --top 200 --hz 1000 --force
one "max, top 200 hz 1000 (force)" "$ROOT/build-prio-max/flameprof" --top 200 --hz 1000 --force

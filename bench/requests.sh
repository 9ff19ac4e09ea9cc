#!/bin/bash
# bench/requests.sh FLAMEPROF - what `flameprof requests` costs a service
# (make bench-requests). A node runs bench/fp_req_bench.erl (4 tiers across
# a client, a gen_server and a pool worker). Two measurements, each without
# and then with flameprof requests attached:
#   saturated: 4 clients as fast as they can; requests/s (WORK, default
#              13000 loop turns a tier: about 3,000-4,000 a second on the 2-core
#              reference machine, the rate the goal of at most 5 % is set at).
#   paced:     RATE requests/s in all (default 3000); the node's CPU
#              seconds per second (from /proc), and the requests done.
# Prints the figures. On a small shared machine the noise is of the order
# of the effect: repeat, and read the figures as a smoke test.
set -u
FP=${1:?usage: bench/requests.sh path/to/flameprof}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${BENCH_SECS:-8}
RATE=${BENCH_RATE:-3000}
WORK=${BENCH_WORK:-13000}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/fp-benchreq.XXXXXX")
COOKIE="b$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
export ERL_EPMD_PORT=$(( 20000 + $$ % 12000 )) # below the ephemeral ports (32768 and up)
printf '%s\n' "$COOKIE" > "$DIR/cookie" && chmod 400 "$DIR/cookie"
PIDS=""
cleanup() { for p in $PIDS; do kill -9 "$p" 2>/dev/null; done; epmd -port "$ERL_EPMD_PORT" -kill >/dev/null 2>&1; rm -rf "$DIR"; }
trap cleanup EXIT
EI_BIN=$(erl -noshell -eval 'io:format("~s",[code:lib_dir(erl_interface)]),halt().')/bin
erlc -o "$DIR" "$ROOT/bench/fp_req_bench.erl" || exit 1
epmd -daemon -port "$ERL_EPMD_PORT" -address 127.0.0.1 -relaxed_command_check
sleep 0.5
TIERS="--entry fp_req_bench:request/1 --tier parse=fp_req_bench:parse/1 --tier handle=fp_req_bench:handle/1 \
--tier db=fp_req_bench:db/1 --tier format=fp_req_bench:format/1"

rpc() { "$EI_BIN/erl_call" -name "$1" -c "$COOKIE" -timeout 10 -a "$2" 2>&1; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# run NAME CLIENTS RATE TRACED: prints "requests/s cpu/s"
run() {
	local node="$1_$$@127.0.0.1" pid c0 c1 t0 t1
	erl -name "$node" -setcookie "$COOKIE" -noshell -noinput -kernel inet_dist_use_interface '{127,0,0,1}' \
		-pa "$DIR" -eval "fp_req_bench:start($2, $3, $WORK), file:write_file(\"$DIR/$1.ready\", \"\")" >"$DIR/$1.log" 2>&1 &
	pid=$!
	PIDS="$PIDS $pid"
	for _ in $(seq 300); do [ -f "$DIR/$1.ready" ] && break; sleep 0.1; done
	if [ "$4" = 1 ]; then
		"$FP" requests --cookie-file "$DIR/cookie" $TIERS --duration "$((SECS + 6))s" "$node" \
			>"$DIR/$1.table" 2>"$DIR/$1.err" &
		PIDS="$PIDS $!"
		sleep 3 # connected and tracing
	else
		sleep 1
	fi
	c0=$(rpc "$node" "fp_req_bench count []"); t0=$(ticks "$pid")
	sleep "$SECS"
	c1=$(rpc "$node" "fp_req_bench count []"); t1=$(ticks "$pid")
	kill -9 "$pid" 2>/dev/null
	wait 2>/dev/null
	awk -v c="$((c1 - c0))" -v t="$((t1 - t0))" -v s="$SECS" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { printf "%.0f %.3f\n", c / s, t / hz / s }'
}

echo "flameprof requests bench: $SECS s per run, $(nproc) cores, OTP $(erl -noshell -eval 'io:format("~s",[erlang:system_info(otp_release)]),halt().')"
read -r sat0 _ <<<"$(run sat0 4 0 0)"
read -r sat1 _ <<<"$(run sat1 4 0 1)"
pauses() { grep -c 'tracing paused' "$DIR/$1.err"; }
echo "saturated, 4 clients:  ${sat0} req/s untraced, ${sat1} req/s traced ($(awk -v a="$sat0" -v b="$sat1" 'BEGIN { printf "%+.1f", (b - a) * 100 / a }') %), $(pauses sat1) breaker pause(s)"
read -r p0 cpu0 <<<"$(run pace0 8 "$RATE" 0)"
read -r p1 cpu1 <<<"$(run pace1 8 "$RATE" 1)"
echo "paced at $RATE req/s:  ${p0} req/s and ${cpu0} CPU s/s untraced; ${p1} req/s and ${cpu1} CPU s/s traced, $(pauses pace1) breaker pause(s)"
awk -v a="$cpu0" -v b="$cpu1" -v r="$p1" 'BEGIN { printf "tracing cost: %+.3f CPU s/s, %.1f us of node CPU per traced request (10 trace messages)\n", b - a, (b - a) * 1e6 / (r > 0 ? r : 1) }'

#!/bin/bash
# bench/ab.sh OLD NEW - node CPU per sample of two flameprof binaries (two
# agents), on one node, in alternating windows with an unprofiled window in
# each repetition (their order rotated every repetition), so that the
# node's drift and the machine's other load fall on both alike.
#
# The node runs bench/fp_cost.erl's paced workload (WORK, default the
# "cheap" one: 100 processes 25 frames deep that each work once a second,
# so nearly every sample finds its process as it was). Each window is SECS
# seconds of the node's utime + stime (/proc/<beam pid>/stat); a profiled
# window's cost is its CPU minus the same repetition's unprofiled window,
# over the samples per second flameprof delivered (--top 100 --hz 97
# --max-cost 0). Prints every window and, per binary, min, median and max.
#
#   REPS=6 SECS=8 SCHED=2 WORK="fp_cost:start_paced(100, 25, 50, 1000)" \
#   NODE_FLAGS="+sbwt none" bench/ab.sh build/flameprof.old build/flameprof
set -u
OLD=${1:?usage: bench/ab.sh OLD-FLAMEPROF NEW-FLAMEPROF}
NEW=${2:?usage: bench/ab.sh OLD-FLAMEPROF NEW-FLAMEPROF}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPS=${REPS:-6} SECS=${SECS:-8} SCHED=${SCHED:-2}
WORK=${WORK:-"fp_cost:start_paced(100, 25, 50, 1000)"}
NODE_FLAGS=${NODE_FLAGS:-}
. "$ROOT/bench/scratch.sh"
bench_scratch ab
erlc -o "$W" "$ROOT/bench/fp_cost.erl" || exit 1
NODE="ab$$@127.0.0.1"
# shellcheck disable=SC2086 # NODE_FLAGS: several flags
erl +S "$SCHED" $NODE_FLAGS -name "$NODE" -setcookie "$COOKIE" -noshell -noinput \
	-kernel inet_dist_use_interface '{127,0,0,1}' -pa "$W" \
	-eval "$WORK, file:write_file(\"$W/ready\", \"\")" >"$W/node.log" 2>&1 &
NODE_PID=$!
for _ in $(seq 300); do [ -f "$W/ready" ] && break; sleep 0.2; done
[ -f "$W/ready" ] || { echo "ab: the node did not start:" >&2; cat "$W/node.log" >&2; exit 1; }
sleep 3

HZ=$(getconf CLK_TCK)
ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$NODE_PID/stat"; }
now() { date +%s.%N; }
# window FP: node CPU s/s over SECS (with FP sampling, or none); $W/rate
# gets the samples per second flameprof delivered.
window() {
	local fp=$1 t0 t1 c0 c1 pid=""
	: > "$W/rate"
	if [ "$fp" != none ]; then
		"$fp" --cookie-file "$W/cookie" -v --no-progress --force --max-cost 0 \
			-o "$W/out" "$NODE" 2>"$W/fp.err" &
		pid=$!
		for _ in $(seq 300); do grep -q "^flameprof: sampling '" "$W/fp.err" && break; sleep 0.1; done
	fi
	sleep 1
	t0=$(now); c0=$(ticks); sleep "$SECS"; t1=$(now); c1=$(ticks)
	if [ -n "$pid" ]; then
		kill -INT "$pid"; wait "$pid"
		sed -n 's/^flameprof: [0-9]* samples in [0-9.]* s (\([0-9]*\)\/s.*/\1/p' "$W/fp.err" > "$W/rate"
		rm -rf "$W/out"
		sleep 2 # the old code's purge
	fi
	awk -v c="$((c1 - c0))" -v a="$t0" -v b="$t1" -v hz="$HZ" 'BEGIN { printf "%.6f", c / hz / (b - a) }'
}

echo "ab: $REPS x (none, $OLD, $NEW) x ${SECS}s, +S $SCHED $NODE_FLAGS, $WORK"
for r in $(seq "$REPS"); do
	declare -A cpu=() rate=()
	order="none old new"
	case $(( r % 3 )) in 1) order="old new none" ;; 2) order="new none old" ;; esac
	for k in $order; do
		case $k in none) fp=none ;; old) fp=$OLD ;; new) fp=$NEW ;; esac
		cpu[$k]=$(window "$fp")
		rate[$k]=$(cat "$W/rate")
	done
	for k in old new; do
		[ -n "${rate[$k]}" ] && [ "${rate[$k]}" -gt 0 ] || { echo "ab: rep $r: $k delivered no samples"; continue; }
		us=$(awk -v b="${cpu[none]}" -v p="${cpu[$k]}" -v n="${rate[$k]}" 'BEGIN { printf "%.2f", (p - b) * 1e6 / n }')
		echo "ab: rep $r $k: node CPU ${cpu[none]} s/s without, ${cpu[$k]} with, ${rate[$k]} samples/s: $us us/sample"
		echo "$us" >> "$W/$k.us"
	done
done
for k in old new; do
	sort -g "$W/$k.us" 2>/dev/null | awk -v k="$k" '{ v[NR] = $1 } END { if (NR) printf "ab: %s: min %.2f, median %.2f, max %.2f us/sample (%d reps)\n", k, v[1], v[int((NR + 1) / 2)], v[NR], NR }'
done

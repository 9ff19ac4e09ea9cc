#!/bin/bash
# bench/run.sh FLAMEPROF - `make bench`: what flameprof costs the node it
# watches, how faithfully it samples, and what its own pipeline can carry.
#
# Starts its own epmd (private port, loopback) and real `erl` nodes with
# unique names and their own cookie (the ideas of tests/lib.sh), runs the
# measurements of issues 3 and 10, prints a table and rewrites
# doc/benchmarks.md. Never fails on a number: a measurement that cannot be
# taken is reported as "n/a" with the reason.
#
#   BENCH_QUICK=1   ~5-minute smoke run (2 repetitions, short windows)
#   BENCH_ONLY=service,saturated,stages,persample,crowd,pipeline,report,soak,calls
#                   run only those parts
#   BENCH_REPS=N    interleaved repetitions of the service and persample
#                   parts (default 6; 2 with BENCH_QUICK=1)
#   BENCH_SCHEDULERS=S  the nodes' +S (default 4 on 8 or more cores, else 2)
#   BENCH_PIN=1     pin the node to cores 0..S-1 (taskset) and flameprof to
#   BENCH_FP_CORES=other|same  the other cores (default) or the same ones
#   BENCH_DOC=0     do not rewrite doc/benchmarks.md
#   KEEP=1          keep the scratch directory
set -u
FP=${1:?usage: bench/run.sh path/to/flameprof}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
QUICK=${BENCH_QUICK:-0}
ONLY=${BENCH_ONLY:-service,saturated,stages,persample,crowd,pipeline,report,soak,calls}
DOC=${BENCH_DOC:-1}

# ---------------------------------------------------------------- sizes
# Full run: ~29 minutes on the 2-core reference machine (estimated from the
# quick run's part timings): service ~7, saturated ~3 and its soak 5, the
# report part ~9 (writing the 1-hour capture), the rest ~5.
if [ "$QUICK" = 1 ]; then
	REPS=${BENCH_REPS:-2} SVC_SECS=5 SVC_WARM=3 OTP_SECS=5 PS_SECS=5
	SAT_REPS=1 SAT_SECS=8 CROWD_SECS=8 PIPE_BATCHES=200 SOAK_SECS=45 SOAK_EVERY=5
	REPORT_EVENTS=1000000
	SVC_CONFIGS="defaults hz97-nobudget hz10-nobudget"
else
	REPS=${BENCH_REPS:-6} SVC_SECS=10 SVC_WARM=5 OTP_SECS=10 PS_SECS=10
	SAT_REPS=3 SAT_SECS=20 CROWD_SECS=30 PIPE_BATCHES=600 SOAK_SECS=300 SOAK_EVERY=30
	REPORT_EVENTS=34920000 # a 1-hour capture of the top 100 at 97 Hz
	SVC_CONFIGS="defaults hz97-nobudget hz10-nobudget hz499-nobudget"
fi
SAT_CONFIGS="defaults hz97-nobudget"
case "$REPS" in ''|*[!0-9]*|0) echo "bench: BENCH_REPS must be a whole number of at least 1" >&2; exit 64 ;; esac

# cfg_args NAME: flameprof's options for a configuration (the defaults:
# --top 100 --hz 97 --max-cost 1).
cfg_args() {
	case "$1" in
	defaults) ;;
	hz97-nobudget) echo "--hz 97 --max-cost 0" ;;
	hz10-nobudget) echo "--hz 10 --max-cost 0" ;;
	hz499-nobudget) echo "--hz 499 --max-cost 0 --force" ;; # over the 20,000/s load bound
	esac
}

# ---------------------------------------------------------------- schedulers, cores, pinning
NPROC=$(nproc)
SCHED=${BENCH_SCHEDULERS:-$([ "$NPROC" -ge 8 ] && echo 4 || echo 2)}
case "$SCHED" in ''|*[!0-9]*|0) echo "bench: BENCH_SCHEDULERS must be a whole number of at least 1" >&2; exit 64 ;; esac
FP_CORES=${BENCH_FP_CORES:-other}
case "$FP_CORES" in other|same) ;; *) echo "bench: BENCH_FP_CORES must be 'other' or 'same'" >&2; exit 64 ;; esac
NODE_WRAP="" FP_WRAP="" PIN_NOTE=""
PIN_DESC="not pinned (the node and flameprof share all $NPROC cores)"
if [ "${BENCH_PIN:-0}" = 1 ]; then
	if ! command -v taskset >/dev/null; then
		PIN_NOTE="BENCH_PIN=1 asked, but there is no taskset (util-linux): nothing pinned"
	elif [ "$SCHED" -gt "$NPROC" ]; then
		PIN_NOTE="BENCH_PIN=1 asked, but $SCHED schedulers do not fit on $NPROC cores: nothing pinned"
	else
		NODE_WRAP="taskset -c 0-$((SCHED - 1))"
		if [ "$FP_CORES" = same ]; then
			FP_WRAP=$NODE_WRAP
			PIN_DESC="node pinned to cores 0-$((SCHED - 1)), flameprof on the same cores"
		elif [ "$NPROC" -ge $((2 * SCHED)) ]; then
			FP_WRAP="taskset -c $SCHED-$((NPROC - 1))"
			PIN_DESC="node pinned to cores 0-$((SCHED - 1)), flameprof on the other cores ($SCHED-$((NPROC - 1)))"
		else
			PIN_DESC="node pinned to cores 0-$((SCHED - 1)), flameprof not pinned"
			PIN_NOTE="BENCH_FP_CORES=other needs at least $((2 * SCHED)) cores (2 x $SCHED schedulers), this machine has $NPROC: flameprof was not pinned"
		fi
	fi
fi
SETUP="schedulers: $SCHED (the nodes' +S), cores: $NPROC (nproc); $PIN_DESC"

# ---------------------------------------------------------------- scratch, epmd, cookie
B_DIR=$(mktemp -d "${TMPDIR:-/tmp}/fp-bench.XXXXXX")
B_COOKIE="bench$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
B_PIDS=""
export ERL_EPMD_PORT=$(( 20000 + $$ % 12000 )) # below the ephemeral ports (32768 and up)
printf '%s\n' "$B_COOKIE" > "$B_DIR/cookie"
chmod 400 "$B_DIR/cookie"
# BENCH_RESULTS=FILE: add to (and report from) an earlier run's results,
# e.g. to redo one part with BENCH_ONLY.
RES=${BENCH_RESULTS:-$B_DIR/results}
[ -n "${BENCH_RESULTS:-}" ] || : > "$RES"
# One binary for the whole run, even if the tree is rebuilt meanwhile.
cp "$FP" "$B_DIR/flameprof" && FP="$B_DIR/flameprof"
EI_BIN=$(erl -noshell -eval 'io:format("~s",[code:lib_dir(erl_interface)]),halt().')/bin
ERL_CALL="$EI_BIN/erl_call"

cleanup() {
	for p in $B_PIDS; do kill -9 "$p" 2>/dev/null; done
	epmd -port "$ERL_EPMD_PORT" -kill >/dev/null 2>&1
	if [ -z "${KEEP:-}" ]; then rm -rf "$B_DIR"; else echo "bench: kept $B_DIR"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

say() { echo "bench: $*" >&2; }
# put KEY VALUE: one figure into the results file
put() { printf '%s %s\n' "$1" "$2" >> "$RES"; }
get() { awk -v k="$1" '$1 == k { v = $2 } END { print (v == "" ? "n/a" : v) }' "$RES"; }
now() { date +%s.%N; }
part() { case ",$ONLY," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
# timed NAME FUNCTION: runs FUNCTION and keeps how long it took (secs_NAME)
timed() {
	local t0; t0=$(date +%s)
	"$2"
	put "secs_$1" $(( $(date +%s) - t0 ))
	say "$1 took $(( $(date +%s) - t0 )) s"
}

# Median, min and max of the numbers on stdin: "median min max" (n/a if none).
stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "n/a n/a n/a"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		print m, v[1], v[NR] }'
}

epmd -daemon -port "$ERL_EPMD_PORT" -address 127.0.0.1 -relaxed_command_check
for _ in $(seq 50); do epmd -port "$ERL_EPMD_PORT" -names >/dev/null 2>&1 && break; sleep 0.1; done
mkdir -p "$B_DIR/ebin"
for m in fp_bench fp_cost; do
	erlc -o "$B_DIR/ebin" "$ROOT/bench/$m.erl" || { say "cannot compile bench/$m.erl"; exit 1; }
done
AGENT_MOD=$("$FP" --version | sed -n 's/.*(agent \(.*\)).*/\1/p')

# start_node NAME EVAL [ERL ARGS...]: NAME_<pid>@127.0.0.1 running EVAL,
# with +S $SCHED and pinned as BENCH_PIN says; sets NODE and NODE_PID once
# the node has run EVAL (taskset and erl exec, so the pid is beam.smp's).
start_node() {
	local name="$1_$$" eval="$2"
	shift 2
	$NODE_WRAP erl +S "$SCHED" -name "$name@127.0.0.1" -setcookie "$B_COOKIE" -noshell -noinput \
		-kernel inet_dist_use_interface '{127,0,0,1}' -pa "$B_DIR/ebin" "$@" \
		-eval "$eval, file:write_file(\"$B_DIR/$name.ready\", \"\")" >"$B_DIR/$name.log" 2>&1 &
	NODE_PID=$!
	B_PIDS="$B_PIDS $NODE_PID"
	NODE="$name@127.0.0.1"
	for _ in $(seq 300); do
		if [ -f "$B_DIR/$name.ready" ]; then
			[ -z "$NODE_WRAP" ] || say "$NODE: $(taskset -pc "$NODE_PID" 2>&1)"
			return 0
		fi
		sleep 0.1
	done
	say "node $NODE did not start:"; sed 's/^/bench:   /' "$B_DIR/$name.log" >&2
	return 1
}
stop_node() { kill -9 "$NODE_PID" 2>/dev/null; wait "$NODE_PID" 2>/dev/null; }

# rpc NODE "Mod Fun [Args]" [TIMEOUT]
rpc() { "$ERL_CALL" -name "$1" -c "$B_COOKIE" -timeout "${3:-30}" -a "$2" 2>&1; }

# fp_begin NODE OUTDIR ARGS...: flameprof in the background (FP_PID, FP_ERR);
# returns once it says it is sampling, 1 if it does not. A saturated node
# can take seconds to schedule its handshake, so one failed start is retried.
fp_begin() {
	local node=$1 out=$2 try
	shift 2
	FP_ERR="$out.err"
	for try in 1 2; do
		FP_T0=$(now)
		$FP_WRAP "$FP" --cookie-file "$B_DIR/cookie" --connect-timeout 30s -v --no-progress --force -o "$out" "$@" "$node" 2>"$FP_ERR" &
		FP_PID=$!
		for _ in $(seq 600); do
			grep -q "^flameprof: sampling '" "$FP_ERR" 2>/dev/null && { FP_T1=$(now); return 0; }
			kill -0 "$FP_PID" 2>/dev/null || break
			sleep 0.1
		done
		say "flameprof did not start sampling (try $try):"; sed 's/^/bench:   /' "$FP_ERR" >&2
		kill -9 "$FP_PID" 2>/dev/null
		wait "$FP_PID" 2>/dev/null
		agent_gone "$node"
	done
	return 1
}
# agent_gone NODE: waits (at most 90 s) until no agent is registered there
# and its module is deleted and purged, so that the next run does not meet
# the last one still cleaning up (on a saturated node that takes seconds).
agent_gone() {
	for _ in $(seq 180); do
		[ "$(rpc "$1" "erlang whereis [flameprof_agent]" 10)" = undefined ] &&
		[ "$(rpc "$1" "erlang module_loaded [$AGENT_MOD]" 10)" = false ] &&
		[ "$(rpc "$1" "erlang check_old_code [$AGENT_MOD]" 10)" = false ] && return 0
		sleep 0.5
	done
	say "the agent or its module is still on $1"
}
# fp_end: SIGINT, wait (bounded), then SUMMARY holds
# "samples secs rate asked dropped late p50 p99" (n/a... if none).
fp_end() {
	FP_CPU=$(awk -v t="$(cpu_ticks "$FP_PID")" -v hz="$CLK_TCK" -v a="$FP_T0" -v b="$(now)" \
		'BEGIN { printf "%.2f\n", 100 * t / hz / (b - a) }')
	local t0; t0=$(now)
	FP_WIN=$(awk -v a="$FP_T1" -v b="$t0" 'BEGIN { printf "%.3f", b - a }')
	kill -INT "$FP_PID" 2>/dev/null
	for _ in $(seq 900); do kill -0 "$FP_PID" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$FP_PID" 2>/dev/null
	wait "$FP_PID" 2>/dev/null
	FP_STOP=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
	# "N/s of M/s requested, K processes selected)": the words after M/s vary
	SUMMARY=$(sed 's/\/s requested/\/s asked/' "$FP_ERR" | sed -n 's/^flameprof: \([0-9]*\) samples in \([0-9.]*\) s (\([0-9]*\)\/s of \([0-9]*\)\/s asked[^)]*), dropped \([0-9]*\), late \([0-9]*\), rounds p50 \([0-9.]*\) ms p99 \([0-9.]*\) ms.*/\1 \2 \3 \4 \5 \6 \7 \8/p')
	[ -n "$SUMMARY" ] || { SUMMARY="n/a n/a n/a n/a n/a n/a n/a n/a"; sed 's/^/bench:   /' "$FP_ERR" >&2; }
	# the cost budget's line, "SECS,PCT" (seconds a part was sampled, the
	# least part), or "none" when every selected process was asked each round
	BUDGET=$(sed -n 's/^flameprof: the node was busy and the cost budget (--max-cost [^)]*) sampled a part of the selected processes for \([0-9]*\) s, at least \([0-9]*\)% of them.*/\1,\2/p' "$FP_ERR")
	BUDGET=${BUDGET:-none}
}

# A snapshot of the service node: "requests,monotonic_us,cpu_ticks", the
# last the node's own CPU time (utime + stime of beam.smp, /proc/PID/stat).
snap() {
	local s; s=$(rpc "$NODE" "fp_bench snapshot []" | tr -d '{} ')
	echo "$s,$(cpu_ticks "$NODE_PID")"
}
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
CLK_TCK=$(getconf CLK_TCK)
# rate A B: requests per wall second between two snapshots.
rate() {
	awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, ","); split(b, y, ",");
		if (y[2] > x[2]) printf "%.1f\n", (y[1] - x[1]) / ((y[2] - x[2]) / 1e6); else print "n/a" }'
}
# per_cpu A B: requests per second of the node's own CPU time.
per_cpu() {
	awk -v a="$1" -v b="$2" -v hz="$CLK_TCK" 'BEGIN { split(a, x, ","); split(b, y, ",");
		if (y[3] > x[3]) printf "%.1f\n", (y[1] - x[1]) / ((y[3] - x[3]) / hz); else print "n/a" }'
}

# What else the machine was doing: busy % of all CPUs over 2 s before we start.
busy_pct() {
	local a b
	a=$(awk '/^cpu /{ t = 0; for (i = 2; i <= NF; i++) t += $i; print t, $5 + $6 }' /proc/stat)
	sleep 2
	b=$(awk '/^cpu /{ t = 0; for (i = 2; i <= NF; i++) t += $i; print t, $5 + $6 }' /proc/stat)
	echo "$a $b" | awk '{ dt = $3 - $1; di = $4 - $2; printf "%.0f\n", (dt > 0 ? 100 * (dt - di) / dt : 0) }'
}
BUSY_BEFORE=$(busy_pct)
say "machine busy ${BUSY_BEFORE}% before the bench (other processes)"
say "$SETUP"
[ -z "$PIN_NOTE" ] || say "$PIN_NOTE"
put busy_before "$BUSY_BEFORE"
BENCH_T0=$(date +%s)

ratio() { awk -v x="$1" -v y="$2" 'BEGIN { if (x + 0 > 0 && y + 0 > 0) printf "%.4f\n", x / y; else print "n/a" }'; }

# ---------------------------------------------------------------- 1. overhead on service
# Interleaved: each repetition runs every configuration once, in an order
# rotated by one per repetition, and each profiled figure is divided by the
# unprofiled figure of the same repetition (report.sh: mean and 90 % CI).
bench_service() {
	say "service: 16 gen_servers, 200 clients; $REPS x (none $SVC_CONFIGS) x ${SVC_SECS}s"
	start_node svc "fp_bench:start_service(16, 200)" || return
	sleep "$SVC_WARM"
	local -a configs
	read -ra configs <<< "none $SVC_CONFIGS"
	local r k n=${#configs[@]} c
	for r in $(seq "$REPS"); do
		for k in $(seq 0 $((n - 1))); do
			local c=${configs[$(( (k + r - 1) % n ))]} a b
			if [ "$c" = none ]; then
				sleep 1
				a=$(snap); sleep "$SVC_SECS"; b=$(snap)
			else
				# shellcheck disable=SC2046 # the options are words
				fp_begin "$NODE" "$B_DIR/svc-$r-$c" $(cfg_args "$c") || continue
				sleep 1      # the first selection and the workers' start
				a=$(snap); sleep "$SVC_SECS"; b=$(snap)
				fp_end; agent_gone "$NODE"
				put "svc_fp_$c" "$(echo "$SUMMARY" | awk '{ print $3 "/" $4 }')"
				put "svc_fpcpu_$c" "$FP_CPU"
				put "svc_budget_$c" "$BUDGET"
				rm -rf "$B_DIR/svc-$r-$c"
			fi
			put "svc_thr_${c}_$r" "$(rate "$a" "$b")"; put "svc_thr_$c" "$(rate "$a" "$b")"
			put "svc_eff_${c}_$r" "$(per_cpu "$a" "$b")"; put "svc_eff_$c" "$(per_cpu "$a" "$b")"
			say "service rep $r $c: $(rate "$a" "$b") req/s, $(per_cpu "$a" "$b") req per node CPU-s${BUDGET:+, budget $BUDGET}"
			BUDGET=""
		done
		local base ebase
		base=$(get "svc_thr_none_$r"); ebase=$(get "svc_eff_none_$r")
		for c in $SVC_CONFIGS; do
			put "svc_ratio_$c" "$(ratio "$(get "svc_thr_${c}_$r")" "$base")"
			put "svc_eratio_$c" "$(ratio "$(get "svc_eff_${c}_$r")" "$ebase")"
		done
	done
	# For context, OTP's tracing profilers on the same node, once each, next
	# to an unprofiled window of the same length.
	local a b
	sleep 1; a=$(snap); sleep "$OTP_SECS"; b=$(snap)
	put svc_otp_base "$(rate "$a" "$b")"; put svc_otp_ebase "$(per_cpu "$a" "$b")"
	if rpc "$NODE" "fp_bench eprof_start []" 60 | grep -q profiling; then
		a=$(snap); sleep "$OTP_SECS"; b=$(snap)
		put svc_eprof "$(rate "$a" "$b")"; put svc_eprof_eff "$(per_cpu "$a" "$b")"
		rpc "$NODE" "fp_bench eprof_stop []" 120 >/dev/null
	else
		put svc_eprof n/a
	fi
	sleep 1
	if rpc "$NODE" "fp_bench fprof_start [\"$B_DIR/fprof.trace\"]" 60 | grep -q ok; then
		a=$(snap); sleep "$OTP_SECS"; b=$(snap)
		put svc_fprof "$(rate "$a" "$b")"; put svc_fprof_eff "$(per_cpu "$a" "$b")"
		rpc "$NODE" "fp_bench fprof_stop []" 120 >/dev/null
		put svc_fprof_mb "$(awk -v s="$(stat -c %s "$B_DIR/fprof.trace" 2>/dev/null || echo 0)" -v t="$OTP_SECS" 'BEGIN { printf "%.0f\n", s / t / 1048576 }')"
		rm -f "$B_DIR/fprof.trace"
	else
		put svc_fprof n/a
	fi
	stop_node
}
part service && timed service bench_service

# ---------------------------------------------------------------- 2. fidelity on saturated, 5. soak
# Achieved rate: samples / the time between flameprof saying it samples and
# our SIGINT, so that neither connecting nor stopping counts as sampling time.
bench_saturated() {
	say "saturated: 1000 busy processes; $SAT_REPS x ($SAT_CONFIGS) x ${SAT_SECS}s"
	start_node sat "fp_bench:start_saturated(1000)" || return
	sleep 3
	local r c
	for r in $(seq "$SAT_REPS"); do
		for c in $SAT_CONFIGS; do
			local out="$B_DIR/sat-$r-$c"
			# shellcheck disable=SC2046
			fp_begin "$NODE" "$out" $(cfg_args "$c") || continue
			sleep "$SAT_SECS"
			fp_end; agent_gone "$NODE"
			put "sat_stop_$c" "$FP_STOP"
			set -- $SUMMARY
			local startup; startup=$(awk -v a="$FP_T0" -v b="$FP_T1" 'BEGIN { printf "%.3f", b - a }')
			put "sat_rate_$c" "$(awk -v n="$1" -v w="$FP_WIN" 'BEGIN { if (w > 0 && n != "n/a") printf "%.0f\n", n / w; else print "n/a" }')"
			put "sat_asked_$c" "$4"
			put "sat_p50_$c" "$7"; put "sat_p99_$c" "$8"
			put "sat_dropped_$c" "$5"; put "sat_late_$c" "$6"
			put "sat_fpcpu_$c" "$FP_CPU"
			put "sat_budget_$c" "$BUDGET"
			put "sat_bps_$c" "$(du -sb --apparent-size "$out" | awk -v n="$1" '{ if (n > 0) printf "%.1f\n", $1 / n; else print "n/a" }')"
			say "saturated rep $r $c: $SUMMARY; budget $BUDGET (startup ${startup}s, window ${FP_WIN}s, stop ${FP_STOP}s, flameprof CPU $FP_CPU%)"
			rm -rf "$out"
		done
	done
	part soak && timed soak bench_soak
	stop_node
}

# flameprof's own CPU and memory through a long recording of the saturated
# node at the full rate (hz97-nobudget: at the defaults the cost budget
# would sample a part, and flameprof would carry less): /proc/PID/stat and
# status.
bench_soak() {
	say "soak: recording saturated for ${SOAK_SECS}s, RSS every ${SOAK_EVERY}s"
	local out="$B_DIR/soak"
	# shellcheck disable=SC2046
	fp_begin "$NODE" "$out" $(cfg_args hz97-nobudget) || return
	local t0 c0 t c rss series="" i=0
	t0=$(now); c0=$(cpu_ticks "$FP_PID")
	while [ "$i" -lt "$SOAK_SECS" ]; do
		sleep "$SOAK_EVERY"; i=$((i + SOAK_EVERY))
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$FP_PID/status" 2>/dev/null)
		series="$series $i:${rss:-0}"
	done
	t=$(now); c=$(cpu_ticks "$FP_PID")
	put soak_hwm_kb "$(awk '/^VmHWM:/ { print $2 }' "/proc/$FP_PID/status" 2>/dev/null)"
	put soak_cpu "$(awk -v c="$((c - c0))" -v hz="$CLK_TCK" -v a="$t0" -v b="$t" 'BEGIN { printf "%.2f\n", 100 * c / hz / (b - a) }')"
	put soak_rss "$(echo "$series" | tr ' ' '\n' | sed '/^$/d' | paste -sd, -)"
	fp_end
	set -- $SUMMARY
	put soak_summary "$(echo "$SUMMARY" | tr ' ' ,)"
	put soak_bps "$(du -sb --apparent-size "$out" | awk -v n="$1" '{ if (n > 0) printf "%.1f\n", $1 / n; else print "n/a" }')"
	rm -rf "$out"
}
part saturated && timed saturated bench_saturated
if ! part saturated && part soak; then
	start_node sat "fp_bench:start_saturated(1000)" && sleep 3 && timed soak bench_soak; stop_node
fi

# ---------------------------------------------------------------- 6. a sample's cost, stage by stage
# bench/fp_cost.erl repeats each step the agent takes for one sample, in a
# node of one scheduler (+S 1, the exception: a runnable target must share
# the caller's scheduler), for stacks 25 and 50 frames deep.
bench_stages() {
	say "stages: fp_cost:run(25) and fp_cost:run(50) on +S 1"
	local wrap="" d
	[ -z "$NODE_WRAP" ] || wrap="taskset -c 0"
	$wrap erl +S 1 -noshell -noinput -pa "$B_DIR/ebin" \
		-eval 'fp_cost:run(25), io:format("depth 50~n"), fp_cost:run(50), halt().' > "$B_DIR/stages.out" 2>&1 ||
		{ say "fp_cost failed: $(tail -3 "$B_DIR/stages.out")"; return; }
	d=25
	while read -r w name med min max; do
		case "$w" in
		depth) d=50 ;;
		stage) put "stage_${d}_$name" "$med,$min,$max"; echo "$name" >> "$B_DIR/stages.names" ;;
		esac
	done < "$B_DIR/stages.out"
	put stage_names "$(awk '!seen[$1]++' "$B_DIR/stages.names" | paste -sd, -)"
	sed 's/^/bench:   /' "$B_DIR/stages.out" >&2
}
part stages && timed stages bench_stages

# ---------------------------------------------------------------- 7. node CPU per sample
# The paced workload (fp_cost:start_paced/4): 100 processes 25 frames deep,
# each burning 50 us every 10 ms ("full": every process runs between two
# samples, so every sample is a full one) or every 1000 ms ("cheap": nearly
# every sample finds its process as it was, no signal); the node is far
# from saturated. Each repetition has a window without and one with
# flameprof (--max-cost 0, the top 100 at 97 Hz), their order swapped every
# repetition; the node's CPU time (utime+stime of beam.smp) per second with
# minus without, over the samples per second flameprof delivered. Next to
# it, what the cost budget counts for such a sample (the agent's figures).
bench_persample() {
	persample_one full "fp_cost:start_paced(100, 25, 50, 10)" ps
	persample_one cheap "fp_cost:start_paced(100, 25, 50, 1000)" psc
	local f; f="$ROOT/sampler/flameprof_agent.erl"
	put ps_model_full "$(sed -n 's/^-define(FULL_SAMPLE_US, \([0-9.]*\)).*/\1/p' "$f")"
	put ps_model_cheap "$(sed -n 's/^-define(COORD_CHEAP_US, \([0-9.]*\)).*/\1/p' "$f")"
}
# persample_one NAME EVAL KEY: the measure above on one workload (KEY_us,
# KEY_base, KEY_rate).
persample_one() {
	local what=$1 eval=$2 key=$3
	say "persample ($what): 100 paced processes, depth 25; $REPS x (none, --max-cost 0) x ${PS_SECS}s"
	start_node "cost$what" "$eval" || return
	sleep 3
	local r k base prof c0 c1 t0 t1
	for r in $(seq "$REPS"); do
		base="" prof=""
		for k in $(( r % 2 )) $(( (r + 1) % 2 )); do
			if [ "$k" = 1 ]; then
				sleep 1
				t0=$(now); c0=$(cpu_ticks "$NODE_PID"); sleep "$PS_SECS"; t1=$(now); c1=$(cpu_ticks "$NODE_PID")
				base=$(awk -v c="$((c1 - c0))" -v a="$t0" -v b="$t1" -v hz="$CLK_TCK" 'BEGIN { printf "%.6f", c / hz / (b - a) }')
			else
				fp_begin "$NODE" "$B_DIR/cost-$r" --max-cost 0 || continue
				sleep 1
				t0=$(now); c0=$(cpu_ticks "$NODE_PID"); sleep "$PS_SECS"; t1=$(now); c1=$(cpu_ticks "$NODE_PID")
				fp_end; agent_gone "$NODE"
				rm -rf "$B_DIR/cost-$r"
				set -- $SUMMARY
				[ "$3" != n/a ] && [ "$3" -gt 0 ] &&
					prof=$(awk -v c="$((c1 - c0))" -v a="$t0" -v b="$t1" -v hz="$CLK_TCK" 'BEGIN { printf "%.6f", c / hz / (b - a) }') &&
					put "${key}_rate" "$3/$4"
			fi
		done
		[ -n "$base" ] && [ -n "$prof" ] || continue
		local us; us=$(awk -v b="$base" -v p="$prof" -v n="$3" 'BEGIN { printf "%.2f\n", (p - b) * 1e6 / n }')
		put "${key}_us" "$us"; put "${key}_base" "$(awk -v b="$base" 'BEGIN { printf "%.1f\n", 100 * b }')"
		say "persample ($what) rep $r: node CPU $base s/s without, $prof s/s with flameprof at $3 samples/s: $us us/sample"
	done
	stop_node
}
part persample && timed persample bench_persample

# ---------------------------------------------------------------- 3. selection on crowd
# The agent's selection is traced in the node (fp_bench:sel_trace_start/1):
# the scanner process from {scan, ...} in to {scanned, ...} out (or, with an
# older agent, its select/2 from call to return), and its scheduling in and
# out: wall time and on-scheduler (CPU) time per window. --every 1s gives one
# window a second.
bench_crowd() {
	say "crowd: 100,000 idle + 4 busy processes; ${CROWD_SECS}s at --every 1s --hz 10"
	start_node crowd "fp_bench:start_crowd(100000, 4)" || return
	sleep 2
	put crowd_procs "$(rpc "$NODE" "fp_bench nprocs []")"
	if fp_begin "$NODE" "$B_DIR/crowd" --top 100 --every 1s --hz 10; then
		local res
		res=$(rpc "$NODE" "fp_bench sel_trace_start [$AGENT_MOD]")
		case "$res" in scanner|select) put crowd_mode "$res" ;; *) say "cannot trace the agent: $res" ;; esac
		sleep "$CROWD_SECS"
		res=$(rpc "$NODE" "fp_bench sel_trace_result []" | tr -d ' \n')
		fp_end
		# {[{Wall,Cpu},...],AgentCpu,Elapsed}
		echo "$res" | sed 's/^{\[//; s/\]\(,[0-9]*,[0-9]*\)}$//' | tr -d '{' | tr '}' '\n' |
			sed 's/^,//; /^$/d' > "$B_DIR/crowd.windows"
		put crowd_windows "$(wc -l < "$B_DIR/crowd.windows")"
		put crowd_wall "$(cut -d, -f1 "$B_DIR/crowd.windows" | stats | tr ' ' ,)"
		put crowd_cpu "$(cut -d, -f2 "$B_DIR/crowd.windows" | stats | tr ' ' ,)"
		put crowd_agent_cpu "$(echo "$res" | sed -n 's/.*\],\([0-9]*\),\([0-9]*\)}$/\1 \2/p' |
			awk '{ if ($2 > 0) printf "%.2f\n", 100 * $1 / $2 }')"
		put crowd_summary "$(echo "$SUMMARY" | tr ' ' ,)"
	fi
	stop_node
}
part crowd && timed crowd bench_crowd

# ---------------------------------------------------------------- 4. the C pipeline alone
bench_pipeline() {
	say "pipeline: $PIPE_BATCHES batches of 100 samples, decode -> format -> compress -> write"
	# built by `make bench` (the Makefile's $(B)/pipeline) on the optimised library
	if [ ! -x "$ROOT/build/pipeline" ]; then
		say "no build/pipeline: run 'make bench'"; return
	fi
	mkdir -p "$B_DIR/pipe"
	"$ROOT/build/pipeline" -n "$PIPE_BATCHES" -d "$B_DIR/pipe" > "$B_DIR/pipeline.out" 2> "$B_DIR/pipeline.err"
	cat "$B_DIR/pipeline.err" >&2
	put pipe_wire "$(sed -n 's/.*, \([0-9.]*\) bytes\/sample on the wire/\1/p' "$B_DIR/pipeline.err")"
	while read -r stage codec level n secs rate bps; do
		case "$stage" in
		decode|format) put "pipe_${stage}" "$rate" ;;
		write) put "pipe_${codec}${level#0}" "$rate,$bps" ;;
		esac
	done < "$B_DIR/pipeline.out"
	rm -rf "$B_DIR/pipe"
}
part pipeline && timed pipeline bench_pipeline

# ---------------------------------------------------------------- 4b. flameprof report
# A generated capture of REPORT_EVENTS events written as a capture writes it
# (with the report index), drawn through the index and through the text.
bench_report() {
	say "report: $REPORT_EVENTS events, through the index and through the text"
	FLAMEPROF=$FP TMPDIR=$B_DIR sh "$ROOT/tests/report/bench.sh" "$REPORT_EVENTS" \
		> "$B_DIR/report.out" 2> "$B_DIR/report.err" || { say "report bench failed: $(tail -3 "$B_DIR/report.err")"; return; }
	cat "$B_DIR/report.out" >&2
	put report_events "$REPORT_EVENTS"
	put report_written "$(sed -n 's/^written: [0-9]* events in \([0-9]*\) files, [0-9]* bytes (\([0-9.]*\) bytes\/event, of which the index [0-9]* = \([0-9.]*\)), in \([0-9.]*\) s$/\1,\2,\3,\4/p' "$B_DIR/report.out")"
	put report_index "$(sed -n 's/^report: index: [0-9]* events in \([0-9.]*\) s: \([0-9]*\) events\/s; flame graph \([0-9]*\) bytes, heatmap \([0-9]*\) bytes$/\1,\2,\3,\4/p' "$B_DIR/report.out")"
	put report_text "$(sed -n 's/^report: text: [0-9]* events in \([0-9.]*\) s: \([0-9]*\) events\/s.*/\1,\2/p' "$B_DIR/report.out")"
}
part report && timed report bench_report

# ---------------------------------------------------------------- 4c. flameprof calls
# The time a traced call costs, and a hot function's throughput while it is
# counted or timed (bench/calls.sh, a node of its own).
bench_calls() {
	say "calls: fp_calls_wl:target/1 untraced, counted, timed"
	local q=""
	[ "$QUICK" = 1 ] && q="CALLS_N=500000 CALLS_MS=2000 CALLS_REPS=1"
	env $q CALLS_ERL="$NODE_WRAP erl +S $SCHED" TMPDIR="$B_DIR" "$ROOT/bench/calls.sh" "$FP" > "$B_DIR/calls.out" 2> "$B_DIR/calls.err" ||
		{ say "calls bench failed: $(tail -3 "$B_DIR/calls.err")"; return; }
	cat "$B_DIR/calls.err" >&2
	local k
	for k in ns_untraced ns_count ns_time rate_untraced rate_count rate_time; do
		put "calls_$k" "$(awk -v k="$k" '$1 == "calls:" && $2 == k { print $3 }' "$B_DIR/calls.out")"
	done
}
part calls && timed calls bench_calls

BUSY_AFTER=$(busy_pct)
put busy_after "$BUSY_AFTER"
put minutes "$(( ($(date +%s) - BENCH_T0 + 30) / 60 ))"
. "$ROOT/bench/report.sh"

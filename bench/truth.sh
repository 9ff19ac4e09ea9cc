#!/bin/bash
# bench/truth.sh FLAMEPROF - how far flameprof's on-CPU picture is from
# Linux perf's, shape by shape (make truth; doc/truth.md).
#
# For each shape of tests/workloads/fp_truth.erl a node is started with
# +JPperf true (its JIT writes /tmp/perf-<pid>.map); flameprof records at
# its defaults while `perf record -e cpu-clock -F 997` samples the node's
# threads over the same seconds; tests/truth.py reduces both to the leaf
# Erlang function of each on-CPU sample and prints the module-level total variation distance (TVD),
# the function-level one, flameprof's weight on functions perf saw in
# under 0.5 % of its samples, and the module distance that the two sample
# sizes alone give (floor: two perfect samplers would be that far apart).
# Each shape runs REPS times; the summary gives min, median and max of each
# figure.
#
#   REPS=5 SECS=10 SHAPES="spinners service saturated sockets strings allocating calls" bench/truth.sh build/flameprof
set -u
FP=${1:?usage: bench/truth.sh FLAMEPROF}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPS=${REPS:-3} SECS=${SECS:-10} SCHED=${SCHED:-2}
SHAPES=${SHAPES:-"spinners service saturated sockets strings allocating calls"}
command -v perf >/dev/null || { echo "truth: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }
. "$ROOT/bench/scratch.sh"
bench_scratch truth
perf record -q -e cpu-clock -F 99 -o "$W/probe.data" -- sleep 0.1 >"$W/probe.log" 2>&1 ||
	{ echo "truth: perf cannot sample here: $(tail -1 "$W/probe.log")" >&2; exit 1; }
erlc -o "$W" "$ROOT"/tests/workloads/fp_truth.erl "$ROOT"/tests/workloads/fp_truth_work.erl || exit 1

echo "truth: flameprof's on-CPU leaves against perf's, $REPS runs of $SECS s per shape, +S $SCHED, OTP $(erl -noshell -eval 'io:format("~s", [erlang:system_info(otp_release)]), halt().')"
printf '%-10s %4s %8s %8s %8s %8s %9s %9s\n' shape run tvd_mod tvd_fun rare floor fp_erl perf_erl
for shape in $SHAPES; do
	for rep in $(seq "$REPS"); do
		NODE="truth$rep$$@127.0.0.1"
		rm -f "$W/ready"
		erl +S "$SCHED" +JPperf true -name "$NODE" -setcookie "$COOKIE" -noshell -noinput \
			-kernel inet_dist_use_interface '{127,0,0,1}' -pa "$W" \
			-eval "fp_truth:start($shape), file:write_file(\"$W/ready\", \"\")" >"$W/node.log" 2>&1 &
		NODE_PID=$!
		for _ in $(seq 300); do [ -f "$W/ready" ] && break; sleep 0.2; done
		sleep 1
		perf record -q -e cpu-clock -F 997 -p "$NODE_PID" -o "$W/p.data" -- sleep "$SECS" >/dev/null 2>&1 &
		pp=$!
		rm -rf "$W/out"
		"$FP" -q --cookie-file "$W/cookie" --duration "${SECS}s" -o "$W/out" "$NODE"
		wait "$pp"
		perf script -i "$W/p.data" -F ip,sym,dso >"$W/p.txt" 2>/dev/null
		kill "$NODE_PID"; wait "$NODE_PID" 2>/dev/null
		rm -f "/tmp/perf-$NODE_PID.map"; NODE_PID=""
		"$FP" report -q -f folded "$W/out" -o "$W/f.txt"
		python3 "$ROOT/tests/truth.py" "$W/p.txt" "$W/f.txt" --json >"$W/$shape.$rep.json" || continue
		python3 - "$shape" "$rep" "$W/$shape.$rep.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[3]))
print("%-10s %4s %8.3f %8.3f %8.3f %8.3f %9d %9d" % (sys.argv[1], sys.argv[2], r["tvd_module"],
      r["tvd_function"], r["rare_weight"], r["floor_module"], r["fp_erlang"], r["perf_erlang"]))
EOF
	done
done
echo
echo "min / median / max per shape:"
python3 - "$W" $SHAPES <<'EOF'
import glob, json, statistics, sys
w = sys.argv[1]
for shape in sys.argv[2:]:
    runs = [json.load(open(f)) for f in sorted(glob.glob("%s/%s.*.json" % (w, shape)))]
    if not runs:
        print("%-10s no run" % shape)
        continue
    def mmm(k):
        v = sorted(r[k] for r in runs)
        return "%.3f / %.3f / %.3f" % (v[0], statistics.median(v), v[-1])
    print("%-10s module TVD %s   function TVD %s   rare weight %s   floor %s   (%d runs)"
          % (shape, mmm("tvd_module"), mmm("tvd_function"), mmm("rare_weight"), mmm("floor_module"),
             len(runs)))
EOF

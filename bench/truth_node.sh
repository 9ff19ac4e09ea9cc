#!/bin/bash
# bench/truth_node.sh FLAMEPROF NODE BEAM_PID [FLAMEPROF OPTION...] - how
# far flameprof's on-CPU picture of a running node is from Linux perf's, over
# the same seconds (doc/truth.md). For nodes this project did not start:
# RabbitMQ, Yaws, ejabberd, yours. The node must have been started with
# +JPperf true (its JIT then writes /tmp/perf-BEAM_PID.map, and perf names
# its Erlang code); run as root or where perf may sample BEAM_PID.
#
#   SECS=15 bench/truth_node.sh build/flameprof rabbit@vm 12345 \
#       --cookie-file /var/lib/rabbitmq/.erlang.cookie
#
# Prints tests/truth.py's comparison (module and function distance, the top
# functions of each side), then where perf saw the node's CPU by thread kind
# (normal schedulers, dirty CPU and dirty I/O schedulers, the rest), which
# no leaf comparison shows: time in C has no Erlang frame. KEEP=DIR keeps
# perf's and flameprof's files there. CHAINS=1 records perf's call chains
# (DWARF, 16 KiB of stack a sample: about 10 MB a second on two busy
# schedulers) and prints the normal schedulers' samples by what they ran
# (Erlang code, BIFs by name, receiving, garbage collection, the
# scheduler's loop), and the comparison again with perf's samples in NIF
# calls on the dirty I/O schedulers counted for prim_file, whose NIFs run
# there; the comparison of leaves is the same either way.
set -u
FP=${1:?usage: bench/truth_node.sh FLAMEPROF NODE BEAM_PID [FLAMEPROF OPTION...]}
NODE=${2:?usage: bench/truth_node.sh FLAMEPROF NODE BEAM_PID [FLAMEPROF OPTION...]}
PID=${3:?usage: bench/truth_node.sh FLAMEPROF NODE BEAM_PID [FLAMEPROF OPTION...]}
shift 3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${SECS:-15}
command -v perf >/dev/null || { echo "truth_node: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }
[ -s "/tmp/perf-$PID.map" ] ||
	{ echo "truth_node: /tmp/perf-$PID.map is missing: start the node with +JPperf true" >&2; exit 1; }
W=${KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/fp-truth-node.XXXXXX")}
mkdir -p "$W" || exit 1
[ -n "${KEEP:-}" ] || trap 'rm -rf "$W"' EXIT

chains=
[ "${CHAINS:-0}" = 1 ] && chains="--call-graph dwarf,16384"
# shellcheck disable=SC2086 # $chains is two words or none
perf record -q -e cpu-clock -F 997 $chains -p "$PID" -o "$W/p.data" -- sleep "$SECS" >"$W/perf.log" 2>&1 &
pp=$!
rm -rf "$W/out"
"$FP" -q --duration "${SECS}s" -o "$W/out" "$@" "$NODE"
rc=$?
wait "$pp" || { echo "truth_node: perf failed: $(tail -1 "$W/perf.log")" >&2; exit 1; }
[ "$rc" = 0 ] || { echo "truth_node: flameprof exited $rc" >&2; exit 1; }
# the leaves (--hide-call-graph: a record with chains too), and the chains
perf script -i "$W/p.data" -F ip,sym,dso --hide-call-graph >"$W/p.txt" 2>/dev/null
perf script -i "$W/p.data" -F comm --hide-call-graph >"$W/comm.txt" 2>/dev/null
[ -z "$chains" ] || perf script -i "$W/p.data" -F comm,ip,sym,dso >"$W/chains.txt" 2>/dev/null
"$FP" report -q -f folded "$W/out" -o "$W/f.txt" || exit 1

echo "truth_node: $NODE over $SECS s, flameprof's on-CPU leaves against perf's"
# with chains, a second reading counts perf's NIF calls on the dirty I/O
# threads for prim_file, OTP's file I/O, whose NIFs run there (tests/truth.py)
python3 "$ROOT/tests/truth.py" "$W/p.txt" "$W/f.txt" ${chains:+--chains "$W/chains.txt" --dirty-io prim_file} || exit 1
# OTP 25-26 name its threads N_scheduler, N_dirty_cpu_sch..., N_dirty_io_sch...
# (perf keeps 15 characters of a name), OTP 27 and later erts_sched_N,
# erts_dcpus_N, erts_dios_N
awk '{ t = $1; sub(/^[0-9]+_/, "", t)
       k = t ~ /^(scheduler$|erts_sched_)/ ? "schedulers" : t ~ /^(dirty_cpu|erts_dcpus_)/ ? "dirty CPU schedulers" : t ~ /^(dirty_io|erts_dios_)/ ? "dirty I/O schedulers" : "other threads"
       n[k]++; all++ }
     END { printf "perf by thread kind:"
           for (k in n) printf " %s %.1f%%", k, 100 * n[k] / all
           printf " (%d samples)\n", all }' "$W/comm.txt"

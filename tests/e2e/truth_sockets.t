#!/bin/bash
# No more on a CPU than there are schedulers (issue 33). A process waiting
# for its socket has a signal it has not handled whenever its data has come
# (the port's reply), and a status read of a process with such a signal is
# itself a signal, which the process answers once it is scheduled in:
# `running`, where it was in a run queue. Read so, the sockets shape of
# fp_truth (20 clients, 20 servers on passive gen_tcp, a spinner) had
# 4.7-7.2 on-CPU samples a round on +S 1:1, where the status pass holds
# the only scheduler and nothing else can run, and 3.9-9.5 on +S 2:2. A node of S schedulers has at most S processes on a CPU
# at once, so its on-CPU samples are at most S a round; the agent keeps no
# more `running` answers than could_run/0 allows (doc/truth.md), and the
# status written for the others is `runnable`.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads || exit 1

# sockets S: a 5 s capture of the sockets shape on +S S:S, its samples of
# every status written out as perf script text in $T_DIR/sS.txt
sockets() {
	T_ERL_ARGS="+S $1:$1" start_node "sockets_$1" "fp_truth:start(sockets)" || return 1
	fp -q --duration 5s --status all -o "$T_DIR/s$1" "$NODE"
	is "$FP_RC" 0 "a 5 s capture of the sockets shape on +S $1:$1 exits 0"
	decompressed "$T_DIR/s$1"/*.perf.zst >"$T_DIR/s$1.txt"
	check "the node is left as it was" node_clean "$NODE"
	kill "$NODE_PID" 2>/dev/null   # the next shape's node runs alone
}

# on-CPU samples per round: the rounds are --hz's 97 a second (each at a
# random point of its period, so as many as 97 * 5 give or take one)
per_round() {
	awk '/^(running|garbage_collecting) [0-9]+ / { n++ }
	     END { printf "%.2f\n", n / (97 * 5) }' "$1"
}

sockets 2 || exit 1
r2=$(per_round "$T_DIR/s2.txt")
echo "# +S 2:2: $r2 on-CPU samples a round"
check "+S 2:2: at most 2 on-CPU samples a round ($r2; 3.9-9.5 before)" \
	awk -v r="$r2" 'BEGIN { exit !(r <= 2) }'
# the reads their sockets' signals answered: runnable, at the receive the
# servers wait for their socket at; more of them than on-CPU samples whose
# run ended at a receive (982 and 1,234 against 306 and 276 in two runs;
# 56 and 50 against 1,476 and more before, when they were those on-CPU
# samples)
counts=$(awk '/^[a-z_]+ [0-9]+ / { st = $1; next }
              st == "runnable" && /prim_inet:recv0\// { rx++ }
              st == "running" && /\[ran_to_receive\]/ { late++ }
              { st = "" } END { print rx + 0, late + 0 }' "$T_DIR/s2.txt")
check "+S 2:2: more servers read runnable at their socket's receive than runs ended at a receive (${counts% *}, ${counts#* })" \
	test "${counts% *}" -gt "${counts#* }"
check "+S 2:2: and the spinner on a CPU" \
	sh -c "awk '/^(running|garbage_collecting) / { on = 1; next } /^\$/ { on = 0 } on && /lists:sum/ { f = 1 } END { exit !f }' '$T_DIR/s2.txt'"

sockets 1 || exit 1
r1=$(per_round "$T_DIR/s1.txt")
echo "# +S 1:1: $r1 on-CPU samples a round"
check "+S 1:1: at most 1 on-CPU sample a round ($r1; 4.7-7.2 before)" \
	awk -v r="$r1" 'BEGIN { exit !(r <= 1) }'
finish

#!/bin/bash
# check: alone (the share of a scheduler each spinner gets, which the host's other work changes; Makefile)
# Runnable is not running (issue 33): on a node of one scheduler (+S 1:1)
# five processes that never wait (fp_busy:start(4): four burn_cpu/1 and
# a deep_loop/0) each run a fifth of the time and wait in the run queue the
# rest. The agent's own status pass takes that one scheduler, so every
# status it reads finds all five runnable (none running, before); it puts
# back the one it displaced (doc/truth.md). Over a few seconds each spinner
# reads running 8-35 % of its samples (a fifth, give or take the spread of
# some 250 samples each), and top's RUN% says the same. A service, whose
# processes work in bursts, is read on a CPU almost never there: the run
# warns.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads || exit 1
T_ERL_ARGS="+S 1:1" start_node one_sched "fp_busy:start(4)" || exit 1

fp -v --duration 4s --top 5 --status all -o "$T_DIR/out" "$NODE"
is "$FP_RC" 0 "a 4 s capture on the +S 1:1 node exits 0"
# the spinners never wait: each read puts back the one it displaced, so
# the on-CPU samples hold about all the scheduler the node kept busy
held=$(sed -n "s/.*one scheduler at a time: the on-CPU samples hold \([0-9.]*\) of the \([0-9.]*\) scheduler.*/\1 \2/p" "$T_DIR/fp.err")
check "-v: the on-CPU samples hold 0.5 or more of the busy scheduler ($held)" \
	awk -v h="$held" 'BEGIN { split(h, v, " "); exit !(v[1] != "" && v[1] >= 0.5 && v[2] >= 0.5) }'
check "no warning that they hold too little" sh -c "! grep -q 'warning:' '$T_DIR/fp.err'"
decompressed "$T_DIR"/out/*.perf.zst >"$T_DIR/all.txt"
# per tid: running, runnable, all samples of the five spinners
awk '/^[a-z_]+ [0-9]+ / { st = $1; tid = $2; next }
     /fp_busy:/ && tid != "" { n[tid]++; if (st == "running") r[tid]++; if (st == "runnable") q[tid]++; tid = "" }
     /^$/ { tid = "" }
     END { for (t in n) print t, r[t] + 0, q[t] + 0, n[t] }' "$T_DIR/all.txt" | sort >"$T_DIR/shares"
sed 's/^/#   tid running runnable samples: /' "$T_DIR/shares"
is "$(wc -l <"$T_DIR/shares")" 5 "the five spinners are sampled"
while read -r tid run rnq all; do
	check "spinner $tid: running $run of $all samples, 8-35 %" \
		test "$all" -gt 50 -a $((run * 100)) -ge $((all * 8)) -a $((run * 100)) -le $((all * 35))
	check "spinner $tid: the rest runnable ($rnq), none waiting" test $((run + rnq)) -eq "$all"
done <"$T_DIR/shares"

# top's RUN% and RNQ% come from the same statuses
fpt -n 4 --interval 1s --every 1s --view processes --rows 20 "$NODE"
is "$FP_RC" 0 "top on the +S 1:1 node exits 0"
sed 's/^/#   /' "$T_DIR/fp.out" | tail -8
last=$(awk '/^processes/ { n = 0; delete l } /fp_busy:/ { l[n++] = $2 " " $3 } END { for (k = 0; k < n; k++) print l[k] }' "$T_DIR/fp.out")
echo "$last" | sed 's/^/#   RUN% RNQ%: /'
check "top: five spinners in its last screen" test "$(echo "$last" | grep -c .)" -eq 5
check "top: each spinner's RUN% is 5-40 and its RNQ% 60-95 (none before)" \
	sh -c "echo '$last' | awk '\$1 < 5 || \$1 > 40 || \$2 < 60 || \$2 > 95 { bad = 1 } END { exit bad }'"
check "the node is left as it was" node_clean "$NODE"

# A service (fp_truth's: clients, timer loops, a ticker, a computing
# server) works in bursts after the VM's timer tick, which the reads wake
# at too: on one scheduler none is ever read in the middle of a run (1-12
# on-CPU samples in 6 s, where the node kept 0.36-0.43 of its scheduler
# busy). The run says so, also with -q.
T_ERL_ARGS="+S 1:1" start_node one_svc "fp_truth:start(service)" || exit 1
fp -q --duration 4s -o "$T_DIR/svc" "$NODE"
is "$FP_RC" 0 "a 4 s capture of the service on +S 1:1 exits 0"
check "-q: it warns that the on-CPU samples hold a small part of the busy scheduler" \
	grep -q "^flameprof: warning: the node can run one scheduler at a time, and each of flameprof's reads takes it: the on-CPU samples hold 0\.[0-9][0-9] of the 0\.[0-9][0-9] scheduler it kept busy" "$T_DIR/fp.err"
check "the node is left as it was" node_clean "$NODE"
finish

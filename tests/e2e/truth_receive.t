#!/bin/bash
# A process that served our read at a receive which did not wait is not
# drawn there (issue 33): its run was over, the receive is not where it ran.
# The server of the draining shape (tests/workloads/fp_truth.erl) empties
# its mailbox with `receive ... after 0` (RabbitMQ's gen_server2:drain/1,
# 36 % of the broker's Erlang leaves, where perf saw drain/1 in none of its
# samples) and waits at drainer/0 only when nothing came: neither test of
# the stack could see such a read, as no process is ever seen waiting at
# drain/1. The agent now knows where a module's receives are from its object
# code (sampler/fp_receives.hrl). With the agent before, 77 of the server's
# on-CPU samples of this run were drawn at its two receives; now none (at
# most the few taken before the agent has read fp_truth's lines).
T_TIMEOUT=120
T_SCHEDULERS=2
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads || exit 1
start_node drain "fp_truth:start(draining)" || exit 1
sleep 1

fp --duration 6s --max-cost 0 --status all -o "$T_DIR/all" "$NODE"
is "$FP_RC" 0 "--status all on the draining server: exits 0"
"$FLAMEPROF" report -q -f folded "$T_DIR/all" -o "$T_DIR/oncpu.folded"
"$FLAMEPROF" report -q --status waiting -f folded "$T_DIR/all" -o "$T_DIR/waiting.folded"
# sum FILE LINES-MATCHING: the samples of the folded lines that match
sum() { grep -E "$2" "$T_DIR/$1.folded" | awk '{n += $NF} END {print n + 0}'; }
server='initial_call:fp_truth:drainer/0;'
fib=$(sum oncpu "^running;$server.*fp_truth_work:fib/1 [0-9]+$")
ran=$(sum oncpu "^running;$server\\[ran_to_receive\\] [0-9]+$")
check "the server is drawn on a CPU, computing ($fib samples in fp_truth_work:fib/1)" test "$fib" -ge 50
check "and its runs to a receive say so ($ran samples [ran_to_receive])" test "$ran" -ge 10
# Its two receives are read at its functions' first lines (no call comes
# before them); the folded form has no lines, the perf text has. A read
# served at a BIF's return (lists:reverse/1, in drain/1 too) is not one.
rx="fp_truth:drain/1 \\(.*fp_truth.erl:$(grep -n '^drain(Acc) ->' "$ROOT/tests/workloads/fp_truth.erl" | cut -d: -f1)\\)|fp_truth:drainer/0 \\(.*fp_truth.erl:$(grep -n '^drainer() ->' "$ROOT/tests/workloads/fp_truth.erl" | cut -d: -f1)\\)"
at_receive=$(zstd -dcq "$T_DIR"/all/*.perf.zst | awk -v rx="$rx" 'BEGIN {RS = ""; FS = "\n"}
	/^(running|garbage_collecting) / && $2 ~ rx {n++} END {print n + 0}')
check "at most 2 of its on-CPU samples at its receives ($at_receive; the agent before: 77)" test "$at_receive" -le 2
# The wall-clock view keeps a waiting process at its receive: only reads of
# a running process are moved. The clients wait for the server's word.
feeders=$(sum waiting '^waiting;initial_call:fp_truth:feeder/1;')
at_wait=$(sum waiting '^waiting;initial_call:fp_truth:feeder/1;fp_truth:feeder/1 [0-9]+$')
check "the clients' waiting samples are at their receive ($at_wait of $feeders)" \
	test "$feeders" -ge 50 -a $((at_wait * 50)) -ge $((feeders * 49))
check "the node is left as it was" node_clean "$NODE"
finish

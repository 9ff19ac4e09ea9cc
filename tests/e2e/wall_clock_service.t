#!/bin/bash
# The wall-clock view (--status all) keeps a waiting process at its receive
# (issue 33, point 6), on the shape where that is hard: a server woken by
# each of its requests (tests/workloads/fp_truth.erl, the service). Its
# status is read at the round's instant; its stack afterwards, by its
# worker, and by then the next request has often woken it: 98 of its 356
# waiting samples were drawn in the computing function it had gone on to
# (fp_truth_work:fib/1). Such a sample is drawn where it was last seen
# waiting (doc/truth.md). The clients, which wait at two receives (the
# server's reply, timer:sleep/1), are drawn at those two only.
T_TIMEOUT=120
T_SCHEDULERS=2 # the service as truth_perf.t runs it, on two schedulers (lib.sh)
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads || exit 1
start_node wall "fp_truth:start(service)" || exit 1
sleep 1  # past the start of every process

fp --duration 6s --max-cost 0 --status all -o "$T_DIR/all" "$NODE"
is "$FP_RC" 0 "--status all on the service: exits 0"
"$FLAMEPROF" report -q --status waiting -f folded "$T_DIR/all" -o "$T_DIR/waiting.folded"
# sum LINES-MATCHING: the samples of the folded lines that match
sum() { grep -E "$1" "$T_DIR/waiting.folded" | awk '{n += $NF} END {print n + 0}'; }
server=$(sum '^waiting;initial_call:fp_truth:server/0;')
in_fib=$(sum '^waiting;initial_call:fp_truth:server/0;.*fp_truth_work:fib/1')
check "the server is drawn waiting ($server samples)" test "$server" -ge 50
# A server never yet seen waiting keeps the stack read: its first samples
# only, so at most 2 % (23-28 % before)
check "at most 2 % of its waiting samples are in the function it computes in ($in_fib of $server)" \
	test $((in_fib * 50)) -le "$server"
clients=$(sum '^waiting;initial_call:fp_truth:client/1;')
at_receive=$(sum '^waiting;initial_call:fp_truth:client/1;fp_truth:client/1(;timer:sleep/1)? [0-9]+$')
check "the clients are drawn waiting ($clients samples)" test "$clients" -ge 50
check "at least 98 % of them at one of their two receives ($at_receive of $clients)" \
	test $((at_receive * 50)) -ge $((clients * 49))
check "the node is left as it was" node_clean "$NODE"
finish

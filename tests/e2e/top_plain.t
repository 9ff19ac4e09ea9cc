#!/bin/bash
# flameprof top without a terminal: one plain table per refresh, the busy
# loop's function among the hottest, the registered process in the
# processes view, -n ends it, SIGTERM ends it, and the node is left as it
# was each time.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node topp "fp_busy:start(4)" || exit 1

fpt -n 3 --every 500ms "$NODE"
is "$FP_RC" 0 "top -n 3 exits 0"
sed 's/^/#   out: /' "$T_DIR/fp.out" | head -14
is "$(grep -c 'functions by self' "$T_DIR/fp.out")" 3 "three tables, one per refresh"
check "the header line of the functions table" grep -q '^  %SELF %TOTAL  FUNCTION$' "$T_DIR/fp.out"
check "the busy loop is among the hottest functions" grep -qE '^ +[0-9.]+ +[0-9.]+  fp_busy:burn_cpu/1$' "$T_DIR/fp.out"
top=$(awk '/^functions by self/ {getline; getline; print; exit}' "$T_DIR/fp.out")
check "... at the top of a table with a large self share ($top)" awk -v l="$top" 'BEGIN { split(l, a, " "); exit !(a[3] == "fp_busy:burn_cpu/1" && a[1] > 30) }'
check "no escape sequence in the plain output" sh -c "! grep -q \$'\\x1b' '$T_DIR/fp.out'"
check "the node is left as it was" node_clean "$NODE"

# a table drawn before the agent's first samples (its first selection waits
# 200 ms for a baseline) says it is gathering them, not an empty table alone
fpt --once --interval 100ms --every 5s "$NODE"
is "$FP_RC" 0 "top --once --interval 100ms exits 0"
if grep -q ' 0/0 on-CPU' "$T_DIR/fp.out"; then
	check "a table with no sample yet says it is gathering them" grep -q '^gathering samples: the busiest processes are picked every 5s' "$T_DIR/fp.out"
else
	skip "the first table already held samples (a slow machine: its first refresh came late)"
fi
check "the node is left as it was" node_clean "$NODE"

# the processes view names the registered idle server given by --name
fpt --once --view processes --name fp_idle_server --every 500ms "$NODE"
is "$FP_RC" 0 "top --once --view processes exits 0"
sed 's/^/#   out: /' "$T_DIR/fp.out" | head -8
check "the processes table's header, the on-CPU share first" grep -q '^PID  *RUN% RNQ% REDS/S MEMORY  MSGQ NAME OR INITIAL CALL' "$T_DIR/fp.out"
check "... sorted by it" grep -q '^processes by on-CPU share' "$T_DIR/fp.out"
check "a busy process by its initial call, with its current function" grep -qE '^<0\.[0-9]+\.0> .* fp_busy:burn_cpu/1 +fp_busy:burn_cpu/1$' "$T_DIR/fp.out"
check "the registered process by its name" grep -qE '^<0\.[0-9]+\.0> .* fp_idle_server ' "$T_DIR/fp.out"
check "the node is left as it was" node_clean "$NODE"

# SIGTERM: the view ends, the agent is stopped and unloaded, status 0
fpt_bg --every 500ms "$NODE"
wait_until 20 grep -q 'functions by self' "$T_DIR/fp.out"
kill -TERM "$FP_PID"
fp_wait 30
is "$FP_RC" 0 "SIGTERM ends top with status 0"
check "the node is left as it was after SIGTERM" node_clean "$NODE"

# one flameprof per node: top beside a running capture is refused (69)
"$FLAMEPROF" --cookie-file "$T_DIR/cookie" --duration 20s -o "$T_DIR/cap" "$NODE" >/dev/null 2>"$T_DIR/cap.err" &
CAP=$!
T_PIDS="$T_PIDS $CAP"
agent_up() { [ "$(rpc "$NODE" "erlang whereis [flameprof_agent]")" != undefined ]; }
check "the capture's agent runs" wait_until 20 agent_up
fpt --once "$NODE"
is "$FP_RC" 69 "top beside a capture of the same node exits 69"
check "... saying another flameprof holds the node" grep -q "another flameprof" "$T_DIR/fp.err"
kill -TERM "$CAP"; wait "$CAP"
is "$?" 0 "... and the capture goes on to its normal end"
check "the node is left as it was" node_clean "$NODE"

# bad input: one sentence, 64
fpt --view threads "$NODE"
is "$FP_RC" 64 "an unknown --view is a usage error"
check "... said in one sentence" grep -q "'threads' is not a view for --view: use functions or processes" "$T_DIR/fp.err"
fpt --sort self --view processes "$NODE"
is "$FP_RC" 64 "a functions key for the processes view is a usage error"
finish

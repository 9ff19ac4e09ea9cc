#!/bin/bash
# The cost budget (--max-cost, default 1 %). On a node whose schedulers are
# all busy, the defaults sample only a part of the selected processes and
# say so: in the status line, in the summary and in each file's settings
# line (the part sampled, and the samples delivered, when that file
# began); --max-cost 0 samples all of them and says nothing. The budget reads
# how busy the node is through the scheduler_wall_time statistics: the flag
# is off again after the run (node_clean), and an application that had
# turned it on itself still has it on.
T_SCHEDULERS=2 # processes running on several schedulers at once are part of what it checks (lib.sh)
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node budget "fp_busy:start(100)" || exit 1

settings() { decompressed "$1"/flameprof_*.perf.zst | grep -m1 '^# settings: '; }
# the summary's "(A/s of R/s requested, N processes selected)": prints "A R"
rates() { sed -n 's/^flameprof: [0-9]* samples in [0-9.]* s (\([0-9]*\)\/s of \([0-9]*\)\/s requested, [0-9][0-9 to]* process\(es\)\? selected).*/\1 \2/p' "$T_DIR/fp.err"; }

# 1. the defaults on a saturated node
fp -v --progress --duration 8s --rotate 3s -o "$T_DIR/default" "$NODE"
is "$FP_RC" 0 "defaults: flameprof exits 0"
line=$(grep '^flameprof: the node was busy and the cost budget (--max-cost 1%) sampled a part of the selected processes for [0-9]* s, at least [0-9]*% of them; --max-cost 0 samples all of them$' "$T_DIR/fp.err")
check "defaults: the summary says the budget lowered the part sampled" test -n "$line"
least=$(sed -n 's/.*at least \([0-9]*\)% of them.*/\1/p' <<<"$line")
check "defaults: ... to less than all of them (${least:-none}%)" test "${least:-100}" -lt 100
set -- $(rates)
diag "defaults: $1 of $2 samples/s requested"
check "defaults: fewer samples than requested were delivered ($1 of $2/s)" test "${1:-0}" -gt 0 -a "${1:-0}" -lt "${2:-0}"
check "defaults: the status line shows the budget" grep -q "samples/s (budget [0-9]*%), cost [0-9.]*%, dropped [0-9]*, late [0-9]*, " "$T_DIR/fp.err"
first=$(ls "$T_DIR"/default/flameprof_*.perf.zst | head -1)
last=$(ls "$T_DIR"/default/flameprof_*.perf.zst | tail -1)
check "defaults: the first file's settings line records the budget, all of the selected at its start" \
	grep -q ' max-cost=1pct (while the node is busy, a part of the selected processes each round; when this file began: 100pct)' <<<"$(decompressed "$first" | grep -m1 '^# settings: ')"
part=$(decompressed "$last" | grep -m1 '^# settings: ' | sed -n 's/.*when this file began: \([0-9.]*\)pct).*/\1/p')
check "defaults: a later file's settings line states the lowered part at its start (${part:-none}pct)" \
	awk -v p="${part:-100}" 'BEGIN { exit !(p < 100) }'
check "defaults: the files are whole and every reader rule holds" readers_ok "$T_DIR"/default/flameprof_*.perf.zst
check "defaults: the node is left as it was (scheduler_wall_time off again)" node_clean "$NODE"

# 2. no budget
fp -v --max-cost 0 --duration 5s --rotate 2s -o "$T_DIR/none" "$NODE"
is "$FP_RC" 0 "--max-cost 0: flameprof exits 0"
check "--max-cost 0: no budget line" test -z "$(grep 'cost budget' "$T_DIR/fp.err")"
set -- $(rates)
check "--max-cost 0: never more delivered than requested ($1 of $2/s; issue 19: 9650/s of 9593/s)" \
	test "${1:-1}" -le "${2:-0}"
check "--max-cost 0: the settings line says max-cost=none" grep -q ' max-cost=none' <<<"$(settings "$T_DIR/none")"
last=$(ls "$T_DIR"/none/flameprof_*.perf.zst | tail -1)
check "--max-cost 0: a later file's header says what was delivered when it began" \
	grep -q ' delivered=[0-9]*/[0-9]* samples/s (the second before this file began)' <<<"$(decompressed "$last" | grep -m1 '^# settings: ')"
check "--max-cost 0: the node is left as it was" node_clean "$NODE"

# 3. an application that measures scheduler utilization itself keeps its flag
rpc_eval "$NODE" "register(fp_app_swt, spawn(fun() -> erlang:system_flag(scheduler_wall_time, true), receive stop -> ok end end))" >/dev/null
check "the application has scheduler_wall_time on" wait_until 5 sh -c "[ \"\$('$ERL_CALL' -name '$NODE' -c '$T_COOKIE' -timeout 10 -a 'erlang statistics [scheduler_wall_time]')\" != undefined ]"
fp --max-cost 2% --duration 3s -o "$T_DIR/app" "$NODE"
is "$FP_RC" 0 "--max-cost 2%: flameprof exits 0"
check "after the run the application's scheduler_wall_time is still on" \
	test "$(rpc "$NODE" "erlang statistics [scheduler_wall_time]")" != undefined
rpc_eval "$NODE" "fp_app_swt ! stop" >/dev/null
check "once the application's process ends it is off (the VM counts it per process)" \
	wait_until 5 sh -c "[ \"\$('$ERL_CALL' -name '$NODE' -c '$T_COOKIE' -timeout 10 -a 'erlang statistics [scheduler_wall_time]')\" = undefined ]"

# 4. a bad budget
fp --max-cost 150 "$NODE"
is "$FP_RC" 64 "--max-cost 150: usage error (64)"
check "... in one sentence that says what to give" grep -q "^flameprof: '150' is not a valid value for --max-cost: give a percentage from 0 to 100" "$T_DIR/fp.err"
finish

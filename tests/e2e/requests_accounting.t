#!/bin/bash
# flameprof requests accounts for every entry call (issue 30): the line
# under the table names the node's own count of entry calls (a call_count
# pattern for the whole run) and where each went: in the table, not traced
# while the circuit breaker paused, dropped when it tripped (unread in the
# queue, in flight), still running at the end, inside a request of the same
# process. Under a flood that trips the breaker again and again, the
# node's count equals the calls the workload counted itself, exactly, and
# the parts add up to it exactly. A tier that runs after its request's
# entry returned (a cast) is counted and said under the table; a tier row
# short of _total says why. The call_count goes with everything else at
# the end. --stats and --slow-file refuse a file another user created.
T_SCHEDULERS=2 # processes running on several schedulers at once are part of what it checks (lib.sh)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../requests_lib.sh"
start_epmd && compile_workloads && start_node racc "code:ensure_loaded(fp_req_wl)" || exit 1

# calls_line: the accounting line of the last table.
calls_line() { grep '^# [0-9]* entry calls on the node' "$T_DIR/fp.out" | tail -1; }
# calls_total: its first figure, the node's count.
calls_total() { calls_line | awk '{ print $2 }'; }
# calls_sum: the sum of its parts (the figures after the colon, not those
# in parentheses, which break a part down).
calls_sum() { calls_line | sed 's/^[^:]*://; s/([^)]*)//g' | tr ',' '\n' | awk '{ s += $1 } END { print s + 0 }'; }
# calls_part TEXT: the figure of the part that ends with TEXT (0 if none).
calls_part() { calls_line | sed 's/^[^:]*://; s/([^)]*)//g' | tr ',' '\n' | grep -F "$1" | awk '{ print $1 }' | grep . || echo 0; }
table_count() { awk -v id="$1" -v tier="$2" '$1 == id && $2 == tier { print $3 }' "$T_DIR/fp.out" | tail -1; }
run_traced() { [ "$(breakpoint "$NODE" "{fp_req_wl, run, 1}" traced)" = "{traced, local}" ]; }
wl_clean() {
	for f in "run, 1" "tick, 1" "cast_req, 2" "later, 1" "nest, 1"; do
		[ "$(breakpoint "$NODE" "{fp_req_wl, $f}" traced)" = "{traced, false}" ] || return 1
		[ "$(breakpoint "$NODE" "{fp_req_wl, $f}" call_count)" = "{call_count, false}" ] || return 1
	done
	requests_gone "$NODE"
}

# ---------------------------------------------------------------- a flood that trips the breaker
fpr_bg --entry fp_req_wl:run/1 --tier tick=fp_req_wl:tick/1 --max-queue 1000 --every 500ms \
	--duration 150s --stats "$T_DIR/flood.jsonl" "$NODE"
check "flood: the entry pattern is set" wait_until 20 run_traced
check "flood: the entry's call_count runs meanwhile" \
	test "$(breakpoint "$NODE" "{fp_req_wl, run, 1}" call_count)" != "{call_count, false}"
# 4 processes calling the entry as fast as they go for 0.5 s, then once a
# millisecond for 3 s (measured after the breaker's first pause), each
# counting its calls; all finished when the rpc returns, before flameprof
# stops
made=$(rpc "$NODE" "fp_req_wl burst [4, 500, 3000]")
diag "the workload made $made entry calls"
sleep 1
kill -INT "$FP_PID"
fp_wait 60
is "$FP_RC" 0 "flood: the run exits 0"
sed 's/^/#   /' "$T_DIR/fp.out"
check "flood: the breaker tripped" grep -q 'tracing paused' "$T_DIR/fp.err"
is "$(calls_total)" "$made" "flood: the node's count of entry calls is the calls the workload made"
is "$(calls_sum)" "$made" "flood: the parts of the line add up to them, exactly"
check "flood: some were dropped when the breaker tripped" test "$(calls_part 'dropped when it tripped')" -gt 0
in_table=$(table_count run _total)
is "$(calls_part 'in the table')" "${in_table:-0}" "flood: 'in the table' is the table's _total"
check "flood: nothing heard of and counted nowhere" sh -c "! grep -q 'counted nowhere' '$T_DIR/fp.out'"
# every part is counted on its own; the only calls no count can place are
# those in flight at the instant a pause begins or ends (at most one per
# scheduler each time: stamped before the clock's reading, counted after
# the counter's; the counter is read on both sides of the clock until no
# call was counted between, see mark_calls/2 in the agent) and those
# between the stop's switch and its read (none: the workload has finished
# by then)
pauses=$(sed -n 's/^# covers .* paused tracing \([0-9]*\) time(s).*/\1/p' "$T_DIR/fp.out")
scheds=$(rpc "$NODE" "erlang system_info [schedulers_online]")
left=$(calls_part 'while the entry pattern was switched')
twice=$(calls_line | sed -n 's/.*(the pauses. counts \([0-9]*\) more.*/\1/p')
diag "${left:-0} calls left to the switches, ${twice:-0} counted twice, $pauses pause(s), $scheds schedulers"
check "flood: at most one call per scheduler and pause's end left to the switches" \
	test "$left" -le $(( ${pauses:-0} * ${scheds:-1} ))
check "flood: at most one per scheduler and pause's start counted both paused and traced" \
	test "${twice:-0}" -le $(( ${pauses:-0} * ${scheds:-1} ))
check "flood: nothing 'to report'" sh -c "! grep -q 'please report' '$T_DIR/fp.out'"
check "flood: --stats has the windows' entry calls" grep -q '"entry_calls":[1-9]' "$T_DIR/flood.jsonl"
stats_calls=$(grep -o '"entry_calls":[0-9]*' "$T_DIR/flood.jsonl" | wc -l)
check "flood: and the calls dropped" grep -q '"dropped_calls":[1-9]' "$T_DIR/flood.jsonl"
diag "$stats_calls --stats lines"
check "flood: nothing is left on the node, the call_count neither" wait_until 5 wl_clean

# ---------------------------------------------------------------- a tier after the entry returned
cast_traced() { [ "$(breakpoint "$NODE" "{fp_req_wl, cast_req, 2}" traced)" = "{traced, local}" ]; }
fpr_bg --entry fp_req_wl:cast_req/2 --tier later=fp_req_wl:later/1 --duration 150s "$NODE"
check "cast: the entry pattern is set" wait_until 20 cast_traced
is "$(rpc "$NODE" "fp_req_wl cast_reqs [20]")" 20 "cast: 20 requests, each casting work"
sleep 0.5
kill -INT "$FP_PID"
fp_wait 30
is "$FP_RC" 0 "cast: the run exits 0"
sed 's/^/#   /' "$T_DIR/fp.out"
is "$(calls_total)" 20 "cast: 20 entry calls on the node"
is "$(calls_part 'in the table')" 20 "cast: all 20 in the table"
line=$(grep '^# tier later: ' "$T_DIR/fp.out")
in=$(echo "$line" | sed -n 's/^# tier later: in \([0-9]*\) of 20 requests.*/\1/p')
after=$(echo "$line" | sed -n 's/.*; \([0-9]*\) of its calls returned after their request had ended or was dropped.*/\1/p')
diag "later: in ${in:-?} requests, ${after:-?} after their request ended"
is "$(( ${in:-0} + ${after:-0} ))" 20 "cast: each of the 20 later calls is in a row or counted as after its request ended"
check "cast: most came after their request ended (5 ms after it, 30 ms before the next)" test "${after:-0}" -ge 10
check "cast: nothing is left on the node" wait_until 5 wl_clean

# ---------------------------------------------------------------- entry calls inside a request
nest_traced() { [ "$(breakpoint "$NODE" "{fp_req_wl, nest, 1}" traced)" = "{traced, local}" ]; }
fpr_bg --entry fp_req_wl:nest/1 --duration 150s "$NODE"
check "nested: the entry pattern is set" wait_until 20 nest_traced
for _ in 1 2 3 4 5; do rpc "$NODE" "fp_req_wl nest [3]" >/dev/null; done
sleep 0.5
kill -INT "$FP_PID"
fp_wait 30
is "$FP_RC" 0 "nested: the run exits 0"
calls_line | sed 's/^/#   /'
is "$(calls_total)" 20 "nested: 5 requests of 4 entry calls each: 20 on the node"
is "$(calls_part 'in the table')" 5 "nested: 5 in the table"
is "$(calls_part 'inside a request of the same process')" 15 "nested: 15 inside them"
is "$(calls_sum)" 20 "nested: the parts add up"
check "nested: nothing is left on the node" wait_until 5 wl_clean

# ---------------------------------------------------------------- --stats and --slow-file of another user
if [ "$(id -u)" = 0 ]; then
	for opt in stats slow-file; do
		f="$T_DIR/theirs-$opt.jsonl"
		echo '{"theirs":1}' >"$f"
		chown 65534 "$f"
		chmod 666 "$f"
		extra=; [ "$opt" = slow-file ] && extra="--slow 1ms"
		fpr --entry fp_req_wl:run/1 $extra "--$opt" "$f" --duration 1s "$NODE"
		is "$FP_RC" 73 "--$opt: a file another user created is refused, exit 73"
		check "--$opt: one sentence saying whose it is" grep -q 'belongs to another user (uid 65534)' "$T_DIR/fp.err"
		is "$(cat "$f")" '{"theirs":1}' "--$opt: their file is untouched"
	done
	ln "$T_DIR/theirs-stats.jsonl" "$T_DIR/hardlink.jsonl" 2>/dev/null && chown 0 "$T_DIR/hardlink.jsonl" &&
		{ fpr --entry fp_req_wl:run/1 --stats "$T_DIR/hardlink.jsonl" --duration 1s "$NODE"
		  is "$FP_RC" 73 "--stats: a file with another hard link is refused, exit 73"; }
else
	skip "--stats of another user" "needs root to create another user's file"
fi
check "after the refusals nothing is left on the node" wait_until 5 wl_clean
finish

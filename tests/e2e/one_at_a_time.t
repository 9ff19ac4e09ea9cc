#!/bin/bash
# One flameprof per node: a second one against a node that is being
# profiled exits 69 with the "already being profiled" sentence, quickly,
# and the first one goes on undisturbed: it completes, exits 0, its file
# is whole, and the node is left as it was. The second one runs under
# another --node-name, so it reaches the node's lock; a third under the
# same (default) name is refused on this host with its own sentence.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node one "fp_busy:start(4)" || exit 1

fp_bg --duration 4s --top 10 --every 1s -o "$T_DIR/first" "$NODE"
check "the first flameprof's agent is running" \
	wait_until 10 sh -c "[ \"\$('$ERL_CALL' -name '$NODE' -c '$T_COOKIE' -timeout 10 -a 'erlang whereis [flameprof_agent]')\" != undefined ]"
agent=$(rpc "$NODE" "erlang whereis [flameprof_agent]")

t0=$(now_ms)
timeout -s KILL 30 "$FLAMEPROF" --cookie-file "$T_DIR/cookie" --connect-timeout 2s --duration 2s \
	--node-name fp_second -o "$T_DIR/second" "$NODE" >"$T_DIR/second.out" 2>"$T_DIR/second.err"
rc=$?
el=$(( $(now_ms) - t0 ))
sed 's/^/#   second: /' "$T_DIR/second.err"
is "$rc" 69 "the second flameprof exits 69"
check "with the 'already being profiled' sentence naming the node" \
	grep -q "^flameprof: '$NODE' is already being profiled by another flameprof" "$T_DIR/second.err"
is "$(grep -c '^flameprof: ' "$T_DIR/second.err")" 1 "and nothing else"
# refused, not left waiting for the first run to end (no bound on a busy
# machine's speed: the KILL above is 30 s)
check "and did not hang (${el} ms)" test "$el" -lt 20000
check "the second one wrote no file" test -z "$(ls -A "$T_DIR/second" 2>/dev/null)"
is "$(rpc "$NODE" "erlang whereis [flameprof_agent]")" "$agent" "the first run's lock is still the one registered"

timeout -s KILL 30 "$FLAMEPROF" --cookie-file "$T_DIR/cookie" --connect-timeout 2s --duration 2s \
	-o "$T_DIR/third" "$NODE" >"$T_DIR/third.out" 2>"$T_DIR/third.err"
rc=$?
sed 's/^/#   third: /' "$T_DIR/third.err"
is "$rc" 69 "a third under the same node name exits 69"
check "saying another flameprof is connected under our node name" \
	grep -q "^flameprof: another flameprof of yours is connected to '$NODE' under our node name" "$T_DIR/third.err"
is "$(rpc "$NODE" "erlang system_flag [backtrace_depth, 64]")" 64 "backtrace_depth is still the first run's 64"

fp_wait 20
is "$FP_RC" 0 "the first flameprof completes and exits 0"
files=$(ls "$T_DIR/first"/*.perf.zst 2>/dev/null)
check "its file is closed and renamed" test -n "$files" -a -z "$(ls -A "$T_DIR/first" | grep '^\.')"
decompressed $files > "$T_DIR/first.txt"
# The whole run: on-CPU events in each of its four seconds, however few a
# busy machine lets the node's schedulers run (a count of events measured
# the machine's load: 67-104 of the 150 once asked, at load 14-20)
span=$(awk '/cpu-clock:/ { t = $4 + 0; if (!n++ || t < lo) lo = t; if (t > hi) hi = t; s[int(t)] = 1 }
	END { k = 0; for (x in s) k++; printf "%d %.1f", k, hi - lo }' "$T_DIR/first.txt")
check "it sampled the whole run ($(grep -c 'cpu-clock:' "$T_DIR/first.txt") events in ${span#* } s, ${span% *} distinct seconds)" \
	awk -v sp="$span" 'BEGIN { split(sp, a, " "); exit !(a[1] >= 4 && a[2] >= 3) }'
check "every perf-script reader rule holds" readers_ok $files
check "the node is left as it was" node_clean "$NODE"
finish

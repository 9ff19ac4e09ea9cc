#!/bin/bash
# Advice that works: each refusal of the capture, the connection and calls
# that tells the operator what to do is provoked on a real node, and doing
# what it says gets past it (exit 0). Covered elsewhere: the cookie's
# --cookie-file NODE=FILE (cookie_per_node.t), calls' --limit and --force
# (calls_errors.t), -o DIR on a full disk (fault_disk_full.t). The captures
# that get past a refusal last 300 ms: their exit status is what is checked
# (a capture with no sample still exits 0), not what they sampled.
T_TIMEOUT=300
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node adv "fp_busy:start(2), code:ensure_loaded(fp_calls_wl)" || exit 1

# another run of ours is sampling the node (flameprof top): the capture is
# told to wait, not to take another --node-name (which the node's agent
# lock then refuses: "already being profiled")
"$FLAMEPROF" top --cookie-file "$T_DIR/cookie" -n 8 --interval 500ms --every 500ms --plain "$NODE" \
	>"$T_DIR/top.out" 2>"$T_DIR/top.err" &
TOP_PID=$!
T_PIDS="$T_PIDS $TOP_PID"
check "top is sampling" wait_until 30 grep -q "fp_busy" "$T_DIR/top.out"
fp --duration 300ms -o "$T_DIR/o1" "$NODE"
is "$FP_RC" 69 "a capture while top samples: exit 69"
check "... told that a run of ours is sampling it, and to wait" \
	grep -q "under our node name '.*', sampling it (a capture or flameprof top); wait for it to finish" "$T_DIR/fp.err"
check "... not told to take another --node-name" bash -c "! grep -q -- '--node-name' '$T_DIR/fp.err'"
fp --duration 300ms --node-name "other_$$" -o "$T_DIR/o1" "$NODE"
is "$FP_RC" 69 "(another --node-name is refused by the node's lock, as the old advice led to)"
wait "$TOP_PID"
fp --duration 300ms -o "$T_DIR/o1" "$NODE"
is "$FP_RC" 0 "waiting for top to finish gets past it: exit 0"

# another host connected to the node under our node name (a node of that
# name is): the handshake is refused as a wrong cookie is, and the sentence
# offers "choose another --node-name"
me="flameprof_$(id -un | sed 's/[^A-Za-z0-9_-]/_/g')"
erl -name "$me@127.0.0.1" -setcookie "$T_COOKIE" -hidden -noshell -noinput -kernel inet_dist_use_interface '{127,0,0,1}' \
	-eval "true = net_kernel:connect_node('$NODE'), file:write_file(\"$T_DIR/twin.ready\", \"\")" >"$T_DIR/twin.log" 2>&1 &
TWIN=$!
T_PIDS="$T_PIDS $TWIN"
disown "$TWIN"
check "a node named '$me@127.0.0.1' is connected to it" wait_until 60 test -f "$T_DIR/twin.ready"
fp --duration 300ms -o "$T_DIR/o0" "$NODE"
is "$FP_RC" 77 "our node name taken on the node: refused (exit 77)"
check "... it offers another --node-name" grep -q "choose another --node-name" "$T_DIR/fp.err"
fp --node-name "fp_other_$$" --duration 300ms -o "$T_DIR/o0" "$NODE"
is "$FP_RC" 0 "with another --node-name: exit 0"
kill "$TWIN" 2>/dev/null
twin_gone() { ! rpc "$NODE" "erlang nodes [hidden]" | grep -q "$me@"; }
check "the twin is gone from the node" wait_until 30 twin_gone

# a cookie file others may read: "run 'chmod 400 FILE'"
cp "$T_DIR/cookie" "$T_DIR/open.cookie"
chmod 644 "$T_DIR/open.cookie"
"$FLAMEPROF" --cookie-file "$T_DIR/open.cookie" --duration 300ms -o "$T_DIR/o2" "$NODE" 2>"$T_DIR/e"
is "$?" 77 "a cookie file of mode 644: exit 77"
cmd=$(sed -n "s/.*run '\(chmod 400 [^']*\)'.*/\1/p" "$T_DIR/e")
check "... it says to run '$cmd'" test -n "$cmd"
$cmd
"$FLAMEPROF" --cookie-file "$T_DIR/open.cookie" --duration 300ms -o "$T_DIR/o2" "$NODE" 2>"$T_DIR/e"
is "$?" 0 "after running it: exit 0"

# no HOME, no --cookie-file: "give it with --cookie-file FILE"
env -u HOME -u RELEASE_COOKIE "$FLAMEPROF" --duration 300ms -o "$T_DIR/o3" "$NODE" 2>"$T_DIR/e"
is "$?" 77 "no HOME and no --cookie-file: exit 77"
check "... it says to give --cookie-file FILE" grep -q "give it with --cookie-file FILE" "$T_DIR/e"
env -u HOME -u RELEASE_COOKIE "$FLAMEPROF" --cookie-file "$T_DIR/cookie" --duration 300ms -o "$T_DIR/o3" "$NODE" 2>"$T_DIR/e"
is "$?" 0 "with --cookie-file: exit 0"

# an output directory that cannot be made: "choose another directory with -o DIR"
: > "$T_DIR/afile"
fp --duration 300ms -o "$T_DIR/afile/out" "$NODE"
is "$FP_RC" 73 "-o under a file: exit 73"
check "... it says to choose another directory with -o DIR" grep -q "choose another directory with -o DIR" "$T_DIR/fp.err"
fp --duration 300ms -o "$T_DIR/o4" "$NODE"
is "$FP_RC" 0 "with another -o DIR: exit 0"

# --top 0 and a --pid that is not alive: "... or sample the busiest with --top N"
fp --top 0 --pid '<0.9999.0>' --duration 300ms -o "$T_DIR/o5" "$NODE"
is "$FP_RC" 64 "--top 0 with a dead --pid: exit 64"
check "... it says to sample the busiest with --top N" grep -q "sample the busiest with --top N" "$T_DIR/fp.err"
fp --top 5 --pid '<0.9999.0>' --duration 300ms -o "$T_DIR/o5" "$NODE"
is "$FP_RC" 0 "with --top 5: exit 0 (the dead pid warned about)"

# past the load bound: "lower --top or --hz, or add --force"
fp --top 2000 --hz 1000 --duration 300ms -o "$T_DIR/o6" "$NODE"
is "$FP_RC" 64 "--top 2000 --hz 1000: exit 64"
check "... it says to lower --top or --hz, or add --force" grep -q "lower --top or --hz, or add --force" "$T_DIR/fp.err"
fp --top 2000 --hz 10 --duration 300ms -o "$T_DIR/o6" "$NODE"
is "$FP_RC" 0 "with a lower --hz: exit 0"
fp --top 2000 --hz 1000 --force --duration 300ms -o "$T_DIR/o6" "$NODE"
is "$FP_RC" 0 "with --force: exit 0 (the cost budget still holds)"

# 'tier' in --categories without --tier: "add --tier NAME=MOD:FUN/ARITY or leave 'tier' out"
fp --categories tier,name --duration 300ms -o "$T_DIR/o7" "$NODE"
is "$FP_RC" 64 "--categories tier without --tier: exit 64"
check "... it says to add --tier" grep -q "add --tier NAME=MOD:FUN/ARITY or leave 'tier' out" "$T_DIR/fp.err"
fp --categories tier,name --tier busy=fp_busy:_/_ --duration 300ms -o "$T_DIR/o7" "$NODE"
is "$FP_RC" 0 "with --tier: exit 0"
fp --categories name --duration 300ms -o "$T_DIR/o7" "$NODE"
is "$FP_RC" 0 "or leaving 'tier' out: exit 0"

# a node slow to answer the handshake (6 s through a link that waits):
# "the node may be overloaded, try --connect-timeout 30s"
PROXY="adv_slow_$$"
FP_PROXY_DELAY_S=6 python3 "$ROOT/tests/workloads/fp_split_proxy.py" "$ERL_EPMD_PORT" "$PROXY" "${NODE%@*}" \
	"$T_DIR/proxy.ready" >"$T_DIR/proxy.log" 2>&1 &
T_PIDS="$T_PIDS $!"; disown $!  # no "Killed" notice from bash when cleanup stops it
check "the slow link is in epmd" wait_until 20 test -f "$T_DIR/proxy.ready"
fp --duration 300ms -o "$T_DIR/o8" "$PROXY@127.0.0.1"
is "$FP_RC" 69 "a handshake slower than the default 5 s: exit 69"
check "... it says to try --connect-timeout 30s" grep -q "try --connect-timeout 30s" "$T_DIR/fp.err"
fp --connect-timeout 30s --duration 300ms -o "$T_DIR/o8" "$PROXY@127.0.0.1"
is "$FP_RC" 0 "with --connect-timeout 30s: exit 0"

# calls --type memory on OTP 25: "use --type count or time there"
if [ "$(otp_release "$NODE")" -lt 26 ]; then
	fpc --connect-timeout 30s -p fp_busy --type memory --duration 300ms "$NODE"
	is "$FP_RC" 69 "calls --type memory on OTP $(otp_release "$NODE"): exit 69"
	check "... it says to use --type count or time" grep -q "use --type count or time there" "$T_DIR/fp.err"
	fpc --connect-timeout 30s -p fp_busy --type time --duration 300ms "$NODE"
	is "$FP_RC" 0 "with --type time: exit 0"
else
	skip "calls --type memory refused on OTP < 26" "the node runs OTP $(otp_release "$NODE")"
fi
# calls on a node that falls behind: "raise --max-run-queue or trace fewer
# functions or processes" (calls_overload.t provokes it the same way)
overload() { rpc_eval "$NODE" "[spawn(fp_calls_wl, spin_ms, [3000]) || _ <- lists:seq(1, 200)], ok" >/dev/null; }
fpc_bg -v --connect-timeout 30s --type time -p fp_calls_wl:target/1 --max-run-queue 20 --duration 20s "$NODE"
wait_until 20 grep -q "measuring" "$T_DIR/fp.err"; sleep 1
overload
fp_wait 30
check "calls ended early by the run queues past --max-run-queue 20" grep -q "raise --max-run-queue" "$T_DIR/fp.err"
wait_until 10 tracer_gone "$NODE"
sleep 3
fpc_bg -v --connect-timeout 30s --type time -p fp_calls_wl:target/1 --max-run-queue 100000 --duration 6s "$NODE"
wait_until 20 grep -q "measuring" "$T_DIR/fp.err"; sleep 1
overload
fp_wait 30
is "$FP_RC" 0 "with --max-run-queue raised: exit 0"
check "... and the run was not ended early" bash -c "! grep -q 'fell behind' '$T_DIR/fp.err'"
check "the node is left clean" node_clean_within 10 "$NODE"
finish

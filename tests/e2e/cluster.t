#!/bin/bash
# --cluster NODE: three real nodes connected to each other (A connects to
# B and C with net_kernel:connect_node/1); 'flameprof --cluster A' asks A
# for nodes(visible) and profiles all three: each writes its own files,
# the summary has a line for each, and all three are clean afterwards
# (our own hidden connection is not among A's visible nodes, so nothing is
# profiled twice). Then a fourth node with a cookie of its own joins A's
# cluster: it refuses our cookie, is named in one sentence and skipped, the
# other three are sampled, and the run exits 79.
T_TIMEOUT=300
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads || exit 1
# the three nodes boot at once, and D (below) with them
start_node_bg cla "fp_busy:start(2)"
A=$NODE
start_node_bg clb "fp_busy:start(2)"
B=$NODE
start_node_bg clc "fp_busy:start(2)"
C=$NODE
D="cld_$$@127.0.0.1"
erl -name "$D" -setcookie other$$ -noshell -noinput -kernel inet_dist_use_interface '{127,0,0,1}' \
	-eval "file:write_file(\"$T_DIR/cld.ready\", \"\")" >"$T_DIR/cld.log" 2>&1 &
D_PID=$!
disown "$D_PID"
T_PIDS="$T_PIDS $D_PID"
node_up "$A" && node_up "$B" && node_up "$C" || exit 1
is "$(rpc "$A" "net_kernel connect_node ['$B']")" true "A connects to B"
is "$(rpc "$A" "net_kernel connect_node ['$C']")" true "A connects to C"
check "A sees B and C" sh -c "rpc() { \"$ERL_CALL\" -name \"\$1\" -c '$T_COOKIE' -timeout 10 -a \"\$2\"; }; rpc '$A' 'erlang nodes []' | grep -q '$B' && rpc '$A' 'erlang nodes []' | grep -q '$C'"

odir="$T_DIR/out"
fp --cluster --connect-timeout 30s --duration 3s --every 500ms -o "$odir" "$A"
sed "s/^/#   /" "$T_DIR/fp.err"
is "$FP_RC" 0 "--cluster A exits 0"
check "it says what it found" grep -q "^flameprof: --cluster: '$A' and 2 visible nodes it is connected to" "$T_DIR/fp.err"
for n in cla clb clc; do
	check "node $n has its own closed files" sh -c "ls '$odir' | grep -q '^flameprof_${n}_.*\.perf\.zst$'"
done
is "$(ls "$odir" | grep -vc '^flameprof_cl[abc]_')" 0 "no other files (nothing profiled twice, no hidden node)"
check "the summary has a line for each node" sh -c "for n in '$A' '$B' '$C'; do grep -q \"^flameprof: '\$n': [0-9]* samples in\" '$T_DIR/fp.err' || exit 1; done"
check "every closed file decompresses and passes every reader rule" closed_ok "$odir"
for n in "$A" "$B" "$C"; do
	check "$n is clean afterwards" node_clean "$n"
done

# a member of the cluster with a cookie of its own
check "D is up" wait_until 60 test -f "$T_DIR/cld.ready"
rpc "$A" "erlang set_cookie ['$D', 'other$$']" >/dev/null
# on a busy machine a connection attempt can time out: tried until it holds
a_to_d() { [ "$(rpc "$A" "net_kernel connect_node ['$D']")" = true ]; }
check "A connects to D (D's own cookie)" wait_until 60 a_to_d
fp --cluster --connect-timeout 30s --duration 2s --every 500ms -o "$T_DIR/out2" "$A"
sed "s/^/#   /" "$T_DIR/fp.err"
is "$FP_RC" 79 "a member that refuses our cookie: exit 79"
is "$(fp_errors | grep -v '^flameprof: --cluster:' | wc -l)" 1 "one error sentence"
check "it names the node and where the cookie came from (the first node's)" grep -q "'$D' rejected the cookie from --cookie-file $T_DIR/cookie;" "$T_DIR/fp.err"
for n in cla clb clc; do
	check "node $n was sampled" sh -c "ls '$T_DIR/out2' | grep -q '^flameprof_${n}_.*\.perf\.zst$'"
done
for n in "$A" "$B" "$C"; do
	check "$n is clean afterwards" node_clean "$n"
done
finish

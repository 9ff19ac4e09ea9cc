#!/bin/bash
# Per-node cookies: nodes of separate releases on one host have separate
# cookies. --cookie-file NODE=FILE (repeatable) gives a node its own, held
# to the same rules as the plain form, in every command that connects:
# the capture over several nodes (A with the plain cookie, D with its
# own), --cluster (the peers take the first node's cookie unless told
# otherwise), calls, requests and top. A NODE=FILE for a node not given is a usage
# error; a group-readable one is refused as the plain form is.
T_TIMEOUT=300
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads || exit 1
# the three nodes boot at once
start_node_bg cka "fp_busy:start(1), fp_hostile_rex:start()"
A=$NODE
start_node_bg ckb "fp_busy:start(1)"
B=$NODE
D="ckd_$$@127.0.0.1"
erl -name "$D" -setcookie other$$ -noshell -noinput -kernel inet_dist_use_interface '{127,0,0,1}' -pa "$T_DIR/ebin" \
	-eval "fp_busy:start(1), file:write_file(\"$T_DIR/ckd_$$.ready\", \"\")" >"$T_DIR/ckd_$$.log" 2>&1 &
T_PIDS="$T_PIDS $!"
disown $!
node_up "$A" && node_up "$B" && node_up "$D" || exit 1
printf 'other%s\n' "$$" > "$T_DIR/dcookie"
chmod 600 "$T_DIR/dcookie"

dck="$D=$T_DIR/dcookie"

# the capture over several nodes
fp --duration 2s --every 500ms -o "$T_DIR/out1" "$A" "$D"
is "$FP_RC" 79 "A and D with one cookie: D refuses it (exit 79, A sampled)"
check "... it names D and where the cookie came from" grep -q "'$D' rejected the cookie from --cookie-file $T_DIR/cookie;" "$T_DIR/fp.err"
fp --duration 2s --every 500ms -o "$T_DIR/out2" --cookie-file "$dck" "$A" "$D"
is "$FP_RC" 0 "with --cookie-file D=FILE: both sampled, exit 0"
for n in cka ckd; do
	check "... $n has its files" sh -c "ls '$T_DIR/out2' | grep -q '^flameprof_${n}_.*\.perf\.zst$'"
done
fp --duration 1s --cookie-file "$dck" --cookie-file "$D=/nonexistent" "$A" "$D"
is "$FP_RC" 64 "D's cookie given twice: a usage error"
fp --duration 1s --cookie-file "nope_$$@127.0.0.1=$T_DIR/dcookie" "$A" "$D"
is "$FP_RC" 64 "a NODE=FILE for a node not given: a usage error"
check "... it names that node" grep -q "names 'nope_$$@127.0.0.1', which is not one of the nodes given" "$T_DIR/fp.err"
cp "$T_DIR/dcookie" "$T_DIR/dcookie_open"
chmod 640 "$T_DIR/dcookie_open"
fp --duration 1s --cookie-file "$D=$T_DIR/dcookie_open" "$A" "$D"
is "$FP_RC" 77 "a NODE=FILE others may read is refused as the plain form is (exit 77)"
check "... with erl's rule" grep -q "must be accessible by its owner only" "$T_DIR/fp.err"

# --cluster: A lists B and D; B takes A's cookie, D its own
rpc "$A" "fp_hostile_rex mode [{nodes, ['$B', '$D']}]" >/dev/null
fp --cluster --duration 2s --every 500ms -o "$T_DIR/out3" "$A"
is "$FP_RC" 79 "--cluster, one cookie: D refuses it (exit 79)"
fp --cluster --duration 2s --every 500ms -o "$T_DIR/out4" --cookie-file "$dck" "$A"
is "$FP_RC" 0 "--cluster with --cookie-file D=FILE: A, B (A's cookie) and D sampled, exit 0"
is "$(ls "$T_DIR/out4" | sed -E 's/^flameprof_(ck[abd])_.*/\1/' | sort -u | tr '\n' ' ')" "cka ckb ckd " "... each has its files"
fp --cluster --duration 1s --every 500ms -o "$T_DIR/out5" --cookie-file "$dck" --cookie-file "x_$$@127.0.0.1=$T_DIR/dcookie" "$A"
is "$FP_RC" 0 "--cluster with a NODE=FILE for a node not in it: still runs"
check "... and warns that it is not used" grep -q "warning: --cookie-file names 'x_$$@127.0.0.1', which '$A' is not connected to" "$T_DIR/fp.err"
rpc "$A" "fp_hostile_rex stop []" >/dev/null

# the commands of one node
fpc -p fp_busy --duration 1s --cookie-file "$dck" "$D"
is "$FP_RC" 0 "calls with --cookie-file D=FILE on D: exit 0"
fpc -p fp_busy --duration 1s --cookie-file "$dck" "$A"
is "$FP_RC" 64 "calls on A with only D's NODE=FILE: a usage error"
check "... naming the node" grep -q "names '$D', which is not the node given" "$T_DIR/fp.err"
fp_cmd requests --entry fp_busy:burn_cpu/1 --duration 1s --cookie-file "$dck" "$D"
is "$FP_RC" 0 "requests with --cookie-file D=FILE on D: exit 0"
fpt -n 2 --interval 500ms --every 500ms --cookie-file "$dck" "$D"
is "$FP_RC" 0 "top with --cookie-file D=FILE on D: exit 0"
check "... it showed D's processes" grep -q "fp_busy" "$T_DIR/fp.out"

# B failed this check once in CI's OTP 29 root (not seen in 4 runs there
# since): a failure now prints what was left (node_state), and the check
# gives the last run's cleanup 10 s, as the other commands' tests do
for n in "$A" "$B"; do
	check "$n is clean afterwards" node_clean_within 10 "$n"
done
finish

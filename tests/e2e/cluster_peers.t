#!/bin/bash
# --cluster takes what the first node lists with care: a node that lists a
# peer twice and itself (its rex answers nodes(visible) with [B, B, A]) has
# B profiled once and itself once, and the nodes flameprof will connect to
# are named before it connects to any.
T_TIMEOUT=300
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads || exit 1
start_node cpb "fp_busy:start(1)" || exit 1
B=$NODE
start_node cpa "fp_busy:start(1), fp_hostile_rex:start()" || exit 1
A=$NODE
rpc "$A" "fp_hostile_rex mode [{nodes, ['$B', '$B', '$A']}]" >/dev/null

fp -v --cluster --duration 2s --every 500ms -o "$T_DIR/out" "$A"
is "$FP_RC" 0 "A listing B twice and itself: exit 0"
check "it names the one node it will connect to" grep -q "^flameprof: --cluster: '$A' and 1 visible node it is connected to: '$B'\$" "$T_DIR/fp.err"
first() { grep -n -- "$1" "$T_DIR/fp.err" | head -1 | cut -d: -f1; }
c=$(first "^flameprof: --cluster:")
b=$(first "^flameprof: connecting to '$B'")
check "... before it connects to B (lines $c and $b)" test -n "$c" -a -n "$b" -a "${c:-0}" -lt "${b:-0}"
is "$(grep -c "^flameprof: connecting to '$B'" "$T_DIR/fp.err")" 1 "B is connected to once"
is "$(grep -c "samples in" "$T_DIR/fp.err")" 2 "the summary has two nodes"
is "$(ls "$T_DIR/out" | sed -E 's/^flameprof_(cp[ab])_.*/\1/' | sort -u | tr '\n' ' ')" "cpa cpb " "files of A and of B, nothing else"
# --cluster-hosts: peers on other hosts are named, skipped, never connected to
rpc "$A" "fp_hostile_rex mode [{nodes, ['x@elsewhere.invalid', '$B', 'y@Other.Example']}]" >/dev/null
fp --cluster --cluster-hosts '127.0.0.*,localhost' --duration 2s --every 500ms -o "$T_DIR/bounded" "$A"
is "$FP_RC" 0 "--cluster-hosts 127.0.0.*: exit 0"
for peer in x@elsewhere.invalid y@Other.Example; do
	check "$peer is skipped, in one sentence" grep -q \
		"^flameprof: warning: '$A' lists '$peer', on a host --cluster-hosts '127.0.0.\*,localhost' does not allow; skipped, never connected to\$" \
		"$T_DIR/fp.err"
	check "... and never connected to" sh -c "! grep -q \"connecting to '$peer'\" '$T_DIR/fp.err'"
done
check "B, on an allowed host, is profiled" grep -q "^flameprof: --cluster: '$A' and 1 visible node it is connected to: '$B'\$" "$T_DIR/fp.err"
is "$(ls "$T_DIR/bounded" | sed -E 's/^flameprof_(cp[ab])_.*/\1/' | sort -u | tr '\n' ' ')" "cpa cpb " "files of A and of B, nothing else"
rpc "$A" "fp_hostile_rex stop []" >/dev/null
for n in "$A" "$B"; do
	check "$n is clean afterwards" node_clean "$n"
done
finish

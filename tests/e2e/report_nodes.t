#!/bin/bash
# Two real nodes captured into one directory (a cluster's output):
# report draws them together with each node's stacks under node:NAME,
# outermost (folded lines stackcollapse-perf.pl's way), --node draws one
# (no node frame) or both, an unknown --node is refused in one sentence
# with exit 66, and pprof tells the nodes apart by its node label.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads || exit 1
start_node rna "fp_busy:start(2)" || exit 1
A=$NODE
start_node rnb "fp_busy:start(2)" || exit 1
B=$NODE
out="$T_DIR/out"

fp --duration 2s --every 500ms -o "$out" "$A"
is "$FP_RC" 0 "node A captured"
fp --duration 2s --every 500ms -o "$out" "$B"
is "$FP_RC" 0 "node B captured into the same directory"
check "both nodes' files are there" sh -c "ls '$out' | grep -q 'flameprof_rna_' && ls '$out' | grep -q 'flameprof_rnb_'"

rep() { "$FLAMEPROF" report "$@" >"$T_DIR/rep.out" 2>"$T_DIR/rep.err"; REP_RC=$?; sed 's/^/#   stderr: /' "$T_DIR/rep.err"; }

rep "$out" -f folded -o "$T_DIR/all.folded"
is "$REP_RC" 0 "report over the directory exits 0"
check "it says it draws both nodes together" grep -q "holds the files of 2 nodes ('$A', '$B'\|'$B', '$A'); drawing them together, each under a frame node:NAME" "$T_DIR/rep.err"
check "every line is a folded stack with its count" awk '!/^[^ ]+(;[^ ]+)* [0-9]+$/ { bad = 1 } END { exit bad }' "$T_DIR/all.folded"
check "node A's stacks start with node:$A" grep -q "^node:$A;running;.*fp_busy:burn_cpu/1 [0-9]*$" "$T_DIR/all.folded"
check "node B's stacks start with node:$B" grep -q "^node:$B;running;.*fp_busy:burn_cpu/1 [0-9]*$" "$T_DIR/all.folded"
is "$(grep -vc "^node:\($A\|$B\);" "$T_DIR/all.folded")" 0 "no stack without its node"

rep "$out" --node "$A" -f folded -o "$T_DIR/a.folded"
is "$REP_RC" 0 "--node A exits 0"
check "--node A: A's stacks, without a node frame" sh -c "grep -q '^running;.*fp_busy:burn_cpu/1' '$T_DIR/a.folded' && ! grep -q '^node:' '$T_DIR/a.folded'"
sum() { awk "$1"' { s += $NF } END { print s + 0 }' "$2"; }
is "$(sum '' "$T_DIR/a.folded")" "$(sum "/^node:$A;/" "$T_DIR/all.folded")" "--node A counts what the merged picture counts under node:$A"
rep "$out" --node "$B,$A" -f folded -o "$T_DIR/ba.folded"
check "--node B,A draws the same as no --node" cmp -s "$T_DIR/all.folded" "$T_DIR/ba.folded"

rep "$out" --node nosuch@host -f folded -o "$T_DIR/x.folded"
is "$REP_RC" 66 "an unknown --node: exit 66"
check "... in one sentence naming the nodes there are" grep -q "^flameprof: cannot find files of node 'nosuch@host' in '$out' (it holds '.*'; see --node)$" "$T_DIR/rep.err"
is "$(wc -l < "$T_DIR/rep.err")" 1 "... and nothing else"
check "... and writes nothing" test ! -e "$T_DIR/x.folded"

rep "$out" -o "$T_DIR/all.svg"
is "$REP_RC" 0 "the merged flame graph is drawn"
check "... with a frame per node" sh -c "grep -q 'node:$A' '$T_DIR/all.svg' && grep -q 'node:$B' '$T_DIR/all.svg'"

if command -v go >/dev/null 2>&1 && HOME="$T_DIR" GOCACHE="$ROOT/build/gocache" go tool pprof -h >/dev/null 2>&1; then
	rep "$out" -f pprof -o "$T_DIR/p.pb.gz"
	HOME="$T_DIR" GOCACHE="$ROOT/build/gocache" go tool pprof -tags "$T_DIR/p.pb.gz" > "$T_DIR/tags" 2>/dev/null
	check "pprof labels each sample with its node" sh -c "grep -qF '$A' '$T_DIR/tags' && grep -qF '$B' '$T_DIR/tags' && grep -q 'node: Total' '$T_DIR/tags'"
	check "... and has no node:NAME category instead" sh -c "! grep -q 'node:rn' '$T_DIR/tags'"
else
	skip "pprof's node label (go tool pprof not found)"
	skip "pprof has no node category"
fi
finish

#!/bin/bash
# A real capture carries the report index: every closed zstd file ends with
# it, still passes zstd -t and every reader rule, and `report` draws from
# the index exactly what it draws from the text (and from a decompressed
# copy). --no-index leaves it out; gzip files never have one.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node ixcap "fp_busy:start(6)" || exit 1

fp --top 10 --hz 97 --every 1s --duration 3500ms --rotate 1s -o "$T_DIR/out" "$NODE"
is "$FP_RC" 0 "a 3.5 s capture with --rotate 1s exits 0"
files=$(ls "$T_DIR/out"/flameprof_*.perf.zst 2>/dev/null | LC_ALL=C sort)
n=$(echo "$files" | grep -c .)
check "several files ($n)" test "$n" -ge 3
m=0
for f in $files; do [ "$(tail -c 8 "$f")" = FLPFIDX1 ] && m=$((m + 1)); done
is "$m" "$n" "every closed file ends with the report index's footer"
check "every file passes zstd -t and every perf-script reader rule" closed_ok "$T_DIR/out"

mkdir "$T_DIR/plain"
for f in $files; do zstd -dcq "$f" > "$T_DIR/plain/$(basename "${f%.zst}")"; done
# same ARGS...: index, --no-index and the decompressed copies draw the same.
same() {
	"$FLAMEPROF" report "$T_DIR/out" -q "$@" -o "$T_DIR/a" &&
	"$FLAMEPROF" report "$T_DIR/out" -q --no-index "$@" -o "$T_DIR/b" &&
	"$FLAMEPROF" report "$T_DIR/plain" -q "$@" -o "$T_DIR/c" &&
	cmp -s "$T_DIR/a" "$T_DIR/b" && cmp -s "$T_DIR/a" "$T_DIR/c" && [ -s "$T_DIR/a" ]
}
check "folded: index = text = decompressed copy" same -f folded
check "flame graph SVG with a heatmap: the same" same --heatmap "$T_DIR/h.svg"
check "--weight reductions_delta: the same" same -f folded -w reductions_delta
check "--weight memory: the same" same -f folded -w memory
check "--status running: the same" same -f folded --status running
check "--from 1 --to 2.5: the same" same -f folded --from 1 --to 2.5
"$FLAMEPROF" report "$T_DIR/out" -o "$T_DIR/f.svg" 2> "$T_DIR/r.err"
sed 's/^/#   /' "$T_DIR/r.err"
check "report says every file was read through its index" \
	grep -q "from $n files ($n through the report index)" "$T_DIR/r.err"
check "the folded stacks name the workload" grep -q 'fp_busy:burn_cpu/1' "$T_DIR/a"

fp --top 10 --every 1s --duration 1500ms --no-index -o "$T_DIR/noix" "$NODE"
is "$FP_RC" 0 "--no-index: exits 0"
f=$(ls "$T_DIR/noix"/flameprof_*.perf.zst | head -1)
check "--no-index: no footer" test "$(tail -c 8 "$f")" != FLPFIDX1
"$FLAMEPROF" report "$T_DIR/noix" -f folded -o "$T_DIR/n" 2> "$T_DIR/n.err"
check "--no-index: report reads the text, no warning" \
	sh -c "grep -q '(0 through the report index)' '$T_DIR/n.err' && ! grep -q warning '$T_DIR/n.err'"
a=$(stat -c %s "$f")
diag "sizes: $(for x in $files; do stat -c %s "$x"; done | tr '\n' ' ')with the index; $a without (1.5 s)"

fp --top 10 --every 1s --duration 1500ms --compress gzip -o "$T_DIR/gz" "$NODE"
is "$FP_RC" 0 "--compress gzip: exits 0"
"$FLAMEPROF" report "$T_DIR/gz" -f folded -o "$T_DIR/g" 2> "$T_DIR/g.err"
check "gzip: report reads the text" grep -q '(0 through the report index)' "$T_DIR/g.err"
check "the node is left as it was" node_clean "$NODE"
finish

#!/bin/bash
# report --format folded: the stacks and counts equal those of the generator's
# model (computed from the model, not by parsing the text), with hostile atoms,
# through zstd, gzip and a directory of several files; weights by a metric and
# by a delta, negatives under "negative".
: "${T_TIMEOUT:=60}"
. "$(dirname "$0")/../lib.sh"

gen --events 3000 --hostile --seed 7 --folded "$T_DIR/want.samples" > "$T_DIR/in.perf"
zstd -q "$T_DIR/in.perf" -o "$T_DIR/in.perf.zst"
"$FLAMEPROF" report --status all "$T_DIR/in.perf.zst" -f folded -o "$T_DIR/got" -q
is "$?" 0 "folded from zstd exits 0"
sort "$T_DIR/got" > "$T_DIR/got.s"
sort "$T_DIR/want.samples" > "$T_DIR/want.s"
check "sample counts per stack equal the model's (zstd, hostile atoms)" cmp -s "$T_DIR/got.s" "$T_DIR/want.s"
is "$(awk '{s += $NF} END {print s}' "$T_DIR/got")" 3000 "counts add up to the events"

for w in reductions memory_delta reductions_delta; do
	gen --events 2000 --hostile --seed 3 --weight "$w" --folded "$T_DIR/want.$w" > "$T_DIR/w.perf"
	gzip -c "$T_DIR/w.perf" > "$T_DIR/w.perf.gz"
	"$FLAMEPROF" report --status all "$T_DIR/w.perf.gz" -f folded -w "$w" -o "$T_DIR/got.$w" -q
	sort "$T_DIR/got.$w" > "$T_DIR/g"
	sort "$T_DIR/want.$w" > "$T_DIR/w"
	check "weighted by $w equals the model (gzip)" cmp -s "$T_DIR/g" "$T_DIR/w"
done
check "negative memory deltas sit under 'negative'" grep -q '^negative;' "$T_DIR/got.memory_delta"

# A directory: two files (one zstd, one gzip), a dotfile being written (its
# writer holds its lock: flock(1) plays it), another name.
mkdir "$T_DIR/dir"
gen --events 500 --seed 11 --start 1700000000.5 --span 5 --folded "$T_DIR/a.f" > "$T_DIR/a"
gen --events 700 --seed 12 --start 1700000006.5 --span 5 --folded "$T_DIR/b.f" > "$T_DIR/b"
zstd -q "$T_DIR/a" -o "$T_DIR/dir/flameprof_n_1.perf.zst"
gzip -c "$T_DIR/b" > "$T_DIR/dir/flameprof_n_2.perf.gz"
cp "$T_DIR/dir/flameprof_n_1.perf.zst" "$T_DIR/dir/.flameprof_n_3.perf.zst"
echo junk > "$T_DIR/dir/README"
flock "$T_DIR/dir/.flameprof_n_3.perf.zst" "$FLAMEPROF" report --status all "$T_DIR/dir" -f folded -o "$T_DIR/got.dir" -q
is "$(awk '{s += $NF} END {print s}' "$T_DIR/got.dir")" 1200 "a directory reads its two capture files, not a dotfile being written"
# the same dotfile, its lock free: a run that died; read, and said
"$FLAMEPROF" report --status all "$T_DIR/dir" -f folded -o "$T_DIR/got.dead" 2>"$T_DIR/dead.err"
is "$(awk '{s += $NF} END {print s}' "$T_DIR/got.dead")" 1700 "the dotfile of a run that died is read too"
check "and report says so" grep -q "reading '.*/.flameprof_n_3.perf.zst', the file of a run that died" "$T_DIR/dead.err"
rm "$T_DIR/dir/.flameprof_n_3.perf.zst"
cat "$T_DIR/a.f" "$T_DIR/b.f" | awk '{n = $NF; $NF = ""; c[$0] += n} END {for (k in c) print k c[k]}' | sort > "$T_DIR/w"
sort "$T_DIR/got.dir" > "$T_DIR/g"
check "directory counts equal both models summed" cmp -s "$T_DIR/g" "$T_DIR/w"

# A capture cut by a crash: the first frames still count, one warning.
head -c 300000 "$T_DIR/in.perf.zst" > "$T_DIR/cut.perf.zst"
"$FLAMEPROF" report --status all "$T_DIR/cut.perf.zst" -f folded -o "$T_DIR/got.cut" 2> "$T_DIR/err"
is "$?" 0 "a truncated zstd file still reports"
is "$(grep -c 'warning: .* ends inside a zstd frame' "$T_DIR/err")" 1 "with one warning"
n=$(awk '{s += $NF} END {print s}' "$T_DIR/got.cut")
check "with part of the events ($n)" test "$n" -gt 0 -a "$n" -lt 3000
finish

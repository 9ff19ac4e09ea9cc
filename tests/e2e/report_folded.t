#!/bin/sh
# report --format folded: the stacks and counts equal those of the generator's
# model (computed from the model, not by parsing the text), with hostile atoms,
# through zstd, gzip and a directory of several files; weights by a metric and
# by a delta, negatives under "negative".
. "$(dirname "$0")/../report/tap.sh"

gen --events 3000 --hostile --seed 7 --folded "$T/want.samples" > "$T/in.perf"
zstd -q "$T/in.perf" -o "$T/in.perf.zst"
"$FLAMEPROF" report --status all "$T/in.perf.zst" -f folded -o "$T/got" -q
is "$?" 0 "folded from zstd exits 0"
sort "$T/got" > "$T/got.s"
sort "$T/want.samples" > "$T/want.s"
ok "sample counts per stack equal the model's (zstd, hostile atoms)" cmp -s "$T/got.s" "$T/want.s"
is "$(awk '{s += $NF} END {print s}' "$T/got")" 3000 "counts add up to the events"

for w in reductions memory_delta reductions_delta; do
	gen --events 2000 --hostile --seed 3 --weight "$w" --folded "$T/want.$w" > "$T/w.perf"
	gzip -c "$T/w.perf" > "$T/w.perf.gz"
	"$FLAMEPROF" report --status all "$T/w.perf.gz" -f folded -w "$w" -o "$T/got.$w" -q
	sort "$T/got.$w" > "$T/g"
	sort "$T/want.$w" > "$T/w"
	ok "weighted by $w equals the model (gzip)" cmp -s "$T/g" "$T/w"
done
ok "negative memory deltas sit under 'negative'" grep -q '^negative;' "$T/got.memory_delta"

# A directory: two files (one zstd, one gzip), a dotfile being written (its
# writer holds its lock: flock(1) plays it), another name.
mkdir "$T/dir"
gen --events 500 --seed 11 --start 1700000000.5 --span 5 --folded "$T/a.f" > "$T/a"
gen --events 700 --seed 12 --start 1700000006.5 --span 5 --folded "$T/b.f" > "$T/b"
zstd -q "$T/a" -o "$T/dir/flameprof_n_1.perf.zst"
gzip -c "$T/b" > "$T/dir/flameprof_n_2.perf.gz"
cp "$T/dir/flameprof_n_1.perf.zst" "$T/dir/.flameprof_n_3.perf.zst"
echo junk > "$T/dir/README"
flock "$T/dir/.flameprof_n_3.perf.zst" "$FLAMEPROF" report --status all "$T/dir" -f folded -o "$T/got.dir" -q
is "$(awk '{s += $NF} END {print s}' "$T/got.dir")" 1200 "a directory reads its two capture files, not a dotfile being written"
# the same dotfile, its lock free: a run that died; read, and said
"$FLAMEPROF" report --status all "$T/dir" -f folded -o "$T/got.dead" 2>"$T/dead.err"
is "$(awk '{s += $NF} END {print s}' "$T/got.dead")" 1700 "the dotfile of a run that died is read too"
ok "and report says so" grep -q "reading '.*/.flameprof_n_3.perf.zst', the file of a run that died" "$T/dead.err"
rm "$T/dir/.flameprof_n_3.perf.zst"
cat "$T/a.f" "$T/b.f" | awk '{n = $NF; $NF = ""; c[$0] += n} END {for (k in c) print k c[k]}' | sort > "$T/w"
sort "$T/got.dir" > "$T/g"
ok "directory counts equal both models summed" cmp -s "$T/g" "$T/w"

# A capture cut by a crash: the first frames still count, one warning.
head -c 300000 "$T/in.perf.zst" > "$T/cut.perf.zst"
"$FLAMEPROF" report --status all "$T/cut.perf.zst" -f folded -o "$T/got.cut" 2> "$T/err"
is "$?" 0 "a truncated zstd file still reports"
is "$(grep -c 'warning: .* ends inside a zstd frame' "$T/err")" 1 "with one warning"
n=$(awk '{s += $NF} END {print s}' "$T/got.cut")
ok "with part of the events ($n)" test "$n" -gt 0 -a "$n" -lt 3000
finish

#!/bin/sh
# The report index: files written through rotate/ as a capture writes them
# (tests/report/ixgen.c) carry it; the text still decompresses exactly;
# `report` reads the index and draws exactly what reading the text draws,
# for every format, weight, filter and time cut; a damaged, cut or
# concatenated file falls back to its text with a warning.
. "$(dirname "$0")/../report/tap.sh"
: "${IXGEN:?set IXGEN to build/ixgen (make check does)}"

gen --events 3000 --hostile --seed 7 --start 1700000000.25 --span 6 \
	--folded "$T/want.samples" > "$T/in.perf"
mkdir "$T/ix"
"$IXGEN" "$T/ix" "gen@host" 400 1200 < "$T/in.perf" > "$T/files"
is "$?" 0 "ixgen writes the capture"
files=$(cat "$T/files")
is "$(echo "$files" | grep -c .)" 3 "3000 events at 1200 a file: 3 files"
n=0
for f in $files; do
	[ "$(tail -c 8 "$f")" = FLPFIDX1 ] && zstd -tq "$f" && n=$((n + 1))
done
is "$n" 3 "each file ends with the index's footer and passes zstd -t"
for f in $files; do zstd -dcq "$f"; done | grep -v '^#' > "$T/text"
grep -v '^#' "$T/in.perf" > "$T/in.events"
ok "the files decompress to exactly the text that went in" cmp -s "$T/text" "$T/in.events"

"$FLAMEPROF" report --status all "$T/ix" -f folded -o "$T/got" 2> "$T/err"
is "$?" 0 "report through the index exits 0"
ok "it says all 3 files were read through the index" \
	grep -q 'read 3000 events from 3 files (3 through the report index)' "$T/err"
sort "$T/got" > "$T/got.s"
sort "$T/want.samples" > "$T/want.s"
ok "sample counts per stack equal the generator's model (hostile atoms)" cmp -s "$T/got.s" "$T/want.s"

# same ARGS...: the index and the text give byte-identical output.
same() {
	"$FLAMEPROF" report --status all "$T/ix" -q "$@" -o "$T/a" 2> "$T/a.err"
	ra=$?
	"$FLAMEPROF" report --status all "$T/ix" -q --no-index "$@" -o "$T/b" 2> "$T/b.err"
	rb=$?
	[ "$ra" = "$rb" ] && cmp -s "$T/a" "$T/b" && cmp -s "$T/a.err" "$T/b.err" && [ -s "$T/a" ]
}
pid=$(awk '/ cpu-clock:/ { print $2; exit }' "$T/in.perf")
cat=$(grep -m1 'name:.*(\[category\])' "$T/in.perf" | sed 's/^\t0 \(name:[a-z_]*\).*/\1/')
ok "flame graph SVG: same from the index as from the text" same
ok "heatmap: same" same -f heatmap
ok "speedscope: same" same -f speedscope
ok "pprof: same" same -f pprof
ok "pprof with --weight memory_delta and a time cut: same" same -f pprof -w memory_delta --from 1 --to 4
ok "flame graph with --heatmap in the same pass: same" same --heatmap "$T/h.svg"
for w in reductions memory_delta reductions_delta erlang_heap_size; do
	ok "folded, --weight $w: same" same -f folded -w "$w"
done
ok "--status running,runnable: same" same -f folded --status running,runnable
ok "--pid $pid: same" same -f folded --pid "$pid"
ok "--category $cat: same" same -f folded --category "$cat"
ok "--from 1 --to 3.5: same" same -f folded --from 1 --to 3.5
ok "--from 2 with --weight memory_delta and a heatmap: same" same -f heatmap --from 2 -w memory_delta
"$FLAMEPROF" report --status all "$T/ix" -q -f folded -w no_such_metric -o "$T/x" 2> "$T/x.err"
is "$?" 64 "an unknown --weight metric through the index: exit 64"
ok "... with the same sentence as from the text" sh -c \
	"'$FLAMEPROF' report '$T/ix' -q --no-index -f folded -w no_such_metric -o '$T/y' 2>&1 | cmp -s - '$T/x.err'"

# Damage: each falls back to the text, says so, and draws the same picture.
first=$(echo "$files" | head -1)
cp "$first" "$T/bad.perf.zst"
size=$(stat -c %s "$first")
printf 'X' | dd of="$T/bad.perf.zst" bs=1 seek=$((size - 20)) conv=notrunc 2>/dev/null
"$FLAMEPROF" report --status all "$T/bad.perf.zst" -f folded -o "$T/bad" 2> "$T/bad.err"
is "$?" 0 "a damaged trailer: exit 0"
ok "... a warning that the index is not usable" grep -q 'report index .* is not usable' "$T/bad.err"
"$FLAMEPROF" report --status all "$first" -q --no-index -f folded -o "$T/good"
ok "... and the picture of the text" cmp -s "$T/bad" "$T/good"

head -c $((size - 5)) "$first" > "$T/cut.perf.zst"
"$FLAMEPROF" report --status all "$T/cut.perf.zst" -q -f folded -o "$T/cut" 2> "$T/cut.err"
is "$?" 0 "a file cut inside its trailer: exit 0"
ok "... the picture of its text" cmp -s "$T/cut" "$T/good"
ok "... and the warning that the file was cut short" grep -q 'ends inside a zstd frame' "$T/cut.err"

cat $files > "$T/cat.perf.zst"
"$FLAMEPROF" report --status all "$T/cat.perf.zst" -f folded -o "$T/cat" 2> "$T/cat.err"
"$FLAMEPROF" report --status all $files -q -f folded -o "$T/all"
ok "three files concatenated: the last trailer is refused, the text read" \
	sh -c "grep -q 'not usable' '$T/cat.err' && cmp -s '$T/cat' '$T/all'"
zstd -dcq "$first" | zstd -q -o "$T/recompressed.perf.zst"
"$FLAMEPROF" report --status all "$T/recompressed.perf.zst" -f folded -o "$T/rec" 2> "$T/rec.err"
ok "decompressed and compressed again (no index): the text, no warning" \
	sh -c "cmp -s '$T/rec' '$T/good' && grep -q '(0 through the report index)' '$T/rec.err' && ! grep -q warning '$T/rec.err'"
# The same events written as today's tid (S * 2^32 + N) instead of the N/S of
# older files: the same report, through the text and through the index.
awk '/ cpu-clock:/ { split($2, p, "/"); $2 = sprintf("%.0f", p[2] * 4294967296 + p[1]) } { print }' \
	OFS=' ' "$T/in.perf" > "$T/tid.perf"
ok "the tids are written (one past 2^32 at least)" grep -qE '^[a-z_]+ [0-9]{10,} \[000\]' "$T/tid.perf"
mkdir "$T/ixtid"
"$IXGEN" "$T/ixtid" "gen@host" 400 1200 < "$T/tid.perf" > /dev/null
for args in "-f folded" "-f folded --pid <0.101.1>" "-f pprof" "-f speedscope -w memory_delta"; do
	# shellcheck disable=SC2086
	"$FLAMEPROF" report --status all "$T/ix" -q $args -o "$T/old" 2>&1
	# shellcheck disable=SC2086
	"$FLAMEPROF" report --status all "$T/ixtid" -q $args -o "$T/new" 2>&1
	# shellcheck disable=SC2086
	"$FLAMEPROF" report --status all "$T/ixtid" -q --no-index $args -o "$T/newtext" 2>&1
	ok "$args: tid files give what N/S files give, through the index and the text" \
		sh -c "cmp -s '$T/old' '$T/new' && cmp -s '$T/old' '$T/newtext' && [ -s '$T/old' ]"
done
finish

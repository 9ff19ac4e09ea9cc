#!/bin/bash
# The report index: files written through rotate/ as a capture writes them
# (tests/report/ixgen.c) carry it; the text still decompresses exactly;
# `report` reads the index and draws exactly what reading the text draws,
# for every format, weight, filter and time cut; a damaged, cut or
# concatenated file falls back to its text with a warning.
: "${T_TIMEOUT:=60}"
. "$(dirname "$0")/../lib.sh"
: "${IXGEN:?set IXGEN to build/ixgen (make check does)}"

gen --events 3000 --hostile --seed 7 --start 1700000000.25 --span 6 \
	--folded "$T_DIR/want.samples" > "$T_DIR/in.perf"
mkdir "$T_DIR/ix"
"$IXGEN" "$T_DIR/ix" "gen@host" 400 1200 < "$T_DIR/in.perf" > "$T_DIR/files"
is "$?" 0 "ixgen writes the capture"
files=$(cat "$T_DIR/files")
is "$(echo "$files" | grep -c .)" 3 "3000 events at 1200 a file: 3 files"
n=0
for f in $files; do
	[ "$(tail -c 8 "$f")" = FLPFIDX1 ] && zstd -tq "$f" && n=$((n + 1))
done
is "$n" 3 "each file ends with the index's footer and passes zstd -t"
for f in $files; do zstd -dcq "$f"; done | grep -v '^#' > "$T_DIR/text"
grep -v '^#' "$T_DIR/in.perf" > "$T_DIR/in.events"
check "the files decompress to exactly the text that went in" cmp -s "$T_DIR/text" "$T_DIR/in.events"

"$FLAMEPROF" report --status all "$T_DIR/ix" -f folded -o "$T_DIR/got" 2> "$T_DIR/err"
is "$?" 0 "report through the index exits 0"
check "it says all 3 files were read through the index" \
	grep -q 'read 3000 events from 3 files (3 through the report index)' "$T_DIR/err"
sort "$T_DIR/got" > "$T_DIR/got.s"
sort "$T_DIR/want.samples" > "$T_DIR/want.s"
check "sample counts per stack equal the generator's model (hostile atoms)" cmp -s "$T_DIR/got.s" "$T_DIR/want.s"

# same ARGS...: the index and the text give byte-identical output.
same() {
	"$FLAMEPROF" report --status all "$T_DIR/ix" -q "$@" -o "$T_DIR/a" 2> "$T_DIR/a.err"
	ra=$?
	"$FLAMEPROF" report --status all "$T_DIR/ix" -q --no-index "$@" -o "$T_DIR/b" 2> "$T_DIR/b.err"
	rb=$?
	[ "$ra" = "$rb" ] && cmp -s "$T_DIR/a" "$T_DIR/b" && cmp -s "$T_DIR/a.err" "$T_DIR/b.err" && [ -s "$T_DIR/a" ]
}
pid=$(awk '/ cpu-clock:/ { print $2; exit }' "$T_DIR/in.perf")
cat=$(grep -m1 'name:.*(\[category\])' "$T_DIR/in.perf" | sed 's/^\t0 \(name:[a-z_]*\).*/\1/')
check "flame graph SVG: same from the index as from the text" same
check "heatmap: same" same -f heatmap
check "speedscope: same" same -f speedscope
check "pprof: same" same -f pprof
check "pprof with --weight memory_delta and a time cut: same" same -f pprof -w memory_delta --from 1 --to 4
check "flame graph with --heatmap in the same pass: same" same --heatmap "$T_DIR/h.svg"
for w in reductions memory_delta reductions_delta erlang_heap_size; do
	check "folded, --weight $w: same" same -f folded -w "$w"
done
check "--status running,runnable: same" same -f folded --status running,runnable
check "--pid $pid: same" same -f folded --pid "$pid"
check "--category $cat: same" same -f folded --category "$cat"
check "--from 1 --to 3.5: same" same -f folded --from 1 --to 3.5
check "--from 2 with --weight memory_delta and a heatmap: same" same -f heatmap --from 2 -w memory_delta
"$FLAMEPROF" report --status all "$T_DIR/ix" -q -f folded -w no_such_metric -o "$T_DIR/x" 2> "$T_DIR/x.err"
is "$?" 64 "an unknown --weight metric through the index: exit 64"
check "... with the same sentence as from the text" sh -c \
	"'$FLAMEPROF' report '$T_DIR/ix' -q --no-index -f folded -w no_such_metric -o '$T_DIR/y' 2>&1 | cmp -s - '$T_DIR/x.err'"

# Damage: each falls back to the text, says so, and draws the same picture.
first=$(echo "$files" | head -1)
cp "$first" "$T_DIR/bad.perf.zst"
size=$(stat -c %s "$first")
printf 'X' | dd of="$T_DIR/bad.perf.zst" bs=1 seek=$((size - 20)) conv=notrunc 2>/dev/null
"$FLAMEPROF" report --status all "$T_DIR/bad.perf.zst" -f folded -o "$T_DIR/bad" 2> "$T_DIR/bad.err"
is "$?" 0 "a damaged trailer: exit 0"
check "... a warning that the index is not usable" grep -q 'report index .* is not usable' "$T_DIR/bad.err"
"$FLAMEPROF" report --status all "$first" -q --no-index -f folded -o "$T_DIR/good"
check "... and the picture of the text" cmp -s "$T_DIR/bad" "$T_DIR/good"

head -c $((size - 5)) "$first" > "$T_DIR/cut.perf.zst"
"$FLAMEPROF" report --status all "$T_DIR/cut.perf.zst" -q -f folded -o "$T_DIR/cut" 2> "$T_DIR/cut.err"
is "$?" 0 "a file cut inside its trailer: exit 0"
check "... the picture of its text" cmp -s "$T_DIR/cut" "$T_DIR/good"
check "... and the warning that the file was cut short" grep -q 'ends inside a zstd frame' "$T_DIR/cut.err"

cat $files > "$T_DIR/cat.perf.zst"
"$FLAMEPROF" report --status all "$T_DIR/cat.perf.zst" -f folded -o "$T_DIR/cat" 2> "$T_DIR/cat.err"
"$FLAMEPROF" report --status all $files -q -f folded -o "$T_DIR/all"
check "three files concatenated: the last trailer is refused, the text read" \
	sh -c "grep -q 'not usable' '$T_DIR/cat.err' && cmp -s '$T_DIR/cat' '$T_DIR/all'"
zstd -dcq "$first" | zstd -q -o "$T_DIR/recompressed.perf.zst"
"$FLAMEPROF" report --status all "$T_DIR/recompressed.perf.zst" -f folded -o "$T_DIR/rec" 2> "$T_DIR/rec.err"
check "decompressed and compressed again (no index): the text, no warning" \
	sh -c "cmp -s '$T_DIR/rec' '$T_DIR/good' && grep -q '(0 through the report index)' '$T_DIR/rec.err' && ! grep -q warning '$T_DIR/rec.err'"
# The same events written as today's tid (S * 2^32 + N) instead of the N/S of
# older files: the same report, through the text and through the index.
awk '/ cpu-clock:/ { split($2, p, "/"); $2 = sprintf("%.0f", p[2] * 4294967296 + p[1]) } { print }' \
	OFS=' ' "$T_DIR/in.perf" > "$T_DIR/tid.perf"
check "the tids are written (one past 2^32 at least)" grep -qE '^[a-z_]+ [0-9]{10,} \[000\]' "$T_DIR/tid.perf"
mkdir "$T_DIR/ixtid"
"$IXGEN" "$T_DIR/ixtid" "gen@host" 400 1200 < "$T_DIR/tid.perf" > /dev/null
for args in "-f folded" "-f folded --pid <0.101.1>" "-f pprof" "-f speedscope -w memory_delta"; do
	# shellcheck disable=SC2086
	"$FLAMEPROF" report --status all "$T_DIR/ix" -q $args -o "$T_DIR/old" 2>&1
	# shellcheck disable=SC2086
	"$FLAMEPROF" report --status all "$T_DIR/ixtid" -q $args -o "$T_DIR/new" 2>&1
	# shellcheck disable=SC2086
	"$FLAMEPROF" report --status all "$T_DIR/ixtid" -q --no-index $args -o "$T_DIR/newtext" 2>&1
	check "$args: tid files give what N/S files give, through the index and the text" \
		sh -c "cmp -s '$T_DIR/old' '$T_DIR/new' && cmp -s '$T_DIR/old' '$T_DIR/newtext' && [ -s '$T_DIR/old' ]"
done
finish

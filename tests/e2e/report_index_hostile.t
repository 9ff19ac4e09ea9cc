#!/bin/bash
# Files whose report index claims more than they hold (issue 50, item 1;
# doc/security.md): the review's shapes, made by tests/report/ixhostile.py
# (columns of zeros claiming 1 GiB each, tables that inflate to 1 GB, 5
# million 3-byte frames) and a capture whose stack column is damaged in its
# second block, all in one directory with two sound captures. `report`
# reads each under a memory limit (prlimit --as) that a real capture of
# that size stays far below: each bad index is set aside with one sentence
# naming its file, its text read, the rest of the directory read through
# the index, and the pictures are those of --no-index. Each one's peak
# memory is printed (doc/security.md has the figures).
: "${T_TIMEOUT:=120}"
. "$(dirname "$0")/../lib.sh"
: "${IXGEN:?set IXGEN to build/ixgen (make check does)}"

LIMIT=$((192 << 20)) # bytes of address space for each report
d="$T_DIR/dir"
mkdir -p "$d" "$T_DIR/sound"
hostile() { python3 "$ROOT/tests/report/ixhostile.py" "$@"; }
# report ARGS...: flameprof report under the limit; $RC its status, $PEAK_KB
# its peak RSS (GNU time's, a check dependency)
report() {
	/usr/bin/time -o "$T_DIR/peak" -f %M prlimit --as=$LIMIT "$FLAMEPROF" report "$@"
	RC=$?
	PEAK_KB=$(tail -1 "$T_DIR/peak")
}

# two sound captures, and a third damaged in its second block's stack column
for k in 1 2 3; do
	gen --events 20000 --seed $k --start $((1700000000 + 100 * k)) --span 20 > "$T_DIR/in$k.perf"
	"$IXGEN" "$T_DIR/sound" "shop@host" 50000 < "$T_DIR/in$k.perf" > /dev/null 2>&1
done
ls "$T_DIR/sound"/flameprof_* > "$T_DIR/sound.list"
is "$(grep -c . "$T_DIR/sound.list")" 3 "three captures written through the index writer"
damaged=$(sed -n 3p "$T_DIR/sound.list")
cp "$T_DIR/sound"/flameprof_* "$d"/
damaged="$d/$(basename "$damaged")"
hostile damage "$damaged" 1
check "the third one's stack column, in its second block, is damaged" \
	sh -c "! cmp -s '$damaged' '$T_DIR/sound/$(basename "$damaged")'"

t0=$(now_ms)
hostile zeros "$d/flameprof_shop@host_20231114T230000.000Z.perf.zst" &&
	hostile tables "$d/flameprof_shop@host_20231114T230100.000Z.perf.zst" &&
	hostile frames "$d/flameprof_shop@host_20231114T230200.000Z.perf.zst"
is "$?" 0 "the hostile files are made ($(( $(now_ms) - t0 )) ms)"
for f in "$d"/flameprof_*; do diag "$(basename "$f"): $(wc -c < "$f") bytes"; done

# a real capture of about the size of the largest hostile file, under the limit
report "$T_DIR/sound" -q -f pprof -o "$T_DIR/sound.pprof"
is "$RC" 0 "three sound captures, -f pprof, under the limit: exit 0"
diag "peak of report -f pprof on three sound captures ($(cat "$T_DIR/sound"/flameprof_* | wc -c) bytes): $PEAK_KB KiB"
check "... far below the limit (under a quarter)" test "$PEAK_KB" -lt $((LIMIT / 1024 / 4))

# each hostile file alone, in the formats that read the most columns
for shape in zeros tables frames; do
	case $shape in zeros) f=230000 want="a column claims more bytes than its events can hold" ;;
		tables) f=230100 want="its tables add up to more than 64 MiB, more than flameprof writes" ;;
		frames) f=230200 want="its tables would take more than 16 MiB, more than a file of" ;; esac
	file="$d/flameprof_shop@host_20231114T$f.000Z.perf.zst"
	for fmt in svg pprof html; do
		t0=$(now_ms)
		report "$file" -f $fmt -o "$T_DIR/$shape.$fmt" 2> "$T_DIR/$shape.$fmt.err"
		is "$RC" 0 "$shape, -f $fmt, under the limit: exit 0 ($(( $(now_ms) - t0 )) ms, peak $PEAK_KB KiB)"
		check "$shape, -f $fmt: one sentence sets its index aside and reads its text" grep -q \
			"^flameprof: warning: the report index in '$file' is not usable ($want.*); reading its text$" \
			"$T_DIR/$shape.$fmt.err"
		check "$shape, -f $fmt: its text's 20 events" grep -q "read 20 events from 1 file (0 through the report index)" \
			"$T_DIR/$shape.$fmt.err"
		check "$shape, -f $fmt: well under the limit (a quarter)" test "$PEAK_KB" -lt $((LIMIT / 1024 / 4))
	done
done

# the whole directory: each bad file set aside, the rest read
for fmt in folded pprof; do
	t0=$(now_ms)
	report "$d" -f $fmt -o "$T_DIR/dir.$fmt" 2> "$T_DIR/dir.$fmt.err"
	is "$RC" 0 "the directory, -f $fmt, under the limit: exit 0 ($(( $(now_ms) - t0 )) ms, peak $PEAK_KB KiB)"
	is "$(grep -c 'is not usable' "$T_DIR/dir.$fmt.err")" 4 "-f $fmt: four indexes set aside, each in one sentence"
	check "-f $fmt: the damaged capture's among them" grep -q \
		"^flameprof: warning: the report index in '$damaged' is not usable (.*); reading its text$" "$T_DIR/dir.$fmt.err"
	check "-f $fmt: every event read, two files through the index" grep -q \
		"read 60060 events from 6 files (2 through the report index)" "$T_DIR/dir.$fmt.err"
done
"$FLAMEPROF" report -q --no-index "$d" -f folded -o "$T_DIR/dir.text.folded"
check "the directory's stacks are those of --no-index, value for value" cmp -s "$T_DIR/dir.folded" "$T_DIR/dir.text.folded"
sed 's/^/# /' "$T_DIR/dir.folded.err"
finish

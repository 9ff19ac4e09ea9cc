#!/bin/bash
# report reads files it cannot trust (issue 18): no recursion whose depth a
# file chooses, memory that follows the data and not the time span, JSON
# that parses, and output files written aside and renamed (a failed run
# leaves an old file as it was; a symlink at the name is replaced, never
# written through).
: "${T_TIMEOUT:=60}"
. "$(dirname "$0")/../lib.sh"

# two events of 300,000 frames each (the same stack twice)
python3 - > "$T_DIR/deep.perf" <<'PY'
import sys
o = sys.stdout
for t in ("1700000000.100000", "1700000000.600000"):
    o.write("running 1/0 [000] %s: 1 cpu-clock:\n" % t)
    o.write("".join("\t0 m:f%d/0 (m.erl:%d)\n" % (i % 997, i % 50 + 1) for i in range(300000)))
    o.write("\n")
PY
for f in svg heatmap folded speedscope pprof html; do
	"$FLAMEPROF" report -q -f "$f" -o "$T_DIR/deep.$f" "$T_DIR/deep.perf" 2> "$T_DIR/err"
	is "$?" 0 "300,000 frames a stack: $f exits 0"
done
is "$(awk '{print NF}' "$T_DIR/deep.folded" | head -1)" 2 "the folded stack is one line"
is "$(tr ';' '\n' < "$T_DIR/deep.folded" | wc -l | tr -d ' ')" 300001 "with the status and 300,000 frames"
check "the deep speedscope file is JSON" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T_DIR/deep.speedscope"

# the bounds on what a file can make report hold: each a clear error
python3 - > "$T_DIR/toodeep.perf" <<'PY'
import sys
sys.stdout.write("running 1/0 [000] 10.5: 1 cpu-clock:\n" + "\t0 m:f/0\n" * (1048576 + 1) + "\n")
PY
"$FLAMEPROF" report -q -f folded -o "$T_DIR/toodeep.folded" "$T_DIR/toodeep.perf" 2> "$T_DIR/err"
is "$?" 65 "an event of 1,048,577 frames: exit 65"
is "$(cat "$T_DIR/err")" "flameprof: cannot read '$T_DIR/toodeep.perf': an event has more than 1048576 frames (is it a flameprof capture?)" "it says so, naming the file"
python3 -c "print('running 1/0 [000] 10.5: 1 cpu-clock:\n\t0 m:' + 'x' * 70000 + '/0\n')" > "$T_DIR/longframe.perf"
"$FLAMEPROF" report -q -f folded -o "$T_DIR/longframe.folded" "$T_DIR/longframe.perf" 2> "$T_DIR/err"
is "$?" 65 "a frame of 70,000 bytes: exit 65"
check "it says so" grep -q "a frame is longer than 65536 bytes" "$T_DIR/err"
python3 -c "import sys; sys.stdout.write('x' * (65 << 20))" > "$T_DIR/longline.perf"
"$FLAMEPROF" report -q -f folded -o "$T_DIR/longline.folded" "$T_DIR/longline.perf" 2> "$T_DIR/err"
is "$?" 65 "a line of 65 MiB: exit 65"
check "it says so" grep -q "a line is longer than 64 MiB" "$T_DIR/err"
rm -f "$T_DIR/longline.perf" "$T_DIR/toodeep.perf"

# two events 30 days apart: memory for two events, not for 2.6 million seconds
python3 - > "$T_DIR/span.perf" <<'PY'
for t in (1700000000, 1700000000 + 30 * 86400):
    print("running 1/0 [000] %d.100000: 1 cpu-clock:\n\t0 m:f/0 (m.erl:1)\n" % t)
PY
if [ -x /usr/bin/time ]; then
	for f in svg heatmap folded speedscope pprof html; do
		/usr/bin/time -v "$FLAMEPROF" report -q -f "$f" -o "$T_DIR/span.$f" "$T_DIR/span.perf" 2> "$T_DIR/time"
		is "$?" 0 "30 days between two events: $f exits 0"
		kb=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$T_DIR/time")
		check "30 days between two events: $f holds under 200 MB (${kb:-?} KB)" test "${kb:-999999}" -lt 204800
	done
else
	skip "30 days between two events: memory" "/usr/bin/time is not installed"
fi
[ -f "$T_DIR/span.heatmap" ] || "$FLAMEPROF" report -q -f heatmap -o "$T_DIR/span.heatmap" "$T_DIR/span.perf"
check "the 30-day heatmap draws both events" sh -c "test \$(grep -c '<rect x=\"[0-9]*\" y=\"[0-9]*\" width=\"[0-9]*\" height=\"8\" fill' '$T_DIR/span.heatmap') -eq 2"
# 40 days: the heatmap stops at 31, and says what it left out
python3 - > "$T_DIR/long.perf" <<'PY'
for t in (1700000000, 1700000000 + 40 * 86400):
    print("running 1/0 [000] %d.100000: 1 cpu-clock:\n\t0 m:f/0 (m.erl:1)\n" % t)
PY
"$FLAMEPROF" report -q -f heatmap -o "$T_DIR/long.svg" "$T_DIR/long.perf"
is "$?" 0 "40 days between two events: the heatmap exits 0"
check "it says the event past 31 days is not drawn" grep -q '1 events more than 31 days later not drawn' "$T_DIR/long.svg"

# speedscope: a line number with leading zeros is written as a JSON number
printf 'running 1/0 [000] 10.5: 1 cpu-clock:\n\t0 m:f/0 (m.erl:007)\n\t0 m:g/0 (m.erl:000)\n\t0 m:h/0 (m.erl:12345678901234567890)\n\n' > "$T_DIR/zero.perf"
"$FLAMEPROF" report -q -f speedscope -o "$T_DIR/zero.json" "$T_DIR/zero.perf"
check "line numbers with leading zeros: the file is JSON, lines 7 and 0, a huge one left in the file name" python3 - "$T_DIR/zero.json" <<'PY'
import json, sys
fr = {f["name"]: f for f in json.load(open(sys.argv[1]))["shared"]["frames"]}
assert fr["m:f/0"]["line"] == 7 and fr["m:f/0"]["file"] == "m.erl", fr
assert fr["m:g/0"]["line"] == 0, fr
assert "line" not in fr["m:h/0"] and fr["m:h/0"]["file"] == "m.erl:12345678901234567890", fr
PY

# output files: written aside, renamed; a failed run leaves the old one
printf 'old picture\n' > "$T_DIR/old.svg"
cp "$T_DIR/old.svg" "$T_DIR/old.svg.orig"
"$FLAMEPROF" report -q -o "$T_DIR/old.svg" "$T_DIR/no-such-file" 2> /dev/null
is "$?" 66 "a missing input: exit 66"
check "the old -o file of a failed run is unchanged" cmp -s "$T_DIR/old.svg" "$T_DIR/old.svg.orig"
"$FLAMEPROF" report -q -w no_such_metric -o "$T_DIR/old.svg" --heatmap "$T_DIR/old.svg" "$T_DIR/span.perf" 2> /dev/null
is "$?" 64 "an unknown metric: exit 64"
check "the old file is still unchanged" cmp -s "$T_DIR/old.svg" "$T_DIR/old.svg.orig"
check "no temporary file is left" sh -c "! ls -A '$T_DIR' | grep -q '\\.tmp-'"
printf 'not yours\n' > "$T_DIR/victim"
ln -s "$T_DIR/victim" "$T_DIR/link.svg"
ln -s "$T_DIR/victim" "$T_DIR/link-heat.svg"
(umask 022; "$FLAMEPROF" report -q -o "$T_DIR/link.svg" --heatmap "$T_DIR/link-heat.svg" "$T_DIR/span.perf")
is "$?" 0 "-o and --heatmap at symlinks: exit 0"
is "$(cat "$T_DIR/victim")" "not yours" "the symlinks' target is not written"
check "the symlinks were replaced by the new files" sh -c "test -f '$T_DIR/link.svg' && ! test -L '$T_DIR/link.svg' && test -f '$T_DIR/link-heat.svg' && ! test -L '$T_DIR/link-heat.svg'"
is "$(stat -c %a "$T_DIR/link.svg")" 640 "a new output file's mode is 0640"
(umask 077; "$FLAMEPROF" report -q -f folded -o "$T_DIR/private.folded" "$T_DIR/span.perf")
is "$(stat -c %a "$T_DIR/private.folded")" 600 "a stricter umask is kept"
mkdir "$T_DIR/adir"
"$FLAMEPROF" report -q -o "$T_DIR/adir" "$T_DIR/span.perf" 2> "$T_DIR/err"
is "$?" 74 "-o naming a directory: exit 74"
check "it says it cannot replace it" grep -q "cannot replace '$T_DIR/adir'" "$T_DIR/err"
# inputs: a FIFO is refused, not waited on; in a directory, only regular
# files are read (a planted FIFO or link is passed over)
mkfifo "$T_DIR/fifo.perf"
timeout 10 "$FLAMEPROF" report -q -f folded -o - "$T_DIR/fifo.perf" > /dev/null 2> "$T_DIR/err"
is "$?" 66 "a FIFO as input: exit 66 at once"
check "it says it is not a regular file" grep -q "cannot open '$T_DIR/fifo.perf': not a regular file" "$T_DIR/err"
mkdir "$T_DIR/caps"
cp "$T_DIR/zero.perf" "$T_DIR/caps/flameprof_n_20231114T221320.123Z.perf"
mkfifo "$T_DIR/caps/flameprof_n_20231114T221321.123Z.perf"
ln -s /etc/passwd "$T_DIR/caps/flameprof_n_20231114T221322.123Z.perf"
timeout 10 "$FLAMEPROF" report -q -f folded -o "$T_DIR/caps.folded" "$T_DIR/caps" 2> "$T_DIR/err"
is "$?" 0 "a directory with a FIFO and a link among the captures: exit 0"
is "$(cat "$T_DIR/caps.folded")" "running;m:h/0;m:g/0;m:f/0 1" "only the regular file was read"

"$FLAMEPROF" report -q -f folded -o - "$T_DIR/span.perf" > "$T_DIR/stdout.folded"
is "$(cat "$T_DIR/stdout.folded")" "running;m:f/0 2" "-o - streams to standard output"
finish

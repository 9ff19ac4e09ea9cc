#!/bin/bash
# The page's time over any span a capture can hold (issue 50, item 2): two
# captures 16 months apart in one directory, and a capture with one event
# 3 years, 100 years and 290,000 years (past the last date a browser has)
# after the others. Each page is loaded in headless chromium
# (tests/report/html_drive.py) and must show the whole capture's samples
# without a script error, its last 20 ms cell and its span as counted from
# the events themselves, and a mouse drag across the heatmap's last column
# must hold the late events' stacks as `report -f folded --from @T` gives
# them. (The page kept its cells in 32 bits: 3 years drew "3 samples over
# 8708655 s", 100 years threw a RangeError.)
: "${T_TIMEOUT:=120}"
. "$(dirname "$0")/../lib.sh"

chromium_or_finish
t1=1700000000
# 16 months of 30.4 days, then 3 years, 100 years and 290,000 years of 365.25
late_16m=$((t1 + 16 * 2629800))
late_3y=$((t1 + 3 * 31557600))
late_100y=$((t1 + 100 * 31557600))
late_far=$((t1 + 290000 * 31557600))
mkdir -p "$T_DIR/months16"
gen --events 400 --seed 3 --start $t1.25 --span 10 > "$T_DIR/months16/flameprof_shop@host_20231114T221320.250Z.perf"
gen --events 300 --seed 4 --start $late_16m.5 --span 10 > "$T_DIR/months16/flameprof_shop@host_20250314T000000.500Z.perf"
planted() { # planted NAME SECOND: a capture, then one event at SECOND
	gen --events 400 --seed 5 --start $t1.25 --span 10 > "$T_DIR/$1.perf"
	printf 'running 1/0 [000] %s.500000: 1 cpu-clock:\n\t0 late:work/0 (late.erl:1)\n\n' "$2" >> "$T_DIR/$1.perf"
}
planted years3 $late_3y
planted years100 $late_100y
planted far $late_far

steps=""
for p in months16:$late_16m years3:$late_3y years100:$late_100y far:$late_far; do
	name=${p%%:*} late=${p#*:}
	in="$T_DIR/$name"
	[ -d "$in" ] || in="$in.perf"
	"$FLAMEPROF" report -q "$in" -o "$T_DIR/$name.html"
	is "$?" 0 "$name: report -o $name.html exits 0"
	"$FLAMEPROF" report -q "$in" -f folded -o "$T_DIR/$name.all.folded"
	"$FLAMEPROF" report -q "$in" -f folded --from "@$late" -o "$T_DIR/$name.late.folded"
	# the last event's cell and the late events' first, from the text itself
	python3 - "$in" "$late" > "$T_DIR/$name.cells" <<'PY'
import glob, os, re, sys
src, late = sys.argv[1], int(sys.argv[2])
files = sorted(glob.glob(src + "/flameprof_*")) if os.path.isdir(src) else [src]
times = [int(m.group(1)) * 1000000 + int(m.group(2).ljust(6, "0"))
         for f in files for m in re.finditer(r"^\S+ \S+ \[\d+\] (\d+)\.(\d+): ", open(f).read(), re.M)]
t0 = min(times) // 1000000
cell = lambda us: us // 20000 - t0 * 50
print(cell(max(times)), cell(min(t for t in times if t >= late * 1000000)), len(times))
PY
	read -r last first_late events < "$T_DIR/$name.cells"
	echo "$last $events" > "$T_DIR/$name.last"
	mkdir -p "$T_DIR/shots_$name"
	steps="$steps $T_DIR/$name.html $T_DIR/shots_$name {\"a\":[$first_late,$last],\"shots\":false}"
done
# and the legend: a category frame whose name holds U+2028 (a line
# separator, which a regular expression's '.' stops at) is of its category
printf 'running 1/0 [000] 1700000000.100000: 1 cpu-clock:\n\t0 m:f/0 (m.erl:1)\n\t0 name:srv\xe2\x80\xa8x ([category])\n\n' > "$T_DIR/ls.perf"
printf 'running 2/0 [000] 1700000000.200000: 1 cpu-clock:\n\t0 m:g/0 (m.erl:1)\n\t0 name:other ([category])\n\n' >> "$T_DIR/ls.perf"
"$FLAMEPROF" report -q "$T_DIR/ls.perf" -o "$T_DIR/ls.html"
mkdir -p "$T_DIR/shots_ls"
t0=$(now_ms)
# shellcheck disable=SC2086
timeout 100 python3 "$ROOT/tests/report/html_drive.py" $steps "$T_DIR/ls.html" "$T_DIR/shots_ls" '{"shots":false}' > "$T_DIR/drive.out"
is "$(wc -l < "$T_DIR/drive.out")" 5 "the driver reports on the 5 pages ($(( $(now_ms) - t0 )) ms)"
legend=$(sed -n 5p "$T_DIR/drive.out" | python3 -c 'import json, re, sys
j = json.load(sys.stdin)
m = re.search(r"category rows: (.*?)functions", j["legend_text"], re.S)
print(j["errors"][:2], repr(m and m.group(1)))')
is "$legend" "[] 'name'" "a name holding U+2028 is of its category in the legend: one category, no script error"
n=0
for name in months16 years3 years100 far; do
	n=$((n + 1))
	sed -n "${n}p" "$T_DIR/drive.out" > "$T_DIR/$name.json"
	PYTHONPATH="$ROOT/tests/report" python3 - "$T_DIR" "$name" > "$T_DIR/$name.checks" <<'PY'
import json, math, sys
from folded_sums import read_folded
d, name = sys.argv[1], sys.argv[2]
sys.excepthook = lambda t, v, tb: print("not ok %s: the page's findings are all there (%s: %s)" % (name, t.__name__, v))
j = json.load(open("%s/%s.json" % (d, name)))
def say(ok, what): print(("ok " if ok else "not ok ") + name + ": " + what)
allf, late = read_folded("%s/%s.all.folded" % (d, name)), read_folded("%s/%s.late.folded" % (d, name))
last, events = map(int, open("%s/%s.last" % (d, name)).read().split())
say(not j["errors"], "the page runs without a script error %s" % j["errors"][:2])
say(j["whole_total"] == sum(allf.values()), "the whole capture's samples (%s, folded %d)" % (j["whole_total"], sum(allf.values())))
say(j["last_cell"] == last, "the last event's 20 ms cell is the text's (%s, want %d; %s s a column)"
    % (j["last_cell"], last, j["seconds_per_column"]))
span = "%d samples over %d s" % (events, math.ceil((last + 1) * 0.02))
say(span.replace(",", "") in j["capture"].replace(",", ""), "the capture line says '%s' (%s)" % (span, j["capture"]))
say("NaN" not in j["capture"] and "Invalid" not in j["capture"], "... and no NaN or Invalid Date")
got = {s: int(v) for s, v in j["a"]["folded"].items()}
say(got == late and late, "a drag across the late column holds the late events' %d stacks, value for value (%d samples)"
    % (len(late), sum(late.values())))
say("NaN" not in j["a"]["text"], "the range's text has no NaN (%s)" % j["a"]["text"][:120])
PY
	tap_lines "$T_DIR/$name.checks"
done
finish

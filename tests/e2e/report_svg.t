#!/bin/bash
# The flame graph and heatmap SVGs: well-formed XML, widths that add up to
# the counts (golden structure), names shown unescaped, the omitted-frames
# note, and a heatmap cell per 20 ms.
: "${T_TIMEOUT:=60}"
. "$(dirname "$0")/../lib.sh"

gen --events 4000 --hostile --seed 5 > "$T_DIR/in.perf"
zstd -q "$T_DIR/in.perf" -o "$T_DIR/in.perf.zst"
"$FLAMEPROF" report --status all "$T_DIR/in.perf.zst" -o "$T_DIR/flame.svg" --heatmap "$T_DIR/heat.svg" --title 'hostile <&> test' 2> "$T_DIR/err"
is "$?" 0 "report exits 0"
check "the summary names both files" grep -q "wrote heatmap '$T_DIR/heat.svg'" "$T_DIR/err"
check "flame graph: XML parses, widths match counts, root is 4000" python3 "$ROOT/tests/report/check_svg.py" "$T_DIR/flame.svg" 4000
check "the note says how many narrow frames were omitted" grep -q 'frames narrower than 1 px omitted' "$T_DIR/flame.svg"
check "hostile atoms shown unescaped and XML-escaped" grep -q 'a;b:' "$T_DIR/flame.svg"
check "markup in atoms is escaped" grep -q '&lt;script&gt;&amp;amp;&lt;/script&gt;' "$T_DIR/flame.svg"
check "category frames are coloured apart" python3 - "$T_DIR/flame.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
cat, code = set(), set()
for g in ET.parse(sys.argv[1]).getroot().iter(NS + "g"):
    if g.get("class") == "f":
        t = g.find(NS + "title").text
        (cat if "category frame" in t else code).add(g.find(NS + "rect").get("fill"))
sys.exit(0 if cat and code and not (cat & code) else 1)
PY
check "no external reference (self-contained)" sh -c "! grep -Eq '(href|src)=\"(https?:)?//' '$T_DIR/flame.svg'"
check "heatmap: XML parses, 50 rows, values add up to the events" python3 - "$T_DIR/heat.svg" <<'PY'
import re, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
js = "".join(s.text for s in root.iter("{http://www.w3.org/2000/svg}script"))
# the seconds that have events, as column:[50 counts]
n = {int(c): [int(x) for x in v.split(",")] for c, v in re.findall(r"(\d+):\[([\d,]*)\]", re.search(r"n:\{([\d:,\[\]]*)\}", js).group(1))}
cols = int(re.search(r"cols:(\d+)", js).group(1))
sys.exit(0 if all(0 <= c < cols and len(v) == 50 for c, v in n.items()) and sum(map(sum, n.values())) == 4000 and cols == 11 else 1)
PY

# Weighted by a delta with negatives: the 'negative' root is drawn.
"$FLAMEPROF" report --status all "$T_DIR/in.perf.zst" -w memory_delta -o "$T_DIR/neg.svg" -q
check "a negative root in a delta-weighted graph" grep -q '<title>negative' "$T_DIR/neg.svg"
"$FLAMEPROF" report --status all "$T_DIR/in.perf.zst" --from 2 --to 4.5 --status running -o "$T_DIR/cut.svg" --heatmap "$T_DIR/cut-heat.svg" -q
check "the time cut and filter are named on the picture" grep -q 'seconds 2.00 to 4.50' "$T_DIR/cut.svg"
check "the heatmap outlines the cut" grep -q '<title>--from/--to</title>' "$T_DIR/cut-heat.svg"
finish

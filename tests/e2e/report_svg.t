#!/bin/sh
# The flame graph and heatmap SVGs: well-formed XML, widths that add up to
# the counts (golden structure), names shown unescaped, the omitted-frames
# note, and a heatmap cell per 20 ms.
. "$(dirname "$0")/../report/tap.sh"

gen --events 4000 --hostile --seed 5 > "$T/in.perf"
zstd -q "$T/in.perf" -o "$T/in.perf.zst"
"$FLAMEPROF" report --status all "$T/in.perf.zst" -o "$T/flame.svg" --heatmap "$T/heat.svg" --title 'hostile <&> test' 2> "$T/err"
is "$?" 0 "report exits 0"
ok "the summary names both files" grep -q "wrote heatmap '$T/heat.svg'" "$T/err"
ok "flame graph: XML parses, widths match counts, root is 4000" python3 "$REP_LIB/check_svg.py" "$T/flame.svg" 4000
ok "the note says how many narrow frames were omitted" grep -q 'frames narrower than 1 px omitted' "$T/flame.svg"
ok "hostile atoms shown unescaped and XML-escaped" grep -q 'a;b:' "$T/flame.svg"
ok "markup in atoms is escaped" grep -q '&lt;script&gt;&amp;amp;&lt;/script&gt;' "$T/flame.svg"
ok "category frames are coloured apart" python3 - "$T/flame.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
cat, code = set(), set()
for g in ET.parse(sys.argv[1]).getroot().iter(NS + "g"):
    if g.get("class") == "f":
        t = g.find(NS + "title").text
        (cat if "category frame" in t else code).add(g.find(NS + "rect").get("fill"))
sys.exit(0 if cat and code and not (cat & code) else 1)
PY
ok "no external reference (self-contained)" sh -c "! grep -Eq '(href|src)=\"(https?:)?//' '$T/flame.svg'"
ok "heatmap: XML parses, 50 rows, values add up to the events" python3 - "$T/heat.svg" <<'PY'
import re, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
js = "".join(s.text for s in root.iter("{http://www.w3.org/2000/svg}script"))
# the seconds that have events, as column:[50 counts]
n = {int(c): [int(x) for x in v.split(",")] for c, v in re.findall(r"(\d+):\[([\d,]*)\]", re.search(r"n:\{([\d:,\[\]]*)\}", js).group(1))}
cols = int(re.search(r"cols:(\d+)", js).group(1))
sys.exit(0 if all(0 <= c < cols and len(v) == 50 for c, v in n.items()) and sum(map(sum, n.values())) == 4000 and cols == 11 else 1)
PY

# Weighted by a delta with negatives: the 'negative' root is drawn.
"$FLAMEPROF" report --status all "$T/in.perf.zst" -w memory_delta -o "$T/neg.svg" -q
ok "a negative root in a delta-weighted graph" grep -q '<title>negative' "$T/neg.svg"
"$FLAMEPROF" report --status all "$T/in.perf.zst" --from 2 --to 4.5 --status running -o "$T/cut.svg" --heatmap "$T/cut-heat.svg" -q
ok "the time cut and filter are named on the picture" grep -q 'seconds 2.00 to 4.50' "$T/cut.svg"
ok "the heatmap outlines the cut" grep -q '<title>--from/--to</title>' "$T/cut-heat.svg"
finish

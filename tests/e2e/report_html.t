#!/bin/bash
# report -o profile.html (issue 31, items 1 and 4): the page in a real
# browser. A real capture of the demo shop (--status all: both views), the
# page written from it; its data decoded here (as its script does) must hold
# folded's stacks for a range, browser or not; then the page is loaded in
# Debian's headless chromium driven through its DevTools protocol
# (tests/report/html_drive.py, Python alone, no npm): a mouse drags a range
# across the heatmap and the flame graph's stacks must be those of
# `report -f folded --from --to` over the same range, value for value; a
# second range, and each frame's difference must have the colour of the
# sign of its change of share; search, and the matched share must be the
# one the folded stacks give; a click zooms, Escape resets; "merged" with
# "wall-clock" must be the folded stacks of --status all with the
# category frames folded away. Screenshots go to build/test-artifacts/
# (html_*.png) for a human to look at. Where chromium cannot run, the
# browser's part is skipped with one line.
: "${T_TIMEOUT:=90}"
. "$(dirname "$0")/../lib.sh"

art="$ROOT/build/test-artifacts"
mkdir -p "$art"

t_start=$(now_ms)
start_epmd && compile_workloads && start_node html "demo_shop:start(4)" || exit 1
fp --duration 5s --every 1s --status all --categories initial_call,name,queue -o "$T_DIR/cap" "$NODE"
is "$FP_RC" 0 "a real capture (--status all) exits 0 ($(( $(now_ms) - t_start )) ms with the node's start)"
check "the node is left as it was" node_clean "$NODE"
# the rest reads files: the node's clients would only take CPU from the test beside this one
kill_quietly KILL "$NODE_PID"

"$FLAMEPROF" report "$T_DIR/cap" -o "$T_DIR/profile.html" 2>"$T_DIR/rep.err"
is "$?" 0 "report -o profile.html exits 0 (the format from the name)"
check "... and says it wrote a page to open in a browser" grep -q "wrote page '$T_DIR/profile.html' ([0-9]* KiB); open it in a web browser" "$T_DIR/rep.err"
check "-f html writes the same page under any name" \
	sh -c "'$FLAMEPROF' report -q '$T_DIR/cap' -f html -o '$T_DIR/page.out' && cmp -s '$T_DIR/page.out' '$T_DIR/profile.html'"
check "the page is self-contained (no src= or href= to fetch)" test -z "$(grep -oiE '(src|href)=' "$T_DIR/profile.html")"
diag "page: $(wc -c < "$T_DIR/profile.html") bytes"

folded() { "$FLAMEPROF" report -q "$T_DIR/cap" -f folded -o - "$@"; }
# two ranges, 20 ms cells counted from the capture's first whole second:
# [1.0 s, 2.5 s) and [2.5 s, 4.0 s)
folded --from 1 --to 2.5 > "$T_DIR/a.folded"
folded --from 2.5 --to 4 > "$T_DIR/b.folded"
folded > "$T_DIR/all.folded"
folded --status all > "$T_DIR/wall.folded"
"$FLAMEPROF" report -q "$T_DIR/cap" -w reductions_delta -o "$T_DIR/weighted.html"
folded -w reductions_delta --from 1 --to 2.5 > "$T_DIR/w.folded"


# the page's data, read without a browser (the same decoding as the page's
# script): range a's stacks must be folded's over [1.0 s, 2.5 s)
python3 - "$T_DIR" > "$T_DIR/checks0" <<'PY'
import base64, json, re, sys
d = sys.argv[1]
sys.excepthook = lambda t, v, tb: print("not ok the page's data decodes (%s: %s)" % (t.__name__, v))
html = open(d + "/profile.html", encoding="utf-8").read()
D = json.loads(re.search(r'<script id="fp-data" type="application/json">(.*?)</script>', html, re.S).group(1))
b, p, recs = base64.b64decode(D["recs"]), 0, []
def vint():
    global p
    x, sh = 0, 0
    while True:
        c = b[p]; p += 1; x |= (c & 127) << sh; sh += 7
        if not c & 128: return x
cell = 0
while len(recs) < D["nrec"]:
    cell += vint(); node = 0
    for _ in range(vint()):
        node += vint(); recs.append((cell, node, vint()))
def path(n):
    out = []
    while n: out.append(D["names"][D["frame"][n]]); n = D["parent"][n]
    return out[::-1]
got = {}
for cell, node, count in recs:
    st = path(node)
    if 50 <= cell <= 124 and st[0] in D["oncpu"]:
        k = ";".join(st); got[k] = got.get(k, 0) + count
want = {}
for line in open(d + "/a.folded"):
    k, v = line.rstrip("\n").rsplit(" ", 1); want[k] = want.get(k, 0) + int(v)
print(("ok " if got == want and want else "not ok ") + "the page's data holds range a's %d stacks as folded's, value for value (%d samples, %d records in all, %d bytes of them)"
      % (len(want), sum(want.values()), len(recs), len(D["recs"])))
print(("ok " if sum(c for _, _, c in recs) == D["events"] else "not ok ") + "its records add up to the events it counts (%d)" % D["events"])
PY
tap_lines "$T_DIR/checks0"

chromium_or_finish
# files the page cannot trust: frame names with every hostile byte
# ("</script>" among them), two events 30 days apart, a stack of 300,000
# frames; each page loads without a script error and shows the folded total
gen --events 2000 --hostile --seed 21 --span 20 > "$T_DIR/hostile.perf"
python3 - "$T_DIR" <<'PY'
import sys
d = sys.argv[1]
with open(d + "/span.perf", "w") as o:
    for t in (1700000000, 1700000000 + 30 * 86400):
        o.write("running 1/0 [000] %d.100000: 1 cpu-clock:\n\t0 m:f/0 (m.erl:1)\n\n" % t)
with open(d + "/deep.perf", "w") as o:
    o.write("running 1/0 [000] 1700000000.100000: 1 cpu-clock:\n")
    o.write("".join("\t0 m:f%d/0 (m.erl:1)\n" % (i % 997) for i in range(300000)) + "\n")
PY
printf 'running 1/0 [000] 1700000000.2: 1 cpu-clock:\n\t0 m:</script><b>x/0 (m.erl:1)\n\n' >> "$T_DIR/hostile.perf"
for f in hostile span deep; do
	"$FLAMEPROF" report -q "$T_DIR/$f.perf" -o "$T_DIR/$f.html"
	is "$?" 0 "$f: report -o $f.html exits 0"
done

# one browser drives every page (html_drive.py): one line of findings each
mkdir -p "$T_DIR/shots2" "$T_DIR/shots_hostile" "$T_DIR/shots_span" "$T_DIR/shots_deep" "$T_DIR/shots_w"
t_drive=$(now_ms)
timeout 90 python3 "$ROOT/tests/report/html_drive.py" \
	"$T_DIR/profile.html" "$art" '{"a":[50,124],"b":[125,199],"search":"demo_shop:handle_call","zoom":"demo_shop:hog/1"}' \
	"$T_DIR/profile.html" "$T_DIR/shots2" '{"merged":true,"wall":true,"a":[0,-1]}' \
	"$T_DIR/hostile.html" "$T_DIR/shots_hostile" '{}' "$T_DIR/span.html" "$T_DIR/shots_span" '{"shots":false}' \
	"$T_DIR/deep.html" "$T_DIR/shots_deep" '{"shots":false}' "$T_DIR/weighted.html" "$T_DIR/shots_w" '{"a":[50,124],"shots":false}' > "$T_DIR/drive.out"
is "$(wc -l < "$T_DIR/drive.out")" 6 "the driver reports on the 6 pages ($(( $(now_ms) - t_drive )) ms)"
n=0
for f in d1 d2 hostile span deep weighted; do n=$((n + 1)); sed -n "${n}p" "$T_DIR/drive.out" > "$T_DIR/$f.json"; done
py() { PYTHONPATH="$ROOT/tests/report" python3 - "$T_DIR" "$@"; }
py > "$T_DIR/checks1" <<'PY'
import json, sys, re
d = sys.argv[1]
sys.excepthook = lambda t, v, tb: print("not ok the page's findings are all there (%s: %s)" % (t.__name__, v))
j = json.load(open(d + "/d1.json"))
from folded_sums import read_folded, prefix_sums
def folded(name):
    return read_folded(d + "/" + name)
def say(ok, what):
    print(("ok " if ok else "not ok ") + what)
say(not j["errors"], "the page runs without a script error %s" % j["errors"][:3])
say(not j["requests"], "the page asks the network for nothing %s" % j["requests"][:3])
print("# time to interactive in headless chromium: %.0f ms (the page's first drawing done), %d columns" % (j["ready_ms"], j["cols"]))
say(j["whole_total"] == sum(folded("all.folded").values()), "before any range: the whole capture's on-CPU samples (%s)" % j["whole_total"])
a, b = folded("a.folded"), folded("b.folded")
for k, want in (("a", a), ("b", b)):
    got = {s: int(v) for s, v in j[k]["folded"].items()}
    say(j[k]["state"] == ([50, 124] if k == "a" else [125, 199]), "a mouse drag selects range %s: cells %s" % (k, j[k]["state"]))
    say(got == want, "range %s: the flame graph's %d stacks are report -f folded's over the same range, value for value (%d samples)"
        % (k, len(got), sum(want.values())))
    if got != want:
        for s in sorted(set(got) | set(want))[:5]:
            if got.get(s) != want.get(s): print("#   %s: page %s folded %s" % (s, got.get(s), want.get(s)))
say(len(a) > 3 and len(b) > 3, "both ranges hold stacks (%d, %d)" % (len(a), len(b)))
# the difference: each frame (a stack prefix) of range b coloured by the sign of its change of share
at, bt = sum(a.values()), sum(b.values())
pa, pb = prefix_sums(a), prefix_sums(b)
bad, red, blue = [], 0, 0
for k, e in j["b"]["diff"].items():
    want_d = pb.get(k, 0) / bt - pa.get(k, 0) / at
    if e["a"] != pa.get(k, 0) or e["b"] != pb.get(k, 0): bad.append((k, "values", e["a"], e["b"], pa.get(k, 0), pb.get(k, 0)))
    hue = re.match(r"hsl\((\d+)", e["color"])
    if abs(want_d) > 1e-9:
        want_hue = "0" if want_d > 0 else "215"
        if not hue or hue.group(1) != want_hue: bad.append((k, "colour", e["color"], want_d))
        red += want_d > 0; blue += want_d < 0
say(not bad and len(j["b"]["diff"]) == len(pb), "the difference: each of the %d frames carries both ranges' values and is red where its share grew (%d), blue where it fell (%d) %s"
    % (len(pb), red, blue, bad[:3]))
say(red > 0 and blue > 0, "... and there is some of both")
# search: the share of range b (the shown flame graph) under a matching frame
m = j["search"]
cov = sum(v for s, v in b.items() if any(re.search("demo_shop:handle_call", f) for f in s.split(";")))
say(m and m["covered"] == cov and m["total"] == bt and ("%.2f%%" % (100.0 * cov / bt)) in m["text"],
    "search: the matched share is the folded stacks' (%s of %s: %s)" % (cov, bt, m and m["text"]))
z = j["zoom"]
say(z["found"] and z["zoomed"] == "demo_shop:hog/1" and z["width_after"] > 1.5 * z["width_before"],
    "a click on demo_shop:hog/1 zooms into it (%.0f px -> %.0f px)" % (z.get("width_before", 0), z.get("width_after", 0)))
say(z.get("after_escape") is None, "Escape resets the zoom")
say(z.get("panels_after") == ["", "none"], "after the zoom the details panel is empty and the tooltip hidden, "
    "not the frame clicked before the graph was redrawn (%s)" % z.get("panels_after"))
say("root at the top" in j["legend_text"], "the legend says which way the flame graph points")
ran = any(f == "[ran_to_receive]" for s in folded("all.folded") for f in s.split(";"))
say(not ran or "[ran_to_receive]: on a CPU" in j["legend_text"],
    "the legend explains [ran_to_receive] where the graph holds it (%s)" % ("it does" if ran else "it does not"))
PY
tap_lines "$T_DIR/checks1"

# merged + wall-clock over the whole capture: --status all with the category frames folded away
py > "$T_DIR/checks2" <<'PY'
import json, sys
d = sys.argv[1]
sys.excepthook = lambda t, v, tb: print("not ok the page's findings are all there (%s: %s)" % (t.__name__, v))
j = json.load(open(d + "/d2.json"))
def say(ok, what): print(("ok " if ok else "not ok ") + what)
say(not j["errors"], "merged, wall-clock: no script error %s" % j["errors"][:3])
cats = set(j["categories"])
want = {}
for line in open(d + "/wall.folded"):
    stack, v = line.rstrip("\n").rsplit(" ", 1)
    k = ";".join(f for f in stack.split(";") if f not in cats)
    want[k] = want.get(k, 0) + int(v)
got = {s: int(v) for s, v in j["a"]["folded"].items()}
say(len(cats) > 3, "the capture has category frames to fold (%d)" % len(cats))
say(got == want, "merged wall-clock: the %d stacks are --status all's folded with the %d category frames taken out (%d samples)"
    % (len(got), len(cats), sum(want.values())))
say(any(s.startswith("waiting;") for s in got), "... waiting stacks among them (the wall-clock view)")
PY
tap_lines "$T_DIR/checks2"
cp "$T_DIR/shots2/html_range.png" "$art/html_merged_wall.png" 2>/dev/null

for f in hostile span deep; do
	want=$("$FLAMEPROF" report -q "$T_DIR/$f.perf" -f folded | awk '{s += $NF} END {print s}')
	got=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j.get("whole_total"), j.get("errors")[:2])' "$T_DIR/$f.json")
	is "$got" "$want []" "$f: the page loads without a script error and shows the folded total ($want)"
	[ "$f" = span ] && check "span: 30 days in at most 14,400 columns ($(grep -o '"cols":[0-9]*' "$T_DIR/$f.json"))" \
		python3 -c 'import json,sys; sys.exit(not 0 < json.load(open(sys.argv[1]))["cols"] <= 14400)' "$T_DIR/$f.json"
	[ "$f" = hostile ] && check "hostile: no frame name closes the script early" test "$(grep -c '</script>' "$T_DIR/$f.html")" -eq 2
done
want=$(awk '{s += $NF} END {print s}' "$T_DIR/w.folded")
is "$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(int(j["a"]["total"]), j["errors"][:2])' "$T_DIR/weighted.json")" "$want []" \
	"-w reductions_delta: the range's total weight is the folded one's ($want)"
cp "$T_DIR/shots_hostile/html_whole.png" "$art/html_hostile.png" 2>/dev/null
check "screenshots saved" test -s "$art/html_diff.png"
echo "# screenshots: $art/html_{whole,range,diff,search,zoom,merged_wall}.png"
finish

#!/bin/bash
# report --diff BASE DIR -o diff.html (issue 31, item 2, in the page): two
# real captures of one node, the second with more work started between them
# (fp_busy's burners beside fp_truth's spinners, as report_diff.t), both
# --status all; the page loaded in Debian's headless chromium
# (tests/report/html_drive.py, over the DevTools pipe). Every frame the page
# draws must carry BASE's and DIR's figures as the captures' own `report -f
# folded` give them (summed by path), and be red where DIR's share grew, blue
# where it fell, grey where equal; the share of BASE on stacks DIR lacks is
# folded's; hovering a frame says its before/after shares as the SVG does;
# a drag across BASE's heatmap and one across DIR's compare those ranges
# (folded --from --to of each); search and zoom work in diff mode; "merged"
# with "wall-clock" is folded --status all of both, category frames taken
# out; the page asks the network for nothing. Screenshots go to
# build/test-artifacts/ (html_diff_*.png) for a human to look at.
: "${T_TIMEOUT:=120}"
. "$(dirname "$0")/../lib.sh"

art="$ROOT/build/test-artifacts"
mkdir -p "$art"
start_epmd && compile_workloads || exit 1
start_node hdiff "fp_truth:start(spinners)" || exit 1
fp --hz 97 --duration 2500ms --status all -o "$T_DIR/base" "$NODE"
is "$FP_RC" 0 "BASE: the spinners alone, 2.5 s, --status all"
rpc "$NODE" "fp_busy start [4]" > /dev/null
fp --hz 97 --duration 2500ms --status all -o "$T_DIR/dir" "$NODE"
is "$FP_RC" 0 "DIR: the spinners and 4 burners, 2.5 s, --status all"
check "node is left as it was" node_clean "$NODE"
# the rest reads files: the node's spinners would only take CPU from the test beside this one
kill_quietly KILL "$NODE_PID"

"$FLAMEPROF" report --diff "$T_DIR/base" "$T_DIR/dir" -o "$T_DIR/diff.html" 2> "$T_DIR/rep.err"
is "$?" 0 "report --diff BASE DIR -o diff.html exits 0"
check "... and says it wrote a page" grep -q "wrote page '$T_DIR/diff.html' ([0-9]* KiB); open it in a web browser" "$T_DIR/rep.err"
check "-f html writes the same page under any name" \
	sh -c "'$FLAMEPROF' report -q --diff '$T_DIR/base' '$T_DIR/dir' -f html -o '$T_DIR/diff.out' && cmp -s '$T_DIR/diff.out' '$T_DIR/diff.html'"
check "the page is self-contained (no src= or href= to fetch)" test -z "$(grep -oiE '(src|href)=' "$T_DIR/diff.html")"
"$FLAMEPROF" report -q "$T_DIR/dir" -o "$T_DIR/one.html"
diag "diff page: $(wc -c < "$T_DIR/diff.html") bytes; DIR's own page: $(wc -c < "$T_DIR/one.html") bytes"

folded() { "$FLAMEPROF" report -q "$T_DIR/$1" -f folded -o - "${@:2}"; }
folded base > "$T_DIR/base.folded"
folded dir > "$T_DIR/dir.folded"
folded base --from 1 --to 2 > "$T_DIR/base_a.folded"
folded dir --from 1 --to 2 > "$T_DIR/dir_b.folded"
folded base --status all > "$T_DIR/base_wall.folded"
folded dir --status all > "$T_DIR/dir_wall.folded"

# the frame to zoom into: the widest function of DIR's range that a zoom
# can still widen (at most 60 % of it). Which functions a loaded machine
# leaves on a CPU varies: fp_truth_work:fib/1 had none of its 103 samples once.
zoom=$(PYTHONPATH="$ROOT/tests/report" python3 - "$T_DIR/dir_b.folded" <<'PY'
import collections, sys
from folded_sums import read_folded
stacks = read_folded(sys.argv[1])
width, total = collections.Counter(), sum(stacks.values())
for stack, n in stacks.items():
    for f in set(stack.split(";")):
        if ":" in f and "/" in f and not f.split(":")[0] in ("initial_call", "name", "seq_trace", "tier"):
            width[f] += n
fit = [f for f, c in width.most_common() if c <= 0.6 * total]
print(fit[0] if fit else "fp_truth_work:fib/1")
PY
)
chromium_or_finish
mkdir -p "$T_DIR/s1" "$T_DIR/s2" "$T_DIR/s3"
t_drive=$(now_ms)
timeout 100 python3 "$ROOT/tests/report/html_drive.py" \
	"$T_DIR/diff.html" "$T_DIR/s1" '{"whole_diff":true,"hover":"fp_busy:burn_cpu/1"}' \
	"$T_DIR/diff.html" "$T_DIR/s2" '{"base_a":[50,99],"dir_b":[50,99],"search":"fp_truth_work","zoom":"'"$zoom"'"}' \
	"$T_DIR/diff.html" "$T_DIR/s3" '{"merged":true,"wall":true,"whole_diff":true}' > "$T_DIR/drive.out"
is "$(wc -l < "$T_DIR/drive.out")" 3 "the driver reports on the 3 loads of the page ($(( $(now_ms) - t_drive )) ms)"
n=0
for f in d1 d2 d3; do n=$((n + 1)); sed -n "${n}p" "$T_DIR/drive.out" > "$T_DIR/$f.json"; done
cp "$T_DIR/s1/html_whole.png" "$art/html_diff_whole.png" 2>/dev/null
cp "$T_DIR/s1/html_hover.png" "$art/html_diff_hover.png" 2>/dev/null
cp "$T_DIR/s2/html_dir_b.png" "$art/html_diff_ranges.png" 2>/dev/null
cp "$T_DIR/s2/html_search.png" "$art/html_diff_search.png" 2>/dev/null
cp "$T_DIR/s2/html_zoom.png" "$art/html_diff_zoom.png" 2>/dev/null
cp "$T_DIR/s3/html_whole_diff.png" "$art/html_diff_merged_wall.png" 2>/dev/null

PYTHONPATH="$ROOT/tests/report" python3 - "$T_DIR" "$zoom" > "$T_DIR/checks" <<'PY'
import json, re, sys
d, zoom = sys.argv[1], sys.argv[2]
sys.excepthook = lambda t, v, tb: print("not ok the page's findings are all there (%s: %s)" % (t.__name__, v))
def say(ok, what): print(("ok " if ok else "not ok ") + what)
from folded_sums import read_folded, prefix_sums
def folded(name, drop=()):
    return read_folded(d + "/" + name, drop)
def check_diff(what, diff, base, dir_):
    """each drawn frame: both figures as folded's, coloured by the sign of its change of share"""
    pb, pd = prefix_sums(base), prefix_sums(dir_)
    bw, dw = sum(base.values()), sum(dir_.values())
    bad, red, blue, grey = [], 0, 0, 0
    for k, e in diff.items():
        if e["a"] != pb.get(k, 0) or e["b"] != pd.get(k, 0) or e["at"] != bw or e["bt"] != dw:
            bad.append((k, "figures", e["a"], e["b"], pb.get(k, 0), pd.get(k, 0))); continue
        ch = pd.get(k, 0) / dw - pb.get(k, 0) / bw
        hue = re.match(r"hsl\((\d+)", e["color"])
        if ch > 0: red += 1; ok = hue and hue.group(1) == "0"
        elif ch < 0: blue += 1; ok = hue and hue.group(1) == "215"
        else: grey += 1; ok = e["color"] == "#e8e8e8"
        if not ok: bad.append((k, "colour", e["color"], ch))
    say(not bad and len(diff) == len(pd) and red and blue,
        "%s: each of the %d frames carries BASE's and DIR's figures as their folded stacks give them (BASE %d, DIR %d samples), "
        "red where DIR's share grew (%d), blue where it fell (%d), grey where equal (%d) %s" % (what, len(pd), bw, dw, red, blue, grey, bad[:3]))
    return pb, pd, bw, dw

j1, j2, j3 = (json.load(open(d + "/%s.json" % f)) for f in ("d1", "d2", "d3"))
for j, what in ((j1, "whole"), (j2, "ranges"), (j3, "merged wall-clock")):
    say(not j["errors"], "%s: the page runs without a script error %s" % (what, j["errors"][:3]))
    say(not j["requests"], "%s: the page asks the network for nothing %s" % (what, j["requests"][:3]))
print("# time to interactive in headless chromium: %.0f ms (the diff page's first drawing done)" % j1["ready_ms"])

base, dir_ = folded("base.folded"), folded("dir.folded")
say(j1["whole_total"] == sum(dir_.values()), "the flame graph is DIR's, on-CPU: %s samples, as folded" % j1["whole_total"])
pb, pd, bw, dw = check_diff("the whole captures", j1["whole_diff"], base, dir_)
gone = sum(v for s, v in base.items() if s not in pd)
g = j1["gone"]
say(g["gone"] == gone and g["whole"] == bw and ("%.2f%% of BASE on stacks DIR lacks" % (100.0 * gone / bw) in j1["legend"] or gone == 0),
    "the share of BASE on stacks DIR lacks is folded's (%d of %d) and the legend says it" % (gone, bw))
say("fp_busy:burn_cpu/1" in "".join(pd) and not any(k.endswith("fp_busy:burn_cpu/1") for k in pb),
    "the burners are in DIR only (the comparison has something to show)")
# the hover: "before B% (b of BW), after A% (a of DW): +P points", as the SVG's title
m = re.search(r"before ([0-9.]+)% \(([0-9,]+) of ([0-9,]+)\), after ([0-9.]+)% \(([0-9,]+) of ([0-9,]+)\): ([-+][0-9.]+) points", j1.get("hover") or "")
n = lambda s: int(s.replace(",", ""))
say(m and j1["hover"].startswith("fp_busy:burn_cpu/1\n") and n(m.group(2)) == 0 and n(m.group(3)) == bw and n(m.group(6)) == dw
    and any(k.endswith("fp_busy:burn_cpu/1") and v == n(m.group(5)) for k, v in pd.items())
    and m.group(4) == "%.2f" % (100.0 * n(m.group(5)) / dw) and m.group(1) == "0.00" and m.group(7) == "+%.2f" % (100.0 * n(m.group(5)) / dw)
    and j1.get("tip") == j1.get("hover"),
    "hovering fp_busy:burn_cpu/1 says its before/after shares as folded's give them: %r" % (m and m.group(0)))

# a range of each capture: the second second of each, the one a 2.5 s capture always fills (the
# time axis starts at the whole second before the first sample: a capture that began at x.998
# had no on-CPU sample in its first second, once in a run of make check)
say(j2["base_a"]["state"] == [50, 99] and j2["dir_b"]["state"] == [50, 99],
    "a drag across BASE's heatmap picks BASE's range, one across DIR's DIR's (%s, %s)" % (j2["base_a"]["state"], j2["dir_b"]["state"]))
ba, db = folded("base_a.folded"), folded("dir_b.folded")
got = {s: int(v) for s, v in j2["dir_b"]["folded"].items()}
say(got == db, "DIR's range: the flame graph's %d stacks are folded --from 1 --to 2's, value for value" % len(db))
check_diff("BASE [1 s, 2 s) against DIR [1 s, 2 s)", j2["dir_b"]["diff"], ba, db)
cov = sum(v for s, v in db.items() if any(re.search("fp_truth_work", f) for f in s.split(";")))
m = j2["search"]
say(m and m["covered"] == cov and m["total"] == sum(db.values()) and ("%.2f%%" % (100.0 * cov / sum(db.values()))) in m["text"],
    "search in diff mode: the matched share of DIR's range is the folded stacks' (%s of %s: %s)" % (cov, sum(db.values()), m and m["text"]))
z = j2["zoom"]
say(z["found"] and z.get("zoomed") == zoom and z.get("width_after", 0) > 1.5 * z.get("width_before", 1),
    "a click on %s zooms into it in diff mode (%.0f px -> %.0f px)" % (zoom, z.get("width_before", 0), z.get("width_after", 0)))
say(z.get("after_escape") is None, "Escape resets the zoom")

# merged, wall-clock: --status all of both, category frames taken out
cats = set(j3["categories"])
bwall, dwall = folded("base_wall.folded", cats), folded("dir_wall.folded", cats)
offcpu = sorted(set(s.split(";")[0] for s in dwall) - {"running", "garbage_collecting"})
say(len(cats) > 2 and offcpu, "the captures have category frames to fold (%d) and off-CPU stacks for the wall-clock view (%s)" % (len(cats), ", ".join(offcpu)))
check_diff("merged wall-clock", j3["whole_diff"], bwall, dwall)
PY
tap_lines "$T_DIR/checks"
check "screenshots saved" test -s "$art/html_diff_ranges.png"
echo "# screenshots: $art/html_diff_{whole,hover,ranges,search,zoom,merged_wall}.png"
finish

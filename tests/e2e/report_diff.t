#!/bin/bash
# report --diff BASE DIR on two real captures of one node, the second with
# more work started between them (fp_busy's burners beside fp_truth's
# spinners): every frame of the differential flame graph carries its share
# of BASE and of DIR, each equal to what the captures' own folded stacks
# (report -f folded, summed here by path) give; red where DIR's share is
# larger, blue where smaller; the burners (only in DIR) red, the spinners'
# functions (a smaller share once the burners run) blue. The same filters
# and weight apply to both sides.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads || exit 1
start_node rdiff "fp_truth:start(spinners)" || exit 1
fp --hz 97 --duration 2500ms -o "$T_DIR/base" "$NODE"
is "$FP_RC" 0 "BASE: the spinners alone, 2.5 s"
rpc "$NODE" "fp_busy start [4]" > /dev/null
fp --hz 97 --duration 2500ms -o "$T_DIR/dir" "$NODE"
is "$FP_RC" 0 "DIR: the spinners and 4 burners, 2.5 s"

# diff_ok NAME ARGS...: the diff SVG's shares against both captures' folded stacks
diff_ok() {
	local name=$1
	shift
	"$FLAMEPROF" report -q "$@" --diff "$T_DIR/base" "$T_DIR/dir" -o "$T_DIR/$name.svg" &&
	"$FLAMEPROF" report -q "$@" "$T_DIR/base" -f folded -o "$T_DIR/$name.base" &&
	"$FLAMEPROF" report -q "$@" "$T_DIR/dir" -f folded -o "$T_DIR/$name.dir" || return 1
	python3 - "$T_DIR/$name.svg" "$T_DIR/$name.base" "$T_DIR/$name.dir" <<'PY'
import re, sys
import xml.etree.ElementTree as ET
svg, basef, dirf = sys.argv[1:4]
NS = "{http://www.w3.org/2000/svg}"

def prefixes(path):
    tot, whole = {}, 0
    for line in open(path):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        n = int(n)
        whole += n
        f = stack.split(";")
        for k in range(1, len(f) + 1):
            key = ";".join(f[:k])
            tot[key] = tot.get(key, 0) + n
    return tot, whole

base, bw = prefixes(basef)
dir_, dw = prefixes(dirf)
frames = []
for g in ET.parse(svg).getroot().iter(NS + "g"):
    if g.get("class") != "f":
        continue
    t, r = g.find(NS + "title"), g.find(NS + "rect")
    lines = t.text.split("\n")
    frames.append({"name": lines[0], "title": lines, "x": float(r.get("x")), "y": float(r.get("y")),
                   "w": float(r.get("width")), "fill": r.get("fill")})
bad = []
# each frame's parent: the frame one row below whose span holds it most
for fr in frames:
    below = [p for p in frames if abs(p["y"] - fr["y"] - 16) < 0.5]
    best = max(below, key=lambda p: min(p["x"] + p["w"], fr["x"] + fr["w"]) - max(p["x"], fr["x"]), default=None)
    fr["parent"] = best
def path(fr):
    names = []
    while fr is not None and fr["name"] != "all":
        names.append(fr["name"])
        fr = fr["parent"]
    return ";".join(reversed(names))
checked = red = blue = 0
for fr in frames:
    m = [re.match(r"before ([0-9.]+)% \(.*\), after ([0-9.]+)% \(.*\): ([-+][0-9.]+) points$", l) for l in fr["title"]]
    m = [x for x in m if x]
    if len(m) != 1:
        bad.append("no before/after in " + fr["name"]); continue
    before, after = m[0].group(1), m[0].group(2)
    p = path(fr)
    if fr["name"] == "all":
        b, a = bw, dw
    else:
        if p not in dir_:
            bad.append("path not in DIR's folded stacks: " + p); continue
        b, a = base.get(p, 0), dir_[p]
    if "%.2f" % (100 * (b / bw)) != before or "%.2f" % (100 * (a / dw)) != after:
        bad.append("%s: svg %s/%s, folded %.2f/%.2f" % (p, before, after, 100 * b / bw, 100 * a / dw))
    rgb = [int(fr["fill"][i:i + 2], 16) for i in (1, 3, 5)]
    d = a / dw - b / bw
    if d > 1e-9 and not (rgb[0] == 255 and rgb[2] < 255): bad.append("not red: " + p + " " + fr["fill"])
    if d < -1e-9 and not (rgb[2] == 255 and rgb[0] < 255): bad.append("not blue: " + p + " " + fr["fill"])
    red += d > 1e-9 and rgb[0] == 255
    blue += d < -1e-9 and rgb[2] == 255
    checked += 1
for b in bad[:10]:
    print("#   " + b)
print("#   %d frames checked, %d red, %d blue, BASE %d samples, DIR %d" % (checked, red, blue, bw, dw))
sys.exit(1 if bad or checked < 10 or not red or not blue else 0)
PY
}
check "on-CPU: every frame's before/after share equals the folded stacks', red more, blue less" diff_ok cpu
check "--status all -w reductions_delta: the same" diff_ok red --status all -w reductions_delta
check "the burners (only in DIR) are red, from 0.00% before" \
	grep -q '^<title>fp_busy:burn_cpu/1\.[^<]*before 0\.00% (0 of [0-9,]*), after [0-9.]*%[^<]*</title><rect [^>]*fill="#ff' <(tr '\n' '.' < "$T_DIR/cpu.svg" | sed 's/<g class="f">/\n/g')
check "the spinners' fp_truth_work:fib/1 is blue (a smaller share beside the burners)" \
	grep -q '^<title>fp_truth_work:fib/1.*: -[0-9.]* points</title><rect [^>]*fill="#[0-9a-f]\{4\}ff"' <(tr '\n' '.' < "$T_DIR/cpu.svg" | sed 's/<g class="f">/\n/g')
check "the picture says what it is against" grep -q "against $T_DIR/base (" "$T_DIR/cpu.svg"
"$FLAMEPROF" report -q --diff "$T_DIR/dir" "$T_DIR/dir" -o "$T_DIR/self.svg"
is "$?" 0 "a capture against itself draws"
tr '\n' '|' < "$T_DIR/self.svg" | sed 's/<g class="f">/\n/g' | grep '^<title>' > "$T_DIR/self.frames"
check "every frame of it unchanged: +0.00 points, grey ($(grep -c . "$T_DIR/self.frames") frames)" \
	sh -c "[ \$(grep -c . '$T_DIR/self.frames') -gt 10 ] && ! grep -v ': +0.00 points</title><rect [^>]*fill=\"#e8e8e8\"' '$T_DIR/self.frames'"
command -v rsvg-convert >/dev/null && rsvg-convert -o "$T_DIR/cpu.png" "$T_DIR/cpu.svg" && cp "$T_DIR/cpu.png" "${DIFF_PNG:-/dev/null}" 2>/dev/null
"$FLAMEPROF" report --diff "$T_DIR/base" "$T_DIR/dir" -f folded -o "$T_DIR/x" 2> "$T_DIR/e"
is "$?" 64 "--diff with another format than svg: exit 64"
"$FLAMEPROF" report --diff "$T_DIR/nonesuch" "$T_DIR/dir" -o "$T_DIR/x.svg" 2> "$T_DIR/e"
is "$?" 66 "--diff with a BASE that is not there: exit 66"
check "node is left as it was" node_clean "$NODE"
finish

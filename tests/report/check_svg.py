#!/usr/bin/env python3
"""check_svg.py FLAME.svg [EVENTS] - golden structure test of a flame graph.

The file parses as XML; the root frame spans the plot; every frame's width
is its count's share of the total (read back from its tooltip); children
never add up to more than their parent; no frame is narrower than 1 px and
the note on the picture counts what was left out. With EVENTS, the root's
count must equal it. Prints one line per problem; exits 1 if any.
"""
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def main():
    path = sys.argv[1]
    want_total = int(sys.argv[2]) if len(sys.argv) > 2 else None
    root = ET.parse(path).getroot()
    width = float(root.get("width"))
    pw = width - 20
    frames = []
    for g in root.iter(NS + "g"):
        if g.get("class") != "f":
            continue
        title = g.find(NS + "title").text
        rect = g.find(NS + "rect")
        m = re.search(r"^([\d,]+) samples \(([\d.]+)%\)", title.split("\n")[1])
        frames.append({"name": title.split("\n")[0], "n": int(m.group(1).replace(",", "")),
                       "x": float(rect.get("x")), "y": float(rect.get("y")),
                       "w": float(rect.get("width"))})
    bad = []
    if not frames:
        bad.append("no frames")
        print("\n".join(bad))
        return 1
    top = max(frames, key=lambda f: f["y"])  # the root is drawn lowest
    if top["name"] != "all":
        bad.append("the lowest frame is %r, not 'all'" % top["name"])
    total = top["n"]
    if want_total is not None and total != want_total:
        bad.append("root count %d != %d events" % (total, want_total))
    if abs(top["w"] - pw) > 0.02:
        bad.append("root width %.2f != plot width %.2f" % (top["w"], pw))
    for f in frames:
        want = f["n"] / total * pw
        if abs(f["w"] - want) > 0.011:
            bad.append("%r: width %.2f, count says %.2f" % (f["name"], f["w"], want))
        if f["w"] < 1 - 1e-9:
            bad.append("%r narrower than 1 px" % f["name"])
    # children (one row up, inside the parent's span) never exceed the parent
    rows = {}
    for f in frames:
        rows.setdefault(f["y"], []).append(f)
    for f in frames:
        kids = [k for k in rows.get(f["y"] - 16, [])
                if k["x"] >= f["x"] - 0.01 and k["x"] + k["w"] <= f["x"] + f["w"] + 0.02]
        s = sum(k["n"] for k in kids)
        if s > f["n"]:
            bad.append("%r: children count %d > %d" % (f["name"], s, f["n"]))
    note = root.find(NS + "text[@id='note']")
    print("\n".join(bad))
    print("frames=%d total=%d note=%r" % (len(frames), total, note.text), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

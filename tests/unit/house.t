#!/usr/bin/env python3
# house.t - the house is as doc/design.md draws it. Read from design.md's
# room table (| room | job | door | prefix | never |) and its "Who includes
# whom" list, with no room named here:
#   (a) every #include "..." from one room's *.c/*.h into another room goes
#       through a door (the door column) of a room its arrow names, and the
#       arrows are exactly the code's: a missing or an extra one fails, and
#       where an arrow lists headers in parentheses, exactly those are used;
#   (b) every symbol a room's objects export (nm on build/obj/ROOM/*.o)
#       carries one of the room's prefixes, save those design.md lists
#       under "Exported names not yet prefixed" (reported as TODO; a listed
#       name that is prefixed or gone by now fails, so the list shrinks);
#   (c) a room whose "never" cell says it never prints has no stderr,
#       exit() or <sysexits.h>; one that never includes `ei.h` has none;
#   (d) every name a room's objects use from another room's (nm -u against
#       the names each room defines) goes along one of design.md's arrows.
# A new room is a row of the table and a line of the list. Run from the repo
# root by prove (make check-unit builds the objects first).
import os
import re
import subprocess
import sys

DESIGN = "doc/design.md"
n = 0
failed = 0


def ok(cond, msg, diag=(), todo=None):
    global n, failed
    n += 1
    line = ("ok %d - %s" if cond else "not ok %d - %s") % (n, msg)
    if todo:
        line += " # TODO " + todo
    elif not cond:
        failed += 1
    print(line)
    for d in diag:
        print("#   " + d)


def ticks(cell):
    return re.findall(r"`([^`]*)`", cell)


text = open(DESIGN, encoding="utf-8").read().splitlines()

# ---- the table
rooms = {}  # name -> {"doors": set, "prefixes": [...], "never": str}
i = next((k for k, l in enumerate(text)
          if re.match(r"\|\s*room\s*\|\s*job\s*\|\s*door\s*\|\s*prefix\s*\|\s*never\s*\|", l)), None)
if i is None:
    print("1..1")
    print("not ok 1 - %s has the room table (| room | job | door | prefix | never |)" % DESIGN)
    sys.exit(1)
for l in text[i + 2:]:
    if not l.startswith("|"):
        break
    cells = [c.strip() for c in l.strip().strip("|").split("|")]
    if len(cells) != 5:
        ok(False, "design.md's table row has five cells: %s" % l[:60])
        continue
    name = ticks(cells[0])[0].rstrip("/")
    rooms[name] = {
        "doors": {d for d in ticks(cells[2]) if d.endswith(".h")},
        "prefixes": [p for p in ticks(cells[3]) if p],
        "never": cells[4],
    }
ok(len(rooms) > 0, "design.md's table names the rooms (%s)" % ", ".join(sorted(rooms)))
for r in sorted(rooms):
    ok(os.path.isdir(r), "room %s/ of design.md's table is a directory" % r)

# ---- the include list: "    src/ --> dst/ (a.h, b.h), dst2/, ..."
j = next((k for k, l in enumerate(text) if l.startswith("Who includes whom")), None)
arrows = {}  # (src, dst) -> set of headers, or None (any door)
if j is None:
    ok(False, "design.md has the 'Who includes whom' list")
else:
    for l in text[j + 1:]:
        if not l.strip():
            if arrows:
                break
            continue
        if not l.startswith(" ") and not arrows:
            continue  # the list's own words, before its arrows
        m = re.match(r"\s+(\S+)/\s+-->\s+(.*)$", l)
        if not m:
            ok(False, "design.md's include list line reads 'ROOM/ --> ROOM/ (door.h, ...), ...': %s" % l.strip())
            continue
        src = m.group(1)
        for part in re.findall(r"([a-z_0-9]+)/\s*(\([^)]*\))?", m.group(2)):
            heads = set(re.findall(r"[A-Za-z0-9_]+\.h", part[1]))
            arrows[(src, part[0])] = heads or None
    ok(len(arrows) > 0, "design.md's include list has arrows (%d)" % len(arrows))
for (s, d) in sorted(arrows):
    if s not in rooms or d not in rooms:
        ok(False, "arrow %s/ --> %s/ of design.md joins rooms of its table" % (s, d))

# ---- (a) the code's includes
used = {}  # (src, dst) -> set of headers
for r in sorted(rooms):
    problems = []
    for dirpath, _, names in os.walk(r):
        for fn in sorted(names):
            if not fn.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, fn)
            for ln, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                target = os.path.normpath(os.path.join(dirpath, m.group(1)))
                top = target.split(os.sep)[0]
                if top == r:
                    continue
                where = "%s:%d includes \"%s\"" % (path, ln, m.group(1))
                if top not in rooms:
                    problems.append("%s, which is in no room of design.md's table" % where)
                    continue
                head = os.path.relpath(target, top)
                if head not in rooms[top]["doors"]:
                    problems.append("%s, which is not a door of %s/ (its door cell: %s)"
                                    % (where, top, ", ".join(sorted(rooms[top]["doors"]))))
                used.setdefault((r, top), set()).add(head)
                if (r, top) not in arrows:
                    problems.append("%s, but design.md draws no arrow %s/ --> %s/" % (where, r, top))
    ok(not problems, "%s/ includes other rooms only through their doors, along design.md's arrows" % r,
       problems)
for (s, d), heads in sorted(arrows.items()):
    if s not in rooms or d not in rooms:
        continue
    got = used.get((s, d))
    if not got:
        ok(False, "design.md's arrow %s/ --> %s/ is in the code" % (s, d),
           ["no file of %s/ includes a header of %s/: remove the arrow" % (s, d)])
    elif heads is not None and heads != got:
        ok(False, "design.md's arrow %s/ --> %s/ lists the doors the code uses" % (s, d),
           ["listed: %s" % ", ".join(sorted(heads)), "used:   %s" % ", ".join(sorted(got))])
    else:
        ok(True, "design.md's arrow %s/ --> %s/ is in the code" % (s, d))

# ---- (c) what a room never does
for r in sorted(rooms):
    never = rooms[r]["never"]
    rules = []
    if re.search(r"\bprints\b", never):
        rules.append(("prints", re.compile(r"\bstderr\b|\bexit\s*\(|<sysexits\.h>")))
    if "`ei.h`" in never:
        rules.append(("includes ei.h", re.compile(r"#\s*include\s*[<\"]ei\.h[>\"]")))
    for what, rx in rules:
        hits = []
        for dirpath, _, names in os.walk(r):
            for fn in sorted(names):
                if fn.endswith((".c", ".h")):
                    path = os.path.join(dirpath, fn)
                    for ln, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                        code = re.sub(r"/\*.*?\*/|//.*$", "", line)
                        if rx.search(code):
                            hits.append("%s:%d: %s" % (path, ln, line.strip()))
        ok(not hits, "%s/ never %s (design.md's never cell)" % (r, what), hits)

# ---- (b) exported symbols
later = {}  # room -> set of names listed as not yet prefixed
k = next((x for x, l in enumerate(text) if re.match(r"#+\s*Exported names not yet prefixed", l)), None)
if k is not None:
    for l in text[k + 1:]:
        if l.startswith("#"):
            break
        m = re.match(r"\s*[-*]\s*`([^`]+)/`:\s*(.*)$", l)
        if m:
            later.setdefault(m.group(1), set()).update(ticks(m.group(2)))
fp = os.environ.get("FLAMEPROF", "build/flameprof")
objdir = os.path.join(os.path.dirname(fp), "obj")
def nm(args, objs):
    """{object: [name, ...]}: what nm ARGS lists of each, in one nm run (one
    run per object took 21 s of make check)."""
    out = subprocess.run(["nm", "-A"] + args + objs, capture_output=True, text=True)
    names = {}
    for l in out.stdout.splitlines():
        path, sep, rest = l.partition(":")  # -A: "object: address type name"
        if sep and rest.split():
            names.setdefault(path, []).append(rest.split()[-1])
    return names


have_nm = subprocess.run(["sh", "-c", "command -v nm"], capture_output=True).returncode == 0
room_objs = {}  # room -> its objects, once they are all built
room_defined = {}  # room -> {object: the names it exports}, read once for (b) and (d)
for r in sorted(rooms):
    sources = [f for _, _, fs in os.walk(r) for f in fs if f.endswith(".c")]
    if not sources:
        continue
    objs = []
    for dirpath, _, names in os.walk(os.path.join(objdir, r)):
        # only the objects of today's sources: a build folder may keep the
        # objects of files that have since moved to another room
        src = os.path.relpath(dirpath, objdir)
        objs += [os.path.join(dirpath, f) for f in sorted(names)
                 if f.endswith(".o") and os.path.exists(os.path.join(src, f[:-2] + ".c"))]
    if not have_nm:
        ok(True, "%s/'s exported names carry its prefixes" % r, todo="nm is not installed")
        continue
    if len(objs) < len(sources):
        ok(False, "%s/'s objects are built (%d of %d in %s; make them first)"
           % (r, len(objs), len(sources), objdir))
        continue
    room_objs[r] = objs
    bad, listed = [], []
    defined = room_defined[r] = nm(["-g", "--defined-only"], objs)
    for o in objs:
        for sym in defined.get(o, ()):
            if sym == "main" or any(sym.startswith(p) for p in rooms[r]["prefixes"]):
                continue
            (listed if sym in later.get(r, ()) else bad).append((o, sym))
    ok(not bad, "%s/'s exported names carry its prefixes (%s)" % (r, ", ".join(rooms[r]["prefixes"])),
       ["%s exports '%s': rename it with the room's prefix, or make it static" % (o, s) for o, s in bad])
    if later.get(r):
        gone = sorted(later[r] - {s for _, s in listed})
        ok(not gone, "design.md's not-yet-prefixed names of %s/ are all still there" % r,
           ["'%s' is listed as not yet prefixed but %s/ no longer exports it: remove it from the list"
            % (s, r) for s in gone])
        if listed:
            ok(False, "%s/ exports %d names design.md lists as not yet prefixed" % (r, len(listed)),
               ["%s" % ", ".join(sorted({s for _, s in listed}))], todo="issue 21: the node room")

# ---- (d) the names each room's objects use (nm -u): a call into another
# room goes along an arrow too. An include can bring a room's header in by
# way of a third room's door (cli/ once called tracer/ through a header that
# calls/calls.h pulls in): that call has no arrow of its own, and (a), which
# reads includes, cannot see it.
owner = {}  # a name a room's objects define -> that room
for r in room_objs:
    for o, syms in room_defined[r].items():
        for sym in syms:
            owner[sym] = r
for r in sorted(room_objs):
    problems = []
    used = nm(["-u"], room_objs[r])
    for o in room_objs[r]:
        for sym in used.get(o, ()):
            d = owner.get(sym)
            if d and d != r and (r, d) not in arrows:
                problems.append("%s uses '%s' of %s/, but design.md draws no arrow %s/ --> %s/"
                                % (o, sym, d, r, d))
    ok(not problems, "%s/ uses other rooms' names only along design.md's arrows (nm -u)" % r, problems)

for r in sorted(later):
    if r not in rooms:
        ok(False, "design.md lists not-yet-prefixed names of %s/, a room its table lacks" % r)

print("1..%d" % n)
sys.exit(1 if failed else 0)

#!/usr/bin/env python3
# manual.t - the manual says what the code does. Read from README.md and
# doc/*.md, with the binary as the reference:
#   (a) every command line (a line of a code block, or a `code span`, that
#       runs flameprof) names only options of its command's --help all;
#   (b) every --option named anywhere in them is an option of some command
#       (or of a tool listed in FOREIGN below, named as that tool's);
#   (c) every repository file a page names (`tests/e2e/x.t`, a link) exists,
#       and every link to a heading of a page finds that heading;
#   (d) README.md quotes no date, commit hash or load average, and no page
#       quotes a count of the test suite (the suite's own output has them).
# Run from the repo root by prove (FLAMEPROF names the binary; make check
# gives it).
import glob
import os
import re
import shlex
import subprocess
import sys

FP = os.environ.get("FLAMEPROF", "build/flameprof")
COMMANDS = ["report", "calls", "requests", "top"]  # and the capture: ""
# Options of other programs that the pages name as theirs: perf's, erl's,
# git's, the Makefile's and the tools the tests run.
FOREIGN = {
    "--call-graph", "--header", "--chains", "--dirty-io", "--timer", "--sname", "--name-only",
    "--always", "--dirty", "--check", "--no-print-directory", "--help", "--version",
    "--tool", "--as",  # valgrind's, prlimit's
}
# Named on purpose though no --help shows them: a hidden test switch, and
# the mistyped option of the "did you mean" example.
NOT_IN_HELP = {"--test-dumpable", "--durration"}

n = 0
failed = 0


def ok(cond, msg, diag=()):
    global n, failed
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, msg))
    if not cond:
        failed += 1
        for d in list(diag)[:40]:
            print("#   " + d)


if not os.access(FP, os.X_OK):
    print("1..0 # SKIP %s not built (make %s)" % (FP, FP))
    sys.exit(0)


def help_options(cmd):
    args = [FP] + ([cmd] if cmd else []) + ["--help", "all"]
    out = subprocess.run(args, capture_output=True, text=True).stdout
    opts = set()
    for line in out.splitlines():
        m = re.match(r"^  (?:-([A-Za-z0-9]), |    )--([A-Za-z][A-Za-z-]*)", line)
        if m:
            if m.group(1):
                opts.add("-" + m.group(1))
            opts.add("--" + m.group(2))
    return opts


helps = {c: help_options(c) for c in [""] + COMMANDS}
ok(all(helps.values()), "every command prints its options with --help all (%s)" %
   ", ".join("%s %d" % (c or "capture", len(helps[c])) for c in helps))
every = set().union(*helps.values())

pages = ["README.md"] + sorted(glob.glob("doc/*.md"))
texts = {p: open(p, encoding="utf-8").read() for p in pages}


def code_lines(text):
    """The lines of indented and fenced code blocks, continuations joined."""
    out, fenced, prev_blank = [], False, True
    lines = text.splitlines()
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("```"):
            fenced = not fenced
        elif fenced or (line.startswith("    ") and (prev_blank or (out and out[-1][1] == k - 1))):
            whole = line
            while whole.endswith("\\") and k + 1 < len(lines):
                k += 1
                whole = whole[:-1] + " " + lines[k].strip()
            out.append((whole.strip(), k))
        prev_blank = line.strip() == ""
        k += 1
    return [l for l, _ in out]


def spans(text):
    return re.findall(r"`([^`\n]+)`", text)


def command_of(line):
    """(command, option tokens) of a line that runs flameprof, else None."""
    line = re.sub(r"^\$ ", "", line)
    line = re.sub(r"\$\([^()]*\)", "X", line)  # $(hostname -s): the shell's, not ours
    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        return None
    at = next((k for k, w in enumerate(words) if os.path.basename(w) == "flameprof"), None)
    if at is None:
        return None
    rest = words[at + 1:]
    cmd = rest[0] if rest and rest[0] in COMMANDS else ""
    if cmd:
        rest = rest[1:]
    opts = []
    for w in rest:
        if w in ("|", ">", ">>", "<", "&&", "||", ";", "&") or w.startswith(("2>", ">")):
            break
        if re.match(r"^--?[A-Za-z]", w):
            opts.append(w.split("=", 1)[0] if w.startswith("--") else w[:2])
    return cmd, opts


# (a) command lines
bad, seen = [], 0
for p in pages:
    for line in code_lines(texts[p]) + [s for s in spans(texts[p]) if re.match(r"^(\$ )?(\S*/)?flameprof( |$)", s)]:
        got = command_of(line)
        if not got:
            continue
        seen += 1
        cmd, opts = got
        for o in opts:
            if o not in helps[cmd]:
                bad.append("%s: '%s' is not an option of 'flameprof%s': %s" % (p, o, " " + cmd if cmd else "", line[:100]))
ok(seen > 0 and not bad, "the %d command lines of README.md and doc/ use only their command's options" % seen, bad)

# (b) every --option named, in the prose and the code spans (a code block
# is checked as command lines above: a diagram's arrows are no options)
def prose(text):
    out, fenced, prev_blank = [], False, True
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and not (line.startswith("    ") and prev_blank):
            out.append(line)
            prev_blank = line.strip() == ""
            continue
        prev_blank = prev_blank if line.startswith("    ") else line.strip() == ""
    return "\n".join(out)


bad = []
for p in pages:
    for o in sorted(set(re.findall(r"(?<![\w/-])--[A-Za-z][A-Za-z0-9-]*", prose(texts[p])))):
        if o not in every and o not in FOREIGN and o not in NOT_IN_HELP:
            bad.append("%s: '%s' is no command's option" % (p, o))
ok(not bad, "every --option README.md and doc/ name is an option of a command", bad)


# (c) files and links
def slug(heading):
    h = heading.strip().lower()
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def anchors(path):
    text = open(path, encoding="utf-8").read()
    return {slug(m) for m in re.findall(r"^#+\s+(.*)$", text, re.M)}


ROOTS = ("tests/", "bench/", "examples/", "scripts/", "doc/", "cli/", "node/", "sampler/", "tracer/",
         "calls/", "requests/", "formatter/", "rotate/", "index/", "report/", "top/", "common/",
         "capture/", ".ci/")
bad = []
for p in pages:
    base = os.path.dirname(p)
    for s in spans(texts[p]):
        if s.startswith(ROOTS) and re.match(r"^[\w./-]+$", s) and "*" not in s and "<" not in s:
            if not os.path.exists(s):
                bad.append("%s: names `%s`, which is not in the repository" % (p, s))
    for target in re.findall(r"\]\(([^)\s]+)\)", texts[p]):
        if re.match(r"^[a-z]+:", target) or not re.match(r"^[\w.][\w./#-]*$", target):
            continue
        path, _, frag = target.partition("#")
        full = os.path.normpath(os.path.join(base, path)) if path else p
        if not os.path.exists(full):
            bad.append("%s: links to %s, which is not in the repository" % (p, target))
        elif frag and full.endswith(".md") and frag not in anchors(full):
            bad.append("%s: links to %s, a heading %s does not have" % (p, target, full))
ok(not bad, "every file README.md and doc/ name exists, and every link finds its heading", bad)

# (d) no history in README.md, no counts of the suite anywhere
readme = texts["README.md"]
bad = []
for what, rx in [("a date", r"\b(19|20)\d\d-\d\d-\d\d\b|\b\d\d-\d\d \d\d:\d\d\b|\b\d\d:\d\d UTC\b"),
                 ("a commit hash", r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b"),
                 ("a load average", r"(?i)\bload (average|\d)")]:
    for m in re.finditer(rx, readme):
        bad.append("README.md quotes %s: '%s'" % (what, m.group(0)))
ok(not bad, "README.md quotes no date, commit hash or load average", bad)
bad = []
for p in pages:
    for m in re.finditer(r"\b\d[\d,]*\s+(checks|tests|test files|files marked|files that set)\b", texts[p]):
        bad.append("%s quotes a count of the test suite: '%s'" % (p, m.group(0)))
ok(not bad, "no page quotes a count of the test suite", bad)
lines = readme.count("\n")
ok(lines <= 250, "README.md is at most 250 lines (%d)" % lines)

print("1..%d" % n)
sys.exit(1 if failed else 0)

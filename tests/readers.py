#!/usr/bin/env python3
"""readers.py - check perf-script text against every reader rule of
doc/output-format.md ("Reader rules and where they are met").

Usage: tests/readers.py FILE...   (plain, .gz via `gzip -dc`, .zst via `zstd -dc`)

Prints one line per violation ("FILE:LINE: reader: what") and exits 1 if there
is any; otherwise prints one summary line and exits 0. Standard library only.

Each reader's rules are written from its parser's regular expressions
(Flamescope app/perf/regexp.py and app/common/fileutil.py, the ebegumisa
Flamescope fork's metric regex, speedscope src/import/linux-tools-perf.ts,
Firefox Profiler src/profile-logic/import/linux-perf.ts, FlameGraph
stackcollapse-perf.pl), in the regex dialect the reader runs: Flamescope is
Python on text, speedscope and Firefox Profiler are JavaScript (so \\s is
Unicode whitespace but \\d and \\w are ASCII), stackcollapse-perf.pl is Perl
on bytes.
"""
import re
import subprocess
import sys

# ==== Flamescope (Python re on str) ====
FS_EVENT = re.compile(r" +([0-9.]+): .+?:")
FS_FRAME = re.compile(r"^[\t ]*[0-9a-fA-F]+ (.+) \((.*?)\)$")
FS_COMM = re.compile(r"^ *([^0-9]+)")
# The ebegumisa fork: every metric as name, value, delta.
FS_METRIC = re.compile(r"\bmetric_([^:]+):[\t ](-?[0-9.]+)[\t ]*,[\t ]*(-?[0-9.]+)\b")

# ==== speedscope (JavaScript semantics spelled out for Python) ====
JS_WS = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
JS_S = "[" + JS_WS + "]"
JS_NS = "[^" + JS_WS + "]"
SS_EVENT = re.compile(r"^(" + JS_NS + r".+?)" + JS_S + r"+([0-9]+)(?:/?([0-9]+))?" + JS_S + "+")
SS_TIME = re.compile(JS_S + r"+([0-9]+\.[0-9]+):" + JS_S + "+")
SS_FRAME = re.compile(r"^" + JS_S + r"*([A-Za-z0-9_]+)" + JS_S + r"*(.+) \((" + JS_NS + r"*)\)")

# ==== Firefox Profiler (JavaScript) ====
# A file is perf text if it starts with perf's header line, or if its first
# line is a sample header.
FF_HEADER = "# ========\n"
FF_FIRST = re.compile(r"^" + JS_NS + r".*?" + JS_S + r"+(?:[0-9]+/)?[0-9]+" + JS_S +
                      r"+(?:\[[0-9]+\]" + JS_S + r"+)?[0-9.]+:")
# The time is the last "<ws><digits and dots>:" of the line (greedy .*); the
# thread is the last "<ws>[pid/]tid" before it, the name what precedes it.
FF_SAMPLE = re.compile(r"^(.*)" + JS_S + r"+([0-9.]+):")
FF_THREAD = re.compile(r"^(.*)" + JS_S + r"+(?:([0-9]+)/)?([0-9]+)\b")
FF_FRAME = re.compile(r"^" + JS_S + r"*([A-Za-z0-9_]+)" + JS_S + r"*(.+) \(([^)]*)\)")

# ==== stackcollapse-perf.pl (Perl on bytes: ASCII classes) ====
SC_EVENT = re.compile(rb"^(\S.+?)\s+(\d+)/*(\d+)*\s+")
SC_FRAME = re.compile(rb"^\s*(\w+)\s*(.+) \((.*)\)")

# Characters no line may hold: C0 controls but tab, DEL, C1 controls, and the
# Unicode line breaks of Python's str.splitlines().
BAD_CHARS = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
WHOLE_SECOND = re.compile(r"^[0-9]+(\.0*)?$")


def read_bytes(path):
    if path.endswith(".zst"):
        cmd = ["zstd", "-dc", "--", path]
    elif path.endswith(".gz"):
        cmd = ["gzip", "-dc", "--", path]
    else:
        with open(path, "rb") as f:
            return f.read(), None
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        return p.stdout, "%s failed: %s" % (cmd[0], p.stderr.decode(errors="replace").strip())
    return p.stdout, None


class Checker:
    def __init__(self, path):
        self.path = path
        self.violations = []
        self.events = 0
        self.frames = 0

    def bad(self, lineno, reader, what):
        self.violations.append("%s:%d: %s: %s" % (self.path, lineno, reader, what))

    def check(self):
        data, err = read_bytes(self.path)
        if err:
            self.bad(0, "file", err)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            self.bad(0, "file", "not UTF-8 (%s)" % e)
            text = data.decode("utf-8", errors="replace")
        if text and not text.endswith("\n"):
            self.bad(text.count("\n") + 1, "file", "does not end with a newline")
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        raw_lines = data.split(b"\n")
        if not text.startswith(FF_HEADER) and not (lines and FF_FIRST.search(lines[0])):
            self.bad(1, "firefox", "neither starts with '# ========' nor with a sample "
                     "header: not taken for perf text")

        seen_event = False
        in_event = False       # between an event line and its blank line
        metric_names = None    # the set of metrics of the first event
        last_time = None
        last_time_text = None
        per_thread = {}        # speedscope: (comm, pid, tid) -> last time

        for i, line in enumerate(lines):
            n = i + 1
            raw = raw_lines[i] if i < len(raw_lines) else line.encode()
            m = BAD_CHARS.search(line)
            if m:
                self.bad(n, "all", "control or line-break character U+%04X" % ord(m.group(0)))
            if line.startswith("#"):
                continue  # every reader skips '#' lines
            if line == "":
                if not in_event and seen_event:
                    self.bad(n, "all", "blank line outside an event")
                elif not seen_event:
                    self.bad(n, "flamescope", "first non-'#' line is blank, not an event")
                    seen_event = True  # report it once
                in_event = False
                continue
            if line[0] in "\t ":
                if not in_event:
                    self.bad(n, "all", "frame line outside an event")
                if line[0] != "\t" and FS_EVENT.search(line):
                    self.bad(n, "flamescope", "frame line not starting with a tab reads as an event")
                self.check_frame(n, line, raw)
                continue

            # ---- an event line ----
            if in_event:
                self.bad(n, "speedscope/stackcollapse", "event line without a blank line before it")
            first = not seen_event
            seen_event = True
            in_event = True
            self.events += 1
            ts = self.check_event(n, line, raw, first)
            if ts is None:
                continue
            t_text, comm, pid, tid = ts
            t = float(t_text)
            if last_time is not None and t < last_time:
                self.bad(n, "flamescope", "time %s goes back from %s" % (t_text, last_time_text))
            key = (comm, pid, tid)
            if key in per_thread and t < per_thread[key]:
                self.bad(n, "speedscope", "time goes back within comm+pid+tid %r" % (key,))
            per_thread[key] = t
            last_time, last_time_text = t, t_text
            names = self.check_metrics(n, line)
            if metric_names is None:
                metric_names = names
            elif names != metric_names:
                self.bad(n, "flamescope-metrics", "metrics differ from the first event's: "
                         "missing %s, extra %s" % (sorted(metric_names - names),
                                                   sorted(names - metric_names)))

        if in_event:
            self.bad(len(lines), "stackcollapse", "last event not ended by a blank line")
        # An idle record (a node profiled while it did no work): the header,
        # a '# idle: ' line, no event. Every reader skips its '#' lines, so
        # it holds nothing to draw: stackcollapse-perf.pl writes no stack,
        # Flamescope lists it and cannot draw it (as a file of one event).
        idle = self.events == 0 and any(l.startswith("# idle: ") for l in lines)
        if self.events < 2 and not idle:
            self.bad(len(lines), "flamescope", "%d event(s): a flame graph needs at least 2"
                     % self.events)
        if last_time_text is not None and WHOLE_SECOND.match(last_time_text):
            self.bad(len(lines), "flamescope", "last timestamp %s is a whole second"
                     % last_time_text)
        return self.violations

    def check_event(self, n, line, raw, first):
        ok = True
        fs = FS_EVENT.search(line)
        if not fs:
            self.bad(n, "flamescope", "event line does not match the event regex")
            ok = False
            if first:
                self.bad(n, "flamescope", "first non-'#' line is not an event: not a perf file")
        comm_m = FS_COMM.search(line)
        comm = comm_m.group(1).rstrip() if comm_m else ""
        if not re.fullmatch(r"[A-Za-z_]+", comm):
            self.bad(n, "flamescope", "comm %r is not letters and '_' only" % comm)
        ss = SS_EVENT.search(line)
        if not ss:
            self.bad(n, "speedscope", "event line does not match the event regex")
            ok = False
        else:
            if ss.group(1) != comm:
                self.bad(n, "flamescope", "comm %r is cut to %r (at its first digit)"
                         % (ss.group(1), comm))
        st = SS_TIME.search(line)
        if not st:
            self.bad(n, "speedscope", "no time matching \\s+(\\d+\\.\\d+):\\s+")
            ok = False
        elif fs and st.group(1) != fs.group(1):
            self.bad(n, "speedscope", "time %s differs from Flamescope's %s"
                     % (st.group(1), fs.group(1)))
        sc = SC_EVENT.search(raw)
        if not sc:
            self.bad(n, "stackcollapse", "event line does not match the event regex")
        ff = FF_SAMPLE.search(line)
        if not ff:
            self.bad(n, "firefox", "event line does not match the sample regex")
        else:
            if fs and ff.group(2) != fs.group(1):
                self.bad(n, "firefox", "time %s differs from Flamescope's %s"
                         % (ff.group(2), fs.group(1)))
            th = FF_THREAD.search(ff.group(1))
            if not th:
                self.bad(n, "firefox", "no tid before the time")
            else:
                if th.group(1).strip(JS_WS) != comm:
                    self.bad(n, "firefox", "thread name %r is not the comm %r"
                             % (th.group(1), comm))
                if ss and th.group(3) != (ss.group(3) or ss.group(2)):
                    self.bad(n, "firefox", "tid %s is not speedscope's %s"
                             % (th.group(3), ss.group(3) or ss.group(2)))
        if not ok:
            return None
        return fs.group(1), comm, ss.group(2), ss.group(3)

    def check_metrics(self, n, line):
        names = set()
        for name, value, delta in FS_METRIC.findall(line):
            if name in names:
                self.bad(n, "flamescope-metrics", "metric %s twice" % name)
            names.add(name)
            for what, v in (("value", value), ("delta", delta)):
                if not re.fullmatch(r"-?[0-9]+", v):
                    self.bad(n, "flamescope-metrics", "metric %s %s %r is not an integer"
                             % (name, what, v))
        if not names:
            self.bad(n, "flamescope-metrics", "event carries no metric")
        return names

    def check_frame(self, n, line, raw):
        self.frames += 1
        fs = FS_FRAME.search(line)
        if not fs:
            self.bad(n, "flamescope", "frame line does not match the frame regex")
        else:
            sym, dso = fs.group(1), fs.group(2)
            if sym.find("+") > 0:
                self.bad(n, "flamescope", "symbol %r would be cut at '+'" % sym)
            if "->" in sym:
                self.bad(n, "flamescope", "symbol %r would be split on '->'" % sym)
        ss = SS_FRAME.search(line)
        if not ss:
            self.bad(n, "speedscope", "frame line does not match the frame regex "
                     "(dso with whitespace?)")
        elif fs and (ss.group(2), ss.group(3)) != (fs.group(1), fs.group(2)):
            self.bad(n, "speedscope", "reads symbol/dso %r, Flamescope reads %r"
                     % ((ss.group(2), ss.group(3)), (fs.group(1), fs.group(2))))
        ff = FF_FRAME.search(line)
        if not ff:
            self.bad(n, "firefox", "frame line does not match the frame regex")
        elif fs and (ff.group(2), ff.group(3)) != (fs.group(1), fs.group(2)):
            self.bad(n, "firefox", "reads symbol/dso %r, Flamescope reads %r"
                     % ((ff.group(2), ff.group(3)), (fs.group(1), fs.group(2))))
        elif ff.group(2).startswith("(") or re.search(r"\+0x[\da-f]+$", ff.group(2)):
            self.bad(n, "firefox", "symbol %r is dropped or cut" % ff.group(2))
        sc = SC_FRAME.search(raw)
        if not sc:
            self.bad(n, "stackcollapse", "frame line does not match the frame regex")
        else:
            func = sc.group(2)
            if func.startswith(b"("):
                self.bad(n, "stackcollapse", "symbol starts with '(' and would be dropped")
            if b";" in func:
                self.bad(n, "stackcollapse", "symbol holds ';', the frame separator")
            if b"(" in func or b")" in func:
                self.bad(n, "stackcollapse", "symbol holds a parenthesis (cut at '(')")
            if b'"' in func or b"'" in func:
                self.bad(n, "stackcollapse", "symbol holds a quote (deleted)")
            if re.search(rb"\+0x[\da-f]+$", func):
                self.bad(n, "stackcollapse", "symbol ends like an offset +0x..")
            if fs and func.decode("utf-8", "replace") != fs.group(1):
                self.bad(n, "stackcollapse", "reads symbol %r, Flamescope reads %r"
                         % (func, fs.group(1)))


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write("usage: %s FILE...  (plain, .gz or .zst)\n" % argv[0])
        return 64 if len(argv) < 2 else 0
    failed = False
    events = frames = 0
    for path in argv[1:]:
        c = Checker(path)
        try:
            violations = c.check()
        except OSError as e:
            violations = ["%s:0: file: cannot read: %s" % (path, e)]
        for v in violations:
            print(v)
        failed = failed or bool(violations)
        events += c.events
        frames += c.frames
    if failed:
        return 1
    print("ok: %d file(s), %d events, %d frames; every reader rule holds"
          % (len(argv) - 1, events, frames))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

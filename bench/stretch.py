#!/usr/bin/env python3
"""stretch.py [--dense N] SECONDS FILE... - a real capture's perf-script text (plain,
decompressed) repeated, each copy's event times shifted by the capture's
span, until it covers SECONDS: an hour's capture made from a short real one
(bench/html_hour.sh feeds it to build/ixgen, which writes it as a capture
does, with the report index). The header is written once; the stacks,
statuses and metrics are the capture's own. --dense N writes each event N
times, 1/(97 N) s apart: a node N times as busy (more schedulers)."""
import math
import sys


def main():
    args = sys.argv[1:]
    dense = 1
    if args[0] == "--dense":
        dense, args = int(args[1]), args[2:]
    secs = float(args[0])
    header, events = [], []  # events: [prefix, time, rest-of-event-lines]
    for path in args[1:]:
        with open(path, "rb") as f:
            for line in f:
                if line.startswith(b"#"):
                    if not events:
                        header.append(line)
                    continue
                if line.strip() and not line[:1].isspace():
                    # "comm pid/tid [cpu] sec.frac: ..." (doc/output-format.md)
                    parts = line.split(b" ", 4)
                    t = parts[3]
                    events.append([b" ".join(parts[:3]) + b" ", float(t[:-1]), b" " + parts[4]])
                elif events:
                    events[-1][2] += line
    if not events:
        sys.exit("stretch.py: no events in " + " ".join(args[1:]))
    events.sort(key=lambda e: e[1])
    first, last = events[0][1], events[-1][1]
    span = math.ceil(last - first + 0.001)
    reps = max(1, math.ceil(secs / span))
    out = sys.stdout.buffer
    out.writelines(header)
    for k in range(reps):
        shift = k * span
        for pre, t, rest in events:
            for j in range(dense):
                out.write(pre + b"%.6f:" % (t + shift + j / (97.0 * dense)) + rest)
    print("stretch.py: %d events over %d s, repeated %d times%s: %d events over %d s"
          % (len(events), span, reps, " and %d-fold" % dense if dense > 1 else "",
             len(events) * reps * dense, span * reps), file=sys.stderr)


main()

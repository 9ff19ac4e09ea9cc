#!/usr/bin/env python3
"""gen.py - synthetic flameprof perf-script text for the `report` tests.

Writes events in flameprof's format (doc/output-format.md) to stdout, from a
small model: processes with fixed stacks, statuses, category frames and 16
metrics (reductions grow, memory goes up and down, so deltas can be
negative). --hostile mixes in atoms holding every character a reader could
trip on, escaped with the formatter's %XX scheme.

With --folded FILE it also writes the collapsed stacks the model produced
(computed from the model, not by parsing the text), weighted as --weight
says, with negative weights under "negative" as `report` does.

usage: gen.py [--events N] [--procs P] [--seed S] [--start SEC] [--span SEC]
              [--hostile] [--folded FILE] [--weight samples|METRIC|METRIC_delta]
"""
import argparse
import random
import sys

METRICS = ["reductions", "message_queue_len", "memory", "total_heap_size",
           "heap_block_size", "old_heap_block_size", "heap_size", "old_heap_size",
           "stack_size", "mbuf_size", "recent_size", "bin_vheap_size",
           "bin_vheap_block_size", "bin_old_vheap_size", "bin_old_vheap_block_size",
           "minor_gcs"]
STATUSES = ["running", "runnable", "waiting", "garbage_collecting", "exiting", "suspended"]
IDLE = {"waiting", "exiting", "suspended"}
UNSAFE = set(b"%+>();[]\"'\\")

HOSTILE = ["weird mod", "a;b", "x+y", "a->b", "(paren)", "q\"uo'te", "per%cent",
           "\u00fcn\u00efc\u00f8d\u00e9", "<script>&amp;</script>", "new\nline", "tab\there",
           "]]>", "back\\slash", "[category]", "caf\u00e9 \u2014 \u65e5\u672c"]


def esc(s):
    out = []
    for ch in s:
        b = ch.encode("utf-8")
        if len(b) == 1 and (b[0] < 0x21 or b[0] == 0x7f or b[0] in UNSAFE):
            out.append("%%%02X" % b[0])
        elif len(b) > 1 and (ord(ch) <= 0x9f or ord(ch) in (0xa0, 0x2028, 0x2029, 0x3000, 0xfeff)
                             or 0x2000 <= ord(ch) <= 0x200a):
            out.append("".join("%%%02X" % x for x in b))
        else:
            out.append(ch)
    return "".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=2000)
    ap.add_argument("--procs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=float, default=1700000000.25)
    ap.add_argument("--span", type=float, default=10.0)
    ap.add_argument("--hostile", action="store_true")
    ap.add_argument("--folded")
    ap.add_argument("--weight", default="samples")
    a = ap.parse_args()
    rnd = random.Random(a.seed)

    mods = ["lists", "gen_server", "my_server", "ets", "proc_lib", "io_lib_format", "maps"]
    if a.hostile:
        mods += HOSTILE

    def frame():
        m, f = rnd.choice(mods), rnd.choice(["loop", "handle_call", "foldl", "do_it"] +
                                            (HOSTILE if a.hostile else []))
        return ("%s:%s/%d" % (esc(m), esc(f), rnd.randint(0, 4)),
                "%s.erl:%d" % (esc(m), rnd.randint(1, 999)))

    procs = []
    for p in range(a.procs):
        stacks = []
        for _ in range(rnd.randint(1, 4)):
            stacks.append([frame() for _ in range(rnd.randint(1, 9))])
        name = esc(rnd.choice(HOSTILE)) if a.hostile and p % 3 == 0 else "srv_%d" % p
        procs.append({"pid": (100 + p, p % 3), "stacks": stacks, "name": name,
                      "ic": "proc_lib:init_p/5", "m": [0] * 16, "first": True})

    # Mostly even load with a few bursts, so the heatmap has something to show.
    centres = [rnd.random() * a.span for _ in range(4)]
    times = sorted(a.start + (rnd.random() * a.span if rnd.random() < 0.6 else
                              min(a.span, max(0.0, rnd.choice(centres) + rnd.gauss(0, 0.08))))
                   for _ in range(a.events))
    folded = {}
    out = sys.stdout
    out.write("# flameprof 0.1.0: synthetic test data (tests/report/gen.py)\n")
    for i in range(a.events):
        p = rnd.choice(procs)
        t = times[i]
        if round(t * 1e6) % 1000000 == 0:
            t += 1e-6
        status = rnd.choice(STATUSES[:4]) if rnd.random() < 0.9 else rnd.choice(STATUSES)
        stack = rnd.choice(p["stacks"])
        new = list(p["m"])
        new[0] += rnd.randint(0, 5000)                      # reductions only grow
        new[1] = max(0, new[1] + rnd.randint(-3, 3))          # queue
        new[2] = max(0, new[2] + rnd.randint(-40000, 50000))  # memory: up and down
        for k in range(3, 16):
            new[k] = max(0, new[k] + rnd.randint(-100, 120))
        delta = [0] * 16 if p["first"] else [n - o for n, o in zip(new, p["m"])]
        p["m"], p["first"] = new, False
        mem, q = new[2], new[1]
        mb = ("<4KiB" if mem < 4096 else "4KiB-64KiB" if mem < 65536 else "64KiB-1MiB"
              if mem < 1 << 20 else "1MiB-16MiB")
        qb = "0" if q <= 0 else "1-9" if q < 10 else "10-99"
        cats = ["initial_call:" + esc(p["ic"]), "name:" + p["name"], "memory:" + esc(mb),
                "queue:" + qb]  # root-most first
        fields = "".join("\tmetric_erlang_%s: %d, %d" % (METRICS[k], new[k], delta[k])
                         for k in range(16))
        out.write("%s %d/%d [000] %.6f: 1 cpu-clock:%s\n" % (status, p["pid"][0], p["pid"][1], t,
                                                             fields))
        for sym, dso in stack:                      # leaf first
            out.write("\t0 %s (%s)\n" % (sym, dso))
        for c in reversed(cats):                    # then categories, root-most last
            out.write("\t0 %s ([category])\n" % c)
        out.write("\n")
        if a.weight == "samples":
            w = 1
        elif a.weight.endswith("_delta"):
            # as report: a process not at work weighs 0 under a delta (its
            # delta is work done before it stopped, elsewhere)
            w = 0 if status in IDLE else delta[METRICS.index(a.weight[:-6])]
        else:
            w = new[METRICS.index(a.weight)]
        path = [status] + cats + [s for s, _ in reversed(stack)]
        if w < 0:
            path, w = ["negative"] + path, -w
        key = ";".join(path)
        folded[key] = folded.get(key, 0) + w
    if a.folded:
        with open(a.folded, "w") as f:
            for k in sorted(folded):
                if folded[k]:
                    f.write("%s %d\n" % (k, folded[k]))


if __name__ == "__main__":
    main()

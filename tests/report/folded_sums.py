"""folded_sums.py - `flameprof report -f folded` output as sums, for the page tests.

read_folded(path, drop=()): {stack: samples}, the frames named in drop taken
out of each stack (the merged view's category frames) and equal stacks added.
prefix_sums(f): {frame: samples} where a frame is a stack prefix, as a flame
graph draws it: each stack's samples added to every prefix of it.
"""


def read_folded(path, drop=()):
    out = {}
    with open(path) as f:
        for line in f:
            stack, v = line.rstrip("\n").rsplit(" ", 1)
            k = ";".join(fr for fr in stack.split(";") if fr not in drop)
            out[k] = out.get(k, 0) + int(v)
    return out


def prefix_sums(f):
    out = {}
    for s, v in f.items():
        p = s.split(";")
        for i in range(1, len(p) + 1):
            k = ";".join(p[:i])
            out[k] = out.get(k, 0) + v
    return out

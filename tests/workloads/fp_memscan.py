#!/usr/bin/env python3
"""fp_memscan.py PID TEXT - how many times TEXT is in the writable memory of
process PID (its heap, stack and data: /proc/PID/maps and /proc/PID/mem;
reading them needs root or ptrace rights); where, on stderr. For
tests/e2e/cookie_copies.t."""
import sys, re
pid, needle = sys.argv[1], sys.argv[2].encode()
hits = []
with open("/proc/%s/maps" % pid) as maps, open("/proc/%s/mem" % pid, "rb", 0) as mem:
    for line in maps:
        m = re.match(r"([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)", line)
        lo, hi, perms, name = int(m.group(1), 16), int(m.group(2), 16), m.group(3), m.group(4)
        if "r" not in perms or "w" not in perms or name.startswith("[v"):
            continue
        try:
            mem.seek(lo)
            data = mem.read(hi - lo)
        except (OSError, ValueError, OverflowError):
            continue
        i = data.find(needle)
        while i >= 0:
            hits.append("%x %s" % (lo + i, name or "anon"))
            i = data.find(needle, i + 1)
print(len(hits))
for h in hits:
    print(h, file=sys.stderr)

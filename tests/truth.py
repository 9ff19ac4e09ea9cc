#!/usr/bin/env python3
"""truth.py - compares flameprof's on-CPU picture with Linux perf's.

    truth.py PERF_SCRIPT FOLDED [--json] [--chains CHAINS [--dirty-io MODULE]]

PERF_SCRIPT is `perf script -F ip,sym,dso` of a `perf record -e cpu-clock`
of the node's beam process, started with `+JPperf true` so that its JIT
writes /tmp/perf-<pid>.map and perf names every sample of Erlang code
`$module:function/arity` (with -g, only each sample's leaf is read).
FOLDED is `flameprof report -f folded` of a capture over the same seconds
(on-CPU samples: running, garbage_collecting).

perf samples threads on a CPU and has no process. So both sides are
reduced to the leaf Erlang function of each sample: perf's leaf where it is
in the perf map, flameprof's leaf code frame. A BIF (erlang:is_builtin/3,
asked of this machine's `erl`) is C code: perf's leaf in the JIT's stub of
a BIF called as a fun (erlang:'+'/2) counts for neither side, and
flameprof's BIF frame counts for its caller (flameprof draws no frame for
a BIF it did not catch serving a read). Samples with none (the schedulers'
own loop on perf's side, [ran_to_receive] on flameprof's) count for
neither. flameprof's own modules (flameprof_*) are
left out of both.

Prints, and with --json writes as one JSON line:
  tvd_module    total variation distance of the two leaf distributions
                over modules (0: the same, 1: disjoint)
  tvd_function  the same over functions
  rare_weight   flameprof's share on functions perf saw in under 0.5 % of
                its samples
  floor_module  the module distance that the two sample sizes alone give:
                the median over 200 pairs of draws from perf's leaves, one
                as large as flameprof's sample, one as large as perf's
                (floor_low, floor_high: their 5th and 95th percentiles). A
                distance near it is noise: two perfect samplers that caught
                so few samples of a node whose CPU is spread over many
                modules would be that far apart
  the top functions of each side

With --chains CHAINS (`perf script -F comm,ip,sym,dso` of a record made
with `perf record --call-graph dwarf`: a line with the thread's name, then
the sample's chain), what no leaf comparison shows: perf's samples on the
normal schedulers' threads by what the code asked for, read from each
sample's call chain. DWARF unwinds the emulator's C code up to the JIT's
code that called it, and that caller says what the C was for: a BIF (named
by its C function, the one the JIT's BIF call stub called: erl_send is
`!`, erts_internal_port_command_3 is port_command/2's), a receive, the
garbage collector, or the scheduler's own loop. Printed as c_time (shares
of those samples) and c_bifs (the BIFs with most samples); the readings
above are unchanged. PERF_SCRIPT of such a record is read with
`--hide-call-graph` (its leaves). A perf that puts no JIT frame in its
chains (perf 7.2 with OTP 29 was seen so) gives no such reading: truth.py
says so, and c_time is absent.

With --dirty-io MODULE too, a second reading: perf's samples on the dirty
I/O schedulers' threads whose chain runs through a NIF call
(erts_call_dirty_nif) count for MODULE, the module whose NIFs run there
(prim_file, OTP's file I/O: perf sees that CPU in C and in the kernel,
flameprof at the NIF or its caller, as the process's). Printed as
tvd_module_dirty_io beside the first, which is unchanged. A node whose own
NIFs run dirty I/O work is misread by it. Without chains the dirty
schedulers' own loop cannot be told from a NIF: its yields are kernel
samples too (Yaws: 3,450 of 3,557 such samples were the loop).
"""
import json
import random
import re
import subprocess
import sys
from collections import Counter

PERF_SYM = re.compile(r"^\s*(?:[0-9a-f]+\s+)?\$([^\s]+?)(-CodeInfoPrologue)?\s+\((\S+)\)\s*$")
MFA = re.compile(r"^(.+):([^:]+)/(\d+)$")


BIFS = set()


def ours(module):
    return module.startswith("flameprof_")


CATEGORIES = ("initial_call", "name", "queue", "seq_trace", "tier", "memory")


def ask_bifs(path_perf, path_folded):
    """The MFAs of either file that erlang:is_builtin/3 says are BIFs."""
    mfas = set()
    for path in (path_perf, path_folded):
        with open(path, encoding="utf-8", errors="replace") as f:
            for m in re.finditer(r"([a-z][A-Za-z0-9_@.]*):([a-z][A-Za-z0-9_@]*|'[^' ]+')/(\d+)", f.read()):
                mfas.add((m.group(1), m.group(2).strip("'"), m.group(3)))
    if not mfas:
        return set()
    terms = ",".join("{'%s','%s',%s}" % (m, f, a) for m, f, a in sorted(mfas))
    prog = ("[io:format(\"~s:~s/~b~n\", [M, F, A]) || {M, F, A} <- [%s], "
            "erlang:is_builtin(M, F, A)], halt()." % terms)
    try:
        out = subprocess.run(["erl", "-noshell", "-eval", prog], capture_output=True,
                             text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return set()
    bifs = set()
    for line in out.split():
        m, _, fa = line.partition(":")
        f, _, a = fa.rpartition("/")
        bifs.add("%s:%s/%s" % (m, f if re.match(r"^[a-z][A-Za-z0-9_@]*$", f) else "'%s'" % f, a))
    return bifs


def counted(mfa):
    """An Erlang function a sample counts for: not ours, not a BIF."""
    return mfa not in BIFS


def erlang_frame(line):
    """$module:function/arity of a perf script line in the JIT's map, else None."""
    m = PERF_SYM.match(line)
    if not m or not m.group(3).endswith(".map"):
        return None
    name = m.group(1).replace("'", "")     # perf quotes what flameprof writes bare
    if not MFA.match(name):
        return None                 # $global::..., the JIT's shared code
    return name


def perf_leaves(leaves):
    """The leaf of each perf sample (perf_sample_lines/1), where it is Erlang code.

    perf's call chains (-g) are read past, not followed: the emulator's C
    code keeps no frame pointers, so a chain from C back into Erlang code
    skips the calling function or picks up whatever the stack held (seen:
    the scheduler's sched_yield "called" from a client's loop on OTP 27).
    Time in C (BIFs, the garbage collector, the emulator) counts for
    neither side: flameprof's workloads here compute in Erlang code."""
    c = Counter()
    for line in leaves:
        leaf = erlang_frame(line)
        if leaf and counted(leaf) and not ours(MFA.match(leaf).group(1)):
            c[leaf] += 1
    return c, len(leaves)


def perf_sample_lines(path):
    """perf script's line of each sample's leaf, in the record's order."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    lines = text.split("\n")
    if any(not l.strip() for l in lines[:-1]):     # call chains, a blank line after each
        return [b.strip("\n").split("\n", 1)[0] for b in re.split(r"\n\s*\n", text) if b.strip()]
    return [l for l in lines if l.strip()]


# C a chain reaches through the JIT's stubs, and what it was for. A BIF is
# named by the C function the stub called (past beam_jit_call_bif, which
# calls the BIF for it); C that Erlang code calls directly (apply, the
# process dictionary, term comparison) is "other C called from Erlang code".
BIF_STUBS = re.compile(r"^\$global::(call_light_bif_shared|call_bif_shared|i_bif_body_shared|"
                       r"bif_\w+_shared|i_bif\w*)$")
RECEIVE_C = re.compile(r"^(erts_proc_sig_receive_helper|beam_jit_wait_timeout|beam_jit_timeout\w*|"
                       r"beam_jit_remove_message|erts_save_message_in_proc|erts_msgq_\w+)$")
GC_C = re.compile(r"^(erts_garbage_collect\w*|erts_gc_after_bif_call\w*|erts_gc_\w+)$")


def perf_sample_chains(path):
    """(thread name, chain) of each perf sample of a CHAINS file (see the
    top): the chain leaf first, as symbol names, "$" kept on the JIT's. A
    sample's chain may be empty (perf could not unwind it)."""
    samples = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.strip():
                continue
            if not line[0].isspace():
                samples.append((line.split()[0], []))
            elif samples:
                frame = re.sub(r"^\s*(?:[0-9a-f]+\s+)?(.*?)(?:\s+\([^()]*\))?\s*$", r"\1", line)
                if not frame.startswith("$"):
                    frame = frame.split("(")[0]     # C++'s parameters (OTP 27's JIT helpers)
                samples[-1][1].append(frame)
    return samples


# OTP 25-26 name the threads N_scheduler, N_dirty_io_sch... (perf keeps 15
# characters); OTP 27 and later erts_sched_N, erts_dios_N.
NORMAL_THREAD = re.compile(r"^([0-9]+_scheduler|erts_sched_[0-9]+)$")
DIRTY_IO_THREAD = re.compile(r"^([0-9]+_dirty_io_sch\w*|erts_dios_[0-9]+)$")


def c_time_kind(chain):
    """What a sample's chain (perf_sample_chains/1) ran, for --chains: a
    (kind, name) pair."""
    if not chain:
        return ("no chain", "")
    if chain[0].startswith("$") and not chain[0].startswith("$global::"):
        return ("Erlang code", "")
    j = next((i for i, f in enumerate(chain) if f.startswith("$")), None)
    if j is None:
        return ("the scheduler's loop and other C", "")
    jit = chain[j]
    below = [f for f in chain[:j] if f != "[unknown]"]     # C, leaf first
    callee = below[-1] if below else ""
    if any(RECEIVE_C.match(f) for f in below) or jit == "$global::i_loop_rec_shared":
        return ("receiving", "")
    if any(GC_C.match(f) for f in below) or jit.startswith("$global::garbage_collect"):
        return ("garbage collection", "")
    if BIF_STUBS.match(jit):
        if callee == "beam_jit_call_bif" and len(below) > 1:
            callee = below[-2]
        return ("BIFs", callee or "(the stub itself)")
    if jit == "$global::process_main":
        return ("the scheduler's loop and other C", "")
    if jit.startswith("$global::"):
        return ("the JIT's other stubs", jit[len("$global::"):])
    return ("other C called from Erlang code", callee)


def c_time(samples):
    """Shares of c_time_kind/1 over the normal schedulers' samples
    (perf_sample_chains/1), and the BIFs' names by samples."""
    kinds, bifs = Counter(), Counter()
    for thread, chain in samples:
        if not NORMAL_THREAD.match(thread):
            continue
        kind, name = c_time_kind(chain)
        kinds[kind] += 1
        if kind == "BIFs":
            bifs[name] += 1
    n = sum(kinds.values())
    return n, {k: round(v / n, 4) for k, v in kinds.most_common()} if n else {}, \
        [[k, round(v / n, 4)] for k, v in bifs.most_common(8)] if n else []


def dirty_io_samples(samples):
    """perf's samples (perf_sample_chains/1) on a dirty I/O scheduler's
    thread whose chain runs through a NIF call, not the scheduler's loop."""
    return sum(1 for thread, chain in samples
               if DIRTY_IO_THREAD.match(thread) and "erts_call_dirty_nif" in chain)


def folded_leaves(path):
    """Leaf code frame of each flameprof sample (the folded line's last frame)."""
    c = Counter()
    total = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            stack, _, n = line.rpartition(" ")
            n = int(n)
            total += n
            frames = [re.sub(r" \(.*\)$", "", f) for f in stack.split(";")]
            leaf = frames[-1]
            while len(frames) > 1 and leaf in BIFS:
                frames.pop()
                leaf = frames[-1]
            mfa = MFA.match(leaf)
            if not mfa or ours(mfa.group(1)) or leaf.split(":")[0] in CATEGORIES:
                continue            # a status or category frame, or ours
            c[leaf] += n
    return c, total


def share(c):
    n = sum(c.values())
    return {k: v / n for k, v in c.items()} if n else {}


def by_module(c):
    m = Counter()
    for k, v in c.items():
        m[MFA.match(k).group(1)] += v
    return m


def tvd(p, q):
    return 0.5 * sum(abs(p.get(k, 0.0) - q.get(k, 0.0)) for k in set(p) | set(q))


def floor(perf, n, draws=200):
    """Module distances between a draw of n samples and one of as many as
    perf has, both from perf's leaves: (5th percentile, median, 95th
    percentile). Seeded: the same files give the same figures."""
    rng = random.Random(33)
    keys = list(perf)
    weights = [perf[k] for k in keys]
    m = sum(weights)

    def draw(k):
        return share(by_module(Counter(rng.choices(keys, weights, k=k))))
    d = sorted(tvd(draw(n), draw(m)) for _ in range(draws))
    return d[draws // 20], d[draws // 2], d[draws - 1 - draws // 20]


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    BIFS.update(ask_bifs(argv[1], argv[2]))

    perf_lines = perf_sample_lines(argv[1])
    perf, perf_total = perf_leaves(perf_lines)
    fp, fp_total = folded_leaves(argv[2])
    if not perf or not fp:
        sys.exit("truth.py: no Erlang samples in %s" % (argv[1] if not perf else argv[2]))
    pf, ff = share(perf), share(fp)
    low, mid, high = floor(perf, sum(fp.values()))
    res = {
        "perf_samples": perf_total, "perf_erlang": sum(perf.values()),
        "fp_samples": fp_total, "fp_erlang": sum(fp.values()),
        "tvd_module": round(tvd(share(by_module(perf)), share(by_module(fp))), 4),
        "tvd_function": round(tvd(pf, ff), 4),
        "rare_weight": round(sum(v for k, v in ff.items() if pf.get(k, 0.0) < 0.005), 4),
        "floor_module": round(mid, 4), "floor_low": round(low, 4), "floor_high": round(high, 4),
        "perf_top": [[k, round(v, 4)] for k, v in sorted(pf.items(), key=lambda x: -x[1])[:8]],
        "fp_top": [[k, round(v, 4)] for k, v in sorted(ff.items(), key=lambda x: -x[1])[:8]],
    }
    if "--dirty-io" in argv and "--chains" not in argv:
        sys.exit("truth.py: --dirty-io needs --chains: record with perf's call chains "
                 "(perf record --call-graph dwarf) and give their script")
    if "--chains" in argv:
        samples = perf_sample_chains(argv[argv.index("--chains") + 1])
        if not any(f.startswith("$") for _, chain in samples for f in chain):
            res["c_time_none"] = "perf's call chains name no frame of the JIT's here (its map unread)"
        else:
            res["c_time_samples"], res["c_time"], res["c_bifs"] = c_time(samples)
            if "--dirty-io" in argv:
                module = argv[argv.index("--dirty-io") + 1]
                n = dirty_io_samples(samples)
                with_io = by_module(perf)
                with_io[module] += n
                res["perf_dirty_io"] = n
                res["tvd_module_dirty_io"] = round(tvd(share(with_io), share(by_module(fp))), 4)
    if "--json" in argv:
        print(json.dumps(res))
        return
    print("perf: %d samples, %d in Erlang code; flameprof: %d on-CPU samples, %d with an Erlang leaf"
          % (res["perf_samples"], res["perf_erlang"], res["fp_samples"], res["fp_erlang"]))
    print("module TVD %.3f, function TVD %.3f, flameprof's weight on functions perf saw < 0.5 %%: %.3f"
          % (res["tvd_module"], res["tvd_function"], res["rare_weight"]))
    print("sample size alone: draws of %d and %d samples from perf's leaves are module TVD %.3f apart (5-95 %%: %.3f-%.3f)"
          % (res["fp_erlang"], res["perf_erlang"], res["floor_module"], res["floor_low"], res["floor_high"]))
    if "tvd_module_dirty_io" in res:
        print("with perf's %d samples in NIF calls on the dirty I/O schedulers counted for %s: module TVD %.3f"
              % (res["perf_dirty_io"], module, res["tvd_module_dirty_io"]))
    for side in ("perf_top", "fp_top"):
        print("%s: %s" % (side, ", ".join("%s %.1f%%" % (k, 100 * v) for k, v in res[side])))
    if "c_time_none" in res:
        print("no reading of the call chains: %s" % res["c_time_none"])
    if "c_time" in res:
        print("perf's %d samples on the normal schedulers, by what they ran (call chains): %s"
              % (res["c_time_samples"], ", ".join("%s %.1f%%" % (k, 100 * v) for k, v in res["c_time"].items())))
        print("c_bifs: %s" % ", ".join("%s %.1f%%" % (k, 100 * v) for k, v in res["c_bifs"]))


if __name__ == "__main__":
    main(sys.argv)

#!/usr/bin/env python3
"""ixhostile.py - capture files whose report index claims more than the file
holds, for tests/e2e/report_index_hostile.t (doc/security.md, "Files given to
`report`"). Each is a zstd file as a capture writes it: a frame of
perf-script text (a few sound events, so that reading the text instead gives
a report), then index blocks and the trailer (doc/output-format.md, "The
report index"), the sections compressed by the zstd program.

usage: ixhostile.py SHAPE OUT
  zeros     one block of 8,192 events whose 5 event columns and 32 metric
            columns (16 metrics, as a capture's) are each 1 GiB of zeros
  tables    one block whose table section inflates to 1,000,000,000 bytes
            (16,000 frames of 62,500 bytes)
  frames    one block whose table section is 15 MiB of 3-byte frames (5
            million), under the 64 MiB a file's tables may take
usage: ixhostile.py damage FILE BLOCK
  flips a byte in the middle of block BLOCK's stack column (counted from 0)
  of an indexed FILE, in place
"""
import subprocess
import struct
import sys

SKIP_MAGIC = 0x184D2A5B
METRICS = ["reductions", "message_queue_len", "memory", "total_heap_size",
           "heap_block_size", "old_heap_block_size", "heap_size", "old_heap_size",
           "stack_size", "mbuf_size", "recent_size", "bin_vheap_size",
           "bin_vheap_block_size", "bin_old_vheap_size", "bin_old_vheap_block_size",
           "minor_gcs"]


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7f) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def get_varint(b, p):
    x, sh = 0, 0
    while True:
        c = b[p]
        p += 1
        x |= (c & 0x7f) << sh
        sh += 7
        if not c & 0x80:
            return x, p


def string(s):
    return varint(len(s)) + s


def zstd(chunks, size):
    """chunks: an iterable of bytes adding up to size; one zstd frame of them."""
    p = subprocess.Popen(["zstd", "-q", "-1", "-c", "--stream-size=%d" % size],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    import threading
    out = []
    t = threading.Thread(target=lambda: out.append(p.stdout.read()))
    t.start()
    for c in chunks:
        p.stdin.write(c)
    p.stdin.close()
    t.join()
    if p.wait() != 0:
        sys.exit("ixhostile: zstd failed")
    return out[0]


def repeated(byte, size, chunk=1 << 20):
    block = byte * chunk
    left = size
    while left > 0:
        yield block[:min(chunk, left)]
        left -= chunk


def skippable(payload):
    return struct.pack("<II", SKIP_MAGIC, len(payload)) + payload


def block(seq, nevents, sections):
    """sections: [(raw_len, compressed bytes)]."""
    head = b"FPIB\x01" + varint(seq) + varint(nevents) + varint(len(sections))
    for raw, comp in sections:
        head += varint(raw) + varint(len(comp))
    return skippable(head + b"".join(c for _, c in sections))


def trailer(blocks, total, offset):
    body = b"FPIT\x01" + varint(len(blocks))
    for off, size, n in blocks:
        body += varint(off) + varint(size) + varint(n)
    body += varint(total) + varint(offset)
    size = 8 + len(body) + 12
    return skippable(body + struct.pack("<I", size) + b"FLPFIDX1")


def text():
    """A few sound events, as a capture writes them."""
    t = "# flameprof ixhostile.py: the index below claims more than this file holds\n"
    for i in range(20):
        t += ("running 100 [000] 1700000000.%06d: 1 cpu-clock:\tmetric_erlang_reductions: %d, 10\n"
              "\t0 hostile:f/%d (hostile.erl:1)\n\t0 proc_lib:init_p/3 (proc_lib.erl:1)\n\n"
              % (i * 1000, 10 * i, i % 3))
    data = t.encode()
    return zstd([data], len(data))


def tables(frames, comms, layouts, stacks, pids):
    """frames: [(kind, sym, dso)]; comms: [bytes]; layouts: [[name]];
    stacks: [[frame id]]; pids: [(pid, tid)]."""
    b = varint(len(frames))
    for k, s, d in frames:
        b += varint(k) + string(s) + string(d)
    b += varint(len(comms)) + b"".join(string(c) for c in comms)
    b += varint(len(layouts))
    for l in layouts:
        b += varint(len(l)) + b"".join(string(n) for n in l)
    b += varint(len(stacks))
    for s in stacks:
        b += varint(len(s)) + b"".join(varint(f) for f in s)
    b += varint(len(pids)) + b"".join(varint(p) + varint(t) for p, t in pids)
    return b


def write(out, blocks_sections):
    """blocks_sections: [(nevents, sections)]: the text, the blocks, the trailer."""
    data = bytearray(text())
    where = []
    for seq, (n, secs) in enumerate(blocks_sections):
        b = block(seq, n, secs)
        where.append((len(data), len(b), n))
        data += b
    data += trailer(where, sum(n for _, _, n in where), len(data))
    with open(out, "wb") as f:
        f.write(data)


def small(raw):
    return (len(raw), zstd([raw], len(raw)))


def shape_zeros(out):
    n = 1 << 30
    tab = tables([(0, b"hostile:f/0", b"hostile.erl:1")], [b"running"],
                 [[("erlang_" + m).encode() for m in METRICS]], [[0]], [(100, 0)])
    zeros = zstd(repeated(b"\0", n), n)  # 1 GiB of zeros, the same frame for every column
    write(out, [(8192, [small(tab)] + [(n, zeros)] * (5 + 2 * len(METRICS)))])


def big_tables(out, nframes, sym_len):
    """One block, one event, whose table section holds nframes frames of
    sym_len bytes each (then a comm, a stack of frame 0 and a pid)."""
    frame = varint(0) + varint(sym_len) + b"a" * sym_len + varint(0)
    head = varint(nframes)
    tail = tables([], [b"running"], [], [[0]], [(100, 0)])[1:]  # without its frame count
    size = len(head) + nframes * len(frame) + len(tail)

    def parts():
        yield head
        k = max(1, (1 << 20) // len(frame))
        for i in range(0, nframes, k):
            yield frame * min(k, nframes - i)
        yield tail
    write(out, [(1, [(size, zstd(parts(), size))] + [small(b"\0")] * 5)])


def shape_tables(out):
    big_tables(out, 16000, 62500)  # 1,000,000,000 bytes and a few


def shape_frames(out):
    big_tables(out, 5 * 1000 * 1000, 0)  # 15 MB of 3-byte frames


def damage(path, which):
    with open(path, "r+b") as f:
        b = f.read()
        tsize = struct.unpack("<I", b[-12:-8])[0]
        t = b[len(b) - tsize:]
        nb, p = get_varint(t, 13)
        offs = []
        for _ in range(nb):
            off, p = get_varint(t, p)
            size, p = get_varint(t, p)
            _, p = get_varint(t, p)
            offs.append((off, size))
        off, size = offs[which]
        blk = b[off:off + size]
        q = 13
        for _ in range(3):  # seq, events, nsec
            v, q = get_varint(blk, q)
        nsec = v
        lens = []
        for _ in range(nsec):
            raw, q = get_varint(blk, q)
            clen, q = get_varint(blk, q)
            lens.append(clen)
        at = q + sum(lens[:4])  # section 4: the stack column
        if lens[4] < 2:
            sys.exit("ixhostile: block %d's stack column is empty" % which)
        at += lens[4] // 2
        f.seek(off + at)
        f.write(bytes([blk[at] ^ 0x10]))


def main(argv):
    if len(argv) == 4 and argv[1] == "damage":
        damage(argv[2], int(argv[3]))
    elif len(argv) == 3 and argv[1] in ("zeros", "tables", "frames"):
        globals()["shape_" + argv[1]](argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)

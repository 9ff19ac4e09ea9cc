#!/bin/bash
# The disk fills up mid-capture, two ways: a file size limit (RLIMIT_FSIZE
# through prlimit: flameprof ignores SIGXFSZ, so write(2) fails with EFBIG)
# and a small tmpfs (ENOSPC, after a few rotations). Each time: exit 74 with
# one sentence, every file closed before is complete, the in-progress file
# decompresses up to its last complete frame (only the frame the disk cut
# is lost), and the node is restored. Both are small enough to fill in
# seconds (a 48 KiB limit took 17 s, a 128 KiB tmpfs 16 files and 16 s).
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node full "fp_busy:start(6)" || exit 1

# ---- RLIMIT_FSIZE: 16 KiB per file (about 30 zstd frames, one every 200 ms)
odir="$T_DIR/fsize"
FP_WRAP="prlimit --fsize=16384 -- $FP_WRAP"
fp --top 20 --every 1s --flush 200ms --rotate 0 --duration 60s -o "$odir" "$NODE"
fp_wrap
is "$FP_RC" 74 "file size limit: flameprof exits 74"
check "file size limit: one sentence: $(fp_errors | head -1)" one_sentence
check "file size limit: it names the file and the cause" grep -q "cannot write '.*': File too large" "$T_DIR/fp.err"
dot=$(ls -A "$odir" | grep '^\.flameprof_' | head -1)
check "file size limit: the cut file is left under its dot-name" test -n "$dot"
is "$(stat -c %s "$odir/$dot" 2>/dev/null)" 16384 "file size limit: it was written up to the limit"
check "file size limit: it decompresses up to its last complete frame, whole events only" dot_ok "$odir/$dot"
check "file size limit: the node is restored" node_clean "$NODE"

# ---- a 64 KiB tmpfs, rotating every second (about 8 files fill it)
odir="$T_DIR/small"
mkdir -p "$odir"
if mount -t tmpfs -o size=64k,mode=0750 tmpfs "$odir" 2>/dev/null; then
	trap 'umount "$T_DIR/small" 2>/dev/null; cleanup' EXIT
	fp --top 20 --every 1s --flush 250ms --rotate 1s --keep 0 --duration 90s -o "$odir" "$NODE"
	is "$FP_RC" 74 "full tmpfs: flameprof exits 74"
	check "full tmpfs: one sentence: $(fp_errors | head -1)" one_sentence
	check "full tmpfs: it says the disk is full" grep -q "No space left on device" "$T_DIR/fp.err"
	n=$(ls "$odir" | grep -c '^flameprof_')
	check "full tmpfs: files were closed before the disk filled ($n)" test "$n" -ge 2
	check "full tmpfs: every closed file is complete and passes every reader rule" closed_ok "$odir"
	for d in $(ls -A "$odir" | grep '^\.flameprof_'); do
		check "full tmpfs: the in-progress file decompresses up to its last complete frame" dot_ok "$odir/$d"
	done
	check "full tmpfs: the node is restored" node_clean "$NODE"
	cp -a "$odir" "$T_DIR/small.kept" 2>/dev/null
	umount "$odir"
else
	skip "cannot mount a tmpfs here (not root?)"
fi
finish

#!/bin/bash
# The output directory goes away mid-run, two ways: made immutable
# (chattr +i: as root, chmod does not stop writes, and a tmpfs cannot be
# remounted read-only while a file is open for writing: EBUSY), and removed
# (rm -rf). The open file can still be written but not renamed, so the next
# rotation fails: exit 74 with one sentence within a few seconds, files
# closed before are intact, the node is restored. And a directory that is
# not safe to write in (others can write in it, not sticky) is refused.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node outdir "fp_busy:start(4)" || exit 1

# ---- made immutable
odir="$T_DIR/ro"
if mkdir -p "$odir" && chattr +i "$odir" 2>/dev/null && chattr -i "$odir"; then
	trap 'chattr -i "$T_DIR/ro" 2>/dev/null; cleanup' EXIT
	fp_bg --top 10 --every 1s --flush 250ms --rotate 1s -o "$odir" "$NODE"
	check "immutable: a file was closed first" wait_until 20 sh -c "ls '$odir' | grep -q '^flameprof_'"
	sleep 0.3
	chattr +i "$odir"
	fp_wait 20
	chattr -i "$odir"
	is "$FP_RC" 74 "immutable: flameprof exits 74"
	check "immutable: it stopped within 5 s of the change ($((FP_WAITED / 10)) s)" test "$FP_WAITED" -lt 50
	check "immutable: one sentence: $(fp_errors | head -1)" one_sentence
	check "immutable: every file closed before is complete" closed_ok "$odir"
	for d in $(ls -A "$odir" | grep '^\.flameprof_'); do
		check "immutable: the file it could not rename decompresses whole, whole events only" dot_ok "$odir/$d"
	done
	check "immutable: the node is restored" node_clean "$NODE"
else
	skip "chattr +i is not supported here"
fi

# ---- removed
odir="$T_DIR/gone"
fp_bg --top 10 --every 1s --flush 250ms --rotate 1s -o "$odir" "$NODE"
check "removed: flameprof is writing" wait_until 20 sh -c "ls -A '$odir' 2>/dev/null | grep -q '^\.flameprof_'"
sleep 0.5
rm -rf "$odir"
fp_wait 20
is "$FP_RC" 74 "removed: flameprof exits 74"
check "removed: it stopped within 5 s ($((FP_WAITED / 10)) s)" test "$FP_WAITED" -lt 50
check "removed: one sentence: $(fp_errors | head -1)" one_sentence
check "removed: the node is restored" node_clean "$NODE"

# ---- a directory others can write in
odir="$T_DIR/open"
mkdir -m 0777 "$odir" && chmod 0777 "$odir"
fp --duration 1s --every 1s -o "$odir" "$NODE"
is "$FP_RC" 73 "world-writable, not sticky: exit 73"
check "world-writable: one sentence: $(fp_errors | head -1)" one_sentence
check "world-writable: it says why" grep -q "other users can write in it (mode 0777, not sticky: chmod go-w it)" "$T_DIR/fp.err"
check "world-writable: nothing written there" test -z "$(ls -A "$odir")"
chmod 1777 "$odir"
fp --duration 2s --every 1s -o "$odir" "$NODE"
is "$FP_RC" 0 "sticky (as /tmp): accepted"
check "sticky: a capture file was written" sh -c "ls '$odir' | grep -q '^flameprof_'"
check "the node is restored" node_clean "$NODE"
finish

#!/bin/bash
# A node that lies (issue 18): its rex is replaced by a process that
# answers flameprof's calls with what no real node sends: a 6,000-byte
# otp_release (once a heap overflow), a list of 70,000 wide integers,
# terminal escapes, an atom, a term nested 1,000 deep, a 130 MiB message,
# 20,000 stray messages before the answer, a long list for a pid, a fake
# timer reference. Each must end flameprof with one sentence and its
# documented status, under valgrind memcheck when it is installed (no
# invalid read or write, no definite leak), and leave the node as it was.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node hostile "fp_hostile_rex:start()" || exit 1

if command -v valgrind >/dev/null; then VG=1; else VG=; diag "valgrind is not installed: memory checked by exit status only"; fi
# hostile MODE: flameprof against the node with rex in MODE
hostile() {
	rpc "$NODE" "fp_hostile_rex mode [$1]" >/dev/null
	log="$T_DIR/vg_$1.log"
	if [ -n "$VG" ]; then FP_WRAP="valgrind $FP_VG_OPTS --log-file=$log"; else FP_WRAP=; : > "$log"; fi
	# under valgrind on a busy machine, reading 10,000 stray messages alone can
	# take seconds: the deadline is for a node that does not answer at all
	FP_DEADLINE=150 fp --connect-timeout 60s --duration 1s --top 2 -o "$T_DIR/out_$1" "$NODE"
}
mem_clean() {
	[ -z "$VG" ] && return 0
	grep -q 'ERROR SUMMARY: 0 errors' "$1" && ! grep -q 'definitely lost: [1-9]' "$1" ||
		{ sed 's/^/#   valgrind: /' "$1" | tail -40; return 1; }
}
no_escape() { ! grep -q "$(printf '\033')" "$T_DIR/fp.err"; }

expect() { # MODE STATUS REGEX
	hostile "$1"
	is "$FP_RC" "$2" "$1: exit $2"
	[ "$FP_RC" = "$2" ] || sed 's/^/#   fp.err: /' "$T_DIR/fp.err" >&2
	check "$1: one sentence: $3" sh -c "grep -qE \"^flameprof: .*$3\" '$T_DIR/fp.err'"
	check "$1: exactly one error line" one_sentence
	check "$1: no memory error, no definite leak" mem_clean "$T_DIR/vg_$1.log"
	check "$1: no escape byte reaches the terminal" no_escape
}

not_release="answered erlang:system_info\\(otp_release\\) with something that is not a release"
expect big_release 76 "$not_release"
expect wide_release 76 "$not_release"
expect escape_release 76 "$not_release"
expect atom_release 76 "$not_release"
expect deep_release 76 "answered erlang:system_info with something that is not a rex reply"
# the flood: its run once waited 60 s for bytes that never came (exit 75,
# "did not answer") in 1 of 15 to 40 runs beside two busy loops, in either
# order with the huge answer: 3 bytes of a packet's length left unread on
# our side, 0.9 MB unsent on the node's. flameprof now reads every byte as
# it comes (node/packet.c): 0 of 100 such runs.
expect flood_release 76 "sent more than 10000 messages"
expect huge_release 76 "sent a message of [0-9]+ bytes, more than flameprof accepts \\(128 MiB\\)"
expect spawn_list 69 "cannot take the flameprof lock on .*erlang:spawn failed"
expect bad_ref 69 "cannot take the flameprof lock on .*erlang:send_after failed"

rpc "$NODE" "fp_hostile_rex mode [none]" >/dev/null
check "the node is left as it was (no lock, no agent, backtrace_depth kept)" node_clean_within 10 "$NODE"
check "no file was left behind by the refused runs" sh -c "! ls '$T_DIR'/out_*/flameprof_* 2>/dev/null | grep -q ."
rpc "$NODE" "fp_hostile_rex stop []" >/dev/null
FP_WRAP=
fp --duration 1s --top 2 -o "$T_DIR/out_ok" "$NODE"
is "$FP_RC" 0 "with its real rex back, the same node is profiled (exit 0)"
finish

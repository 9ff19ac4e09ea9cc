#!/bin/bash
# What the agent does differently by release, checked on the node itself.
# OTP 26.2 added process_info(P, {dictionary, Key}): there the agent must
# never copy a whole dictionary; before it, at most once per process per
# capture. OTP 27 added proc_lib:set_label/1: a labelled process shows its
# label as its name category. Each check runs on the release that has the
# feature and says SKIP, with the reason, on one that does not.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node otpf "fp_otp_probe:watch_dict_reads(), fp_otp_probe:start_busy()" || exit 1

release=$(rpc "$NODE" "erlang system_info [otp_release]" | tr -d '"')
features=$(rpc "$NODE" "fp_otp_probe features []" | tr -d '"')
diag "node: OTP $release, $features"

fp --duration 4s --top 10 --every 1s --categories initial_call,name -o "$T_DIR/out" "$NODE"
is "$FP_RC" 0 "a 4 s capture with a 1 s window exits 0"
files=$(ls "$T_DIR/out"/*.perf.zst 2>/dev/null)
check "a file is written" test -n "$files"
decompressed $files > "$T_DIR/all.txt"
check "the four busy processes are sampled ($(grep -c 'fp_otp_probe:spin' "$T_DIR/all.txt") frames)" \
	test "$(grep -c 'fp_otp_probe:spin' "$T_DIR/all.txt")" -gt 40

reads=$(rpc "$NODE" "fp_otp_probe dict_reads []" | tr -d '"')
diag "dictionary reads by the agent: $reads"
whole=$(sed -n 's/.*whole=\([0-9]*\).*/\1/p' <<<"$reads")
key=$(sed -n 's/.*key=\([0-9]*\).*/\1/p' <<<"$reads")
per_pid=$(sed -n 's/.*max_per_pid=\([0-9]*\).*/\1/p' <<<"$reads")
case $features in
*dict_key=true*)
	is "$whole" 0 "OTP $release reads one dictionary key: no whole dictionary is copied"
	check "the agent read keys instead ($key reads)" test "${key:-0}" -gt 0 ;;
*)
	skip "process_info(P, {dictionary, Key}) needs OTP 26.2; this node runs OTP $release"
	check "OTP $release copies a dictionary at most once per process per capture (most: ${per_pid:-?})" \
		test "${per_pid:-99}" -le 1 ;;
esac

case $features in
*label=true*)
	check "the labelled process shows 'name:fp_labelled_worker' as its name category" \
		grep -q 'name:fp_labelled_worker (\[category\])' "$T_DIR/all.txt" ;;
*)
	skip "proc_lib:set_label/1 needs OTP 27; this node runs OTP $release" ;;
esac
check "every perf-script reader rule holds" readers_ok $files
check "the node is left as it was" node_clean "$NODE"
finish

#!/bin/bash
# One flameprof per node, atomically: 10 runs started at once against one
# node, first under the same (default) node name, then under 10 different
# names (so that all of them reach the node's lock together). Each time
# exactly one records and exits 0, the 9 others exit 69 with the "already
# being profiled" (or "under our node name") sentence and write nothing, and
# the node ends as it was.
T_SCHEDULERS=2 # processes running on several schedulers at once are part of what it checks (lib.sh)
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node race "fp_busy:start(4)" || exit 1

race() {
	local label=$1 names=$2 k pids="" rc zero=0 busy=0 other=0 files=0
	for k in $(seq 10); do
		name_opt=""
		[ "$names" = distinct ] && name_opt="--node-name fp_race_$k"
		timeout -s KILL 60 "$FLAMEPROF" --cookie-file "$T_DIR/cookie" --duration 3s --top 5 --every 1s \
			$name_opt -o "$T_DIR/$label.$k" "$NODE" >/dev/null 2>"$T_DIR/$label.$k.err" &
		pids="$pids $!"
	done
	k=0
	for p in $pids; do
		k=$((k + 1))
		wait "$p"; rc=$?
		case $rc in
		0) zero=$((zero + 1)) ;;
		69) busy=$((busy + 1))
			grep -q -e "^flameprof: '$NODE' is already being profiled by another flameprof" \
				-e "^flameprof: another flameprof of yours is connected to '$NODE' under our node name" \
				"$T_DIR/$label.$k.err" || { other=$((other + 1)); sed 's/^/#   /' "$T_DIR/$label.$k.err"; } ;;
		*) other=$((other + 1)); diag "run $k exit $rc"; sed 's/^/#   /' "$T_DIR/$label.$k.err" ;;
		esac
		[ -n "$(ls "$T_DIR/$label.$k"/*.perf.zst 2>/dev/null)" ] && files=$((files + 1))
	done
	is "$zero" 1 "$label: exactly one run records and exits 0"
	is "$busy" 9 "$label: the 9 others exit 69"
	is "$other" 0 "$label: each of them with the one-at-a-time sentence"
	is "$files" 1 "$label: only the recording run wrote a file"
	check "$label: its file passes every reader rule" readers_ok $(ls "$T_DIR/$label".*/*.perf.zst)
	check "$label: the node is left as it was" node_clean_within 5 "$NODE"
}
race same_name same
race distinct_names distinct
is "$(rpc "$NODE" "erlang whereis [timer_server]")" undefined "no timer server was started on the node"
finish

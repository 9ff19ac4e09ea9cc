# bench/scratch.sh - sourced by the bench scripts that start nodes of their
# own: bench_scratch NAME makes the scratch directory $W, a cookie of its own
# in $W/cookie ($COOKIE), a private epmd below the kernel's ephemeral ports
# (32768 and up) on ERL_EPMD_PORT, and a cleanup on exit that stops the node
# in $NODE_PID, that epmd, and removes $W.
bench_scratch() {
	W=$(mktemp -d "${TMPDIR:-/tmp}/fp-$1.XXXXXX")
	COOKIE="$1$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
	printf '%s\n' "$COOKIE" > "$W/cookie" && chmod 400 "$W/cookie"
	export ERL_EPMD_PORT=$(( 20000 + $$ % 12000 ))
	NODE_PID=""
	trap bench_cleanup EXIT
	epmd -daemon -port "$ERL_EPMD_PORT" -address 127.0.0.1 -relaxed_command_check
}
bench_cleanup() {
	[ -n "$NODE_PID" ] && kill "$NODE_PID" 2>/dev/null
	epmd -port "$ERL_EPMD_PORT" -kill >/dev/null 2>&1
	rm -rf "$W"
}

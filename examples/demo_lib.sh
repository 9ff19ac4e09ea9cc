# demo_lib.sh - sourced by the demo scripts. demo_begin NAME makes a
# scratch directory (WORK), a fresh cookie in WORK/cookie, a private epmd
# port bound to 127.0.0.1 (ERL_EPMD_PORT), the node name NAME_<pid>@127.0.0.1
# (NODE), and stops the node (NODE_PID, once set) and that epmd on exit.
# demo_wait WHAT: waits up to 30 s for the node to write WORK/ready.

demo_end() {
	[ -n "${NODE_PID:-}" ] && kill "$NODE_PID" 2>/dev/null
	epmd -port "$ERL_EPMD_PORT" -kill >/dev/null 2>&1 || true
	rm -rf "$WORK"
}

demo_begin() {
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/flameprof-demo.XXXXXX")
	# below the kernel's ephemeral ports (32768 and up), which an outgoing
	# connection of the machine may hold
	export ERL_EPMD_PORT=${ERL_EPMD_PORT:-$(( 12000 + $$ % 8000 ))}
	NODE="$1_$$@127.0.0.1"
	trap demo_end EXIT
	od -An -N12 -tx1 /dev/urandom | tr -d ' \n' > "$WORK/cookie"
	chmod 400 "$WORK/cookie"
	epmd -daemon -port "$ERL_EPMD_PORT" -address 127.0.0.1 -relaxed_command_check
}

demo_wait() {
	for _ in $(seq 300); do [ -f "$WORK/ready" ] && return 0; sleep 0.1; done
	cat "$WORK/node.log" >&2
	echo "demo: the $1 node did not start" >&2
	exit 1
}

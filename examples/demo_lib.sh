# demo_lib.sh - sourced by the demo scripts (after ROOT is set).
# demo_begin NAME OUTDIR SECS makes a scratch directory (WORK), a fresh
# cookie in WORK/cookie, a private epmd port bound to 127.0.0.1
# (ERL_EPMD_PORT), the node name NAME_<pid>@127.0.0.1 (NODE), OUT
# ($DEMO_OUT, else ./OUTDIR) and SECS ($DEMO_SECONDS, else SECS), and stops
# the node (NODE_PID, once set) and that epmd on exit.
# demo_erl MODULE EVAL WHAT: compiles examples/MODULE.erl and starts NODE
# running EVAL on 127.0.0.1 only, then demo_wait WHAT.
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
	OUT=${DEMO_OUT:-$PWD/$2}
	SECS=${DEMO_SECONDS:-$3}
	trap demo_end EXIT
	od -An -N12 -tx1 /dev/urandom | tr -d ' \n' > "$WORK/cookie"
	chmod 400 "$WORK/cookie"
	epmd -daemon -port "$ERL_EPMD_PORT" -address 127.0.0.1 -relaxed_command_check
}

demo_erl() {
	erlc -o "$WORK" "$ROOT/examples/$1.erl"
	erl -name "$NODE" -setcookie "$(cat "$WORK/cookie")" -noshell -noinput \
		-kernel inet_dist_use_interface '{127,0,0,1}' -pa "$WORK" \
		-eval "$2, file:write_file(\"$WORK/ready\", \"\")" >"$WORK/node.log" 2>&1 &
	NODE_PID=$!
	demo_wait "$3"
}

demo_wait() {
	for _ in $(seq 300); do [ -f "$WORK/ready" ] && return 0; sleep 0.1; done
	cat "$WORK/node.log" >&2
	echo "demo: the $1 node did not start" >&2
	exit 1
}

# lib.sh - shared by the end-to-end tests (sourced by bash).
#
# Every test gets a scratch directory, its own epmd on a private port bound to
# 127.0.0.1, and nodes with unique names and their own cookie; everything is
# stopped on exit, whatever happens (erl_call_SUITE's discipline).
# TAP helpers: plan N, ok COND MSG, is GOT WANT MSG, diag MSG.

set -u
: "${FLAMEPROF:?set FLAMEPROF to the flameprof binary (make check does)}"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
READERS="$ROOT/tests/readers.py"
EI_BIN=$(erl -noshell -eval 'io:format("~s",[code:lib_dir(erl_interface)]),halt().')/bin
ERL_CALL="$EI_BIN/erl_call"
T_NAME=$(basename "$0" .t)
T_DIR=$(mktemp -d "${TMPDIR:-/tmp}/fp-$T_NAME.XXXXXX")
T_COOKIE="ck$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
T_PIDS=""
T_COUNT=0
T_FAILED=0
export ERL_EPMD_PORT=$(( 20000 + $$ % 20000 ))
printf '%s\n' "$T_COOKIE" > "$T_DIR/cookie"
chmod 400 "$T_DIR/cookie"

cleanup() {
	for p in $T_PIDS; do kill -9 "$p" 2>/dev/null; done
	epmd -port "$ERL_EPMD_PORT" -kill >/dev/null 2>&1
	if [ "$T_FAILED" -eq 0 ] && [ -z "${KEEP:-}" ]; then rm -rf "$T_DIR"; else echo "# kept $T_DIR"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

plan() { echo "1..$1"; }
ok() {
	T_COUNT=$((T_COUNT + 1))
	if [ "$1" -eq 0 ] 2>/dev/null || [ "$1" = true ]; then echo "ok $T_COUNT - $2"
	else echo "not ok $T_COUNT - $2"; T_FAILED=$((T_FAILED + 1)); fi
}
# check "message" command...: ok if the command succeeds
check() { msg=$1; shift; if "$@"; then ok 0 "$msg"; else ok 1 "$msg"; fi; }
is() {
	if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3"; echo "#   got  '$1'"; echo "#   want '$2'"; fi
}
diag() { echo "# $*"; }

# Private epmd on 127.0.0.1 only.
start_epmd() {
	epmd -daemon -port "$ERL_EPMD_PORT" -address 127.0.0.1 -relaxed_command_check
	for _ in $(seq 50); do epmd -port "$ERL_EPMD_PORT" -names >/dev/null 2>&1 && return 0; sleep 0.1; done
	echo "# epmd did not start"; return 1
}

# Compiles tests/workloads/*.erl (and examples/) into $T_DIR/ebin.
compile_workloads() {
	mkdir -p "$T_DIR/ebin"
	erlc -o "$T_DIR/ebin" "$ROOT"/tests/workloads/*.erl "$ROOT"/examples/*.erl >/dev/null
}

# start_node NAME EVAL: a node NAME@127.0.0.1 running EVAL, distribution on
# loopback only, backtrace_depth set to 13 (so a restore is visible).
# Sets NODE_PID and prints nothing; waits until the node answers.
start_node() {
	name="$1_$$"
	"$ERL_BIN_ERL" -name "$name@127.0.0.1" -setcookie "$T_COOKIE" -noshell -noinput \
		-kernel inet_dist_use_interface '{127,0,0,1}' -pa "$T_DIR/ebin" \
		-eval "erlang:system_flag(backtrace_depth, 13), $2, file:write_file(\"$T_DIR/$name.ready\", \"\")" \
		>"$T_DIR/$name.log" 2>&1 &
	NODE_PID=$!
	T_PIDS="$T_PIDS $NODE_PID"
	NODE="$name@127.0.0.1"
	for _ in $(seq 100); do [ -f "$T_DIR/$name.ready" ] && return 0; sleep 0.1; done
	echo "# node $NODE did not start:"; sed 's/^/#   /' "$T_DIR/$name.log"; return 1
}
ERL_BIN_ERL=erl

# rpc NODE "Mod Fun [Args]": runs it on the node through erl_call (a hidden
# C-node too), prints the result.
rpc() { "$ERL_CALL" -name "$1" -c "$T_COOKIE" -timeout 10 -a "$2" 2>&1; }

# node_clean NODE: the agent is gone, depth restored, module unloaded.
node_clean() {
	mod=$("$FLAMEPROF" --version | sed 's/.*(agent \(.*\))/\1/')
	[ "$(rpc "$1" "erlang whereis [flameprof_agent]")" = undefined ] &&
	[ "$(rpc "$1" "erlang module_loaded [$mod]")" = false ] &&
	[ "$(rpc "$1" "erlang check_old_code [$mod]")" = false ] &&
	[ "$(rpc "$1" "erlang system_flag [backtrace_depth, 13]")" = 13 ]
}

# wait_until SECONDS CMD...: polls CMD every 0.2 s.
wait_until() {
	n=$(( $1 * 5 )); shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.2; done
	return 1
}

# fp ARGS...: runs flameprof with the test cookie, a deadline, output in
# $T_DIR/fp.out and fp.err, status in FP_RC.
fp() {
	timeout -s KILL 120 "$FLAMEPROF" --cookie-file "$T_DIR/cookie" "$@" >"$T_DIR/fp.out" 2>"$T_DIR/fp.err"
	FP_RC=$?
	sed 's/^/#   stderr: /' "$T_DIR/fp.err" | head -20
}

# decompressed FILE...: all events of the files, as text.
decompressed() {
	for f in "$@"; do
		case "$f" in
		*.zst) zstd -dcq "$f" ;;
		*.gz) gzip -dc "$f" ;;
		*) cat "$f" ;;
		esac
	done
}

# readers_ok FILE...: every perf-script reader rule holds.
readers_ok() { out=$(python3 "$READERS" "$@" 2>&1); rc=$?; echo "$out" | sed 's/^/#   readers: /'; return $rc; }

finish() { echo "1..$T_COUNT"; [ "$T_FAILED" -eq 0 ]; }

# lib.sh - the one shell TAP library, sourced (by bash) by every test script.
#
# Every test gets a scratch directory ($T_DIR, kept when a test fails or
# KEEP is set), its own epmd on a private port bound to 127.0.0.1, and nodes
# with unique names and their own cookie; everything is stopped on exit,
# whatever happens (erl_call_SUITE's discipline). A test that sets
# T_TIMEOUT (seconds) before sourcing runs as a whole under timeout(1); one
# that sets T_SCHEDULERS gets nodes with that many schedulers (else one).
# TAP verbs:
#   plan N                      the plan first (else finish prints it last)
#   ok COND MSG                 passes when COND is 0 or true
#   check MSG COMMAND...        passes when the command succeeds
#   is GOT WANT MSG             passes when the strings are equal; says both if not
#   skip [MSG] REASON           a skipped test, and why
#   diag MSG                    a comment line
#   finish                      prints the plan; fails the script if any test failed

set -u
: "${FLAMEPROF:?set FLAMEPROF to the flameprof binary (make check does)}"
if [ -n "${T_TIMEOUT:-}" ] && [ -z "${T_UNDER_TIMEOUT:-}" ]; then
	T_UNDER_TIMEOUT=1 exec timeout "$T_TIMEOUT" bash "$0" "$@"
fi
# The emulator flags of every erl a test starts (its nodes, peers, elixir's
# nodes; ERL_AFLAGS comes before a command line's own flags, so T_ERL_ARGS's
# win): one scheduler, unless the test sets T_SCHEDULERS before sourcing this
# (the files about sampling, tracing and faults while processes run on
# several schedulers at once do, and those that need on-CPU samples of
# processes that seldom run: on one scheduler such a process is read
# running only when the agent's own read displaced it), and no scheduler
# spinning while it waits for work. A node that spins kept both of CI's
# cores busy for its whole test: make check's first prove run took 668 s and
# 1,238 s of CPU with the VM's defaults (two schedulers here, busy-waiting),
# 629 s without the busy-waiting, 546 s and 936 s with one scheduler too
# (one run of each, 11-28). A test's own +S names both counts
# (T_ERL_ARGS="+S 2:2"): after this +S 1, a bare +S 2 gives two schedulers
# with one of them online.
export ERL_AFLAGS="+S ${T_SCHEDULERS:-1}:${T_SCHEDULERS:-1} +sbwt none +sbwtdcpu none +sbwtdio none${ERL_AFLAGS:+ $ERL_AFLAGS}"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
READERS="$ROOT/tests/readers.py"
# FP_EI_BIN, FP_WORKLOADS: given by make (once for all the tests), else worked out here
EI_BIN=${FP_EI_BIN:-}
[ -x "$EI_BIN/erl_call" ] || EI_BIN=$(erl -noshell -eval 'io:format("~s",[code:lib_dir(erl_interface)]),halt().')/bin
T_NAME=$(basename "$0" .t)
T_DIR=$(mktemp -d "${TMPDIR:-/tmp}/fp-$T_NAME.XXXXXX")
# ERL_CALL: erl_call under a hidden-node name of its own for each call.
# Left alone, erl_call is c17@host on every call, and the node sends a reply
# to c17's pid over whatever connection c17 has at that moment. On a loaded
# host a reply that came after its call had ended was read by the next
# call, and each later call read the one before it (26 in a row in one
# file; a boolean check read 0). A name per call (the clock in microseconds
# and the wrapper's pid) leaves a late reply nobody to reach. Each name is
# one atom on the target; atoms_per_run.t allows for its two reads.
ERL_CALL="$T_DIR/erl_call"
printf '#!/bin/bash\nexec "%s" -h "t${EPOCHREALTIME/./}_$$" "$@"\n' "$EI_BIN/erl_call" >"$ERL_CALL"
chmod 755 "$ERL_CALL"
T_COOKIE="ck$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
T_PIDS=""
T_COUNT=0
T_FAILED=0
# below the kernel's ephemeral ports (32768 and up on Linux), which any
# outgoing connection of the machine may hold (start_epmd moves on if taken)
export ERL_EPMD_PORT=$(( 20000 + $$ % 12000 ))
printf '%s\n' "$T_COOKIE" > "$T_DIR/cookie"
chmod 400 "$T_DIR/cookie"

cleanup() {
	rc=$?
	# a setup step that failed before the first test: say so where prove shows it
	if [ "$rc" -ne 0 ] && [ "$T_COUNT" -eq 0 ]; then
		echo "# $T_NAME ended (exit $rc) before its first test: its setup failed" >&2; T_FAILED=1
	fi
	for p in $T_PIDS; do kill -9 "$p" 2>/dev/null; done
	# only an epmd this test started: the port may be another test's
	[ -n "${T_EPMD:-}" ] && epmd -port "$ERL_EPMD_PORT" -kill >/dev/null 2>&1
	if [ "$T_FAILED" -eq 0 ] && [ -z "${KEEP:-}" ]; then rm -rf "$T_DIR"; else echo "# kept $T_DIR" >&2; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

plan() { echo "1..$1"; }
ok() {
	T_COUNT=$((T_COUNT + 1))
	if [ "$1" -eq 0 ] 2>/dev/null || [ "$1" = true ]; then echo "ok $T_COUNT - $2"
	else
		echo "not ok $T_COUNT - $2"; T_FAILED=$((T_FAILED + 1))
		echo "# $T_NAME: not ok $T_COUNT - $2" >&2  # prove shows stderr, not TAP comments
	fi
}

# tap_lines FILE: the checks another program wrote ("ok ...", "not ok ...",
# "# ...", as tests/report/html_drive.py does) as this test's own
tap_lines() {
	while read -r line; do
		case $line in
		"#"*) echo "$line" ;;
		"ok "*) ok 0 "${line#ok }" ;;
		*) ok 1 "${line#not ok }" ;;
		esac
	done < "$1"
}

# chromium_or_finish: CHROMIUM (exported for tests/report/html_drive.py) is
# a browser that runs headless here (CHROMIUM from the caller: another
# binary); else the rest is skipped with one sentence and the test ends
chromium_or_finish() {
	CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
	export CHROMIUM
	if [ -z "$CHROMIUM" ] || ! timeout 30 "$CHROMIUM" --headless --no-sandbox --disable-gpu --dump-dom about:blank >/dev/null 2>&1; then
		skip "the page in a browser" "chromium cannot run here (apt-get install chromium)"
		finish
		exit
	fi
}

# check "message" command...: ok if the command succeeds
# A failure says what it saw on stderr, which prove shows (and CI's log
# keeps) where it hides comments on stdout: a check that fails once on a
# loaded machine must leave its cause behind.
check() {
	msg=$1; shift
	if "$@"; then ok 0 "$msg"; else
		ok 1 "$msg"
		case $1 in node_clean | node_clean_within) node_state "${@: -1}" >&2 ;; esac
	fi
}
is() {
	if [ "$1" = "$2" ]; then ok 0 "$3"; else
		ok 1 "$3"
		printf "#   got  '%s'\n#   want '%s'\n" "$1" "$2"
		printf "#   got  '%s'\n#   want '%s'\n" "$1" "$2" >&2
	fi
}
diag() { echo "# $*"; }
# skip [MSG] REASON: a TAP test that is skipped, and says why.
skip() {
	T_COUNT=$((T_COUNT + 1))
	if [ $# -ge 2 ]; then echo "ok $T_COUNT - $1 # SKIP $2"; else echo "ok $T_COUNT # SKIP $1"; fi
}

# gen ARGS...: perf-script text made up for the report tests (tests/report/gen.py).
gen() { python3 "$ROOT/tests/report/gen.py" "$@"; }

# perf_jit_or_skip N [PERF RECORD OPTION...]: where perf cannot sample with
# those options (perf_event_open refused), or the emulator has no JIT (no
# perf map to name Erlang code), skip the N tests that follow with one
# sentence, and end the file.
perf_jit_or_skip() {
	local n=$1 why=
	shift
	if ! command -v perf >/dev/null 2>&1 ||
		! perf record -q -e cpu-clock -F 99 "$@" -o "$T_DIR/probe.data" -- sleep 0.1 >"$T_DIR/probe.log" 2>&1; then
		why="perf cannot sample here (perf_event_open refused: $(tail -1 "$T_DIR/probe.log" 2>/dev/null))"
	elif [ "$(erl -noshell -eval 'io:format("~s", [erlang:system_info(emu_flavor)]), halt().')" != jit ]; then
		why="this emulator has no JIT, so no perf map to name Erlang code"
	fi
	[ -z "$why" ] && return 0
	for _ in $(seq "$n"); do skip "$why"; done
	finish
	exit 0
}

# Private epmd on 127.0.0.1 only. A port whose epmd answers already is
# another test's (two tests whose pids are 12,000 apart pick the same one):
# sharing it, this test's nodes would lose their names when that test ends
# and kills it.
start_epmd() {
	for _ in 1 2 3 4 5; do
		if ! epmd -port "$ERL_EPMD_PORT" -names >/dev/null 2>&1; then
			epmd -daemon -port "$ERL_EPMD_PORT" -address 127.0.0.1 -relaxed_command_check
			T_EPMD=1
			for _ in $(seq 100); do epmd -port "$ERL_EPMD_PORT" -names >/dev/null 2>&1 && return 0; sleep 0.1; done
		fi
		echo "# epmd port $ERL_EPMD_PORT is taken; trying another" >&2
		export ERL_EPMD_PORT=$(( 20000 + (ERL_EPMD_PORT - 20000 + 4001) % 12000 ))
	done
	echo "# epmd did not start" >&2; return 1
}

# Compiles tests/workloads/*.erl (and examples/) into $T_DIR/ebin, or copies
# them from FP_WORKLOADS, where make has compiled them once for every test.
compile_workloads() {
	mkdir -p "$T_DIR/ebin"
	if [ -n "${FP_WORKLOADS:-}" ] && [ -f "$FP_WORKLOADS/.stamp" ]; then
		cp "$FP_WORKLOADS"/*.beam "$T_DIR/ebin/" && return 0
	fi
	erlc -o "$T_DIR/ebin" "$ROOT"/tests/workloads/*.erl "$ROOT"/examples/*.erl >"$T_DIR/erlc.log" 2>&1 ||
		{ echo "# erlc failed on the workloads:" >&2; sed 's/^/#   /' "$T_DIR/erlc.log" >&2; return 1; }
}

# start_node NAME EVAL: a node NAME@127.0.0.1 running EVAL, distribution on
# loopback only, backtrace_depth set to 13 (so a restore is visible).
# Sets NODE_PID and prints nothing; waits until the node answers.
# T_ERL_ARGS: more emulator flags (e.g. "+S 2:2 +JPperf true").
start_node() { start_node_bg "$@" && node_ready; }
# start_node_bg NAME EVAL: start_node without the wait, so that a test's
# nodes boot at once (each boot is mostly waiting on a busy machine);
# node_up NODE then waits for each as start_node does.
start_node_bg() {
	name="$1_$$"
	"$ERL_BIN_ERL" ${T_ERL_ARGS:-} -name "$name@127.0.0.1" -setcookie "$T_COOKIE" -noshell -noinput \
		-kernel inet_dist_use_interface '{127,0,0,1}' -pa "$T_DIR/ebin" \
		-eval "erlang:system_flag(backtrace_depth, 13), $2, file:write_file(\"$T_DIR/$name.ready\", \"\")" \
		>"$T_DIR/$name.log" 2>&1 &
	NODE_PID=$!
	disown "$NODE_PID" # no "Killed" notice from bash when cleanup stops it
	T_PIDS="$T_PIDS $NODE_PID"
	NODE="$name@127.0.0.1"
}
node_up() { local NODE=$1 name=${1%@*}; node_ready; }
ERL_BIN_ERL=erl
# node_ready: waits for the node just started ($name, $NODE) to write its
# ready file, 60 s at most (a node can take over 10 s to boot on a loaded
# 2-core machine); if it does not, says so on stderr, which prove shows (it
# hides comments on stdout), with the node's own output, and returns 1.
node_ready() {
	for _ in $(seq 600); do [ -f "$T_DIR/$name.ready" ] && return 0; sleep 0.1; done
	echo "# node $NODE did not start in 60 s:" >&2; sed 's/^/#   /' "$T_DIR/$name.log" >&2; return 1
}

# rpc NODE "Mod Fun [Args]": runs it on the node through erl_call (a hidden
# C-node too), prints the result.
rpc() { "$ERL_CALL" -name "$1" -c "$T_COOKIE" -timeout 10 -a "$2" 2>&1; }

# our_module KIND: this build's module of that kind on a node: agent,
# tracer (calls) or requests.
our_module() { "$FLAMEPROF" --version | sed "s/.*(agent \(.*\))/\1/; s/agent/$1/"; }
# our_state NODE KIND [RPC]: what of ours is on the node, one line: the
# registered name, the module, its old code; for the agent the two flags it
# changes (backtrace_depth read by setting it to 13, as the test nodes have
# it), for a tracer its trace sessions. RPC: rpc for long names, srpc for
# short ones (the sessions are read with rpc_eval: long names only).
our_state() {
	local call=${3:-rpc} mod name
	mod=$(our_module "$2")
	case $2 in agent) name=flameprof_agent ;; *) name=flameprof_tracer ;; esac
	printf '%s %s, %s loaded %s, old code %s' "$name" "$($call "$1" "erlang whereis [$name]")" "$mod" \
		"$($call "$1" "erlang module_loaded [$mod]")" "$($call "$1" "erlang check_old_code [$mod]")"
	if [ "$2" = agent ]; then
		printf ', backtrace_depth %s, scheduler_wall_time %s\n' \
			"$($call "$1" "erlang system_flag [backtrace_depth, 13]")" \
			"$($call "$1" "erlang statistics [scheduler_wall_time]" | head -c 60)"
	else
		printf ', sessions %s\n' "$(fp_sessions "$1")"
	fi
}
# kill_session NODE KIND: kills our tracer's session process (KIND: tracer
# or requests) as exit(P, kill) from anyone on the node would; prints how
# many it killed.
kill_session() { rpc_eval "$1" "length([exit(P, kill) || P <- erlang:processes(), erlang:process_info(P, initial_call) =:= {initial_call, {$(our_module "$2"), session, 2}}])"; }
# clean_state KIND: our_state's line for a node left as it was.
clean_state() {
	case $1 in
	agent) echo "flameprof_agent undefined, $(our_module agent) loaded false, old code false, backtrace_depth 13, scheduler_wall_time undefined" ;;
	*) echo "flameprof_tracer undefined, $(our_module "$1") loaded false, old code false, sessions 0" ;;
	esac
}
# node_clean NODE [RPC]: the agent is gone, depth restored, module unloaded,
# the cost budget's scheduler_wall_time flag off again.
node_clean() { [ "$(our_state "$1" agent "${2:-rpc}")" = "$(clean_state agent)" ]; }

# wait_until SECONDS CMD...: polls CMD every 0.2 s.
wait_until() {
	n=$(( $1 * 5 )); shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.2; done
	return 1
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

# ==== fault, hostile-input and valgrind helpers (issue 4) ====

# VALGRIND=1 (make check VALGRIND=1) runs every flameprof under memcheck;
# any other non-empty value is taken as the whole wrapper command. Errors
# and definite leaks make flameprof exit 99, which every test's exit-status
# check then reports. Logs go to $T_DIR/vg.<pid>.log.
FP_VG_OPTS="--error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --track-fds=no"
fp_wrap() {
	case "${VALGRIND:-}" in
	"") FP_WRAP="" ;;
	1|yes|true) FP_WRAP="valgrind -q $FP_VG_OPTS --log-file=$T_DIR/vg.%p.log" ;;
	*) FP_WRAP="$VALGRIND" ;;
	esac
}
fp_wrap
# fp_cmd COMMAND ARGS...: flameprof COMMAND ("": the capture; calls,
# requests) with the test cookie, the wrapper and a deadline (FP_DEADLINE,
# 120 s); output in $T_DIR/fp.out and fp.err, status in FP_RC.
fp_cmd() {
	local cmd=$1
	shift
	timeout -s KILL "${FP_DEADLINE:-120}" $FP_WRAP "$FLAMEPROF" $cmd --cookie-file "$T_DIR/cookie" "$@" \
		>"$T_DIR/fp.out" 2>"$T_DIR/fp.err"
	FP_RC=$?
	sed 's/^/#   stderr: /' "$T_DIR/fp.err" | head -20
	[ "$FP_RC" = 99 ] && [ -n "$FP_WRAP" ] && cat "$T_DIR"/vg.*.log 2>/dev/null | sed 's/^/#   valgrind: /' | head -40
	return 0
}
# fp_cmd_bg COMMAND ARGS...: the same in the background (no deadline); FP_PID.
fp_cmd_bg() {
	local cmd=$1
	shift
	$FP_WRAP "$FLAMEPROF" $cmd --cookie-file "$T_DIR/cookie" "$@" >"$T_DIR/fp.out" 2>"$T_DIR/fp.err" &
	FP_PID=$!
	T_PIDS="$T_PIDS $FP_PID"
}
# fp / fp_bg ARGS...: the capture.
fp() { fp_cmd "" "$@"; }
fp_bg() { fp_cmd_bg "" "$@"; }

# fp_wait SECONDS: waits for the background flameprof; FP_RC is its status,
# or "hung" (and it is killed) if it is still running after SECONDS.
# FP_WAITED: tenths of a second waited.
fp_wait() {
	FP_WAITED=0
	while kill -0 "$FP_PID" 2>/dev/null; do
		if [ "$FP_WAITED" -ge $(( $1 * 10 )) ]; then
			kill -9 "$FP_PID" 2>/dev/null; wait "$FP_PID" 2>/dev/null
			FP_RC=hung
			sed 's/^/#   stderr: /' "$T_DIR/fp.err" | head -20
			return 0
		fi
		sleep 0.1
		FP_WAITED=$((FP_WAITED + 1))
	done
	wait "$FP_PID"
	FP_RC=$?
	sed 's/^/#   stderr: /' "$T_DIR/fp.err" | head -20
}

# fp_errors: the "flameprof: " lines of fp.err that are not notes or the summary.
fp_errors() {
	grep '^flameprof: ' "$T_DIR/fp.err" | grep -v -e ' samples in ' -e "open them with" -e "try 'flameprof --help'" -e "try 'flameprof calls --help'" \
		-e "^flameprof: \('[^']*': \)\?the node was busy and the cost budget" \
		-e ' samples written (' -e "^flameprof: \('[^']*': \)\?no sample had a status that --status writes" \
		-e '^flameprof: warning:' -e '^flameprof: note:' || true
}

# one_sentence: fp.err holds exactly one error line, and it is a sentence
# (names what failed, says what to do or why; no newline inside).
one_sentence() { [ "$(fp_errors | wc -l)" -eq 1 ] && [ "$(fp_errors | wc -c)" -gt 30 ]; }

# zst_split FILE PREFIX: writes the complete zstd frames at the start of FILE
# to PREFIX and prints how many bytes follow them (a frame cut short by a
# crash or a full disk). Frame and block headers per RFC 8878.
zst_split() {
	python3 - "$1" "$2" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
i = good = 0
try:
    while i < len(d):
        magic = int.from_bytes(d[i:i + 4], "little")
        if 0x184D2A50 <= magic <= 0x184D2A5F:          # skippable frame
            n = int.from_bytes(d[i + 4:i + 8], "little"); j = i + 8 + n
        elif magic == 0xFD2FB528:
            fhd = d[i + 4]; j = i + 5
            fcs_flag, single, checksum, dict_id = fhd >> 6, (fhd >> 5) & 1, (fhd >> 2) & 1, fhd & 3
            j += 0 if single else 1
            j += [0, 1, 2, 4][dict_id]
            j += [1 if single else 0, 2, 4, 8][fcs_flag]
            while True:
                if j + 3 > len(d): raise IndexError
                bh = int.from_bytes(d[j:j + 3], "little"); j += 3
                last, btype, bsize = bh & 1, (bh >> 1) & 3, bh >> 3
                j += 1 if btype == 1 else bsize
                if last: break
            j += 4 if checksum else 0
        else:
            break
        if j > len(d): break
        i = good = j
except IndexError:
    pass
open(sys.argv[2], "wb").write(d[:good])
print(len(d) - good)
PY
}

# dot_ok FILE: an in-progress (dot) file left by a crash decompresses up to
# its last complete frame, holds only whole events, and those pass every
# reader rule when there are at least two. Prints what it found as a diag.
dot_ok() {
	local f=$1 p="$T_DIR/dot_prefix" tail ev
	case "$f" in
	*.zst) tail=$(zst_split "$f" "$p.zst"); : > "$p.txt"
		[ ! -s "$p.zst" ] || zstd -dcq "$p.zst" > "$p.txt" || return 1 ;;
	*) tail=0; cp "$f" "$p.txt" ;;
	esac
	ev=$(grep -c 'cpu-clock:' "$p.txt")
	diag "$(basename "$f"): $(stat -c %s "$f") bytes, $tail after the last complete frame, $ev events"
	[ ! -s "$p.txt" ] && return 0
	# whole events only: the text ends with an event's blank line
	[ "$(tail -c 2 "$p.txt" | od -An -c | tr -d ' ')" = '\n\n' ] || { diag "does not end on an event"; return 1; }
	[ "$ev" -lt 2 ] || readers_ok "$p.txt"
}

# closed_ok DIR: every closed (renamed) file in DIR decompresses without error
# and passes every reader rule (readers.py checks each file on its own; one
# run for all of them saves a Python start per file).
closed_ok() {
	local f files=()
	for f in $(ls "$1"/flameprof_* 2>/dev/null); do
		case "$f" in
		*.zst) zstd -tq "$f" || { diag "zstd -t fails on $f"; return 1; } ;;
		*.gz) gzip -tq "$f" || { diag "gzip -t fails on $f"; return 1; } ;;
		esac
		files+=("$f")
	done
	[ "${#files[@]}" -eq 0 ] || readers_ok "${files[@]}" >/dev/null || { readers_ok "${files[@]}"; return 1; }
}

# closed_some_ok DIR: DIR holds at least one closed capture file, and
# closed_ok holds for them.
closed_some_ok() { ls "$1"/flameprof_*.perf.* >/dev/null 2>&1 && closed_ok "$1"; }

# node_clean_within SECONDS NODE: the node is restored within the time.
node_clean_within() { wait_until "$1" node_clean "$2"; }
# node_state NODE: what node_clean reads, for a check that failed
node_state() { echo "#   $1 now: $(our_state "$1" agent)"; }

# rss_kb PID: resident set of a process, in KiB.
rss_kb() { awk '/^VmRSS:/{print $2}' "/proc/$1/status" 2>/dev/null; }

# kill_quietly SIG PID: signals a background job and reaps it without the
# shell's "Killed" line.
kill_quietly() { { kill "-$1" "$2"; wait "$2"; } 2>/dev/null; return 0; }

# ==== explicit targets, deadlines, known bugs, short names ====

# now_ms: wall clock in milliseconds, for deadline checks.
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# pid_local PID: erl_call prints a pid as <node.N.S>; the node itself
# writes its own pids as <0.N.S>, the form --pid takes.
pid_local() { sed -E 's/^<.*\.([0-9]+)\.([0-9]+)>$/<0.\1.\2>/' <<<"$1"; }

# event_pids FILE...: the distinct tid fields of the events, sorted.
event_pids() { decompressed "$@" | awk '/ cpu-clock:/ { print $2 }' | sort -u; }

# ok_todo COND MSG REASON / check_todo REASON MSG CMD...: a TAP TODO item
# for a known, reported bug: listed, but it does not fail the test.
ok_todo() {
	T_COUNT=$((T_COUNT + 1))
	if [ "$1" -eq 0 ] 2>/dev/null; then echo "ok $T_COUNT - $2 # TODO $3"
	else echo "not ok $T_COUNT - $2 # TODO $3"; fi
}
check_todo() { r=$1; m=$2; shift 2; if "$@"; then ok_todo 0 "$m" "$r"; else ok_todo 1 "$m" "$r"; fi; }

# start_snode NAME EVAL: as start_node, with a short name NAME_<pid>@<host>
# (host: `hostname -s`). Sets NODE, NODE_PID. srpc/snode_clean are rpc and
# node_clean for it (erl_call -sname).
start_snode() {
	name="$1_$$"
	S_HOST=$(hostname -s)
	"$ERL_BIN_ERL" -sname "$name" -setcookie "$T_COOKIE" -noshell -noinput \
		-kernel inet_dist_use_interface '{127,0,0,1}' -pa "$T_DIR/ebin" \
		-eval "erlang:system_flag(backtrace_depth, 13), $2, file:write_file(\"$T_DIR/$name.ready\", \"\")" \
		>"$T_DIR/$name.log" 2>&1 &
	NODE_PID=$!
	disown "$NODE_PID"
	T_PIDS="$T_PIDS $NODE_PID"
	NODE="$name@$S_HOST"
	node_ready
}
# pid_tid PID: the tid flameprof writes for the pid <X.N.S>: S * 2^32 + N.
pid_tid() { sed -E 's/^<.*\.([0-9]+)\.([0-9]+)>$/\2 \1/' <<<"$1" | { read -r s n; echo $((s * 4294967296 + n)); }; }
srpc() { "$ERL_CALL" -sname "$1" -c "$T_COOKIE" -timeout 10 -a "$2" 2>&1; }
snode_clean() { node_clean "$1" srpc; }

# ==== flameprof calls (issue 12) ====

# fpc / fpc_bg ARGS...: as fp and fp_bg, for `flameprof calls`.
fpc() { fp_cmd calls "$@"; }
fpc_bg() { fp_cmd_bg calls "$@"; }
# tracer_gone NODE [KIND]: no tracer of ours (name, module, old code,
# trace session) on the node; KIND: tracer (calls, the default) or requests.
tracer_gone() { [ "$(our_state "$1" "${2:-tracer}")" = "$(clean_state "${2:-tracer}")" ]; }
# FP_TRACE_INFO: an Erlang fun(What, Item) that reads trace_info as
# flameprof's tracers set it: on OTP 27+ in flameprof's own trace session
# (flameprof_calls or flameprof_requests) while there is one, else (and on
# OTP 25 and 26, which have one global session) erlang:trace_info/2. A
# session of ours left over is caught by tracer_gone and requests_gone.
FP_TRACE_INFO='fun(W, I) -> code:ensure_loaded(trace), Ours = case erlang:function_exported(trace, session_info, 1) of true -> [S || {N, _} = S <- trace:session_info(all), lists:member(N, [flameprof_calls, flameprof_requests])]; false -> [] end, case Ours of [S | _] -> trace:info(S, W, I); [] -> erlang:trace_info(W, I) end end'
# fp_sessions NODE: how many trace sessions of flameprof's the node has
# (always 0 before OTP 27).
fp_sessions() { rpc_eval "$1" "code:ensure_loaded(trace), case erlang:function_exported(trace, session_info, 1) of true -> length([N || {N, _} <- trace:session_info(all), lists:member(N, [flameprof_calls, flameprof_requests])]); false -> 0 end"; }
# otp_release NODE: the node's OTP release, e.g. 27.
otp_release() { rpc_eval "$1" "list_to_integer(erlang:system_info(otp_release))"; }
# breakpoint NODE MFA TYPE: what trace_info(MFA, TYPE) says in flameprof's
# tracing (FP_TRACE_INFO), e.g. "{call_count, false}" when nothing is set.
breakpoint() { rpc_eval "$1" "($FP_TRACE_INFO)($2, $3)"; }
# rpc_eval NODE 'EXPRS' [SECONDS]: evaluates Erlang expressions on the node
# (erl_call -e), prints the value of the last one; the node has SECONDS to
# answer (default 10).
rpc_eval() { printf '%s.\n' "$2" | "$ERL_CALL" -name "$1" -c "$T_COOKIE" -timeout "${3:-10}" -e 2>&1 | sed -E 's/^\{ok, ?(.*)\}$/\1/'; }
# traced_procs NODE: how many processes of the node carry any trace flag.
# A process that exits between processes() and trace_info/2 reads as
# 'undefined': only a non-empty flag list counts.
# A reading that is not a number (erl_call timed out on a loaded host) is
# taken again, twice at most: the count is never guessed.
traced_procs() {
	local n tries=3
	while :; do
		n=$(rpc_eval "$1" "TI = $FP_TRACE_INFO, length([P || P <- erlang:processes(), case TI(P, flags) of {flags, [_ | _]} -> true; _ -> false end])")
		case $n in '' | *[!0-9]*) ;; *) break ;; esac
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || break
		sleep 1
	done
	printf '%s\n' "$n"
}

# fpt ARGS...: flameprof top, as fpc runs calls; fpt_bg in the background.
fpt() {
	timeout -s KILL "${FP_DEADLINE:-120}" $FP_WRAP "$FLAMEPROF" top --cookie-file "$T_DIR/cookie" "$@" \
		>"$T_DIR/fp.out" 2>"$T_DIR/fp.err"
	FP_RC=$?
	sed 's/^/#   stderr: /' "$T_DIR/fp.err" | head -20
	return 0
}
fpt_bg() {
	$FP_WRAP "$FLAMEPROF" top --cookie-file "$T_DIR/cookie" "$@" >"$T_DIR/fp.out" 2>"$T_DIR/fp.err" &
	FP_PID=$!
	T_PIDS="$T_PIDS $FP_PID"
}

# start_elixir_node NAME: examples/elixir_shop/shop.exs on a long-named node (NODE, NODE_PID), ready once its
# supervision tree has started; backtrace_depth 13 as start_node leaves it.
start_elixir_node() {
	name="$1_$$"
	elixir --name "$name@127.0.0.1" --cookie "$T_COOKIE" \
		--erl "-kernel inet_dist_use_interface {127,0,0,1}" \
		"$ROOT/examples/elixir_shop/shop.exs" "$T_DIR/$name.ready" >"$T_DIR/$name.log" 2>&1 &
	NODE_PID=$!
	disown "$NODE_PID"
	T_PIDS="$T_PIDS $NODE_PID"
	NODE="$name@127.0.0.1"
	node_ready || return 1
	[ "$(rpc "$NODE" "erlang system_flag [backtrace_depth, 13]")" != "" ]
}

#!/bin/bash
# No copy of the cookie outlives the handshake: flameprof's memory is
# searched for it while a capture runs (tests/workloads/fp_memscan.py;
# the hidden --test-dumpable keeps it readable, else skipped). libei kept two copies in
# its table of connections (the cookie, and the ei_cnode with the cookie
# in it), for the whole run. And the cookie never crosses the wire: every
# byte flameprof sends the node is recorded on its way
# (tests/workloads/fp_split_proxy.py) and searched for it (the handshake
# sends a digest; ei's SEND header has a cookie field, which libei of OTP
# 21+ leaves out).
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node wire "fp_busy:start(2)" || exit 1
PROXY="wire_proxy_$$"
python3 "$ROOT/tests/workloads/fp_split_proxy.py" "$ERL_EPMD_PORT" "$PROXY" "${NODE%@*}" "$T_DIR/proxy.ready" \
	"$T_DIR/sent.bin" >"$T_DIR/proxy.log" 2>&1 &
T_PIDS="$T_PIDS $!"; disown $!  # no "Killed" notice from bash when cleanup stops it
check "the recording link is in epmd" wait_until 20 test -f "$T_DIR/proxy.ready" || { sed 's/^/#   /' "$T_DIR/proxy.log"; }

cookies_sent() { python3 -c 'import sys; print(open(sys.argv[2], "rb").read().count(sys.argv[1].encode()))' "$T_COOKIE" "$T_DIR/sent.bin"; }
fp_bg -v --test-dumpable --duration 6s --every 500ms --top 5 -o "$T_DIR/out" "$PROXY@127.0.0.1"
check "the capture is sampling" wait_until 30 grep -q "^flameprof: sampling" "$T_DIR/fp.err"
sleep 1
copies=$(python3 "$ROOT/tests/workloads/fp_memscan.py" "$FP_PID" "$T_COOKIE" 2> "$T_DIR/scan.err")
if [ -n "$copies" ]; then
	sed 's/^/#   copy at /' "$T_DIR/scan.err"
	is "$copies" 0 "no copy of the cookie in flameprof's memory while it samples"
else
	skip "no copy of the cookie in flameprof's memory" "cannot read /proc/$FP_PID/mem (root or ptrace rights needed)"
fi
fp_wait 60
is "$FP_RC" 0 "a capture through the recording link exits 0"
check "it sent the node messages ($(stat -c %s "$T_DIR/sent.bin") bytes)" test "$(stat -c %s "$T_DIR/sent.bin")" -gt 2000
is "$(cookies_sent)" 0 "the cookie is not in any of them"
: > "$T_DIR/sent.bin"
fpc -p fp_busy --duration 1s "$PROXY@127.0.0.1"
is "$FP_RC" 0 "calls through the link exits 0"
is "$(cookies_sent)" 0 "calls sent no cookie either"
check "the node is left clean" node_clean "$NODE"
finish

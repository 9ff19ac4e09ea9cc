#!/bin/bash
# Every way of failing to start has its exit status (sysexits.h) and one
# sentence that says what to do, comes within the connect timeout, and
# never shows the cookie.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node errs "fp_busy:start(2)" || exit 1
alive=${NODE%@*}
TMO=2   # --connect-timeout, seconds

# fpx NAME ARGS...: flameprof without the harness's cookie option; status
# in FP_RC, time in EL (ms), stderr in $T_DIR/NAME.err. All output is also
# collected in all_output, to look for the cookie.
fpx() {
	n=$1; shift
	t0=$(now_ms)
	timeout -s KILL 30 "$FLAMEPROF" --connect-timeout ${TMO}s -o "$T_DIR/out_$n" "$@" \
		>"$T_DIR/$n.out" 2>"$T_DIR/$n.err"
	FP_RC=$?
	EL=$(( $(now_ms) - t0 ))
	sed "s/^/#   $n: /" "$T_DIR/$n.err" | head -5
	cat "$T_DIR/$n.out" "$T_DIR/$n.err" >> "$T_DIR/all_output"
}
# in_time NAME: the deadline check, connect timeout + 3 s
in_time() { check "$1: done within the connect timeout + 3 s (${EL} ms)" test "$EL" -lt $(( (TMO + 3) * 1000 )); }
# sentence NAME REGEX: the first line is one "flameprof: " sentence matching REGEX
sentence() { check "$1: one sentence: $2" grep -qE "^flameprof: .*$2" "$T_DIR/$1.err"; }

printf 'wrong%s\n' "$T_COOKIE" > "$T_DIR/wrong_cookie"
chmod 400 "$T_DIR/wrong_cookie"
fpx wrong_cookie --cookie-file "$T_DIR/wrong_cookie" --duration 1s "$NODE"
is "$FP_RC" 77 "wrong cookie: exit 77"
sentence wrong_cookie "rejected the cookie from --cookie-file $T_DIR/wrong_cookie; .*--cookie-file"
check "wrong cookie: the sentence names where the cookie came from, never the cookie" \
	sh -c "! grep -q 'wrong$T_COOKIE' '$T_DIR/wrong_cookie.err'"
in_time wrong_cookie

fpx cookie_argv --cookie "argv$T_COOKIE" --duration 1s "$NODE"
is "$FP_RC" 77 "wrong --cookie on the command line: exit 77"
check "--cookie: a warning that ps shows it, pointing at --cookie-file" \
	grep -q "^flameprof: warning: .*ps.*--cookie-file" "$T_DIR/cookie_argv.err"
sentence cookie_argv "rejected the cookie from --cookie;"

fpx missing_cookie --cookie-file "$T_DIR/no_such_file" --duration 1s "$NODE"
is "$FP_RC" 77 "missing cookie file: exit 77"
sentence missing_cookie "cannot read cookie file '$T_DIR/no_such_file'"
check "missing cookie file: nothing is written" test ! -e "$T_DIR/out_missing_cookie"

# erl's rule (auth.erl): a cookie file its owner alone may read, and a
# regular file; flameprof refuses the others the same way, also with -q.
cp "$T_DIR/cookie" "$T_DIR/loose_cookie"
for mode in 644 440 604 600; do
	chmod "$mode" "$T_DIR/loose_cookie"
	fpx "loose_$mode" --cookie-file "$T_DIR/loose_cookie" --duration 1s --top 2 "$NODE"
	if [ "$mode" = 600 ]; then
		is "$FP_RC" 0 "cookie file of mode 600: used (exit 0)"
		continue
	fi
	is "$FP_RC" 77 "cookie file of mode $mode: refused, exit 77"
	sentence "loose_$mode" "cookie file '$T_DIR/loose_cookie' must be accessible by its owner only, as erl requires; run 'chmod 400 $T_DIR/loose_cookie'"
	check "cookie file of mode $mode: nothing is written" test ! -e "$T_DIR/out_loose_$mode"
done
chmod 644 "$T_DIR/loose_cookie"
fpx loose_quiet -q --cookie-file "$T_DIR/loose_cookie" --duration 1s "$NODE"
is "$FP_RC" 77 "a loose cookie file with -q: refused too, exit 77"
sentence loose_quiet "must be accessible by its owner only.*chmod 400"
check "the node is left as it was" node_clean "$NODE"

mkfifo -m 600 "$T_DIR/fifo_cookie"
fpx fifo_cookie --cookie-file "$T_DIR/fifo_cookie" --duration 1s "$NODE"
is "$FP_RC" 77 "a FIFO as cookie file: refused, exit 77"
sentence fifo_cookie "cookie file '$T_DIR/fifo_cookie' is not a regular file"
check "a FIFO as cookie file: refused at once, no writer waited for (${EL} ms)" test "$EL" -lt 5000
fpx dir_cookie --cookie-file "$T_DIR" --duration 1s "$NODE"
is "$FP_RC" 77 "a directory as cookie file: refused, exit 77"
sentence dir_cookie "is not a regular file"

# this host's lock, /tmp/flameprof-UID, squatted before a user's first run
# (as uid 65534, whose directory the test may own; nothing connects)
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	sq=/tmp/flameprof-65534
	ck=$(mktemp -d) && chmod 711 "$ck" && cp "$T_DIR/cookie" "$ck/c" && chown 65534 "$ck/c" && chmod 400 "$ck/c"
	mkdir "$ck/out" && chown 65534 "$ck/out"
	as_nobody() {
		timeout -s KILL 30 setpriv --reuid=65534 --regid=65534 --clear-groups "$FLAMEPROF" --connect-timeout ${TMO}s \
			--cookie-file "$ck/c" -o "$ck/out/$1" --duration 1s "$NODE" >"$T_DIR/$1.out" 2>"$T_DIR/$1.err"
		FP_RC=$?
		sed "s/^/#   $1: /" "$T_DIR/$1.err" | head -5
	}
	for how in root_dir link file open_dir; do
		rm -rf "$sq"
		case $how in
		root_dir) mkdir -m 700 "$sq"; why="belongs to uid 0" ;;
		link) ln -s "$ck" "$sq"; why="is a symbolic link" ;;
		file) : > "$sq"; chown 65534 "$sq"; why="is not a directory" ;;
		open_dir) mkdir -m 755 "$sq"; chown 65534 "$sq"; why="its mode 0755 lets others in" ;;
		esac
		as_nobody "squat_$how"
		is "$FP_RC" 73 "a squatted /tmp/flameprof-UID ($how): refused, exit 73"
		sentence "squat_$how" "the lock directory '$sq' is not this user's alone \\(.*$why\\).*remove it"
	done
	rm -rf "$sq" "$ck"
else
	skip "the squatted lock directory needs root and setpriv"
fi

# a cookie file reached through a symbolic link is read only when root or
# the file's owner owns the link (issue 50): as uid 65534, a link of its
# own, in its own directory, to a file root alone reads that holds the
# node's cookie; root's flameprof refuses it, by --cookie-file and through
# HOME, and never connects. A user's own link to the user's own cookie
# (root reading an application's cookie from cron) is read.
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	nb=$(mktemp -d) && chown 65534:65534 "$nb" && chmod 755 "$nb"
	cp "$T_DIR/cookie" "$T_DIR/root_only" && chmod 400 "$T_DIR/root_only"
	as_65534() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	as_65534 ln -s "$T_DIR/root_only" "$nb/link"
	as_65534 ln -s "$T_DIR/root_only" "$nb/.erlang.cookie"
	fpx link_other --cookie-file "$nb/link" --duration 1s "$NODE"
	is "$FP_RC" 77 "another user's link to a root-only file holding the cookie: refused, exit 77"
	sentence link_other "cookie file '$nb/link' is a symbolic link of user [a-z]+ \\(uid 65534\\) to a file of user root \\(uid 0\\); give the file's own path"
	check "... nothing written, never connected" test ! -e "$T_DIR/out_link_other"
	HOME=$nb fpx link_home --duration 1s "$NODE"
	is "$FP_RC" 77 "the same link as \$HOME/.erlang.cookie: refused, exit 77"
	sentence link_home "cookie file '$nb/.erlang.cookie' is a symbolic link of user [a-z]+ \\(uid 65534\\)"
	cp "$T_DIR/cookie" "$nb/app_cookie" && chown 65534:65534 "$nb/app_cookie" && chmod 400 "$nb/app_cookie"
	as_65534 ln -s app_cookie "$nb/app_link"
	fpx link_own --cookie-file "$nb/app_link" --duration 1s --top 2 "$NODE"
	is "$FP_RC" 0 "a user's own link to the user's own cookie, read by root: used (exit 0)"
	rm -rf "$nb" "$T_DIR/root_only"
else
	skip "links to a cookie file need root and setpriv"
fi

fpx unknown_node --cookie-file "$T_DIR/cookie" "nosuch_$$@127.0.0.1"
is "$FP_RC" 69 "unknown node: exit 69"
sentence unknown_node "no node named 'nosuch_$$'.*epmd on port $ERL_EPMD_PORT knows .*'$alive'"
in_time unknown_node

# a node name one letter off one epmd knows: the same status, and the
# sentence offers the name meant
fpx near_node --cookie-file "$T_DIR/cookie" "${alive}x@127.0.0.1"
is "$FP_RC" 69 "a mistyped node: exit 69, as any unknown node"
check "a mistyped node: one sentence offers the node epmd knows" \
	grep -qx "flameprof: cannot reach '${alive}x@127.0.0.1': no node named '${alive}x' on '127.0.0.1' (epmd on port $ERL_EPMD_PORT knows .*'$alive'.*); did you mean '$alive@127.0.0.1'?" "$T_DIR/near_node.err"
check "a mistyped node: that is all it says" test "$(wc -l < "$T_DIR/near_node.err")" -eq 1

port=
for _ in $(seq 20); do
	p=$(( 40000 + RANDOM % 20000 ))
	(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { port=$p; break; }
done
diag "a closed port: $port"
ERL_EPMD_PORT=$port fpx no_epmd --cookie-file "$T_DIR/cookie" "$NODE"
is "$FP_RC" 69 "no epmd: exit 69"
sentence no_epmd "no epmd on '127.0.0.1' port $port, from ERL_EPMD_PORT \\("
in_time no_epmd

# A node that is registered but answers nothing (stopped): the handshake
# times out at --connect-timeout.
main=$NODE main_pid=$NODE_PID
start_node frozen "ok" || exit 1
kill -STOP "$NODE_PID"
fpx handshake_timeout --cookie-file "$T_DIR/cookie" "$NODE"
kill_quietly 9 "$NODE_PID"
T_PIDS=$(echo "$T_PIDS" | sed "s/ $NODE_PID\b//")
NODE=$main NODE_PID=$main_pid
is "$FP_RC" 69 "a frozen node: exit 69"
sentence handshake_timeout "no handshake within 2000 ms.*--connect-timeout"
check "a frozen node: it waited for the connect timeout (${EL} ms)" test "$EL" -ge 1900
in_time handshake_timeout

for name in foo 'a b@h' '@127.0.0.1' 'x@'; do
	fpx bad_name --cookie-file "$T_DIR/cookie" "$name"
	is "$FP_RC" 64 "malformed node name '$name': exit 64"
	sentence bad_name "'$name' is not a node name"
	in_time bad_name
done

# usage ARGS...: a bad option value: 64, a sentence, the help line, and no
# output directory created.
usage() {
	fpx usage --cookie-file "$T_DIR/cookie" "$@" "$NODE"
	is "$FP_RC" 64 "'$*': exit 64"
	check "'$*': a sentence naming the option" grep -qE "^flameprof: .*'?${1#--}" "$T_DIR/usage.err"
	check "'$*': then \"try 'flameprof --help'\"" grep -qx "flameprof: try 'flameprof --help' for more information" "$T_DIR/usage.err"
	check "'$*': nothing is created" test ! -e "$T_DIR/out_usage"
	in_time usage
}
usage --hz 0
usage --top -1
usage --every 1x
usage --compress lz4
usage --durration 5s
check "a mistyped option: one sentence offers the option meant, exit 64 as any unknown option" \
	grep -qx "flameprof: unknown option '--durration'; did you mean '--duration'?" "$T_DIR/usage.err"

check "the cookie text never appears in any output" test -z "$(grep -F "$T_COOKIE" "$T_DIR/all_output")"
check "the node is left as it was" node_clean "$NODE"
finish

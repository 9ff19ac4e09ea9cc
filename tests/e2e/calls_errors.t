#!/bin/bash
# flameprof calls refuses, with one sentence and the documented status,
# whatever it should not trace: a module that is not loaded, a pattern that
# matches nothing, more functions than the limit (unless forced), functions
# somebody else already traces on OTP 25 and 26 (their breakpoint is left as
# it was; on 27+ flameprof traces beside them in a session of its own), and
# bad usage. None of these leaves anything on the node.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node cer "code:ensure_loaded(fp_calls_wl)" || exit 1

refused() { # STATUS TEXT MSG
	is "$FP_RC" "$1" "$3: exit $1"
	check "$3: one sentence" one_sentence
	check "$3: it says '$2'" grep -qF -- "$2" "$T_DIR/fp.err"
}

fpc -p no_such_module_here --duration 1s "$NODE"
refused 64 "module 'no_such_module_here' is not loaded" "a module that is not loaded"
fpc -p fp_calls_wl:nope/3 --duration 1s "$NODE"
refused 64 "'fp_calls_wl:nope/3' matches no function" "a function that does not exist"
fpc -p fp_calls_wl:target/2 --duration 1s "$NODE"
refused 64 "'fp_calls_wl:target/2' matches no function" "a wrong arity"
check "after the refusals nothing is left on the node" wait_until 5 tracer_gone "$NODE"

n=$(rpc_eval "$NODE" "length(lists:module_info(functions))")
fpc -p lists --limit 5 --duration 1s "$NODE"
refused 64 "match $n functions" "more functions than --limit"
fpc -p lists --duration 1s "$NODE"
is "$FP_RC" 0 "the default limit of 1000 lets all $n functions of lists through"
fpc -p 'fp_calls_wl' -p 'lists' --limit 5 --force --duration 300ms "$NODE"
is "$FP_RC" 0 "--force traces more than --limit"
check "after these nothing is left on the node" wait_until 5 tracer_gone "$NODE"
is "$(breakpoint "$NODE" "{lists,reverse,2}" call_count)" "{call_count, false}" "no breakpoint is left in lists"

# somebody else's breakpoint: on OTP 25 and 26 (one global trace session)
# refused; on 27+ flameprof counts in a session of its own beside it. Theirs
# stays either way.
rel=$(otp_release "$NODE")
rpc "$NODE" "erlang trace_pattern [{fp_calls_wl,target,1}, true, [call_count]]" >/dev/null
rpc "$NODE" "fp_calls_wl hit [5]" >/dev/null
fpc -p fp_calls_wl --duration 1s "$NODE"
if [ "$rel" -ge 27 ]; then
	is "$FP_RC" 0 "OTP $rel: a function someone else traces is counted in flameprof's own session (exit 0)"
else
	refused 69 "fp_calls_wl:target/1 is already traced" "a function someone else traces"
fi
is "$(breakpoint "$NODE" "{fp_calls_wl,target,1}" call_count)" "{call_count, 5}" "their breakpoint and its count are untouched"
rpc "$NODE" "erlang trace_pattern [{fp_calls_wl,target,1}, false, [call_count]]" >/dev/null

# a process traced by someone else: time refuses to touch its flags
rpc_eval "$NODE" "register(cer_traced, spawn(fun() -> receive stop -> ok end end)), erlang:trace(whereis(cer_traced), true, [call, {tracer, whereis(init)}])" >/dev/null
fpc --type time -p fp_calls_wl:target/1 --name cer_traced --duration 1s "$NODE"
if [ "$rel" -ge 27 ]; then
	is "$FP_RC" 0 "OTP $rel: a process someone else traces is timed in flameprof's own session (exit 0)"
else
	refused 69 "is already traced on" "a process someone else traces"
fi
is "$(rpc_eval "$NODE" "erlang:trace_info(whereis(cer_traced), flags)")" "{flags, [call]}" "its flags are untouched"
fpc --type time -p fp_calls_wl:target/1 --pid '<0.99999.0>' --duration 1s "$NODE"
refused 64 "no process '<0.99999.0>'" "a pid that does not exist"
check "nothing of ours is left on the node" wait_until 5 tracer_gone "$NODE"

# usage, before touching the node
fpc --duration 1s "$NODE"
refused 64 "no --pattern given" "no pattern"
fpc -p fp_calls_wl --pid '<0.1.0>' "$NODE"
refused 64 "--type count counts calls in every process together" "--pid with count"
fpc -p 'fp_calls_wl:target/x' "$NODE"
refused 64 "is not a pattern for -p" "a bad arity"
fpc -p fp_calls_wl --type cycles "$NODE"
refused 64 "use count, time or memory" "an unknown type"
check "a usage error points to 'flameprof calls --help'" grep -q "^flameprof: try 'flameprof calls --help' for more information$" "$T_DIR/fp.err"
fpc -p fp_calls_wl --json /nonexistent-dir/x.json "$NODE"
refused 73 "cannot create '/nonexistent-dir/x.json'" "a JSON file that cannot be created"

# a failed run leaves an existing --json file as it was (written aside,
# renamed only when complete); a symlink at the name is replaced, never
# written through
printf '{"old": "results"}\n' > "$T_DIR/old.json"
cp "$T_DIR/old.json" "$T_DIR/old.json.orig"
printf 'wrong%s\n' "$T_COOKIE" > "$T_DIR/wrong_cookie"
chmod 400 "$T_DIR/wrong_cookie"
timeout -s KILL 60 "$FLAMEPROF" calls --cookie-file "$T_DIR/wrong_cookie" -p fp_calls_wl --duration 1s \
	--json "$T_DIR/old.json" "$NODE" >"$T_DIR/fp.out" 2>"$T_DIR/fp.err"
is "$?" 77 "a wrong cookie: exit 77"
check "the --json file of a run that failed on the cookie is unchanged" cmp -s "$T_DIR/old.json" "$T_DIR/old.json.orig"
fpc -p fp_calls_wl:nope/3 --duration 1s --json "$T_DIR/old.json" "$NODE"
is "$FP_RC" 64 "a bad pattern with --json: exit 64"
check "the --json file of a run refused for its pattern is unchanged" cmp -s "$T_DIR/old.json" "$T_DIR/old.json.orig"
check "no temporary file is left beside it" sh -c "! ls -A '$T_DIR' | grep -q '^\.old\.json\.tmp'"
printf 'not yours\n' > "$T_DIR/victim"
ln -s "$T_DIR/victim" "$T_DIR/link.json"
umask 022
fpc -p fp_calls_wl --duration 300ms --json "$T_DIR/link.json" "$NODE"
is "$FP_RC" 0 "--json at a symlink: exit 0"
is "$(cat "$T_DIR/victim")" "not yours" "the symlink's target is not written"
check "the symlink was replaced by the new file" sh -c "test -f '$T_DIR/link.json' && ! test -L '$T_DIR/link.json'"
is "$(stat -c %a "$T_DIR/link.json")" 640 "the new file's mode is 0640"
check "the new file is the results" grep -q '"node"' "$T_DIR/link.json"

"$FLAMEPROF" calls --help > "$T_DIR/help.txt"
is "$?" 0 "calls --help exits 0"
for o in type pattern pid name all new per-process duration top json format limit force; do
	grep -q -- "--$o" "$T_DIR/help.txt" || diag "--help lacks --$o"
done
check "calls --help lists every option" sh -c "for o in type pattern pid name all new per-process duration top json format limit force; do grep -q -- \"--\$o\" '$T_DIR/help.txt' || exit 1; done"
finish

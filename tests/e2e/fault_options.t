#!/bin/bash
# What issue 4 adds to the option tests: a world-readable cookie file is
# refused as erl refuses it (issue 18), and the cookie is never printed;
# malformed node names are refused with exit 64 and one sentence, at once,
# before any connection is tried.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node opts "fp_busy:start(2)" || exit 1

cp "$T_DIR/cookie" "$T_DIR/loose_cookie"
chmod 644 "$T_DIR/loose_cookie"
timeout -s KILL 60 $FP_WRAP "$FLAMEPROF" --cookie-file "$T_DIR/loose_cookie" --duration 2s --every 1s \
	-o "$T_DIR/out" "$NODE" >"$T_DIR/fp.out" 2>"$T_DIR/fp.err"
rc=$?
sed 's/^/#   stderr: /' "$T_DIR/fp.err"
is "$rc" 77 "a world-readable cookie file is refused (exit 77)"
check "in one sentence naming the file and the way out" grep -q "^flameprof: cookie file '$T_DIR/loose_cookie' must be accessible by its owner only, as erl requires; run 'chmod 400 $T_DIR/loose_cookie'" "$T_DIR/fp.err"
check "the cookie itself is never printed" sh -c "! grep -q '$T_COOKIE' '$T_DIR/fp.err' '$T_DIR/fp.out'"

long=$(printf 'n%.0s' $(seq 300))
for name in '@' 'a@' '@host' 'a@b c' "$long@127.0.0.1" "a@$long" 'a b@127.0.0.1' 'a@@b'; do
	t0=$(date +%s%N)
	fp --connect-timeout 3s -o "$T_DIR/out_bad" "$name"
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	shown=$(printf '%.24s' "$name")
	is "$FP_RC" 64 "node name '$shown' is refused with exit 64"
	check "... in one sentence: $(fp_errors | head -1 | cut -c1-120)" one_sentence
	check "... at once, without waiting for a connect ($ms ms)" test "$ms" -lt 2000
done

# The load bound: processes x --hz beyond what the agent delivers is refused
# at once, before connecting, unless --force.
fp --top 100 --hz 1000 -o "$T_DIR/out_load" "$NODE"
is "$FP_RC" 64 "--top 100 --hz 1000 is refused with exit 64"
check "... in one sentence naming the bound and --force" sh -c "grep -q 'beyond the 20000 .*--force' '$T_DIR/fp.err'"
check "... before anything is written" test -z "$(ls -A "$T_DIR/out_load" 2>/dev/null)"
fp --top 30 --hz 1000 --force --duration 1s --every 1s -o "$T_DIR/out_force" "$NODE"
is "$FP_RC" 0 "with --force it runs (exit 0)"
check "... and the node is left as it was" node_clean_within 5 "$NODE"

# Our node name: a bad --node-name is refused at once with exit 64.
for name in 'a@b' 'a b' '' 'x/y'; do
	fp --node-name "$name" --connect-timeout 3s -o "$T_DIR/out_bad" "$NODE"
	is "$FP_RC" 64 "--node-name '$name' is refused with exit 64"
	check "... in one sentence: $(fp_errors | head -1 | cut -c1-120)" one_sentence
done
finish

#!/bin/bash
# flameprof --tier on the kv_service example, whose clients label their
# requests {kv, Op} with seq_trace: each sample's tier frame names the
# innermost tier on its stack (parse inside request shows parse, though
# request is given first), none when no tier matches; the label frame is
# root-most, the tier under it, and only on samples of working processes
# (the server and the pool workers keep a stale label while they wait);
# every reader rule holds; report reads the frames from the text and the
# index alike; a bad --tier is one sentence and exit 64.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node tiers "fp_kv_labels:start(2)" || exit 1

TIERS="--tier req=kv_service:request/2 --tier parse=kv_service:parse/_ --tier handle=kv_service:handle/2 --tier db=kv_service:db/_"
# --status all: the waiting samples (label gating) are checked too
fp $TIERS --duration 6s --top 30 --every 1s --status all -o "$T_DIR/out" "$NODE"
is "$FP_RC" 0 "flameprof --tier exits 0 after --duration"
files=$(ls "$T_DIR/out"/flameprof_*.perf.zst 2>/dev/null)
decompressed $files > "$T_DIR/all.txt"
check "the events are there" grep -q 'cpu-clock:' "$T_DIR/all.txt"
check "the header lists the tiers and the categories they bring" \
	grep -q '^# settings: .*categories=seq_trace,tier,initial_call,name .* tiers=req=kv_service:request/2,parse=kv_service:parse/_,handle=kv_service:handle/2,db=kv_service:db/_$' "$T_DIR/all.txt"

# Each event against the rules, from its own frames: the expected tier is
# the first code frame (leaf first) that a pattern matches. Prints
# "name value" lines for the checks below, or "bad ..." lines.
python3 - "$T_DIR/all.txt" "$T_DIR/pairs" > "$T_DIR/facts" <<'PY'
import re, sys
tiers = [("req", r"kv_service:request/2"), ("parse", r"kv_service:parse/\d+"),
         ("handle", r"kv_service:handle/2"), ("db", r"kv_service:db/\d+")]
working = {"running", "runnable", "garbage_collecting"}
n = {k: 0 for k in ("events", "tier_frames", "parse_in_req", "labels", "labels_waiting",
                    "waiting_in_tier", "bad_tier", "bad_order", "bad_label")}
seen, pairs = set(), set()
for ev in open(sys.argv[1]).read().split("\n\n"):
    lines = [l for l in ev.split("\n") if l and not l.startswith("#")]
    if not lines or "cpu-clock:" not in lines[0]:
        continue
    n["events"] += 1
    comm = lines[0].split()[0]
    frames = [l.strip().split(" ", 1)[1] for l in lines[1:]]
    code = [f for f in frames if not f.endswith("([category])")]
    cats = [f[:-len(" ([category])")] for f in frames if f.endswith("([category])")]
    want = None
    for f in code:
        sym = f.split(" ")[0]
        hit = [t for t, rx in tiers if re.fullmatch(rx, sym)]
        if hit:
            want = hit[0]
            break
    got = [c[5:] for c in cats if c.startswith("tier:")]
    labels = [c for c in cats if c.startswith("seq_trace:")]
    if got != ([want] if want else []):
        n["bad_tier"] += 1
        print("bad tier: want", want, "got", got, "in", code[:4])
    if got:
        n["tier_frames"] += 1
        seen.add(got[0])
    syms = [f.split(" ")[0] for f in code]
    if "kv_service:request/2" in syms and any(s.startswith("kv_service:parse/") for s in syms):
        n["parse_in_req"] += 1
    if labels:
        n["labels"] += 1
        if comm not in working:
            n["labels_waiting"] += 1
        if not re.fullmatch(r"seq_trace:\{kv,(create|read|update|delete)\}", labels[0]):
            n["bad_label"] += 1
            print("bad label:", labels[0])
        # root-most first: seq_trace, tier, initial_call, name
        order = [c.split(":", 1)[0] for c in cats]
        if order[-1] != "seq_trace" or (got and order[-2] != "tier"):
            n["bad_order"] += 1
            print("bad order:", order)
        if got:
            pairs.add(";%s;tier:%s;" % (labels[0], got[0]))
    elif comm == "waiting" and got and got[0] in ("parse", "handle", "db"):
        n["waiting_in_tier"] += 1
print("tiers_seen", ",".join(sorted(seen)))
# each label and tier pair, as the report's folded lines write it (root-most first)
open(sys.argv[2], "w").write("".join(p + "\n" for p in sorted(pairs)))
for k, v in n.items():
    print(k, v)
PY
sed 's/^/#   /' "$T_DIR/facts" | grep -v '^#   bad' | head -20
grep '^bad' "$T_DIR/facts" | head -5 | sed 's/^/#   /'
fact() { awk -v k="$1" '$1 == k { print $2 }' "$T_DIR/facts"; }
is "$(fact tiers_seen)" "db,handle,parse,req" "tier frames name every tier (db in the workers, handle in the server, parse and req in the clients)"
is "$(fact bad_tier)" 0 "every event's tier frame is its innermost matching frame, or absent when none matches ($(fact tier_frames) with one)"
check "parse inside request is seen, and shows parse, not req given first ($(fact parse_in_req) events)" test "$(fact parse_in_req)" -gt 0
check "label frames are written ($(fact labels) events)" test "$(fact labels)" -gt 0
is "$(fact labels_waiting)" 0 "no label frame on a sample whose process is not running, runnable or garbage_collecting"
check "waiting samples inside a request's tier carry no label ($(fact waiting_in_tier) events)" test "$(fact waiting_in_tier)" -gt 0
is "$(fact bad_label)" 0 "the label frames hold the requests' labels {kv,Op}"
is "$(fact bad_order)" 0 "the label is the root-most category frame, the tier right under it"
check "every perf-script reader rule holds (stackcollapse-perf.pl's among them)" readers_ok $files

# the report: the same frames through the index and through the text, every
# status as recorded (under make check-loaded the 16 labelled samples of a
# run were all runnable, none on a CPU)
"$FLAMEPROF" report -q -f folded --status all -o "$T_DIR/ix.folded" $files
"$FLAMEPROF" report -q --no-index -f folded --status all -o "$T_DIR/text.folded" $files
# every label and tier pair the files hold ($T_DIR/pairs, from the pass over
# the events above): which pairs a run catches on a CPU is chance (under
# make check-loaded, 28 labelled samples and none in db, once)
drawn() { [ -s "$T_DIR/pairs" ] && while read -r p; do grep -qF -- "$p" "$T_DIR/ix.folded" || return 1; done < "$T_DIR/pairs"; }
check "report draws the tier and label frames: each of the $(grep -c . "$T_DIR/pairs") pairs recorded" drawn
check "... the same from the index as from the text" cmp -s <(sort "$T_DIR/ix.folded") <(sort "$T_DIR/text.folded")
# the clients' parse is a short stretch of CPU: a 6 s capture on a loaded
# machine held 54 samples in parse, none of them on a CPU
"$FLAMEPROF" report -q -f folded --status all --category tier:parse -o "$T_DIR/parse.folded" $files
check "report --category tier:parse keeps the parse tier only" \
	test -s "$T_DIR/parse.folded" -a -z "$(grep -v ';tier:parse;' "$T_DIR/parse.folded")"
check "the node is left as it was" node_clean "$NODE"

# usage errors: one sentence each, exit 64, before touching the node
fp --tier db=kv_service "$NODE"
is "$FP_RC" 64 "a --tier without FUN/ARITY exits 64"
check "... in one sentence" one_sentence
check "... that shows the form" grep -q "is not a tier for --tier: write NAME=MOD:FUN/ARITY" "$T_DIR/fp.err"
fp --categories name,tier "$NODE"
is "$FP_RC" 64 "--categories with tier but no --tier exits 64"
check "... in one sentence" one_sentence
fp $TIERS --categories initial_call,name "$NODE"
is "$FP_RC" 64 "--tier with a --categories list that leaves tier out exits 64"
check "... in one sentence" one_sentence
finish

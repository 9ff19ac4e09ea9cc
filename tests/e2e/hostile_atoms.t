#!/bin/bash
# Hostile input: a module whose module name, function names and file name
# hold every awkward character (tests/workloads/fp_hostile_gen.py: quotes,
# spaces, '+', '->', parentheses, ';', ':', '%', tabs, newlines, NUL,
# 255-character atoms, Unicode, Unicode spaces), a registered name of 255
# Unicode characters, a 100-deep recursion, a process with 1,000,000
# messages queued and one with a ~6M-word heap. The output passes every
# reader rule, and every symbol, file name and name frame unescapes (%XX)
# back to the exact atom text.
. "$(dirname "$0")/../lib.sh"
start_epmd || exit 1
python3 "$ROOT/tests/workloads/fp_hostile_gen.py" "$T_DIR/hostile.erl" "$T_DIR/hostile.json" || exit 1
start_node hostile "{ok, M, B} = compile:file(\"$T_DIR/hostile.erl\", [binary, return_errors, no_error_module_mismatch]), {module, M} = code:load_binary(M, \"hostile\", B), ok = M:start()" || exit 1

# --status all: what is checked is every stack's text, not where the CPU
# went; on-CPU samples only (the default) are the processes read running,
# which a 5 s run of six busy processes on 2 schedulers may miss one of
fp --top 20 --every 1s --duration 5s --status all --categories initial_call,name,memory,queue,seq_trace -o "$T_DIR/out" "$NODE"
is "$FP_RC" 0 "flameprof exits 0"
files=$(ls "$T_DIR/out"/flameprof_*.perf.zst 2>/dev/null)
check "every perf-script reader rule holds" readers_ok $files
decompressed $files > "$T_DIR/all.txt"
python3 - "$T_DIR/hostile.json" "$T_DIR/all.txt" > "$T_DIR/check.tap" 2>"$T_DIR/check.err" <<'PY'
import json, re, sys
want = json.load(open(sys.argv[1]))
text = open(sys.argv[2], "rb").read().decode("utf-8")
PCT = re.compile(rb"%([0-9A-Fa-f]{2})")
def unescape(s):
    if re.search(r"%(?![0-9A-Fa-f]{2})", s):
        raise ValueError("malformed escape in %r" % s)
    return PCT.sub(lambda m: bytes([int(m.group(1), 16)]), s.encode()).decode("utf-8")
funcs, files, names = set(), set(), set()
max_frames = qlen = heap = 0
bad = []
for event in text.split("\n\n"):
    lines = [l for l in event.split("\n") if l and not l.startswith("#")]
    if not lines:
        continue
    m = re.search(r"metric_erlang_message_queue_len: (\d+),", lines[0])
    qlen = max(qlen, int(m.group(1))) if m else qlen
    m = re.search(r"metric_erlang_total_heap_size: (\d+),", lines[0])
    heap = max(heap, int(m.group(1))) if m else heap
    code = 0
    for l in lines[1:]:
        m = re.fullmatch(r"\t[0-9a-f]+ (.+) \((.*)\)", l)
        if not m:
            bad.append(l); continue
        sym, dso = m.groups()
        if dso == "[category]":
            if sym.startswith("name:"):
                names.add(unescape(sym[5:]))
            continue
        code += 1
        mod, _, rest = sym.partition(":")
        if unescape(mod) != want["module"]:
            continue
        slash = rest.rfind("/")
        fun = rest[:slash] if slash >= 0 and rest[slash + 1:].isdigit() else rest
        funcs.add(unescape(fun))
        files.add(unescape(dso[:dso.rfind(":")] if ":" in dso else dso))
    max_frames = max(max_frames, code)
n = 0
def ok(cond, msg):
    global n
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, msg))
ok(not bad, "every frame line has the frame shape (%d do not)" % len(bad))
missing = [f for f in want["functions"] if f not in funcs]
ok(not missing, "every hostile function name unescapes back to its atom (%d of %d seen; missing %r)"
   % (len(want["functions"]) - len(missing), len(want["functions"]), missing))
ok(files == {want["file"]}, "the odd file name unescapes back exactly (%r)" % sorted(files))
ok(want["name"] in names, "the 255-character Unicode registered name unescapes back (%d names)" % len(names))
ok(max_frames >= 64, "a 100-deep recursion shows the VM's 64 frames (%d)" % max_frames)
ok(qlen >= 1000000, "the 1,000,000-message mailbox is measured (message_queue_len %d)" % qlen)
ok(heap >= 6000000, "the huge heap is measured (total_heap_size %d words)" % heap)
PY
checker_rc=$?
# the checker's own lines count only if it ran to its end: a crash half-way
# must not make its missing assertions vanish
sed 's/^/#   checker: /' "$T_DIR/check.err"
is "$checker_rc $(grep -c '^\(not \)\?ok ' "$T_DIR/check.tap")" "0 7" "the checker ran to its end: exit 0 and its 7 checks"
while read -r line; do
	case "$line" in
	"ok "*) ok 0 "${line#ok * - }" ;;
	"not ok "*) ok 1 "${line#not ok * - }" ;;
	esac
done < "$T_DIR/check.tap"
check "the node is left as it was" node_clean "$NODE"
finish

#!/bin/bash
# flameprof calls on functions whose names hold a NUL byte and terminal
# control bytes (an atom may hold any character): the run ends well
# (exit 0, not 76), the table shows them escaped, and --json is written
# and parses, the NUL as U+FFFD (as `requests` does with an identity).
. "$(dirname "$0")/../lib.sh"
start_epmd || exit 1
mkdir -p "$T_DIR/ebin"
cat > "$T_DIR/fp_oddnames.erl" <<'ERL'
-module(fp_oddnames).
-export([start/0, 'a\0b'/0, 'esc\e[2Jbel\7'/0]).
'a\0b'() -> ok.
'esc\e[2Jbel\7'() -> ok.
start() -> spawn(fun loop/0), ok.
loop() -> ?MODULE:'a\0b'(), ?MODULE:'esc\e[2Jbel\7'(), timer:sleep(2), loop().
ERL
erlc -o "$T_DIR/ebin" "$T_DIR/fp_oddnames.erl" || exit 1
start_node odd "fp_oddnames:start()" || exit 1

fpc -p fp_oddnames --duration 2s --json "$T_DIR/calls.json" "$NODE"
is "$FP_RC" 0 "a NUL in a traced function's name: exit 0"
check "the table names the NUL function, the NUL as U+FFFD" grep -qF $'a\xef\xbf\xbdb/0' "$T_DIR/fp.out"
check "the table escapes ESC and BEL" grep -qF 'esc\x1b[2Jbel\x07/0' "$T_DIR/fp.out"
check "no raw ESC or BEL reaches the terminal" bash -c "! grep -q $'[\x1b\x07]' '$T_DIR/fp.out' '$T_DIR/fp.err'"
python3 - "$T_DIR/calls.json" > "$T_DIR/json.check" 2>&1 <<'PY'
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
try:
    doc = json.loads(text)
except ValueError:
    doc = [json.loads(l) for l in text.splitlines() if l.strip()]
found = set()
def walk(x):
    if isinstance(x, dict):
        for v in x.values(): walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
    elif isinstance(x, str):
        found.add(x)
walk(doc)
print("nul" if any("a\ufffdb" in s for s in found) else "no-nul")
print("esc" if any("\x1b" in s for s in found) else "no-esc")
PY
is "$(head -1 "$T_DIR/json.check")" "nul" "--json is written and parses; the NUL function's row is there, NUL as U+FFFD"
check "the tracer is gone" wait_until 5 tracer_gone "$NODE"
finish

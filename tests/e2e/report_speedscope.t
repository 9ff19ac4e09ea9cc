#!/bin/bash
# report --format speedscope: valid against speedscope's published schema
# (tests/report/speedscope-file-format-schema.json, from the speedscope npm
# package), with the weights adding up to the events.
: "${T_TIMEOUT:=60}"
. "$(dirname "$0")/../lib.sh"

gen --events 3000 --hostile --seed 9 > "$T_DIR/in.perf"
gzip -c "$T_DIR/in.perf" > "$T_DIR/in.perf.gz"
"$FLAMEPROF" report --status all "$T_DIR/in.perf.gz" -f speedscope -o "$T_DIR/p.json" -q
is "$?" 0 "speedscope export exits 0"
"$FLAMEPROF" report --status all "$T_DIR/in.perf.gz" -f speedscope -w reductions_delta -o "$T_DIR/w.json" -q
# Debian's python3-jsonschema serves /usr/bin/python3, which may not be the python3 on PATH.
py=
for p in python3 /usr/bin/python3; do
	if [ -z "$py" ] && "$p" -c 'import jsonschema' 2>/dev/null; then py=$p; fi
done
if [ -n "$py" ]; then
	for f in p w; do
		check "$f.json is valid against the published schema" "$py" - "$ROOT/tests/report/speedscope-file-format-schema.json" "$T_DIR/$f.json" <<'PY'
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
	done
else
	skip "valid against the published schema" "python3-jsonschema is not installed"
fi
check "sampled profiles, frames in range, weights add up to the events" python3 - "$T_DIR/p.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
nf = len(d["shared"]["frames"])
tot = 0
for p in d["profiles"]:
    assert p["type"] == "sampled" and len(p["samples"]) == len(p["weights"])
    assert all(0 <= i < nf for s in p["samples"] for i in s)
    assert p["endValue"] == sum(p["weights"])
    tot += sum(p["weights"])
assert tot == 3000, tot
assert any("a;b" in f["name"] for f in d["shared"]["frames"])  # unescaped
PY
finish

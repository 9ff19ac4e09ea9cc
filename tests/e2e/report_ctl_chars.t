#!/bin/bash
# Names that hold terminal controls (ESC, BEL, DEL, the C1 controls U+0085
# NEL and U+009B CSI: an atom may hold any character) do not reach a
# terminal raw through what `report` writes: the SVG (flame graph and
# heatmap) shows U+FFFD in their place, pprof's string table (which `go
# tool pprof -top` prints) has them as \xNN, as flameprof's own messages do.
. "$(dirname "$0")/../lib.sh"

in="$T_DIR/flameprof_app@db1_20231114T221320.000Z.perf"
odd='esc%1B[2Jbel%07del%7Fnel%C2%85csi%C2%9B'
gen --events 400 --seed 3 --start 1700000000.25 --span 10 | sed "s/my_server/$odd/g; s/srv_1\b/name$odd/" > "$in"
check "the input holds the odd module name" grep -qF "$odd" "$in"

raw() { # raw FILE: whether FILE holds a raw ESC, BEL, DEL, NEL or CSI
	python3 - "$1" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
bad = [x for x in (b"\x1b", b"\x07", b"\x7f", b"\xc2\x85", b"\xc2\x9b") if x in b]
print(" ".join(repr(x) for x in bad) or "none")
PY
}
"$FLAMEPROF" report "$in" -o "$T_DIR/f.svg" 2> "$T_DIR/err"
is "$?" 0 "report writes the flame graph"
is "$(raw "$T_DIR/f.svg")" "none" "the flame graph holds no raw terminal control"
check "... the name is there with U+FFFD in their place" grep -qF $'esc\xef\xbf\xbd[2Jbel\xef\xbf\xbd' "$T_DIR/f.svg"
"$FLAMEPROF" report -f heatmap "$in" -o "$T_DIR/h.svg" --title $'t\x1bx' 2> "$T_DIR/err"
is "$?" 0 "report writes the heatmap"
is "$(raw "$T_DIR/h.svg")" "none" "the heatmap (and a --title with ESC) holds no raw terminal control"

"$FLAMEPROF" report -f pprof "$in" -o "$T_DIR/p.pb.gz" 2> "$T_DIR/err"
is "$?" 0 "report writes pprof"
python3 - "$T_DIR/p.pb.gz" > "$T_DIR/strings.txt" <<'PY'
import gzip, sys
b = gzip.open(sys.argv[1]).read()
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, i
i, out = 0, []
while i < len(b):
    key, i = varint(b, i)
    f, w = key >> 3, key & 7
    if w == 0:
        _, i = varint(b, i)
    elif w == 2:
        n, i = varint(b, i)
        if f == 6:
            out.append(b[i:i + n])
        i += n
    elif w == 1:
        i += 8
    elif w == 5:
        i += 4
for s in out:
    sys.stdout.buffer.write(s + b"\n")
PY
is "$(raw "$T_DIR/strings.txt")" "none" "pprof's string table holds no raw terminal control"
check "... the module name is there, its controls as \\xNN" grep -qF 'esc\x1b[2Jbel\x07del\x7fnel\x85csi\x9b' "$T_DIR/strings.txt"
# what breaks or reorders a line on a terminal (issue 50): the line and
# paragraph separators and bidirectional controls reach -f top as \uNNNN
printf 'running 1/0 [000] 1700000000.100000: 1 cpu-clock:\n\t0 evil\xe2\x80\xa8mod:f\xe2\x80\xaeg/0 (m.erl:1)\n\n' > "$T_DIR/lines.perf"
printf 'running 2/0 [000] 1700000000.200000: 1 cpu-clock:\n\t0 m:a\xe2\x80\xa9b\xe2\x81\xa6c\xe2\x80\x8f/0 (m.erl:1)\n\n' >> "$T_DIR/lines.perf"
"$FLAMEPROF" report -q -f top "$T_DIR/lines.perf" -o "$T_DIR/top.txt"
is "$?" 0 "report -f top on names holding U+2028, U+2029 and bidirectional controls"
is "$(python3 -c 'import re, sys; print(re.findall("[\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]", open(sys.argv[1], encoding="utf-8").read()))' "$T_DIR/top.txt")" "[]" "... holds none of them raw"
check "... but \\u2028 and \\u202e as text" grep -qF 'evil\u2028mod:f\u202eg/0' "$T_DIR/top.txt"
check "... and \\u2029, \\u2066, \\u200f" grep -qF 'm:a\u2029b\u2066c\u200f/0' "$T_DIR/top.txt"
finish

#!/bin/bash
# report reads its files in time order: a rotated "...Z-1" after its base
# name, files named in any order by their first event; the time origin is
# the earliest event of all inputs (the heatmap drops nothing); a directory
# of several nodes draws them together, each under a frame node:NAME, and
# says so; --node picks one, several, or all.
: "${T_TIMEOUT:=60}"
. "$(dirname "$0")/../lib.sh"

# One node's capture rotated within one millisecond: the base name and -1.
mkdir "$T_DIR/rot"
gen --events 400 --seed 1 --start 1700000000.25 --span 4 --folded "$T_DIR/a.f" > "$T_DIR/a"
gen --events 300 --seed 2 --start 1700000004.5 --span 3 --folded "$T_DIR/b.f" > "$T_DIR/b"
zstd -q "$T_DIR/a" -o "$T_DIR/rot/flameprof_n1_20231114T221320.250Z.perf.zst"
zstd -q "$T_DIR/b" -o "$T_DIR/rot/flameprof_n1_20231114T221320.250Z-1.perf.zst"
check "strcmp would read the -1 file first (the case this covers)" \
	sh -c "ls '$T_DIR/rot' | LC_ALL=C sort | head -1 | grep -q -- '-1\.perf'"
"$FLAMEPROF" report --status all "$T_DIR/rot" -f heatmap -o "$T_DIR/h.svg" 2> "$T_DIR/err"
is "$?" 0 "heatmap of the rotated pair exits 0"
check "x starts at the base file's first second" grep -q 'x: seconds from 1700000000 (Unix time)' "$T_DIR/h.svg"
check "no event is left out of the heatmap" sh -c "! grep -q 'earlier events not drawn' '$T_DIR/h.svg'"
check "one node: no word about nodes" sh -c "! grep -q 'nodes' '$T_DIR/err'"
"$FLAMEPROF" report --status all "$T_DIR/rot" -f folded -o "$T_DIR/got" -q
cat "$T_DIR/a.f" "$T_DIR/b.f" | awk '{n = $NF; $NF = ""; c[$0] += n} END {for (k in c) print k c[k]}' | sort > "$T_DIR/w"
sort "$T_DIR/got" > "$T_DIR/g"
check "both files are read" cmp -s "$T_DIR/g" "$T_DIR/w"

# Files named on the command line latest first: t0 is still the earliest.
"$FLAMEPROF" report --status all "$T_DIR/b" "$T_DIR/a" -f heatmap -o "$T_DIR/h2.svg" -q
check "latest file named first: x still starts at the earliest event's second" \
	grep -q 'x: seconds from 1700000000 (Unix time)' "$T_DIR/h2.svg"
check "... and drops nothing" sh -c "! grep -q 'earlier events not drawn' '$T_DIR/h2.svg'"
"$FLAMEPROF" report --status all "$T_DIR/b" "$T_DIR/a" -f folded --from 0 --to 1 -o "$T_DIR/cut" -q
n_cut=$(awk '{s += $NF} END {print s + 0}' "$T_DIR/cut")
n_want=$(awk '/ cpu-clock:/ { t = $4 + 0; if (t >= 1700000000 && t < 1700000001) n++ } END { print n + 0 }' "$T_DIR/a")
is "$n_cut" "$n_want" "--from 0 --to 1 counts from the earliest event's second ($n_want events)"

# A directory with two nodes: n1 (earlier) and n2 (latest).
mkdir "$T_DIR/two"
cp "$T_DIR/rot/"* "$T_DIR/two/"
gen --events 200 --seed 3 --start 1700000010.5 --span 2 --folded "$T_DIR/c.f" > "$T_DIR/c"
gzip -c "$T_DIR/c" > "$T_DIR/two/flameprof_n2_20231114T221330.500Z.perf.gz"
"$FLAMEPROF" report --status all "$T_DIR/two" -f folded -o "$T_DIR/got2" 2> "$T_DIR/err2"
is "$?" 0 "two nodes in a directory: exits 0"
check "it says the directory holds two nodes, drawn together" \
	grep -q "holds the files of 2 nodes ('n1', 'n2'); drawing them together, each under a frame node:NAME (--node NODE draws one)" "$T_DIR/err2"
is "$(awk '{s += $NF} END {print s}' "$T_DIR/got2")" 900 "it drew both nodes' 900 events"
is "$(awk '/^node:n1;/ {s += $NF} END {print s}' "$T_DIR/got2")" 700 "... n1's 700 under node:n1, outermost"
is "$(awk '/^node:n2;/ {s += $NF} END {print s}' "$T_DIR/got2")" 200 "... n2's 200 under node:n2"
is "$(grep -vc '^node:n[12];' "$T_DIR/got2")" 0 "... and no line without its node"
"$FLAMEPROF" report --status all "$T_DIR/two" --node n1,n2 -f folded -o "$T_DIR/got2b" -q
"$FLAMEPROF" report --status all "$T_DIR/two" --node n2 --node n1 -f folded -o "$T_DIR/got2c" -q
"$FLAMEPROF" report --status all "$T_DIR/two" --category node:n2 -f folded -o "$T_DIR/got2d" -q
is "$(awk '{s += $NF} END {print s}' "$T_DIR/got2d")" 200 "--category node:n2 keeps n2's 200 events (the node frame is a category)"
check "--node n1,n2 and --node n2 --node n1 draw the same as no --node" sh -c "cmp -s '$T_DIR/got2' '$T_DIR/got2b' && cmp -s '$T_DIR/got2' '$T_DIR/got2c'"
"$FLAMEPROF" report --status all "$T_DIR/two" --node n1 -f folded -o "$T_DIR/got3" 2> "$T_DIR/err3"
is "$(awk '{s += $NF} END {print s}' "$T_DIR/got3")" 700 "--node n1: n1's 700 events"
is "$(grep -c '^node:' "$T_DIR/got3")" 0 "--node n1: one node, no node frame"
check "--node n1: no warning" sh -c "! grep -q -e warning -e 'nodes' '$T_DIR/err3'"
"$FLAMEPROF" report --status all "$T_DIR/two" --node all -f folded -o "$T_DIR/got4" -q
is "$(awk '{s += $NF} END {print s}' "$T_DIR/got4")" 900 "--node all: both nodes' 900 events"
"$FLAMEPROF" report --status all "$T_DIR/two" --node n1,n3 -f folded -o "$T_DIR/got5" 2> "$T_DIR/err5"
is "$?" 66 "--node with no such node: exit 66"
check "... naming the nodes there are" grep -q "cannot find files of node 'n3' in '.*two' (it holds 'n1', 'n2'; see --node)" "$T_DIR/err5"
# node names in file names are escaped (rotate/naming.c): --node takes the real name
mkdir "$T_DIR/esc"
cp "$T_DIR/a" "$T_DIR/esc/flameprof_app%5Fx@h_20231114T221320.250Z.perf"
cp "$T_DIR/c" "$T_DIR/esc/flameprof_n2_20231114T221330.500Z.perf"
"$FLAMEPROF" report --status all "$T_DIR/esc" --node app_x@h -f folded -o "$T_DIR/got6" -q
is "$(awk '{s += $NF} END {print s}' "$T_DIR/got6")" 400 "--node app_x@h finds flameprof_app%5Fx@h_... files"
finish

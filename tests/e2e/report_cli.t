#!/bin/bash
# What a newcomer meets at report's front door: a picture or binary data
# is not poured onto a terminal (exit 64, one sentence naming -o FILE),
# text formats and pipes still work; a --from/--to that misses the capture
# says the capture's span (exit 64), and a Unix second typed without '@'
# (the number the heatmap's axis names) is said plainly, with the '@' form.
: "${T_TIMEOUT:=60}"
. "$(dirname "$0")/../lib.sh"
gen --events 400 --seed 5 --start 1700000000.5 --span 5 > "$T_DIR/in.perf"

# tty CMD...: runs CMD with its standard output a terminal (script(1))
tty_run() { script -qec "$*" /dev/null > "$T_DIR/tty.out" 2>&1; }
sentence_ok() { [ "$(grep -c . "$1")" -eq 1 ] && grep -q "$2" "$1"; }

tty_run "'$FLAMEPROF' report '$T_DIR/in.perf' --status all"
is "$?" 64 "a flame graph SVG to a terminal: exit 64"
check "one sentence that names -o FILE, and no SVG" sentence_ok "$T_DIR/tty.out" \
	"^flameprof: will not write a flame graph SVG to the terminal: name a file with -o FILE"
tty_run "'$FLAMEPROF' report '$T_DIR/in.perf' -f pprof"
is "$?" 64 "pprof to a terminal: exit 64"
check "said as a gzipped pprof profile" grep -q "will not write a gzipped pprof profile" "$T_DIR/tty.out"
tty_run "'$FLAMEPROF' report '$T_DIR/in.perf' -f folded -o '$T_DIR/f' --heatmap -"
is "$?" 64 "--heatmap - to a terminal: exit 64"
check "naming --heatmap FILE" grep -q "name a file with --heatmap FILE" "$T_DIR/tty.out"
tty_run "'$FLAMEPROF' report '$T_DIR/in.perf' --status all -q -f top"
is "$?" 0 "-f top to a terminal: exit 0"
check "the table is there" grep -q "samples in [0-9]* functions" "$T_DIR/tty.out"
"$FLAMEPROF" report "$T_DIR/in.perf" --status all -q | head -c 5 > "$T_DIR/pipe"
is "$(cat "$T_DIR/pipe")" "<?xml" "an SVG into a pipe is still written"

# the capture's span, from the events' own times (perf text: "comm pid [cpu] sec.frac:")
span=$(awk '$4 ~ /^[0-9]+\.[0-9]+:$/ { t = $4 + 0; if (min == "" || t < min) min = t; if (t > max) max = t }
	END { t0 = int(min); printf "seconds %.2f to %.2f (@%.2f to @%.2f)", min - t0, max - t0, min, max }' "$T_DIR/in.perf")
"$FLAMEPROF" report "$T_DIR/in.perf" --from 30 --to 40 -o "$T_DIR/x.svg" -q 2> "$T_DIR/err"
is "$?" 64 "--from 30 --to 40 past the end: exit 64"
check "one sentence giving the span: $span" sentence_ok "$T_DIR/err" "spans $span: choose a range inside it"
check "no picture is written" test ! -e "$T_DIR/x.svg"
"$FLAMEPROF" report "$T_DIR/in.perf" --to @1600000000 -o "$T_DIR/x.svg" -q 2> "$T_DIR/err"
is "$?" 64 "--to before the start: exit 64"
check "the same sentence" sentence_ok "$T_DIR/err" "spans $span"
"$FLAMEPROF" report "$T_DIR/in.perf" --from 1700000002 -o "$T_DIR/x.svg" -q 2> "$T_DIR/err"
is "$?" 64 "a Unix second without '@': exit 64"
check "said plainly, with the '@' form" sentence_ok "$T_DIR/err" \
	"^flameprof: --from 1700000002 counts seconds from the start of .*; for a Unix time write --from @1700000002 (it spans @"
"$FLAMEPROF" report "$T_DIR/in.perf" --status all --from @1700000002 --to @1700000003.5 -f folded -o "$T_DIR/x.folded" -q
is "$?" 0 "the '@' form inside the capture draws"
n=$(awk '$4 ~ /^[0-9]+\.[0-9]+:$/ { t = $4 + 0; if (t >= 1700000002 && t < 1700000003.5) n++ } END { print n + 0 }' "$T_DIR/in.perf")
is "$(awk '{ s += $NF } END { print s + 0 }' "$T_DIR/x.folded")" "$n" "with the events of that range ($n)"
"$FLAMEPROF" report "$T_DIR/in.perf" --status nosuch -o "$T_DIR/y.svg" -q 2> "$T_DIR/err"
is "$?" 0 "a filter that keeps nothing (no cut) still draws, with its warning"
finish

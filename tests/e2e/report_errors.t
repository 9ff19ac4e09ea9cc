#!/bin/sh
# report's exit statuses (<sysexits.h>) and its one-line messages.
. "$(dirname "$0")/../report/tap.sh"

gen --events 50 > "$T/in.perf"
"$FLAMEPROF" report --help > "$T/help"
is "$?" 0 "--help exits 0"
ok "--help lists the options from the table" grep -q -- '--heatmap FILE' "$T/help"
"$FLAMEPROF" report "$T/in.perf" --frobnicate 2> "$T/err"
is "$?" 64 "unknown option: 64"
ok "the message names the option and the help" grep -q "^flameprof: unknown option '--frobnicate'; see 'flameprof report --help'$" "$T/err"
"$FLAMEPROF" report "$T/missing" -o "$T/x.svg" 2> "$T/err"
is "$?" 66 "missing input: 66"
ok "the message quotes the path" grep -q "^flameprof: cannot open '$T/missing'" "$T/err"
printf 'not\nperf\n' > "$T/text"
"$FLAMEPROF" report "$T/text" -o "$T/x.svg" 2> /dev/null
is "$?" 65 "no events: 65"
printf '\050\265\057\375garbagegarbage' > "$T/bad.zst"
"$FLAMEPROF" report "$T/bad.zst" -o "$T/x.svg" 2> /dev/null
is "$?" 65 "corrupt zstd: 65"
"$FLAMEPROF" report "$T/in.perf" -o "$T/no/dir/x.svg" 2> "$T/err"
is "$?" 73 "cannot create the output: 73"
"$FLAMEPROF" report "$T/in.perf" -w bogus -o "$T/x.svg" 2> "$T/err"
is "$?" 64 "unknown metric: 64"
ok "the message lists the metrics" grep -q "no metric 'bogus' on the events; use samples or one of: reductions" "$T/err"
"$FLAMEPROF" report "$T/in.perf" --status nosuch -o "$T/x.svg" 2> "$T/err"
is "$?" 0 "a filter that keeps nothing still draws"
ok "and warns" grep -q "no event matched" "$T/err"
finish

#!/bin/sh
# report's exit statuses (<sysexits.h>) and its one-line messages.
. "$(dirname "$0")/../report/tap.sh"

gen --events 50 > "$T/in.perf"
"$FLAMEPROF" report --help > "$T/help"
is "$?" 0 "--help exits 0"
ok "--help lists the options from the table" grep -q -- '--heatmap FILE' "$T/help"
ok "--help lists the exit statuses, 65 and 66 among them" \
	sh -c "tr '\n' ' ' < '$T/help' | grep -q 'exit status: 0 done, 64 usage .*65 a file that does not decode or holds no event, 66 an input that cannot be opened'"
ok "so does the man page" sh -c "grep -A2 '^\.B 65\$' '$REP_ROOT/doc/flameprof.1' | grep -q 'does not decode' && grep -A2 '^\.B 66\$' '$REP_ROOT/doc/flameprof.1' | grep -q 'cannot be opened'"
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
ok "the message lists every metric, minor_gcs (the last) included" \
	grep -q "no metric 'bogus' on the events; use samples or one of: reductions, message_queue_len, memory, total_heap_size, heap_block_size, old_heap_block_size, heap_size, old_heap_size, stack_size, mbuf_size, recent_size, bin_vheap_size, bin_vheap_block_size, bin_old_vheap_size, bin_old_vheap_block_size, minor_gcs\[_delta\]$" "$T/err"
"$FLAMEPROF" report "$T/in.perf" --status nosuch -o "$T/x.svg" 2> "$T/err"
is "$?" 0 "a filter that keeps nothing still draws"
ok "and warns" grep -q "no event matched" "$T/err"
"$FLAMEPROF" report "$T/in.perf" --status all -o "$T/x.svg" 2> "$T/err"
is "$?" 0 "--status all draws"
"$FLAMEPROF" report "$T/in.perf" --status on-cpu -f folded -o "$T/x.folded" 2> "$T/err"
is "$(cut -d';' -f1 "$T/x.folded" | sort -u | tr '\n' ' ')" "garbage_collecting running " "--status on-cpu keeps running and garbage_collecting"
finish

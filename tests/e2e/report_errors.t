#!/bin/bash
# report's exit statuses (<sysexits.h>) and its one-line messages.
: "${T_TIMEOUT:=60}"
. "$(dirname "$0")/../lib.sh"

gen --events 50 > "$T_DIR/in.perf"
"$FLAMEPROF" report --help > "$T_DIR/help"
is "$?" 0 "--help exits 0"
check "--help lists the options from the table" grep -q -- '--heatmap FILE' "$T_DIR/help"
check "--help lists the exit statuses, 65 and 66 among them" \
	sh -c "tr '\n' ' ' < '$T_DIR/help' | grep -q 'exit status: 0 done, 64 usage .*65 a file that does not decode or holds no event, 66 an input that cannot be opened'"
check "so does the man page" sh -c "grep -A2 '^\.B 65\$' '$ROOT/doc/flameprof.1' | grep -q 'does not decode' && grep -A2 '^\.B 66\$' '$ROOT/doc/flameprof.1' | grep -q 'cannot be opened'"
"$FLAMEPROF" report "$T_DIR/in.perf" --frobnicate 2> "$T_DIR/err"
is "$?" 64 "unknown option: 64"
check "the message names the option and the help" grep -q "^flameprof: unknown option '--frobnicate'; see 'flameprof report --help'$" "$T_DIR/err"
"$FLAMEPROF" report "$T_DIR/missing" -o "$T_DIR/x.svg" 2> "$T_DIR/err"
is "$?" 66 "missing input: 66"
check "the message quotes the path" grep -q "^flameprof: cannot open '$T_DIR/missing'" "$T_DIR/err"
printf 'not\nperf\n' > "$T_DIR/text"
"$FLAMEPROF" report "$T_DIR/text" -o "$T_DIR/x.svg" 2> /dev/null
is "$?" 65 "no events: 65"
printf '\050\265\057\375garbagegarbage' > "$T_DIR/bad.zst"
"$FLAMEPROF" report "$T_DIR/bad.zst" -o "$T_DIR/x.svg" 2> /dev/null
is "$?" 65 "corrupt zstd: 65"
"$FLAMEPROF" report "$T_DIR/in.perf" -o "$T_DIR/no/dir/x.svg" 2> "$T_DIR/err"
is "$?" 73 "cannot create the output: 73"
"$FLAMEPROF" report "$T_DIR/in.perf" -w bogus -o "$T_DIR/x.svg" 2> "$T_DIR/err"
is "$?" 64 "unknown metric: 64"
check "the message lists every metric, minor_gcs (the last) included" \
	grep -q "no metric 'bogus' on the events; use samples or one of: reductions, message_queue_len, memory, total_heap_size, heap_block_size, old_heap_block_size, heap_size, old_heap_size, stack_size, mbuf_size, recent_size, bin_vheap_size, bin_vheap_block_size, bin_old_vheap_size, bin_old_vheap_block_size, minor_gcs\[_delta\]$" "$T_DIR/err"
"$FLAMEPROF" report "$T_DIR/in.perf" --status nosuch -o "$T_DIR/x.svg" 2> "$T_DIR/err"
is "$?" 0 "a filter that keeps nothing still draws"
check "and warns" grep -q "no event matched" "$T_DIR/err"
"$FLAMEPROF" report "$T_DIR/in.perf" --status all -o "$T_DIR/x.svg" 2> "$T_DIR/err"
is "$?" 0 "--status all draws"
"$FLAMEPROF" report "$T_DIR/in.perf" --status on-cpu -f folded -o "$T_DIR/x.folded" 2> "$T_DIR/err"
is "$(cut -d';' -f1 "$T_DIR/x.folded" | sort -u | tr '\n' ' ')" "garbage_collecting running " "--status on-cpu keeps running and garbage_collecting"
finish

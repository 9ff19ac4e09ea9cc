#!/bin/sh
# run.sh SECONDS [TARGET...] - builds the libFuzzer targets (clang,
# -fsanitize=fuzzer,address,undefined) into build/fuzz/ and runs each for
# SECONDS over a scratch copy of its seed corpus (tests/fuzz/corpus/<name>).
# Exits non-zero on any crash, leak or sanitizer report; the reproducer is
# left in build/fuzz/ (crash-*, leak-*). `make check` runs it for a few
# seconds a target, `make fuzz` for longer (FUZZ_SECONDS).
set -eu
secs=${1:-5}; shift || true
targets=${*:-"decode format index calls requests"}
CLANG=${CLANG:-clang}
B=build/fuzz
mkdir -p "$B"
EI_CFLAGS=$(sed -n 's/^EI_CFLAGS = //p' build/config.mk)
EI_LIBS=$(sed -n 's/^EI_LIBS = //p' build/config.mk)
FLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L"
FMT_SRC="formatter/categories.c formatter/deltas.c formatter/escape.c formatter/out.c formatter/perf.c sampler/sample.c"
# the index reader and the collector it feeds (rep_frames unescapes with fmt_unescape)
REP_SRC="report/rep_index_read.c report/rep_collect.c report/rep_frames.c report/rep_trie.c report/rep_parse.c report/rep_order.c report/rep_folded.c formatter/escape.c formatter/out.c"
for t in $targets; do
	case $t in
	decode) src="tests/fuzz/fuzz_decode.c sampler/decode.c sampler/term_check.c $FMT_SRC" libs="" ;;
	format) src="tests/fuzz/fuzz_format.c $FMT_SRC" libs="" ;;
	index) src="tests/fuzz/fuzz_index.c $REP_SRC" libs="-lzstd" ;;
	calls) src="tests/fuzz/fuzz_calls.c sampler/calls_decode.c sampler/term_check.c calls/calls_out.c" libs="" ;;
	requests) src="tests/fuzz/fuzz_requests.c sampler/requests_decode.c sampler/term_check.c requests/req_table.c requests/hist.c" libs="-lm" ;;
	*) echo "run.sh: unknown target '$t'" >&2; exit 64 ;;
	esac
	$CLANG $FLAGS $EI_CFLAGS -o "$B/fuzz_$t" $src $EI_LIBS $libs -lpthread
	work="$B/corpus_$t"
	rm -rf "$work"; mkdir -p "$work"
	[ -d "tests/fuzz/corpus/$t" ] && cp "tests/fuzz/corpus/$t"/* "$work"/
	echo "fuzz_$t: $secs s over $(ls "$work" | wc -l) seeds"
	(cd "$B" && ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"./fuzz_$t" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=1024 \
		-print_final_stats=1 "corpus_$t" 2>"fuzz_$t.log") || {
		tail -60 "$B/fuzz_$t.log" >&2; echo "fuzz_$t: FAILED (log and reproducer in $B)" >&2; exit 1; }
	grep -E '^stat::(number_of_executed_units|new_units_added)' "$B/fuzz_$t.log" | tr '\n' ' '; echo
done

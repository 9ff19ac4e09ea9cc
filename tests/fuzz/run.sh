#!/bin/sh
# run.sh SECONDS [TARGET...] - runs each libFuzzer target (built by the
# Makefile into build/fuzz/ with clang, -fsanitize=fuzzer,address,undefined,
# from the source lists there: `make build/fuzz/fuzz_index`) for SECONDS
# over a scratch copy of its seed corpus (tests/fuzz/corpus/<name>).
# Exits non-zero on any crash, leak or sanitizer report; the reproducer is
# left in build/fuzz/ (crash-*, leak-*). `make check` runs it for a few
# seconds a target, `make fuzz` for longer (FUZZ_SECONDS).
set -eu
secs=${1:-5}; shift || true
targets=${*:-"decode format index calls requests rex epmd"}
B=build/fuzz
for t in $targets; do
	[ -x "$B/fuzz_$t" ] || { echo "run.sh: no $B/fuzz_$t (make $B/fuzz_$t)" >&2; exit 64; }
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

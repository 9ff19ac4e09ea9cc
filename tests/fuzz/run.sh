#!/bin/sh
# run.sh SECONDS [TARGET...] - runs each libFuzzer target (built by the
# Makefile into build/fuzz/ with clang, -fsanitize=fuzzer,address,undefined,
# from the source lists there: `make build/fuzz/fuzz_index`) for SECONDS
# over a scratch copy of its seed corpus (tests/fuzz/corpus/<name>).
# Exits non-zero on any crash, leak or sanitizer report; the reproducer is
# left in build/fuzz/ (crash-*, leak-*). `make check` runs it for a few
# seconds a target, `make fuzz` for longer (FUZZ_SECONDS).
# A target is one process on one core for SECONDS of wall time, so one
# target runs per core (FUZZ_JOBS, default the cores there are): each still
# gets its SECONDS on a core of its own, and `make check` waits 4 rounds of
# 8 s on 2 cores instead of 7.
set -eu
secs=${1:-5}; shift || true
targets=${*:-"decode format index calls requests rex epmd"}
B=build/fuzz
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
for t in $targets; do
	[ -x "$B/fuzz_$t" ] || { echo "run.sh: no $B/fuzz_$t (make $B/fuzz_$t)" >&2; exit 64; }
done

# start T: the target on a scratch copy of its seeds, in the background ($!)
start() {
	work="$B/corpus_$1"
	rm -rf "$work"; mkdir -p "$work"
	[ -d "tests/fuzz/corpus/$1" ] && cp "tests/fuzz/corpus/$1"/* "$work"/
	echo "fuzz_$1: $secs s over $(ls "$work" | wc -l) seeds" > "$B/fuzz_$1.head"
	(cd "$B" && ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		exec "./fuzz_$1" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=1024 \
		-print_final_stats=1 "corpus_$1" 2>"fuzz_$1.log") &
}
# finish T PID: waits for it, says how it went; fails on a finding
finish() {
	r=0; wait "$2" || r=$?
	cat "$B/fuzz_$1.head"
	[ "$r" -eq 0 ] || { tail -60 "$B/fuzz_$1.log" >&2; echo "fuzz_$1: FAILED (log and reproducer in $B)" >&2; return 1; }
	grep -E '^stat::(number_of_executed_units|new_units_added)' "$B/fuzz_$1.log" | tr '\n' ' '; echo
}

failed=0
set -- $targets
while [ $# -gt 0 ]; do
	round="" n=0
	while [ $# -gt 0 ] && [ "$n" -lt "$jobs" ]; do start "$1"; round="$round $1:$!"; n=$((n + 1)); shift; done
	for tp in $round; do finish "${tp%%:*}" "${tp#*:}" || failed=1; done
	[ "$failed" -eq 0 ] || exit 1
done

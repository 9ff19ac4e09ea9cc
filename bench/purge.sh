#!/bin/bash
# bench/purge.sh - how long purging one of flameprof's modules takes on a
# saturated node (issue 34): a node of N (default 1,000) CPU-bound
# processes on 2 schedulers, with LOOPS (default 2) busy loops beside it on
# this machine; ROUNDS (default 5) purges with OTP's code purger as it
# comes and as many with flameprof's (tracer/fp_purge.hrl). Prints the
# milliseconds of each; doc/benchmarks.md quotes them.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${N:-1000} LOOPS=${LOOPS:-2} ROUNDS=${ROUNDS:-5}
W=$(mktemp -d "${TMPDIR:-/tmp}/fp-purge.XXXXXX")
loops=""
cleanup() { [ -n "$loops" ] && kill $loops 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT
erlc -I "$ROOT/tracer" -o "$W" "$ROOT/bench/fp_purge_bench.erl" || exit 1
for _ in $(seq "$LOOPS"); do sh -c 'while :; do :; done' & loops="$loops $!"; done
echo "purge: $N CPU-bound processes on 2 schedulers, $LOOPS busy loop(s) beside, $ROUNDS rounds"
timeout 900 erl +S 2 -noshell -pa "$W" -eval "
    fp_purge_bench:start($N), timer:sleep(2000),
    [io:format(\"~-9s ms per purge: ~w~n\", [H, T]) || {H, T} <- fp_purge_bench:run($ROUNDS)],
    halt()."

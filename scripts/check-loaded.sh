#!/bin/sh
# check-loaded.sh - `make check` on a busy machine: one busy loop per core
# runs beside it for the whole run, as other programs on a CI machine would.
# The loops are this script's children and end with it, however it ends.
#   scripts/check-loaded.sh [MAKE-ARGS...]     (make check-loaded runs it)
set -u
cores=$(nproc 2>/dev/null || echo 2)
loops=""
stop_loops() { [ -n "$loops" ] && kill $loops 2>/dev/null; loops=""; }
trap stop_loops EXIT
trap 'exit 130' INT TERM HUP
i=0
while [ "$i" -lt "$cores" ]; do
	sh -c 'while :; do :; done' &
	loops="$loops $!"
	i=$((i + 1))
done
echo "check-loaded: $cores busy loop(s) beside make check (pids$loops)"
start=$(date +%s)
# tests/e2e/start_saturated.t runs only here: starting on a saturated node
# one test file at a time (CHECK_JOBS=1), as doc/testing.md says:
# the busy loops are the load, not a second test
FP_CHECK_LOADED=1 ${MAKE:-make} check CHECK_JOBS="${CHECK_JOBS:-1}" "$@"
rc=$?
echo "check-loaded: make check exited $rc in $(( $(date +%s) - start )) s with $cores busy loop(s)"
exit $rc

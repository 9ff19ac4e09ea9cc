#!/bin/bash
# Where a module's receives are read at, from its object code
# (sampler/fp_receives.hrl, which the agent uses to tell a read served at a
# receive: doc/truth.md). Checked against the compiler's own reading, in a
# node of the test's, on every module of this machine's OTP (the opcode
# table must cover the release: OTP 25, 27 and 29 in CI) and on the
# workloads compiled here (their lines spelled out in the assembly
# listing). No profiled node: nothing to leave behind.
T_TIMEOUT=120
. "$(dirname "$0")/../lib.sh"
compile_workloads || exit 1
libs=$(erl -noshell -eval 'io:format("~s", [code:lib_dir()]), halt().')
erl -noshell -pa "$T_DIR/ebin" -eval "fp_rx_check:main(filelib:wildcard(\"$libs/*/ebin\") ++ filelib:wildcard(\"$ROOT/tests/workloads/*.erl\")), halt()." \
	>"$T_DIR/rx.out" 2>&1
sed 's/^/# /' "$T_DIR/rx.out" | tail -5
code=$(sed -n 's/^code: checked \([0-9]*\) modules, \([0-9]*\) receive lines, \([0-9]*\) differ$/\1 \2 \3/p' "$T_DIR/rx.out")
lines=$(sed -n 's/^lines: checked \([0-9]*\) modules, \([0-9]*\) receive lines, \([0-9]*\) differ$/\1 \2 \3/p' "$T_DIR/rx.out")
set -- $code
check "OTP's modules: their receives found where beam_disasm has them (${3:-?} of ${1:-?} modules differ)" \
	test "${1:-0}" -ge 100 -a "${2:-0}" -ge 100 -a "${3:-1}" -eq 0
set -- $lines
check "the workloads: the lines of their receives as the compiler lists them (${3:-?} of ${1:-?} differ)" \
	test "${1:-0}" -ge 10 -a "${2:-0}" -ge 10 -a "${3:-1}" -eq 0
finish

#!/bin/bash
# What the user sees: on a terminal a status line redrawn in place (the
# hidden --test-fake-tty stands in for the terminal, as zstd's
# --fake-stderr-is-console does), cleared before the summary; without one
# no redraws at all; with -q nothing on success.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node status "fp_busy:start(4)" || exit 1

fp --test-fake-tty --duration 3s --top 10 -o "$T_DIR/tty" "$NODE"
is "$FP_RC" 0 "a run with a (fake) terminal exits 0"
redraws=$(tr '\r' '\n' < "$T_DIR/fp.err" | grep -c "^$NODE: [0-9]:[0-9][0-9], [0-9]:[0-9][0-9] left, [0-9]* process\(es\)\?, [0-9]*/[0-9]* samples/s\( (budget [0-9]*%)\)\?, cost [0-9]*\.[0-9][0-9]%, dropped [0-9]*, late [0-9]*, ")
check "the status line is redrawn in place, several times ($redraws)" test "$redraws" -ge 3
# the time sampled and the time left add up to --duration (3 s), give or
# take the second each is cut to
spans=$(tr '\r' '\n' < "$T_DIR/fp.err" | sed -n "s/^$NODE: 0:0\([0-9]\), 0:0\([0-9]\) left, .*/\1 \2/p" | awk '{ s = $1 + $2; if (s < 2 || s > 3) bad++ } END { print NR - bad, NR }')
check "it shows the time sampled and the time left of --duration 3s ($spans of the lines add up)" \
	test "${spans% *}" = "${spans#* }" -a "${spans#* }" -ge 3
cost=$(tr '\r' '\n' < "$T_DIR/fp.err" | sed -n "s/^$NODE: .*, cost \([0-9.]*\)%, .*/\1/p" | sort -n | tail -1)
check "it shows what sampling costs the node, by the agent's own figure, once it has one (${cost:-none}%)" \
	awk -v c="${cost:-0}" 'BEGIN { exit !(c > 0 && c < 100) }'
# "late N" on the line is explained once, on a line of its own, the first
# time a redraw shows it above 0 (and never when none does)
late_lines=$(tr '\r' '\n' < "$T_DIR/fp.err" | grep -c "^$NODE: .*, late [1-9][0-9]*, ")
said=$(tr '\r' '\n' < "$T_DIR/fp.err" | grep -c "^flameprof: 'late [1-9][0-9]*' in the status line counts samples answered after their round had ended, .*; none is lost")
if [ "$late_lines" -gt 0 ]; then
	is "$said" 1 "the line's late N is explained once, the first time it is above 0 ($late_lines lines show late > 0)"
else
	is "$said" 0 "no line showed late above 0, and none explains it"
fi
check "the summary says what late means" sh -c "tr '\\r' '\\n' < '$T_DIR/fp.err' | grep -q '^flameprof: [0-9]* samples in .*, late [0-9]* (answered after their round), rounds'"
sel=$(tr '\r' '\n' < "$T_DIR/fp.err" | sed -n "s/^$NODE: [^,]*,\( [0-9:]* left,\)\? \([0-9]*\) process.*/\2/p" | sort -n | tail -1)
check "it says how many processes are selected: the 5 busy ones at least (${sel:-none})" test "${sel:-0}" -ge 5 -a "${sel:-0}" -le 10
check "it names the file being written (its end, the time it started, when the line is too narrow)" grep -q ", \(\.\.\.\)\?[^ ]*Z\.perf\.zst" "$T_DIR/fp.err"
last=$(tr '\r' '\n' < "$T_DIR/fp.err" | grep -v '^ *$' | grep -c "samples in .* requested")
is "$last" 1 "the summary comes once, on a line of its own"

fp --duration 2s --top 10 -o "$T_DIR/plain" "$NODE"
is "$FP_RC" 0 "a run without a terminal exits 0"
check "without a terminal nothing is redrawn (no carriage return)" sh -c "! grep -q \$'\\r' '$T_DIR/fp.err'"
check "the summary line is there, with the processes selected" \
	grep -q "^flameprof: [0-9]* samples in .* requested, \([0-9]* to \)\?[0-9]* process\(es\)\? selected), dropped 0" "$T_DIR/fp.err"
check "and says how to open the files" grep -q "flameprof report" "$T_DIR/fp.err"
set -- $(sed -n 's/^flameprof: [0-9]* samples in [0-9.]* s (\([0-9]*\)\/s of \([0-9]*\)\/s requested, \([0-9]* to \)\?\([0-9]*\) process.*/\1 \2 \4/p' "$T_DIR/fp.err")
# each round falls at a random point of its period, so a window may hold one
# round more than its length asks for: one round's samples (the processes
# selected) over the run's 2 s is the most that may come on top
check "never more samples delivered than requested, but for one jittered round ($1 of $2/s, $3 processes)" \
	test "${1:-1}" -le "$(( ${2:-0} + (${3:-0} + 1) / 2 ))"

fp -q --duration 2s --top 10 -o "$T_DIR/quiet" "$NODE"
is "$FP_RC" 0 "-q exits 0"
is "$(wc -c < "$T_DIR/fp.err")" 0 "-q prints nothing when all goes well"
check "and still writes the capture" sh -c "ls '$T_DIR/quiet'/flameprof_*.perf.zst >/dev/null"
check "the node is left as it was" node_clean "$NODE"
finish

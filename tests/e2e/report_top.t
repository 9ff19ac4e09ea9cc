#!/bin/bash
# report -f top on a real capture: every function's self and total (and
# their shares, and the running sum) equal what awk computes from the same
# capture's folded stacks (report -f folded with the same filters), under
# the default on-CPU view, --status all, a --from/--to cut and a weight;
# every leaf function of the folded stacks is listed; --json holds the same
# numbers; --names elixir spells them as Elixir does, same numbers.
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads || exit 1
start_node rtop "fp_busy:start(3), fp_truth:start(spinners)" || exit 1
out="$T_DIR/out"
fp --hz 97 --status all --duration 3s --every 500ms -o "$out" "$NODE"
is "$FP_RC" 0 "a 3 s capture exits 0"

# want FOLDED: "name self total self% total%" per frame, and "= whole"
want() {
	awk '{ n = $NF; whole += n; k = split($1, f, ";"); self[f[k]] += n; delete seen
	       for (i = 1; i <= k; i++) if (!(f[i] in seen)) { seen[f[i]] = 1; total[f[i]] += n } }
	     END { print "= " whole
		   for (x in total) printf "%s %d %d %.2f%% %.2f%%\n", x, self[x], total[x],
			100 * self[x] / whole, 100 * total[x] / whole }' "$1" | LC_ALL=C sort
}
# got TOP: the same from the table (the running sum checked on the way)
got() {
	awk 'NR == 1 { w = $1; gsub(",", "", w); print "= " w; next } NR == 2 { next } /^$/ { exit }
	     { sum += $1; if (sprintf("%.2f%%", 100 * sum / w) != $3) print "bad sum% at " $NF
	       print $6, $1, $4, $2, $5 }' "$1" | LC_ALL=C sort
}
# top_ok NAME ARGS...: the table against the folded stacks, same ARGS
top_ok() {
	local name=$1
	shift
	"$FLAMEPROF" report "$out" -q "$@" -f folded -o "$T_DIR/$name.folded" &&
	"$FLAMEPROF" report "$out" -q "$@" -f top -o "$T_DIR/$name.top" || return 1
	want "$T_DIR/$name.folded" > "$T_DIR/$name.want"
	got "$T_DIR/$name.top" > "$T_DIR/$name.got"
	# every row of the table is the folded stacks' figure for that frame
	LC_ALL=C join -j1 <(grep -v '^=' "$T_DIR/$name.got" | LC_ALL=C sort) <(grep -v '^=' "$T_DIR/$name.want" | LC_ALL=C sort) \
		-o 1.1,1.2,1.3,1.4,1.5,2.2,2.3,2.4,2.5 | awk '$2 != $6 || $3 != $7 || $4 != $8 || $5 != $9 { print; bad = 1 } END { exit bad }' ||
		{ diag "$name: rows differ"; return 1; }
	[ "$(grep -c . "$T_DIR/$name.got")" -gt 3 ] || { diag "$name: too few rows"; return 1; }
	[ "$(grep '^=' "$T_DIR/$name.got")" = "$(grep '^=' "$T_DIR/$name.want")" ] || { diag "$name: whole differs"; return 1; }
	! grep -q 'bad sum' "$T_DIR/$name.got" || { diag "$name: sum% wrong"; return 1; }
	# every leaf that is a function (MOD:FUN/N or [pseudo]) is a row
	awk '{ k = split($1, f, ";"); print f[k] }' "$T_DIR/$name.folded" |
		grep -E '^([a-z][A-Za-z0-9_]*:[^:;]+/[0-9]+|\[.*\])$' | LC_ALL=C sort -u > "$T_DIR/$name.leaves"
	awk '{ print $1 }' "$T_DIR/$name.got" | LC_ALL=C sort -u > "$T_DIR/$name.rows"
	[ -s "$T_DIR/$name.leaves" ] && [ -z "$(LC_ALL=C comm -23 "$T_DIR/$name.leaves" "$T_DIR/$name.rows")" ] ||
		{ diag "$name: leaves not listed: $(LC_ALL=C comm -23 "$T_DIR/$name.leaves" "$T_DIR/$name.rows" | head -3)"; return 1; }
}
check "on-CPU (the default): self and total per function equal the folded stacks'" top_ok cpu
check "--status all (wall clock): the same" top_ok all --status all
check "--from 1 --to 2.5: the same" top_ok cut --status all --from 1 --to 2.5
check "-w reductions_delta: the same" top_ok red -w reductions_delta
check "the table names the workload's functions" grep -q ' fp_truth_work:fib/1$' "$T_DIR/cpu.top"
check "categories and statuses are not rows" sh -c "! grep -qE ' (running|waiting|initial_call:.*)$' '$T_DIR/all.top'"
if grep -q ' \[ran_to_receive\]$' "$T_DIR/all.top"; then
	check "a [ran_to_receive] row is explained under the table, after a blank line" \
		sh -c "sed -n '/^\$/,\$p' '$T_DIR/all.top' | grep -q '^\[ran_to_receive\]: a process on a CPU'"
else
	skip "no [ran_to_receive] row in this capture"
fi
sed -n 1,8p "$T_DIR/cpu.top" | sed 's/^/#   /'

"$FLAMEPROF" report "$out" -q -f top --json -o "$T_DIR/cpu.json"
is "$?" 0 "--json exits 0"
check "--json: the same numbers as the table" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = {}
for l in open(sys.argv[2]).read().splitlines()[2:]:
    if not l.strip():
        break  # the lines under the table explain the frames flameprof adds
    c = l.split()
    rows[c[5]] = (int(c[0]), int(c[3]))
js = {f["name"]: (f["self"], f["total"]) for f in d["functions"]}
ok = js == rows and d["unit"] == "samples" and all(abs(f["self_share"] - f["self"] / d["total"]) < 1e-6 for f in d["functions"])
sys.exit(0 if ok and rows else 1)' "$T_DIR/cpu.json" "$T_DIR/cpu.top"

"$FLAMEPROF" report "$out" -q -f top --names elixir -o "$T_DIR/ex.top"
is "$?" 0 "--names elixir exits 0"
e=$(awk '$6 == ":fp_truth_work.fib/1" { print $1, $4 }' "$T_DIR/ex.top")
a=$(awk '$6 == "fp_truth_work:fib/1" { print $1, $4 }' "$T_DIR/cpu.top")
check "--names elixir: :fp_truth_work.fib/1 with the figures of fp_truth_work:fib/1 ($a)" test -n "$a" -a "$e" = "$a"
"$FLAMEPROF" report "$out" -q -f svg --json -o "$T_DIR/x.svg" 2> "$T_DIR/j.err"
is "$?" 64 "--json with another format: exit 64"
check "node is left as it was" node_clean "$NODE"

# A whole of 4,000 samples puts shares on rounding ties (100 * 1 / 4000 is
# 0.025): each figure is rounded once from the counts, as awk does here. The
# table printed self% and sum% from rounded shares (0.02 % against 0.03 %),
# a mismatch any capture's whole could hit: the likely cause of the
# --from/--to check above failing once in CI (trixie; its files not kept).
gen --events 4000 --procs 7 --seed 3 > "$T_DIR/whole4000.txt"
out="$T_DIR/whole4000.txt"
check "a whole of 4,000 samples (shares on rounding ties): the same" top_ok whole4000 --status all
finish

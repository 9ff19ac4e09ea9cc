#!/bin/bash
# report --format pprof, read by the real pprof (`go tool pprof`, Debian's
# golang-go): the same total and the same self count per function as
# --format folded for the same input, unweighted and per metric delta; the
# labels (node, pid, status, registered name, initial call, categories);
# time, duration and period; hostile atoms; and not a word on stderr.
# Go 1.27 (Debian forky) builds pprof on its first use, about 50 s on a busy
# 2-core machine: a longer deadline than the report tests' 60 s, and the
# build cached under build/ for the next run.
: "${T_TIMEOUT:=300}"
. "$(dirname "$0")/../lib.sh"

mkdir -p "$ROOT/build/gocache"
if ! command -v go >/dev/null 2>&1 || ! HOME="$T_DIR" GOCACHE="$ROOT/build/gocache" go tool pprof -h >/dev/null 2>&1; then
	skip "report --format pprof read by go tool pprof" "go not found (apt-get install golang-go; make check installs it)"
	finish
	exit
fi
# pprof writes nothing of ours outside the scratch directory and build/
export HOME="$T_DIR" GOCACHE="$ROOT/build/gocache" GOPATH="$T_DIR/go"
pp() { # pp ARGS...: go tool pprof, its stderr kept apart
	go tool pprof "$@" 2> "$T_DIR/pp.err"
}
quiet() { ! [ -s "$T_DIR/pp.err" ] || { sed 's/^/#   pprof: /' "$T_DIR/pp.err"; false; }; }

in="$T_DIR/flameprof_app@db1_20231114T221320.000Z.perf"
gen --events 3000 --seed 7 --start 1700000000.25 --span 10 > "$in"
"$FLAMEPROF" report --status all "$in" -f pprof -o "$T_DIR/p.pb.gz" 2> "$T_DIR/err"
is "$?" 0 "pprof export exits 0"
check "it says where it wrote and how to open it" grep -q "wrote pprof profile .*go tool pprof" "$T_DIR/err"
check "the file is gzip" gzip -t "$T_DIR/p.pb.gz"
"$FLAMEPROF" report --status all "$in" -f folded -o "$T_DIR/f" -q

# self count per leaf function, from the folded stacks (the leaf is the
# last frame; a line under 'negative' counts against it)
flat_folded() {
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, fr, ";");
	       if (fr[1] == "negative") n = -n; s[fr[k]] += n }
	     END { for (f in s) if (s[f] != 0) print f, s[f] }' "$1" | sort
}
# the same from pprof -top: flat is the first column, the name the last
flat_pprof() {
	pp -top -nodefraction=0 -nodecount=1000000 -unit=B "$@" "$T_DIR/p.pb.gz" |
		awk 'f && NF >= 6 { sub(/B$/, "", $1); if ($1 != 0) print $NF, $1 } /^ *flat  flat%/ { f = 1 }' |
		sort
}
total_pprof() {
	pp -raw "$@" "$T_DIR/p.pb.gz" >/dev/null && quiet || return 1
	pp -top -nodecount=1 -unit=B "$@" "$T_DIR/p.pb.gz" | sed -n 's/.* of \(-\{0,1\}[0-9]*\)B\{0,1\} total.*/\1/p'
}

flat_pprof > "$T_DIR/pp.flat"
check "pprof read it without a word on stderr" quiet
flat_folded "$T_DIR/f" > "$T_DIR/f.flat"
check "self samples per function: pprof -top equals folded ($(wc -l < "$T_DIR/f.flat") functions)" cmp -s "$T_DIR/pp.flat" "$T_DIR/f.flat"
is "$(total_pprof)" 3000 "pprof's total is the 3000 events"
pp -top "$T_DIR/p.pb.gz" | awk '/flat%/ { getline; print $NF; exit }' > "$T_DIR/top1"
is "$(cat "$T_DIR/top1")" "$(sort -k2,2nr "$T_DIR/f.flat" | awk 'NR == 1 { print $1 }')" \
	"the top function is folded's heaviest leaf"

for w in reductions_delta memory_delta; do
	"$FLAMEPROF" report --status all "$in" -f folded -w "$w" -o "$T_DIR/f.$w" -q
	flat_folded "$T_DIR/f.$w" > "$T_DIR/f.flat.$w"
	flat_pprof -sample_index="$w" > "$T_DIR/pp.flat.$w"
	check "$w per function: pprof -sample_index=$w equals folded -w $w" cmp -s "$T_DIR/pp.flat.$w" "$T_DIR/f.flat.$w"
done
# the net sum of a column over pprof -raw's samples equals folded's
# (positive stacks minus those under 'negative')
raw_sum() { # raw_sum TYPE
	go tool pprof -raw "$T_DIR/p.pb.gz" 2>/dev/null | awk -v want="$1/" '
		/^Samples:/ { getline; for (i = 1; i <= NF; i++) if (index($i, want) == 1) col = i; next }
		col && /^ +-?[0-9]+ .*:/ { s += $col } END { print s + 0 }'
}
for w in reductions_delta memory_delta; do
	is "$(raw_sum "$w")" "$(awk '{ n = $NF; if ($0 ~ /^negative;/) n = -n; s += n } END { print s }' "$T_DIR/f.$w")" \
		"$w: the net sum over pprof's samples equals folded's"
done
"$FLAMEPROF" report --status all "$in" -f pprof -o "$T_DIR/p.pb.gz" -q
"$FLAMEPROF" report --status all "$in" -f pprof -w memory_delta -o "$T_DIR/w.pb.gz" -q
check "--weight memory_delta makes it pprof's default sample type" \
	sh -c "go tool pprof -raw '$T_DIR/w.pb.gz' 2>/dev/null | grep -q 'memory_delta/bytes\[dflt\]'"

pp -tags "$T_DIR/p.pb.gz" > "$T_DIR/tags"
check "pprof read the labels quietly" quiet
for l in "node: Total 3000" "app@db1" "pid: Total 3000" "<0.100.0>" "status: Total 3000" "running" \
	"registered_name: Total 3000" "srv_0" "initial_call: Total 3000" "proc_lib:init_p/5" \
	"category:" "memory:64KiB-1MiB" "queue:1-9"; do
	check "label '$l'" grep -qF "$l" "$T_DIR/tags"
done
n0=$(awk '/ cpu-clock:/ && $2 == "100/0" { n++ } END { print n + 0 }' "$in")
# read by meaning: the count is a number, printed 248.0 by older pprof, 248 by Go 1.27's
check "label pid <0.100.0> counts its $n0 events" awk -v n="$n0" \
	'$NF == "<0.100.0>" && $1 ~ /^[0-9.]+$/ && $1 + 0 == n { f = 1 } END { exit !f }' "$T_DIR/tags"

pp -raw "$T_DIR/p.pb.gz" > "$T_DIR/raw"
check "period: 97 Hz as nanoseconds, cpu" sh -c "grep -q '^PeriodType: cpu nanoseconds' '$T_DIR/raw' && grep -q '^Period: 10309278$' '$T_DIR/raw'"
first=$(awk '/ cpu-clock:/ { sub(/:$/, "", $4); print $4; exit }' "$in")
check "time: the first event ($first)" grep -q "^Time: 2023-11-14 22:13:20.$(echo "$first" | cut -d. -f2)" "$T_DIR/raw"
check "duration: first to last event (about 10 s)" grep -qE '^Duration: (9\.9|10\.)' "$T_DIR/raw"
check "file and line of a location" sh -c "go tool pprof -traces -lines '$T_DIR/p.pb.gz' 2>/dev/null | grep -qE '[a-z_]+:[a-z_]+/[0-9] [^ ]+\.erl:[0-9]+'"

# hostile atoms: the names pprof shows are the unescaped ones
gen --events 1500 --hostile --seed 5 > "$T_DIR/h.perf"
"$FLAMEPROF" report --status all "$T_DIR/h.perf" -f pprof -o "$T_DIR/p.pb.gz" -q
is "$(total_pprof)" 1500 "hostile atoms: pprof reads all 1500 events, quietly"
pp -raw "$T_DIR/p.pb.gz" > "$T_DIR/hraw"
check "hostile atoms: unescaped names reach pprof" grep -q "caf" "$T_DIR/hraw"

# an empty selection is still a valid profile
"$FLAMEPROF" report --status all "$in" -f pprof --status no_such -o "$T_DIR/p.pb.gz" -q 2>/dev/null
check "no event kept: still a profile pprof reads" sh -c "go tool pprof -raw '$T_DIR/p.pb.gz' >/dev/null 2>&1"
finish

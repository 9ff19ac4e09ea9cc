#!/bin/bash
# The defaults answer "where does the CPU go" (issue 19, point 1): the
# capture writes on-CPU samples only (running, garbage_collecting), so that
# any reader's flame graph and heatmap (stock Flamescope colours by event
# count) show load, not the number of processes selected; the summary says
# what was left out and how to keep it (--status all: the wall-clock view).
# The report keeps on-CPU samples by default and says in both pictures what
# it hid; --weight reductions_delta puts no weight on idle receive stacks.
T_SCHEDULERS=2 # processes running on several schedulers at once are part of what it checks (lib.sh)
. "$(dirname "$0")/../lib.sh"
start_epmd && compile_workloads && start_node oncpu "fp_busy:start(3)" || exit 1
events() { decompressed "$1"/*.perf.zst | grep -c ' cpu-clock:'; }
status_events() { decompressed "$1"/*.perf.zst | grep -c "^$2 "; }

# the busy processes and an idle one, named
fp --duration 3s --top 10 --every 1s --name fp_idle_server -o "$T_DIR/cpu" "$NODE"
is "$FP_RC" 0 "default capture: exits 0"
check "on-CPU samples are written ($(status_events "$T_DIR/cpu" running) running)" test "$(status_events "$T_DIR/cpu" running)" -gt 50
is "$(decompressed "$T_DIR"/cpu/*.perf.zst | grep ' cpu-clock:' | grep -cv '^\(running\|garbage_collecting\) ')" 0 \
	"no other status is written (the idle server's waiting samples among them)"
check "the header says which statuses the file holds" \
	grep -q '^# settings: .* status=running,garbage_collecting ' <(decompressed "$T_DIR"/cpu/*.perf.zst)
check "the summary counts what was not written and says how to keep it" \
	grep -q "^flameprof: $(events "$T_DIR/cpu") samples written (on-CPU: running, garbage_collecting); not written: .*waiting [0-9]* .*(--status all writes them: the wall-clock view)$" "$T_DIR/fp.err"
check "every perf-script reader rule holds" readers_ok "$T_DIR"/cpu/*.perf.zst
check "the node is left as it was" node_clean "$NODE"

fp --duration 3s --top 10 --every 1s --status all --name fp_idle_server -o "$T_DIR/all" "$NODE"
is "$FP_RC" 0 "--status all: exits 0"
w=$(status_events "$T_DIR/all" waiting)
check "--status all writes the waiting samples too ($w)" test "$w" -gt 50
check "... and says nothing was left out" test -z "$(grep 'not written' "$T_DIR/fp.err")"
check "the node is left as it was" node_clean "$NODE"

# the report on the wall-clock files: on-CPU by default, the rest said
all=$(events "$T_DIR/all")
cpu=$(( $(status_events "$T_DIR/all" running) + $(status_events "$T_DIR/all" garbage_collecting) ))
"$FLAMEPROF" report -q "$T_DIR/all" -o "$T_DIR/flame.svg" --heatmap "$T_DIR/heat.svg"
is "$?" 0 "report: exits 0"
thousands() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"; }
sub=$(grep -o '<text class="sub"[^>]*>[^<]*' "$T_DIR/flame.svg" | head -1 | sed 's/.*>//')
diag "flame graph subtitle: $sub"
check "the flame graph says it is on-CPU and what it hid, with the counts" \
	grep -q "^on-CPU: $(thousands $cpu) of $(thousands $all) samples; .*waiting $(thousands $w).* hidden: --status all for the wall-clock view; " <<<"$sub"
check "... and holds no waiting stack" test -z "$(grep -o '<title>waiting' "$T_DIR/flame.svg")"
check "the heatmap says the same" grep -q "on-CPU: [0-9,]* of [0-9,]* samples; .*waiting [0-9,]*.* hidden: --status all for the wall-clock view" "$T_DIR/heat.svg"
"$FLAMEPROF" report -q --status all -f folded "$T_DIR/all" -o "$T_DIR/all.folded"
is "$(awk '{s += $NF} END {print s}' "$T_DIR/all.folded")" "$all" "--status all: every sample is drawn (the wall-clock view)"
check "... the waiting ones among them" grep -q '^waiting;' "$T_DIR/all.folded"
"$FLAMEPROF" report -q --status all -w reductions_delta -f folded "$T_DIR/all" -o "$T_DIR/red.folded"
is "$(grep -c '^waiting;' "$T_DIR/red.folded")" 0 "-w reductions_delta: no weight on a waiting stack (its delta is work done before it waited)"
check "... the running stacks carry it" grep -q '^running;.*fp_busy:burn_cpu/1 [0-9]*$' "$T_DIR/red.folded"
"$FLAMEPROF" report -q --status all -w reductions_delta "$T_DIR/all" -o "$T_DIR/red.svg"
check "... and the subtitle says how many idle samples weigh 0" grep -q '[0-9,]* idle samples weigh 0 (their delta is work done before they waited)' "$T_DIR/red.svg"

# the report on the default capture: nothing hidden, the way to the rest said
"$FLAMEPROF" report -q "$T_DIR/cpu" -o "$T_DIR/cpu.svg"
check "a default capture's flame graph says the files hold on-CPU samples only" \
	grep -q 'on-CPU: [0-9,]* of [0-9,]* samples (the files hold no others: record with --status all for the wall-clock view)' "$T_DIR/cpu.svg"
# A process that writes a file (a dirty I/O NIF, prim_file:pwrite_nif/3),
# sampled alone (--top 0),
# serves a read that came during the NIF on its way back, in
# erts_internal:dirty_nif_finalizer/1: a frame of our making, 20 % of the
# on-CPU leaves on Yaws (its access log), left out like a BIF's way back.
rpc_eval "$NODE" "register(fp_writer, spawn(fun() -> {ok, F} = file:open(\"$T_DIR/written\", [raw, write, binary]), B = binary:copy(<<\"x\">>, 1048576), W = fun W() -> ok = file:pwrite(F, 0, B), W() end, W() end)), ok" >/dev/null
fp --duration 3s --top 0 --name fp_writer -o "$T_DIR/dirty" "$NODE"
is "$FP_RC" 0 "a process in a dirty NIF: exits 0"
nif=$(decompressed "$T_DIR"/dirty/*.perf.zst | grep -c 'prim_file:pwrite')
check "its on-CPU samples are in prim_file's write ($nif frames)" test "$nif" -gt 10
check "none is drawn in erts_internal:dirty_nif_finalizer/1" \
	test -z "$(decompressed "$T_DIR"/dirty/*.perf.zst | grep dirty_nif_finalizer)"
rpc_eval "$NODE" "exit(whereis(fp_writer), kill)" >/dev/null
finish

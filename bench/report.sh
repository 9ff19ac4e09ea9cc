# bench/report.sh - sourced by bench/run.sh: turns $RES into the table on
# stdout and, unless BENCH_DOC=0, doc/benchmarks.md.

# all KEY: every value of KEY, one a line
all() { awk -v k="$1" '$1 == k && $2 != "n/a" { print $2 }' "$RES"; }
# mmm KEY [SCALE]: "median [min-max]" of KEY's values times SCALE
mmm() {
	all "$1" | awk -v s="${2:-1}" '{ print $1 * s }' | stats |
		awk -v d="${3:-0}" '$1 == "n/a" { print "n/a"; next }
			{ f = "%." d "f"; printf f " [" f "-" f "]\n", $1, $2, $3 }'
}
med() { all "$1" | stats | awk '{ print $1 }'; }
# overhead % from a ratio median: 100 * (1 - r)
ovh() { awk -v r="$1" 'BEGIN { if (r == "n/a" || r == "") print "n/a"; else printf "%.1f\n", 100 * (1 - r) }'; }
# verdict GOAL_PCT KEY: met / not met / inconclusive (the spread straddles the goal)
verdict_ovh() {
	all "$2" | stats | awk -v g="$1" '$1 == "n/a" { print "n/a"; next } {
		lo = 100 * (1 - $3); hi = 100 * (1 - $2); m = 100 * (1 - $1)
		if (hi <= g) print "met"; else if (lo > g) print "not met";
		else if (m <= g) print "met (median; spread " sprintf("%.1f", lo) ".." sprintf("%.1f", hi) " %)";
		else print "not met (median; spread " sprintf("%.1f", lo) ".." sprintf("%.1f", hi) " %)" }'
}
field() { echo "$1" | cut -d, -f"$2"; }

table() {
	local hz
	echo "### 1. Overhead on the service workload (top 100; $SVC_REPS interleaved repetitions of ${SVC_SECS} s)"
	echo
	echo "Unprofiled: $(mmm svc_thr_0 1 0) requests/s; $(mmm svc_eff_0 1 0) requests per node CPU-second."
	echo
	echo "| profiler | throughput vs none | overhead (median) | requests per node CPU-s vs none | samples/s achieved/requested (flameprof summary) | flameprof CPU % |"
	echo "|---|---|---|---|---|---|"
	for hz in $SVC_HZ; do
		echo "| flameprof --hz $hz | $(mmm svc_ratio_$hz 1 3) | $(ovh "$(med svc_ratio_$hz)") % | $(mmm svc_eratio_$hz 1 3) | $(all svc_fp_$hz | paste -sd' ' -) | $(mmm svc_fpcpu_$hz 1 1) |"
	done
	local ob; ob=$(get svc_otp_base); local oe; oe=$(get svc_otp_ebase)
	echo "| eprof (all processes, once, ${OTP_SECS} s) | $(ratio "$(get svc_eprof)" "$ob") | $(ovh "$(ratio "$(get svc_eprof)" "$ob")") % | $(ratio "$(get svc_eprof_eff)" "$oe") | - | - |"
	echo "| fprof (all processes, once, ${OTP_SECS} s; $(get svc_fprof_mb) MB/s of trace) | $(ratio "$(get svc_fprof)" "$ob") | $(ovh "$(ratio "$(get svc_fprof)" "$ob")") % | $(ratio "$(get svc_fprof_eff)" "$oe") | - | - |"
	echo
	echo "### 2. Fidelity on the saturated workload (top 100; $SAT_REPS repetitions of ${SAT_SECS} s)"
	echo
	echo "| --hz | requested/s | achieved/s | of requested | flameprof's requested/s | round p50 ms | round p99 ms | dropped | late | flameprof CPU % | bytes/sample on disk (zstd 3) | stop takes, s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	for hz in $SAT_HZ; do
		local req=$((hz * 100))
		echo "| $hz | $req | $(mmm sat_rate_$hz) | $(med sat_rate_$hz | awk -v q=$req '$1 != "n/a" { printf "%.1f %%", 100 * $1 / q }') | $(mmm sat_asked_$hz) | $(mmm sat_p50_$hz 1 2) | $(mmm sat_p99_$hz 1 2) | $(all sat_dropped_$hz | paste -sd' ' -) | $(all sat_late_$hz | paste -sd' ' -) | $(mmm sat_fpcpu_$hz 1 1) | $(mmm sat_bps_$hz 1 1) | $(mmm sat_stop_$hz 1 1) |"
	done
	echo
	echo "### 3. Selection on the crowd workload ($(get crowd_procs) processes, --every 1s, $(get crowd_windows) windows)"
	echo
	local w c; w=$(get crowd_wall); c=$(get crowd_cpu)
	echo "| per selection window | median | min | max |"
	echo "|---|---|---|---|"
	echo "| wall time of the selection, ms | $(awk -v v="$(field "$w" 1)" 'BEGIN { printf "%.1f", v / 1000 }') | $(awk -v v="$(field "$w" 2)" 'BEGIN { printf "%.1f", v / 1000 }') | $(awk -v v="$(field "$w" 3)" 'BEGIN { printf "%.1f", v / 1000 }') |"
	echo "| CPU time of the selection (on a scheduler), ms | $(awk -v v="$(field "$c" 1)" 'BEGIN { printf "%.1f", v / 1000 }') | $(awk -v v="$(field "$c" 2)" 'BEGIN { printf "%.1f", v / 1000 }') | $(awk -v v="$(field "$c" 3)" 'BEGIN { printf "%.1f", v / 1000 }') |"
	echo
	echo "Traced: $(get crowd_mode) (scanner: the agent's scanner process, at normal priority; select: the agent's select/2). The agent and its scanner together (selection every second, rounds at 10 Hz) were on a scheduler $(get crowd_agent_cpu) % of the time (of one scheduler)."
	echo
	echo "### 4. The C pipeline alone (one core, $PIPE_BATCHES batches x 100 samples, $(get pipe_wire) bytes/sample on the wire)"
	echo
	echo "| stage | samples/s | bytes/sample on disk |"
	echo "|---|---|---|"
	echo "| decode only | $(get pipe_decode) | - |"
	echo "| decode + format | $(get pipe_format) | - |"
	local k
	for k in none gzip6 zstd1 zstd3 zstdix3 zstd19; do
		local v; v=$(get pipe_$k)
		echo "| + compress + write: $([ $k = zstdix3 ] && echo "zstd3 + report index (the default)" || echo $k) | $(field "$v" 1) | $(field "$v" 2) |"
	done
	echo
	local rw ri rt; rw=$(get report_written); ri=$(get report_index); rt=$(get report_text)
	echo "### 4b. flameprof report on $(get report_events) events (tests/report/bench.sh: $(field "$rw" 1) files written through rotate/ with the report index, as a capture writes them)"
	echo
	echo "| reading | seconds | events/s | flame graph + heatmap bytes |"
	echo "|---|---|---|---|"
	echo "| through the report index | $(field "$ri" 1) | $(field "$ri" 2) | $(field "$ri" 3) + $(field "$ri" 4) |"
	echo "| through the text (--no-index) | $(field "$rt" 1) | $(field "$rt" 2) | same bytes |"
	echo
	echo "Files: $(field "$rw" 2) bytes/event, of which the index $(field "$rw" 3)."
	echo
	echo "### 4c. flameprof calls: one hot function traced (bench/calls.sh, fp_calls_wl:target/1)"
	echo
	echo "| target/1 | ns per call (one process, hit/1 loop) | added per traced call | calls/s, 2 processes in a loop | throughput kept |"
	echo "|---|---|---|---|---|"
	local t u; u=$(get calls_ns_untraced)
	for t in untraced count time; do
		echo "| $([ $t = untraced ] && echo untraced || echo "--type $t") | $(get calls_ns_$t) | $(awk -v a="$(get calls_ns_$t)" -v b="$u" 'BEGIN { if (a == "n/a" || b == "n/a") print "n/a"; else printf "%.1f ns", a - b }') | $(get calls_rate_$t) | $(awk -v a="$(get calls_rate_$t)" -v b="$(get calls_rate_untraced)" 'BEGIN { if (a == "n/a" || b == "n/a" || b == 0) print "n/a"; else printf "%.1f %%", 100 * a / b }') |"
	done
	echo
	echo "### 5. flameprof itself recording the saturated workload for ${SOAK_SECS} s (--top 100 --hz 97)"
	echo
	local ss; ss=$(get soak_summary)
	echo "| CPU % of one core | peak RSS (VmHWM) | RSS over time (s:KiB) | samples | dropped | late | bytes/sample on disk |"
	echo "|---|---|---|---|---|---|---|"
	echo "| $(get soak_cpu) | $(awk -v v="$(get soak_hwm_kb)" 'BEGIN { printf "%.1f MiB", v / 1024 }') | $(get soak_rss | tr , ' ') | $(field "$ss" 1) ($(field "$ss" 3)/s of $(field "$ss" 4)/s requested) | $(field "$ss" 5) | $(field "$ss" 6) | $(get soak_bps) |"
	echo
	echo "### Goals"
	echo
	echo "| goal | figure | verdict |"
	echo "|---|---|---|"
	echo "| overhead <= 1 % at --hz 10 | $(ovh "$(med svc_ratio_10)") % | $(verdict_ovh 1 svc_ratio_10) |"
	echo "| overhead <= 3 % at --hz 97 | $(ovh "$(med svc_ratio_97)") % | $(verdict_ovh 3 svc_ratio_97) |"
	local r97; r97=$(med sat_rate_97)
	echo "| >= 95 % of 9,700 samples/s on saturated | $(awk -v v="$r97" 'BEGIN { if (v == "n/a") print "n/a"; else printf "%.1f %%", v / 97 }') | $(awk -v v="$r97" 'BEGIN { if (v == "n/a") print "n/a"; else print (v >= 9215 ? "met" : "not met") }') |"
	local z3; z3=$(get pipe_zstd3)
	echo "| C pipeline >= 500,000 samples/s on one core (zstd 3) | $(field "$z3" 1) | $(awk -v v="$(field "$z3" 1)" 'BEGIN { if (v == "n/a" || v == "") print "n/a"; else print (v >= 500000 ? "met" : "not met") }') |"
	echo "| report on a 1-hour top-100 capture at 97 Hz in seconds | $(field "$ri" 1) s for $(get report_events) events | $(awk -v v="$(field "$ri" 1)" -v n="$(get report_events)" 'BEGIN { if (v == "n/a" || v == "") print "n/a"; else if (n < 34920000) print "n/a (smaller run)"; else print (v < 10 ? "met" : "not met") }') |"
	echo "| <= 40 bytes/sample with zstd (default level 3; real output on saturated) | pipeline $(field "$z3" 2), saturated $(med sat_bps_97) | $(awk -v a="$(field "$z3" 2)" -v b="$(med sat_bps_97)" 'BEGIN { if (b == "n/a") b = a; if (b == "n/a" || b == "") print "n/a"; else print (b <= 40 ? "met" : "not met") }') |"
}

TABLE=$(table)
echo
echo "$TABLE"

if [ "$DOC" = 1 ]; then
	mem=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
	otp=$(erl -noshell -eval 'io:format("~s (erts ~s)", [erlang:system_info(otp_release), erlang:system_info(version)]), halt().')
	rev="$("$FP" --version 2>/dev/null | head -1) built in a tree at $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)"
	mode=$([ "$QUICK" = 1 ] && echo "BENCH_QUICK=1 (smoke run)" || echo "full")
	{
		cat "$ROOT/bench/benchmarks.head.md"
		echo
		echo "## Latest figures"
		echo
		echo "$(date -u +%Y-%m-%d), $mode run, $(get minutes) minutes; $rev; $(nproc) CPUs ($cpu), $mem; OTP $otp."
		echo "The machine was $(get busy_before) % busy with other work just before the run and $(get busy_after) % just after (all CPUs, /proc/stat)."
		echo "Figures are median [min-max] over the repetitions."
		echo
		echo "$TABLE"
		if [ -f "$ROOT/bench/benchmarks.tail.md" ]; then
			echo
			cat "$ROOT/bench/benchmarks.tail.md"
		fi
	} > "$ROOT/doc/benchmarks.md"
	say "wrote doc/benchmarks.md"
fi

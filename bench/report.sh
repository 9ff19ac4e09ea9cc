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
# ci KEY: "n mean lo hi sd" of KEY's values: the mean with a two-sided 90 %
# confidence interval (Student t, n - 1 degrees of freedom); lo = hi = n/a
# with fewer than 2 values.
ci() {
	all "$1" | awk '
	function t90(df) {  # the 95th percentile of Student t, df degrees of freedom
		split("6.314 2.920 2.353 2.132 2.015 1.943 1.895 1.860 1.833 1.812 1.796 1.782 1.771 1.761 1.753 1.746 1.740 1.734 1.729 1.725 1.721 1.717 1.714 1.711 1.708 1.706 1.703 1.701 1.699 1.697", t, " ")
		return df <= 30 ? t[df] : 1.645 + 1.524 / df
	}
	{ v[++n] = $1; sum += $1 }
	END {
		if (n == 0) { print "0 n/a n/a n/a n/a"; exit }
		m = sum / n
		if (n < 2) { print n, m, "n/a", "n/a", "n/a"; exit }
		for (i = 1; i <= n; i++) ss += (v[i] - m) ^ 2
		sd = sqrt(ss / (n - 1)); h = t90(n - 1) * sd / sqrt(n)
		print n, m, m - h, m + h, sd
	}'
}
# ci_ratio KEY: "mean [lo, hi]" of a ratio, 3 decimals
ci_ratio() {
	ci "$1" | awk '$2 == "n/a" { print "n/a"; next } $3 == "n/a" { printf "%.3f (1 repetition)\n", $2; next }
		{ printf "%.3f [%.3f, %.3f]\n", $2, $3, $4 }'
}
# ci_ovh KEY: overhead = 1 - ratio, in %, "mean [lo, hi]"
ci_ovh() {
	ci "$1" | awk '$2 == "n/a" { print "n/a"; next } $3 == "n/a" { printf "%.1f %%\n", 100 * (1 - $2); next }
		{ printf "%.1f %% [%.1f, %.1f]\n", 100 * (1 - $2) + 0, 100 * (1 - $4) + 0, 100 * (1 - $3) + 0 }'
}
# ci_val KEY DECIMALS: "mean [lo, hi]" of a plain figure
ci_val() {
	ci "$1" | awk -v d="${2:-1}" '$2 == "n/a" { print "n/a"; next }
		{ f = "%." d "f"; if ($3 == "n/a") printf f " (1 repetition)\n", $2; else printf f " [" f ", " f "]\n", $2, $3, $4 }'
}
# verdict KEY BOUND le|ge: whether the 90 % interval of KEY's mean lies
# wholly within "<= BOUND" (le) or ">= BOUND" (ge): met, not met (wholly
# outside), or inconclusive with the repetitions the interval would need to
# clear the bound if the mean and spread stayed as measured (normal
# approximation of the mean, Student t for the interval's width).
verdict() {
	ci "$1" | awk -v g="$2" -v dir="$3" '
	function t90(df) {
		split("6.314 2.920 2.353 2.132 2.015 1.943 1.895 1.860 1.833 1.812 1.796 1.782 1.771 1.761 1.753 1.746 1.740 1.734 1.729 1.725 1.721 1.717 1.714 1.711 1.708 1.706 1.703 1.701 1.699 1.697", t, " ")
		return df <= 30 ? t[df] : 1.645 + 1.524 / df
	}
	$2 == "n/a" { print "n/a"; next }
	$3 == "n/a" { print "inconclusive: 1 repetition, no interval (BENCH_REPS >= 2)"; next }
	{
		n = $1; m = $2; lo = $3; hi = $4; sd = $5
		inside = dir == "le" ? hi <= g : lo >= g
		outside = dir == "le" ? lo > g : hi < g
		if (inside) { print "met"; next }
		if (outside) { print "not met"; next }
		d = m - g; if (d < 0) d = -d
		for (k = n + 1; k <= 100000 && t90(k - 1) * sd / sqrt(k) >= d; k++) ;
		printf "inconclusive: need more repetitions (about %s at this spread; BENCH_REPS)\n", (k > 100000 ? "> 100,000" : k)
	}'
}
field() { echo "$1" | cut -d, -f"$2"; }

# budgets KEY: the cost budget's lines of a configuration's runs, "none"
# when it never sampled a part, else "part for N s, at least P %" each
budgets() {
	all "$1" | awk -F, '$1 == "none" { none++; next }
		{ out = out (out == "" ? "" : "; ") "at least " $2 " % for " $1 " s" }
		END { if (out == "") print (none ? "none (all sampled)" : "n/a"); else print out (none ? "; " none " x none" : "") }'
}

table() {
	local c
	echo "Setup: $SETUP.${PIN_NOTE:+ $PIN_NOTE.} Ratios are per repetition against the unprofiled window of the same repetition; figures are mean [90 % confidence interval] over the repetitions (Student t) unless said otherwise."
	echo
	echo "### 1. Overhead on the service workload (top 100; $REPS interleaved repetitions of ${SVC_SECS} s)"
	echo
	echo "Unprofiled: $(mmm svc_thr_none 1 0) requests/s; $(mmm svc_eff_none 1 0) requests per node CPU-second (median [min-max])."
	echo
	echo "| configuration | flameprof options | throughput vs none | overhead | requests per node CPU-s vs none | samples/s achieved/requested (flameprof summary) | cost budget (summary) | flameprof CPU % (median) |"
	echo "|---|---|---|---|---|---|---|---|"
	for c in $SVC_CONFIGS; do
		echo "| $c | $(o=$(cfg_args "$c"); echo "${o:-(none: --top 100 --hz 97 --max-cost 1)}") | $(ci_ratio svc_ratio_$c) | $(ci_ovh svc_ratio_$c) | $(ci_ratio svc_eratio_$c) | $(all svc_fp_$c | paste -sd' ' -) | $(budgets svc_budget_$c) | $(mmm svc_fpcpu_$c 1 1) |"
	done
	local ob; ob=$(get svc_otp_base); local oe; oe=$(get svc_otp_ebase)
	echo "| eprof (all processes, once, ${OTP_SECS} s) | - | $(ratio "$(get svc_eprof)" "$ob") | $(ovh "$(ratio "$(get svc_eprof)" "$ob")") % | $(ratio "$(get svc_eprof_eff)" "$oe") | - | - | - |"
	echo "| fprof (all processes, once, ${OTP_SECS} s; $(get svc_fprof_mb) MB/s of trace) | - | $(ratio "$(get svc_fprof)" "$ob") | $(ovh "$(ratio "$(get svc_fprof)" "$ob")") % | $(ratio "$(get svc_fprof_eff)" "$oe") | - | - | - |"
	echo
	echo "### 2. Fidelity on the saturated workload (top 100; $SAT_REPS repetition(s) of ${SAT_SECS} s; median [min-max])"
	echo
	echo "| configuration | requested/s (flameprof summary) | achieved/s | of requested | cost budget (summary: the least part asked, and for how long) | round p50 ms | round p99 ms | dropped | late | flameprof CPU % | bytes/sample on disk (zstd 3) | stop takes, s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	for c in $SAT_CONFIGS; do
		echo "| $c | $(mmm sat_asked_$c) | $(mmm sat_rate_$c) | $(awk -v a="$(med sat_rate_$c)" -v q="$(med sat_asked_$c)" 'BEGIN { if (a == "n/a" || q == "n/a" || q == 0) print "n/a"; else printf "%.1f %%", 100 * a / q }') | $(budgets sat_budget_$c) | $(mmm sat_p50_$c 1 2) | $(mmm sat_p99_$c 1 2) | $(all sat_dropped_$c | paste -sd' ' -) | $(all sat_late_$c | paste -sd' ' -) | $(mmm sat_fpcpu_$c 1 1) | $(mmm sat_bps_$c 1 1) | $(mmm sat_stop_$c 1 1) |"
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
	echo "### 5. flameprof itself recording the saturated workload for ${SOAK_SECS} s (hz97-nobudget: --top 100 --hz 97 --max-cost 0)"
	echo
	local ss; ss=$(get soak_summary)
	echo "| CPU % of one core | peak RSS (VmHWM) | RSS over time (s:KiB) | samples | dropped | late | bytes/sample on disk |"
	echo "|---|---|---|---|---|---|---|"
	echo "| $(get soak_cpu) | $(awk -v v="$(get soak_hwm_kb)" 'BEGIN { printf "%.1f MiB", v / 1024 }') | $(get soak_rss | tr , ' ') | $(field "$ss" 1) ($(field "$ss" 3)/s of $(field "$ss" 4)/s requested) | $(field "$ss" 5) | $(field "$ss" 6) | $(get soak_bps) |"
	echo
	echo "### 6. A sample's cost, stage by stage (bench/fp_cost.erl in a node of one scheduler; us per operation, median [min-max] of 7 runs)"
	echo
	echo "| stage | stack 25 frames deep | stack 50 frames deep |"
	echo "|---|---|---|"
	local st
	for st in $(get stage_names | tr , ' '); do
		[ "$st" = n/a ] && continue
		echo "| $st | $(get "stage_25_$st" | awk -F, '$1 == "n/a" { print "n/a"; next } { print $1 " [" $2 "-" $3 "]" }') | $(get "stage_50_$st" | awk -F, '$1 == "n/a" { print "n/a"; next } { print $1 " [" $2 "-" $3 "]" }') |"
	done
	echo
	echo "### 7. Node CPU per sample (paced workload: 100 processes 25 frames deep, 50 us of work every 10 ms (full) or every 1000 ms (cheap); top 100 at 97 Hz, --max-cost 0; $REPS interleaved repetitions of ${PS_SECS} s)"
	echo
	echo "| workload | node CPU per sample, us | the budget counts, us | node CPU without flameprof, % of one core | samples/s achieved/requested |"
	echo "|---|---|---|---|---|"
	echo "| full (every sample a full one) | $(ci_val ps_us 1) | $(get ps_model_full) | $(ci_val ps_base 1) | $(all ps_rate | paste -sd' ' -) |"
	echo "| cheap (nearly every sample a cheap one) | $(ci_val psc_us 1) | $(get ps_model_cheap) | $(ci_val psc_base 1) | $(all psc_rate | paste -sd' ' -) |"
	echo
	echo "### Goals"
	echo
	echo "| goal | figure | verdict |"
	echo "|---|---|---|"
	echo "| overhead <= 1 % at the defaults (service) | $(ci_ovh svc_ratio_defaults) | $(verdict svc_ratio_defaults 0.99 ge) |"
	echo "| overhead <= 3 % at --hz 97 --max-cost 0 (service) | $(ci_ovh svc_ratio_hz97-nobudget) | $(verdict svc_ratio_hz97-nobudget 0.97 ge) |"
	echo "| overhead <= 1 % at --hz 10 --max-cost 0 (service) | $(ci_ovh svc_ratio_hz10-nobudget) | $(verdict svc_ratio_hz10-nobudget 0.99 ge) |"
	echo "| <= 7 us of node CPU per full sample (paced) | $(ci_val ps_us 1) us | $(verdict ps_us 7 le) |"
	echo "| <= 2 us of node CPU per cheap sample (paced, once a second) | $(ci_val psc_us 1) us | $(verdict psc_us 2 le) |"
	local r97 q97; r97=$(med sat_rate_hz97-nobudget); q97=$(med sat_asked_hz97-nobudget)
	echo "| >= 95 % of requested on saturated, --max-cost 0 | $(awk -v v="$r97" -v q="$q97" 'BEGIN { if (v == "n/a" || q == "n/a" || q == 0) print "n/a"; else printf "%.1f %% of %d/s", 100 * v / q, q }') | $(awk -v v="$r97" -v q="$q97" 'BEGIN { if (v == "n/a" || q == "n/a" || q == 0) print "n/a"; else print (v >= 0.95 * q ? "met" : "not met") }') |"
	local rd qd bd; rd=$(med sat_rate_defaults); qd=$(med sat_asked_defaults); bd=$(budgets sat_budget_defaults)
	echo "| defaults on saturated: >= 95 % of requested, or what is delivered instead said | $(awk -v v="$rd" -v q="$qd" 'BEGIN { if (v == "n/a" || q == "n/a" || q == 0) print "n/a"; else printf "%.1f %% of %d/s", 100 * v / q, q }'); budget: $bd | $(awk -v v="$rd" -v q="$qd" -v b="$bd" 'BEGIN { if (v == "n/a" || q == "n/a" || q == 0) print "n/a"; else if (v >= 0.95 * q) print "met"; else if (b ~ /at least/) print "met: the summary said the budget sampled a part"; else print "not met" }') |"
	local z3; z3=$(get pipe_zstd3)
	echo "| C pipeline >= 500,000 samples/s on one core (zstd 3) | $(field "$z3" 1) | $(awk -v v="$(field "$z3" 1)" 'BEGIN { if (v == "n/a" || v == "") print "n/a"; else print (v >= 500000 ? "met" : "not met") }') |"
	echo "| report on a 1-hour top-100 capture at 97 Hz in seconds | $(field "$ri" 1) s for $(get report_events) events | $(awk -v v="$(field "$ri" 1)" -v n="$(get report_events)" 'BEGIN { if (v == "n/a" || v == "") print "n/a"; else if (n < 34920000) print "n/a (smaller run)"; else print (v < 10 ? "met" : "not met") }') |"
	echo "| <= 40 bytes/sample with zstd (default level 3; real output on saturated) | pipeline $(field "$z3" 2), saturated $(med sat_bps_hz97-nobudget) | $(awk -v a="$(field "$z3" 2)" -v b="$(med sat_bps_hz97-nobudget)" 'BEGIN { if (b == "n/a") b = a; if (b == "n/a" || b == "") print "n/a"; else print (b <= 40 ? "met" : "not met") }') |"
}

TABLE=$(table)
echo
echo "$TABLE"

if [ "$DOC" = 1 ]; then
	mem=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
	otp=$(erl -noshell -eval 'io:format("~s (erts ~s)", [erlang:system_info(otp_release), erlang:system_info(version)]), halt().')
	# no date and no commit: the file's own history in git says when, and at what
	rev="$("$FP" --version 2>/dev/null | head -1)"
	mode=$([ "$QUICK" = 1 ] && echo "BENCH_QUICK=1 (smoke run)" || echo "full")
	{
		cat "$ROOT/bench/benchmarks.head.md"
		echo
		echo "## Latest figures"
		echo
		echo "A $mode run, $(get minutes) minutes; $rev; $(nproc) CPUs ($cpu), $mem; OTP $otp."
		echo "Parts took (s): $(awk '$1 ~ /^secs_/ { sub(/^secs_/, "", $1); printf "%s%s %s", sep, $1, $2; sep = ", " }' "$RES")."
		echo "The machine was $(get busy_before) % busy with other work just before the run and $(get busy_after) % just after (all CPUs, /proc/stat)."
		echo
		echo "$TABLE"
		if [ -f "$ROOT/bench/benchmarks.tail.md" ]; then
			echo
			cat "$ROOT/bench/benchmarks.tail.md"
		fi
	} > "$ROOT/doc/benchmarks.md"
	say "wrote doc/benchmarks.md"
fi

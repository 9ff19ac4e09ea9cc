/*
 * test_capture_status.c - the capture's status line and summary
 * (capture/cap_status.c) through its door, as the front door sees them:
 * the time sampled and left of --duration, the cost the agent sends, the
 * budget's part, and "late" explained once on a line of its own (the first
 * time a drawn line shows it above 0) and in the summary. No node: the
 * batches are the decoder's records (sampler.h), the files a real rot_t in
 * a scratch directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "../../capture/cap_status.h"

static char lines[8][512], said[8][1024];
static int nlines, nsaid, live_seen, nnotes;

/* The front door shows notes at -v only (cli/msg.c): they are counted apart. */
static void on_say(void *arg, enum cap_say kind, const char *sentence)
{
	(void)arg;
	nnotes += kind == CAP_SAY_NOTE;
	if (nsaid < 8)
		snprintf(said[nsaid++], sizeof said[0], "%s", sentence);
}

static void on_line(void *arg, const char *text, const char *file, int live)
{
	(void)arg;
	live_seen += live;
	if (nlines < 8)
		snprintf(lines[nlines++], sizeof lines[0], "%s%s", text, file);
}

int main(void)
{
	char dir[] = "/tmp/fp_capstatus.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	struct cap_door door = { .say = on_say, .line = on_line, .live = 1 };
	struct cap_config cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.node = "app@db1";
	cfg.outdir = dir;
	cfg.hz = 10;
	cfg.verbosity = 1;
	cfg.duration_us = 90 * 1000000LL; /* 1:30 */
	cfg.max_cost_ppm = 10000;
	cfg.statuses = FMT_ON_CPU;
	rot_t *rot;
	struct rot_options ro = { .dir = dir, .node = "app@db1", .codec = ROT_NONE };
	is_int(rot_open(&rot, &ro), ROT_OK, "the files are set up");

	struct cap_status st;
	cap_status_init(&st, &cfg, &door);
	cap_status_sampling(&st);
	struct sampler_batch b = { .has_round = 1 };
	b.round = (struct sampler_round){ .start_us = 1000000, .selected = 4, .asked = 4, .answered = 4,
					  .late_total = 7, .share_permille = 500, .cost_ppm = 3100 };
	cap_status_batch(&st, &b);
	usleep(250 * 1000); /* the line is redrawn at most every 200 ms */
	cap_status_tick(&st, rot);
	is_int(nlines, 1, "one line drawn");
	ok(live_seen == 1, "... redrawn in place (live)");
	printf("# %s\n", lines[0]);
	/* the time sampled is cut down to the second and the time left up, so
	 * the two add up to --duration however long this machine took */
	int m1 = -1, s1 = -1, m2 = -1, s2 = -1, end = 0;
	sscanf(lines[0], "app@db1: %d:%d, %d:%d left, 4 processes, %n", &m1, &s1, &m2, &s2, &end);
	ok(end > 0 && m1 * 60 + s1 + m2 * 60 + s2 == 90,
	   "it starts with the node, the time sampled and the time left of --duration 90s (%d:%02d and %d:%02d)",
	   m1, s1, m2, s2);
	ok(strstr(lines[0], " (budget 50%), cost 0.31%, dropped 0, late 7, ") != NULL,
	   "the budget's part, the agent's cost (3100 millionths: 0.31%% of the schedulers), late");
	ok(strstr(lines[0], "(no file yet)") != NULL, "and the file (none yet)");
	ok(nsaid == 1 && strstr(said[0], "'late 7' in the status line counts samples answered after their round had ended, ") == said[0] &&
	   strstr(said[0], "none is lost") != NULL,
	   "the line's late is explained on a line of its own, the first time it is above 0");
	printf("# %s\n", said[0]);
	b.round.late_total = 9;
	cap_status_batch(&st, &b);
	usleep(250 * 1000);
	cap_status_tick(&st, rot);
	ok(nlines == 2 && nsaid == 1, "... once: the next line (late 9) is not explained again");

	cap_status_stopping(&st);
	uint64_t written[FP_STATUS_COUNT] = { 0 }, hidden[FP_STATUS_COUNT] = { 0 };
	cap_status_summary(&st, rot, &cfg, written, hidden);
	ok(nsaid >= 2 && strstr(said[1], "dropped 0, late 9 (answered after their round), rounds p50") != NULL,
	   "the summary says what late is");
	printf("# %s\n", said[1]);

	/* -q: no line, so no explanation either */
	nlines = nsaid = 0;
	cfg.verbosity = 0;
	cap_status_init(&st, &cfg, &door);
	cap_status_sampling(&st);
	cap_status_batch(&st, &b);
	usleep(250 * 1000);
	cap_status_tick(&st, rot);
	ok(nlines == 0 && nsaid == 0, "-q: no line and no explanation of late");
	cfg.verbosity = 1;

	/* without --duration: the time sampled alone */
	nlines = 0;
	cfg.duration_us = 0;
	cap_status_init(&st, &cfg, &door);
	cap_status_sampling(&st);
	usleep(250 * 1000);
	cap_status_tick(&st, rot);
	end = 0;
	sscanf(lines[0], "app@db1: %d:%d, 0 processes, %n", &m1, &s1, &end);
	ok(nlines == 1 && end > 0 && !strstr(lines[0], "left"), "without --duration: the time sampled, no time left");
	ok(strstr(lines[0], "cost 0.00%") != NULL, "no round yet: cost 0");

	/* the part of the node's work no selection could see: said at the
	 * end, even with -q, when it is 10 % or more and more than 100,000
	 * reductions a second; -v gives it when smaller */
	cfg.duration_us = 0;
	cfg.every_us = 5000000;
	cfg.verbosity = 0;
	struct { uint64_t unseen, work; int every_s, warned; const char *what; } cases[] = {
		{ 600000, 1000000, 5, 1, "60 % of 1,000,000 reductions in 0.25 s" },
		{ 99000, 1000000, 5, 0, "9.9 %: under 10 %" },
		{ 20000, 20000, 5, 0, "100 % of 20,000 reductions in 0.25 s: under 100,000 a second" },
		{ 600000, 1000000, 1, 1, "60 % at --every 1s" },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		nsaid = nnotes = 0;
		cfg.every_us = cases[k].every_s * 1000000LL;
		cap_status_init(&st, &cfg, &door);
		cap_status_sampling(&st);
		b.round.unseen_reds = cases[k].unseen;
		b.round.work_reds = cases[k].work;
		cap_status_batch(&st, &b);
		usleep(250 * 1000);
		cap_status_stopping(&st);
		cap_status_summary(&st, rot, &cfg, written, hidden);
		if (cases[k].warned) {
			char want[256];
			snprintf(want, sizeof want, "warning: 60%% of the node's work was in processes that lived less than "
				 "--every (%ds): not sampled, not in the pictures%s", cases[k].every_s,
				 cases[k].every_s > 1 ? "; --every 1s picks those that live longer" : "");
			ok(nsaid == 1 && strcmp(said[0], want) == 0, "-q, %s: said (%s)", cases[k].what, nsaid ? said[0] : "nothing");
		} else {
			ok(nsaid == nnotes, "-q, %s: nothing said but a note (%s)", cases[k].what, nsaid ? said[0] : "nothing");
		}
	}
	nsaid = 0;
	cfg.verbosity = 2;
	cap_status_summary(&st, rot, &cfg, written, hidden);
	ok(nsaid >= 1 && strstr(said[0], "60% of the node's work was in processes") != NULL, "-v: the warning too");
	nsaid = nnotes = 0;
	b.round.unseen_reds = 99000;
	cap_status_batch(&st, &b);
	cap_status_summary(&st, rot, &cfg, written, hidden);
	ok(nsaid >= 1 && nnotes == 1 && strcmp(said[0], "9.9% of the node's work was in processes that lived less than --every (1s) "
				  "(99000 of 1000000 reductions)") == 0, "-v: the figure when it is small, as a note (%s)", nsaid ? said[0] : "nothing");

	/* one scheduler at a time: the on-CPU samples against the schedulers
	 * the node kept busy, said even with -q when they hold under a quarter
	 * (the service shape on +S 1: 10 on-CPU reads of 35,000 in 6 s at
	 * 97 Hz while 0.38 of the scheduler was busy); the figures with -v */
	struct { unsigned at_once; int busy; uint64_t running, gc, others, requested; int want; const char *what; } one[] = {
		{ 1, 380, 10, 0, 34990, 35000, 1, "a service on +S 1: 0.02 of 0.38" },
		{ 1, 1000, 500, 50, 1300, 1850, 0, "spinners on +S 1: 0.95 of 1.00" },
		{ 2, 380, 10, 0, 34990, 35000, -1, "two at once: not told" },
		{ 1, -1, 10, 0, 34990, 35000, -1, "no budget's figures (--max-cost 0): not told" },
		{ 1, 90, 0, 0, 35000, 35000, 0, "a node 0.09 busy: too idle to matter" },
		{ 1, 380, 0, 0, 0, 0, -1, "no sample: not told" },
	};
	cfg.hz = 97;
	for (size_t k = 0; k < sizeof one / sizeof one[0]; k++) {
		for (int shown = 0; shown < 2; shown++) { /* running samples hidden (on-CPU view) or written (all) */
			uint64_t w[FP_STATUS_COUNT] = { 0 }, h[FP_STATUS_COUNT] = { 0 };
			uint64_t *on = shown ? w : h;
			on[FP_STATUS_RUNNING] = one[k].running;
			on[FP_STATUS_GARBAGE_COLLECTING] = one[k].gc;
			h[FP_STATUS_WAITING] = one[k].others;
			cfg.verbosity = 0;
			cap_status_init(&st, &cfg, &door);
			st.at_once = one[k].at_once;
			st.busy_permille = one[k].busy;
			st.requested = (double)one[k].requested;
			st.start_ms = 1000;
			st.end_ms = 7000;
			double held = -1, busy = -1;
			is_int(cap_status_one_sched(&st, w, h, &held, &busy), one[k].want, "%s%s", one[k].what,
			       shown ? ", the running samples written" : "");
			nsaid = nnotes = 0;
			cap_status_summary(&st, rot, &cfg, w, h);
			if (one[k].want == 1) {
				char want[512];
				snprintf(want, sizeof want, "warning: the node can run one scheduler at a time, and each of flameprof's "
					 "reads takes it: the on-CPU samples hold %.2f of the %.2f scheduler it kept busy, and "
					 "processes that run in short bursts are missing from them (--status all shows where each "
					 "process waited)", held, busy);
				ok(nsaid == 1 && nnotes == 0 && strcmp(said[0], want) == 0, "-q: said (%s)", nsaid ? said[0] : "nothing");
				ok(held > 0.017 && held < 0.018 && busy == 0.38, "... 0.017 held, 0.38 busy (%g, %g)", held, busy);
			} else if (one[k].want == 0) {
				ok(nsaid == 1 && nnotes == 1 && strstr(said[0], "one scheduler at a time: the on-CPU samples hold "),
				   "-q: only the figures, as a note (%s)", nsaid ? said[0] : "nothing");
			} else {
				ok(nsaid == 0, "-q: nothing said (%s)", nsaid ? said[0] : "nothing");
			}
		}
	}
	cap_status_init(&st, &cfg, &door);
	st.at_once = 1;
	st.busy_permille = 1000;
	st.requested = 1850;
	st.start_ms = 1000;
	st.end_ms = 7000;
	double held = 0, busy = 0;
	uint64_t w1[FP_STATUS_COUNT] = { [FP_STATUS_RUNNING] = 550 }, h1[FP_STATUS_COUNT] = { [FP_STATUS_RUNNABLE] = 1300 };
	cap_status_one_sched(&st, w1, h1, &held, &busy);
	ok(held > 0.944 && held < 0.946, "spinners: 550 of 1850 reads on a CPU, 1850 requested in 6 s at 97 Hz: 0.945 held (%g)", held);

	/* --cluster-hosts: a peer's host against the patterns */
	ok(cap_host_allowed("app@db1.prod.example.com", "*.prod.example.com"), "--cluster-hosts: a host its pattern names");
	ok(cap_host_allowed("app@DB1.Prod.Example.COM", "*.prod.example.com,10.1.*"), "... case-blind");
	ok(cap_host_allowed("app@10.1.2.3", "*.prod.example.com,10.1.*"), "... the second of two patterns");
	ok(!cap_host_allowed("app@evil.example.net", "*.prod.example.com,10.1.*"), "... a host none names: refused");
	ok(!cap_host_allowed("app@10.10.2.3", "10.1.*.*"), "... 10.10 is not 10.1");
	ok(!cap_host_allowed("app@db1", ""), "... an empty list allows nothing");
	ok(!cap_host_allowed("nohost", "*"), "... a name without a host: refused");

	rot_close(rot);
	rot_free(rot);
	rmdir(dir);
	return done_testing();
}

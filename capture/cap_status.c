/* cap_status.c - see cap_status.h. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "cap_internal.h"
#include "cap_status.h"
#include "../common/clock.h"

#define DRAW_EVERY_MS 200
#define PLAIN_EVERY_MS 60000
#define WARN_EVERY_MS 60000

void cap_status_init(struct cap_status *st, const struct cap_config *cfg, const struct cap_door *door)
{
	memset(st, 0, sizeof *st);
	st->door = door;
	st->live = cfg->verbosity >= 1 && door->live;
	st->plain = cfg->verbosity >= 1 && !st->live;
	st->start_ms = st->last_draw_ms = st->last_plain_ms = st->window_ms = fp_mono_ms();
	st->last_warn_ms = st->start_ms;
	st->node = cfg->node;
	st->hz = cfg->hz;
	st->duration_ms = cfg->duration_us / 1000;
	st->share = st->share_min = 1000;
	st->selected_min = UINT_MAX;
}

void cap_status_sampling(struct cap_status *st)
{
	st->start_ms = st->last_draw_ms = st->last_plain_ms = st->window_ms = fp_mono_ms();
	st->last_warn_ms = st->start_ms;
}

void cap_status_stopping(struct cap_status *st)
{
	if (!st->end_ms)
		st->end_ms = fp_mono_ms();
}

static int bucket(int64_t us)
{
	int b = us <= 0 ? 0 : (int)(log2((double)us + 1) * 4);
	return b >= CAP_HIST_BUCKETS ? CAP_HIST_BUCKETS - 1 : b;
}

double cap_status_percentile(const struct cap_status *st, double p)
{
	uint64_t total = 0, seen = 0;
	for (int k = 0; k < CAP_HIST_BUCKETS; k++)
		total += st->hist[k];
	if (!total)
		return 0;
	for (int k = 0; k < CAP_HIST_BUCKETS; k++) {
		seen += st->hist[k];
		if (seen * 100.0 >= p * (double)total)
			return exp2((k + 1) / 4.0) - 1; /* the bucket's upper edge */
	}
	return 0;
}

void cap_status_batch(struct cap_status *st, const struct sampler_batch *b)
{
	st->samples += b->nsamples;
	st->window_samples += b->nsamples;
	if (!b->has_round)
		return;
	st->rounds++;
	/* What was requested since the previous round: the processes this
	 * round asked (selected when it began), at --hz, over the target's own
	 * clock from the time the previous round was due to the time this one
	 * was; the first round, once each. Rounds the agent missed still count
	 * as requested. (Not a count of rounds: a round with nothing to send
	 * sends no batch.) It was the previous round's selection between the
	 * times the rounds started: that left the first round and a grown
	 * selection's first round unrequested, and when the first round started
	 * late, the rounds due meanwhile that ran right after it: "9650/s of
	 * 9593/s requested". */
	int64_t due = b->round.start_us - b->round.lateness_us;
	if (!st->last_due_us || due > st->last_due_us) {
		double want = st->last_due_us ? b->round.selected * st->hz *
			(double)(due - st->last_due_us) / 1e6 : (double)b->round.selected;
		st->requested += want;
		st->window_requested += want;
		st->last_due_us = due;
	}
	if (!st->end_ms && b->round.selected > 0 && b->round.selected < st->selected_min)
		st->selected_min = b->round.selected;
	if (!st->end_ms && b->round.selected > st->selected_max)
		st->selected_max = b->round.selected;
	if (st->last_round_us && b->round.start_us > st->last_round_us && st->share < 1000)
		st->budget_us += (double)(b->round.start_us - st->last_round_us);
	st->share = b->round.share_permille;
	if (st->share < st->share_min)
		st->share_min = st->share;
	st->last_round_us = b->round.start_us;
	if (!st->end_ms) /* the agent's last batch, at its stop, selects none */
		st->last_selected = b->round.selected;
	st->dropped = b->round.dropped_total;
	st->late = b->round.late_total;
	st->cost_ppm = b->round.cost_ppm;
	st->work_reds = b->round.work_reds;
	st->unseen_reds = b->round.unseen_reds;
	st->at_once = b->round.at_once;
	st->busy_permille = b->round.busy_permille;
	st->missed = b->round.missed_total;
	st->hist[bucket(b->round.duration_us)]++;
}

static void human_bytes(uint64_t n, char *out, size_t cap)
{
	const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = 0;
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(out, cap, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

/* "1:05" or "1:02:03" for ms milliseconds (cut to whole seconds; at
 * most 9999 hours). */
static void clock_text(long long ms, char *out, size_t cap)
{
	long long s = ms < 0 ? 0 : ms / 1000 > 35999999 ? 35999999 : ms / 1000;
	if (s >= 3600)
		snprintf(out, cap, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(out, cap, "%lld:%02lld", s / 60, s % 60);
}

/* How long sampling has run, and with --duration how long it has left:
 * "0:12, 0:48 left" or "0:12". */
static void time_text(const struct cap_status *st, long long now, char *out, size_t cap)
{
	char ran[24], left[24];
	clock_text(now - st->start_ms, ran, sizeof ran);
	if (!st->duration_ms) {
		snprintf(out, cap, "%s", ran);
		return;
	}
	clock_text(st->start_ms + st->duration_ms - now + 999, left, sizeof left);
	snprintf(out, cap, "%s, %s left", ran, left);
}

/* The last second's rates, and the "behind" warning. */
static void window(struct cap_status *st, long long now)
{
	if (now - st->window_ms >= 1000) {
		double secs = (now - st->window_ms) / 1000.0;
		st->rate = st->window_samples / secs;
		st->requested_rate = st->window_requested / secs;
		st->window_samples = 0;
		st->window_requested = 0;
		st->window_ms = now;
		if (st->requested_rate > 0 && st->rate < 0.9 * st->requested_rate * st->share / 1000 &&
		    now - st->last_warn_ms >= WARN_EVERY_MS && now - st->start_ms > 3000) {
			st->last_warn_ms = now;
			cap_say(st->door, CAP_SAY_WARN, "%s%s%ssampling behind: %.0f of %.0f samples/s requested (%.0f%%); try a lower --hz or --top",
				st->multi ? "'" : "", st->multi ? st->node : "", st->multi ? "': " : "", st->rate, st->requested_rate, 100 * st->rate / st->requested_rate);
		}
	}
}

/* Draws the status line when one is due: on a terminal every DRAW_EVERY_MS,
 * elsewhere every PLAIN_EVERY_MS. The first line drawn with "late N" above
 * 0 comes with one line that says what it is (the line itself has no room
 * for it; the summary at the end says it again). Not under -q: no line is
 * drawn. */
static void draw(struct cap_status *st, const char *line, const char *file, unsigned long long late, long long now)
{
	int live = st->live && now - st->last_draw_ms >= DRAW_EVERY_MS;
	if (!live && !(st->plain && now - st->last_plain_ms >= PLAIN_EVERY_MS))
		return;
	if (late && !st->late_said) {
		st->late_said = 1;
		/* an explanation, not a fault: the first rounds of a busy node
		 * make some, and nothing is lost */
		cap_say(st->door, CAP_SAY_INFO, "'late %llu' in the status line counts samples answered after their "
			"round had ended, as busy schedulers or a process slow to read make them; none is lost: "
			"each is written at the time it was taken", late);
	}
	if (live)
		st->last_draw_ms = now;
	else
		st->last_plain_ms = now;
	st->door->line(st->door->arg, line, file, live);
}

void cap_status_tick(struct cap_status *st, const rot_t *rot)
{
	long long now = fp_mono_ms();
	window(st, now);
	char line[512], size[32], budget[48] = "", when[64];
	if (st->share < 1000)
		snprintf(budget, sizeof budget, " (budget %.0f%%)", st->share / 10.0);
	const struct rot_stats *rs = rot_stats(rot);
	human_bytes(rs->bytes_out, size, sizeof size);
	time_text(st, now, when, sizeof when);
	const char *path = rot_current_path(rot), *slash = strrchr(path, '/');
	const char *file = *path ? (slash ? slash + 1 : path) : "(no file yet)";
	/* the cost: what sampling cost the node over the agent's last
	 * second, by the budget's model, in --max-cost's unit */
	int n = snprintf(line, sizeof line, "%s: %s, %u process%s, %.0f/%.0f samples/s%s, cost %.2f%%, dropped %llu, "
			 "late %llu, %s, ",
			 st->node, when, st->last_selected, st->last_selected == 1 ? "" : "es",
			 st->rate, st->requested_rate, budget, st->cost_ppm / 1e4,
			 (unsigned long long)st->dropped, (unsigned long long)st->late, size);
	if (n < 0 || n >= (int)sizeof line)
		line[0] = '\0';
	draw(st, line, file, (unsigned long long)st->late, now);
}

void cap_status_tick_nodes(struct cap_status *const *sts, const rot_t *const *rots, const int *live, size_t n,
			  int verbose)
{
	long long now = fp_mono_ms();
	double rate = 0, requested = 0;
	unsigned long long dropped = 0, late = 0, bytes = 0;
	unsigned selected = 0, sampling = 0, cost = 0;
	for (size_t k = 0; k < n; k++) {
		if (rots[k])
			bytes += rot_stats(rots[k])->bytes_out;
		if (!live[k])
			continue;
		window(sts[k], now);
		sampling++;
		rate += sts[k]->rate;
		requested += sts[k]->requested_rate;
		selected += sts[k]->last_selected;
		dropped += sts[k]->dropped;
		late += sts[k]->late;
		if (sts[k]->cost_ppm > cost)
			cost = sts[k]->cost_ppm;
	}
	struct cap_status *st = sts[0];
	char line[1024], size[32], when[64];
	human_bytes(bytes, size, sizeof size);
	time_text(st, now, when, sizeof when);
	int len = snprintf(line, sizeof line, "%u of %zu nodes sampling: %s, %u processes, %.0f/%.0f samples/s, "
			   "cost up to %.2f%%, dropped %llu, late %llu, %s",
			   sampling, n, when, selected, rate, requested, cost / 1e4, dropped, late, size);
	/* -v: each node's own rate, or that it is out */
	for (size_t k = 0; verbose && k < n && len > 0 && len < (int)sizeof line; k++) {
		char own[32] = "out";
		if (live[k])
			snprintf(own, sizeof own, "%.0f/s", sts[k]->rate);
		len += snprintf(line + len, sizeof line - (size_t)len, "%s%s %s", k ? ", " : "; ", sts[k]->node, own);
	}
	draw(st, line, "", late, now);
}

/* "12 processes selected" or "9 to 25 processes selected". */
static void selected_text(const struct cap_status *st, char *out, size_t cap)
{
	if (st->selected_max == 0)
		snprintf(out, cap, "no process selected");
	else if (st->selected_min == st->selected_max)
		snprintf(out, cap, "%u process%s selected", st->selected_max, st->selected_max == 1 ? "" : "es");
	else
		snprintf(out, cap, "%u to %u processes selected", st->selected_min, st->selected_max);
}

int cap_status_unseen_permille(const struct cap_status *st)
{
	double secs = ((st->end_ms ? st->end_ms : fp_mono_ms()) - st->start_ms) / 1000.0;
	if (!st->work_reds || secs <= 0 || st->unseen_reds < CAP_UNSEEN_MIN_PER_S * secs)
		return -1;
	int permille = (int)(st->unseen_reds * 1000 / st->work_reds);
	return permille >= CAP_UNSEEN_MIN_PERMILLE ? permille : -1;
}

/* A run that covered only a part of what was asked says which part, even
 * with -q: the flame graph of a service with a process per request misses
 * most of its work, and nothing else would say so. */
static void say_unseen(const struct cap_status *st, const struct cap_config *cfg, const char *who)
{
	int permille = cap_status_unseen_permille(st);
	if (permille < 0) {
		/* -v: the figure, small as it is */
		if (st->work_reds)
			cap_say(st->door, CAP_SAY_NOTE, "%s%.1f%% of the node's work was in processes that lived less than "
				"--every (%gs) (%llu of %llu reductions)", who, (double)st->unseen_reds * 100 / (double)st->work_reds,
				cfg->every_us / 1e6, (unsigned long long)st->unseen_reds, (unsigned long long)st->work_reds);
		return;
	}
	cap_say(st->door, CAP_SAY_ERROR, "warning: %s%.0f%% of the node's work was in processes that lived less than "
		"--every (%gs): not sampled, not in the pictures%s", who, permille / 10.0, cfg->every_us / 1e6,
		cfg->every_us > 1000000 ? "; --every 1s picks those that live longer" : "");
}

int cap_status_one_sched(const struct cap_status *st, const uint64_t written[FP_STATUS_COUNT],
			 const uint64_t hidden[FP_STATUS_COUNT], double *held, double *busy)
{
	double secs = ((st->end_ms ? st->end_ms : fp_mono_ms()) - st->start_ms) / 1000.0;
	uint64_t all = 0, on_cpu = written[FP_STATUS_RUNNING] + hidden[FP_STATUS_RUNNING] +
				   written[FP_STATUS_GARBAGE_COLLECTING] + hidden[FP_STATUS_GARBAGE_COLLECTING];
	for (int k = 0; k < FP_STATUS_COUNT; k++)
		all += written[k] + hidden[k];
	if (st->at_once != 1 || st->busy_permille < 0 || !all || secs <= 0 || st->hz <= 0)
		return -1;
	/* the part of the reads that found a process on a CPU, times the
	 * processes a round reads (the budget may have read fewer) */
	*held = (double)on_cpu / (double)all * st->requested / (secs * st->hz);
	*busy = st->busy_permille / 1000.0;
	return st->busy_permille >= CAP_ONE_SCHED_MIN_BUSY && *held * CAP_ONE_SCHED_PART < *busy;
}

/* One scheduler at a time (one online, or one processor): a process is
 * read on a CPU only where a read took its place (the agent's displaced/2
 * puts it back), never in the middle of a run, and one that runs in short
 * bursts is never caught (the service shape of make truth on +S 1: 1-12
 * on-CPU samples in 6 s, where the node kept 0.36-0.43 of its scheduler
 * busy). Said even with -q when the picture holds less than a quarter of
 * what the node ran; the figures with -v. */
static void say_one_sched(const struct cap_status *st, const char *who, const uint64_t written[FP_STATUS_COUNT],
			  const uint64_t hidden[FP_STATUS_COUNT])
{
	double held = 0, busy = 0;
	int r = cap_status_one_sched(st, written, hidden, &held, &busy);
	if (r == 1)
		cap_say(st->door, CAP_SAY_ERROR, "warning: %sthe node can run one scheduler at a time, and each of "
			"flameprof's reads takes it: the on-CPU samples hold %.2f of the %.2f scheduler it kept busy, "
			"and processes that run in short bursts are missing from them (--status all shows where each "
			"process waited)", who, held, busy);
	else if (r == 0)
		cap_say(st->door, CAP_SAY_NOTE, "%sone scheduler at a time: the on-CPU samples hold %.2f of the %.2f scheduler the "
			"node kept busy", who, held, busy);
}

void cap_status_summary(struct cap_status *st, const rot_t *rot, const struct cap_config *cfg,
		       const uint64_t written[FP_STATUS_COUNT], const uint64_t hidden[FP_STATUS_COUNT])
{
	char who0[300] = "";
	if (st->multi)
		snprintf(who0, sizeof who0, "'%s': ", st->node);
	say_unseen(st, cfg, who0);
	say_one_sched(st, who0, written, hidden);
	if (cfg->verbosity < 1 || !rot)
		return;
	const struct rot_stats *rs = rot_stats(rot);
	char size[32];
	human_bytes(rs->bytes_out, size, sizeof size);
	double secs = ((st->end_ms ? st->end_ms : fp_mono_ms()) - st->start_ms) / 1000.0;
	char sel[64];
	selected_text(st, sel, sizeof sel);
	/* several nodes: each of its lines names the node */
	char who[300] = "";
	if (st->multi)
		snprintf(who, sizeof who, "'%s': ", st->node);
	cap_say(st->door, CAP_SAY_INFO,
		"%s%llu samples in %.1f s (%.0f/s of %.0f/s requested, %s), dropped %llu, "
		"late %llu (answered after their round), "
		"rounds p50 %.2f ms p99 %.2f ms; %u file%s, %s, in '%s'",
		who, (unsigned long long)st->samples, secs, secs > 0 ? st->samples / secs : 0,
		secs > 0 ? st->requested / secs : 0, sel, (unsigned long long)st->dropped,
		(unsigned long long)st->late, cap_status_percentile(st, 50) / 1000,
		cap_status_percentile(st, 99) / 1000, rs->files, rs->files == 1 ? "" : "s", size,
		cfg->outdir);
	if (st->share_min < 1000)
		cap_say(st->door, CAP_SAY_INFO, "%sthe node was busy and the cost budget (--max-cost %g%%) sampled a part of the selected "
			"processes for %.0f s, at least %.0f%% of them; --max-cost 0 samples all of them",
			who, cfg->max_cost_ppm / 1e4, st->budget_us / 1e6, st->share_min / 10.0);
	/* What --status left out of the files, by status. */
	uint64_t nw = 0, nh = 0;
	char left[256] = "";
	size_t n = 0;
	for (int k = 0; k < FP_STATUS_COUNT; k++) {
		nw += written[k];
		nh += hidden[k];
		if (hidden[k] && n < sizeof left)
			n += (size_t)snprintf(left + n, sizeof left - n, "%s%s %llu", n ? ", " : "",
					      fp_status_names[k], (unsigned long long)hidden[k]);
	}
	if (nh && !nw)
		cap_say(st->door, CAP_SAY_INFO, "%sno sample had a status that --status writes, so no event was written; "
			"not written: %s (--status all writes them: the wall-clock view)", who, left);
	else if (nh)
		cap_say(st->door, CAP_SAY_INFO, "%s%llu samples written (%s); not written: %s (--status all writes them: "
			"the wall-clock view)", who, (unsigned long long)nw,
			cfg->statuses == FMT_ON_CPU ? "on-CPU: running, garbage_collecting" : "--status", left);
	if (rs->files && rs->records && !st->multi)
		cap_say(st->door, CAP_SAY_INFO, "open them with 'flameprof report %s -o profile.html' (one page: "
			"the heatmap and any range's flame graph), or in Flamescope (%s)",
			cfg->outdir, cfg->codec == ROT_ZSTD ? "after 'zstd -d', or record with --compress gzip" :
			"point it at the directory");
}

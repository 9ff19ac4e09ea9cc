/*
 * cap_status.h - what the user sees while a capture runs and when it ends,
 * counted and worded here, drawn by the front door (capture.h's door).
 *
 * On a terminal (and in the foreground) a status line redrawn about five
 * times a second: the time sampled (and left, with --duration), achieved
 * vs requested samples/s (processes selected x --hz), the cost budget's
 * share when it is lowered, what sampling costs the node (the agent's
 * figure), dropped, late (answers after their round), bytes written,
 * current file.
 * Elsewhere (cron) a plain line a minute. Falling behind is reported as
 * py-spy does: only when it matters, at most once a minute.
 */
#ifndef CAP_STATUS_H
#define CAP_STATUS_H

#include <stdint.h>
#include "cap_config.h"
#include "cap_door.h"
#include "../rotate/rotate.h"
#include "../sampler/sampler.h"

#define CAP_HIST_BUCKETS 128

struct cap_status {
	int live;                    /* redraw a status line */
	int plain;                   /* print a plain line now and then */
	long long start_ms, last_draw_ms, last_plain_ms, last_warn_ms, window_ms;
	long long end_ms;            /* when stopping began; 0: still sampling */
	uint64_t samples, rounds;
	uint64_t window_samples;
	double requested, window_requested; /* each round's selected processes, missed rounds too */
	double rate, requested_rate; /* over the last window */
	double hz;
	int64_t last_round_us;       /* target time of the previous round, 0: none */
	int64_t last_due_us;         /* when the previous round was due, 0: none */
	unsigned last_selected;      /* processes selected at the last round */
	unsigned selected_min, selected_max; /* over the rounds so far (min: UINT_MAX before) */
	uint64_t dropped, late, missed;
	int late_said;               /* the line's "late N" explained (once, when first above 0) */
	uint64_t hist[CAP_HIST_BUCKETS]; /* round durations, log scale */
	unsigned share;              /* the cost budget's part of the selected, permille */
	unsigned cost_ppm;           /* what sampling cost the node over the agent's last second,
	                                millionths of its schedulers (its budget's model) */
	uint64_t work_reds;          /* the node's reductions over the scans' windows (not the agent's) */
	uint64_t unseen_reds;        /* the part done by processes born or dead within a window */
	unsigned at_once;            /* schedulers that can run at the same time, last round; 0: not said */
	int busy_permille;           /* schedulers the node kept busy since the start, thousandths; -1: not known */
	long long duration_ms;       /* --duration; 0: until stopped */
	unsigned share_min;          /* its lowest so far */
	double budget_us;            /* target time spent under a share below 1000 */
	const char *node;
	const struct cap_door *door; /* the voice and the line; not owned */
	int multi;                   /* one of several nodes: the summary names it, says no "open them" */
};

void cap_status_init(struct cap_status *st, const struct cap_config *cfg, const struct cap_door *door);
/* Sampling has begun: rates are counted from here, not from connecting. */
void cap_status_sampling(struct cap_status *st);
/* Stopping has begun: the summary's rates end here. */
void cap_status_stopping(struct cap_status *st);
void cap_status_batch(struct cap_status *st, const struct sampler_batch *b);
void cap_status_tick(struct cap_status *st, const rot_t *rot);
/* Several nodes (capture.c): each node's window moved on (its rates), then
 * one line for them all: the total over the nodes still sampling (live[k]),
 * and with verbose each node's rate too; drawn on sts[0]'s schedule. */
void cap_status_tick_nodes(struct cap_status *const *sts, const rot_t *const *rots, const int *live, size_t n,
			  int verbose);
/* The part of the node's work done by processes that lived less than a
 * selection window (no scan could pick them), in permille; -1 while it is
 * too small to matter (under CAP_UNSEEN_MIN_PERMILLE, or less than
 * CAP_UNSEEN_MIN_PER_S reductions a second of sampling). */
#define CAP_UNSEEN_MIN_PERMILLE 100
#define CAP_UNSEEN_MIN_PER_S 100000.0
int cap_status_unseen_permille(const struct cap_status *st);
/* On a node that can run one scheduler at a time (one online, or one
 * processor), each read takes the scheduler the node runs on: how many
 * schedulers the on-CPU samples hold (processes read
 * on a CPU per round, at --hz) and how many the node kept busy, through
 * *held and *busy; 1 when the samples hold less than 1/CAP_ONE_SCHED_PART
 * of a node busy CAP_ONE_SCHED_MIN_BUSY permille or more, 0 when they do
 * not, -1 when it cannot be told (more schedulers, no budget's figures, no
 * sample). written and hidden: the samples by status, as the summary's. */
#define CAP_ONE_SCHED_MIN_BUSY 100
#define CAP_ONE_SCHED_PART 4
int cap_status_one_sched(const struct cap_status *st, const uint64_t written[FP_STATUS_COUNT],
			 const uint64_t hidden[FP_STATUS_COUNT], double *held, double *busy);
/* The closing summary: where the files are and how to open them; first,
 * even with -q, the part of the node's work no selection could see. */
void cap_status_summary(struct cap_status *st, const rot_t *rot, const struct cap_config *cfg,
		       const uint64_t written[FP_STATUS_COUNT], const uint64_t hidden[FP_STATUS_COUNT]);
/* Round duration at percentile p (0..100), in microseconds. */
double cap_status_percentile(const struct cap_status *st, double p);

#endif

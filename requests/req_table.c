/*
 * req_table.c - windows of (identity, tier) histograms merged and written.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "req_table.h"
#include "../common/grow.h"
#include "../common/ctl_escape.h"
#include "../common/text.h"

static struct req_cell *find_or_add(struct req_table *t, const char *identity, const char *tier)
{
	for (size_t k = 0; k < t->ncells; k++)
		if (strcmp(t->cells[k].identity, identity) == 0 && strcmp(t->cells[k].tier, tier) == 0)
			return &t->cells[k];
	if (t->ncells == REQ_MAX_CELLS) {
		t->cells_left_out++;
		return NULL;
	}
	if (fp_grow((void **)&t->cells, &t->cap, t->ncells + 1, sizeof *t->cells, 16) != 0)
		return NULL;
	struct req_cell *c = &t->cells[t->ncells];
	memset(c, 0, sizeof *c);
	c->identity = strdup(identity);
	c->tier = strdup(tier);
	if (!c->identity || !c->tier) {
		free(c->identity);
		free(c->tier);
		return NULL;
	}
	t->ncells++;
	return c;
}

static int merge_tier_out(struct req_table *t, const struct req_window *w);

int req_table_merge(struct req_table *t, const struct req_window *w)
{
	t->stamp++;
	for (size_t k = 0; k < w->nrows; k++) {
		const struct req_row *r = &w->rows[k];
		uint64_t left = t->cells_left_out;
		struct req_cell *c = find_or_add(t, r->identity, r->tier);
		if (!c && t->cells_left_out > left)
			continue;
		if (!c)
			return -1;
		struct hist *h = calloc(1, sizeof *h);
		if (!h)
			return -1;
		if (c->stamp != t->stamp)
			memset(&c->window, 0, sizeof c->window);
		c->stamp = t->stamp;
		h->count = r->count;
		h->sum = r->sum_us;
		h->max = r->max_us;
		for (size_t b = 0; b < r->nbuckets; b++)
			hist_add_bucket(h, r->buckets[b].index, r->buckets[b].n);
		hist_merge(&c->window, h);
		hist_merge(&c->total, h);
		free(h);
	}
	t->requests += w->requests;
	t->stray += w->stray;
	t->pauses = w->pauses;
	t->paused = w->paused;
	t->dropped += w->dropped;
	t->slow_left_out += w->slow_left_out;
	t->win_id_fun_failed = w->id_fun_failed;
	t->win_paused_us = w->paused_us;
	/* a pause's count less its calls traced after all (its switches) */
	t->win_untraced = w->untraced >= w->overlap ? w->untraced - w->overlap : 0;
	t->id_fun_failed += w->id_fun_failed;
	t->paused_us += w->paused_us;
	t->untraced += w->untraced;
	t->calls += w->calls;
	t->entry_msgs += w->entry_msgs;
	t->nested += w->nested;
	t->queued += w->queued;
	t->in_flight += w->in_flight;
	t->overlap += w->overlap;
	t->win_calls = w->calls;
	t->win_dropped = w->dropped + w->queued;
	return merge_tier_out(t, w);
}

/* A window's tier calls outside requests into the run's, by tier. */
static int merge_tier_out(struct req_table *t, const struct req_window *w)
{
	for (size_t k = 0; k < w->ntier_out; k++) {
		const struct req_tier_out *o = &w->tier_out[k];
		size_t j = 0;
		while (j < t->ntier_out && strcmp(t->tier_out[j].tier, o->tier) != 0)
			j++;
		if (j == t->ntier_out) {
			if (j == REQ_MAX_CELLS)
				continue;
			if (fp_grow((void **)&t->tier_out, &t->tier_out_cap, j + 1, sizeof *t->tier_out, 8) != 0)
				return -1;
			memset(&t->tier_out[j], 0, sizeof t->tier_out[j]);
			if (!(t->tier_out[j].tier = strdup(o->tier)))
				return -1;
			t->ntier_out++;
		}
		t->tier_out[j].after_end += o->after_end;
		t->tier_out[j].no_request += o->no_request;
	}
	return 0;
}

void req_table_free(struct req_table *t)
{
	for (size_t k = 0; k < t->ncells; k++) {
		free(t->cells[k].identity);
		free(t->cells[k].tier);
	}
	for (size_t k = 0; k < t->ntier_out; k++)
		free(t->tier_out[k].tier);
	free(t->cells);
	free(t->tier_out);
	memset(t, 0, sizeof *t);
}

static int cell_cmp(const void *a, const void *b)
{
	const struct req_cell *x = a, *y = b;
	int c = strcmp(x->identity, y->identity);
	if (c)
		return c;
	int tx = strcmp(x->tier, "_total") == 0, ty = strcmp(y->tier, "_total") == 0;
	if (tx != ty)
		return ty - tx;
	return strcmp(x->tier, y->tier);
}

void req_table_sort(struct req_table *t)
{
	if (t->ncells > 1)
		qsort(t->cells, t->ncells, sizeof *t->cells, cell_cmp);
}

int req_write_table(FILE *f, const struct req_table *t)
{
	int wi = 8, wt = 6;   /* columns as wide as the longest name, within bounds */
	char id[41], tier[49]; /* identities come from clients: escaped for the terminal */
	for (size_t k = 0; k < t->ncells; k++) {
		const struct req_cell *c = &t->cells[k];
		int li = (int)fp_ctl_escape(id, sizeof id, c->identity, strlen(c->identity));
		int lt = (int)fp_ctl_escape(tier, sizeof tier, c->tier, strlen(c->tier));
		wi = li > wi ? li : wi;
		wt = lt > wt ? lt : wt;
	}
	fprintf(f, "%-*s  %-*s %8s %10s %10s %10s %10s %10s\n", wi, "IDENTITY", wt, "TIER", "COUNT", "MEAN ms",
		"P50 ms", "P90 ms", "P99 ms", "MAX ms");
	for (size_t k = 0; k < t->ncells; k++) {
		const struct req_cell *c = &t->cells[k];
		const struct hist *h = &c->total;
		if (!h->count)
			continue;
		fp_ctl_escape(id, sizeof id, c->identity, strlen(c->identity));
		fp_ctl_escape(tier, sizeof tier, c->tier, strlen(c->tier));
		fprintf(f, "%-*s  %-*s %8llu %10.3f %10.3f %10.3f %10.3f %10.3f\n", wi, id, wt, tier,
			(unsigned long long)h->count, (double)h->sum / (double)h->count / 1000.0,
			hist_quantile(h, 0.50) / 1000.0, hist_quantile(h, 0.90) / 1000.0,
			hist_quantile(h, 0.99) / 1000.0, h->max / 1000.0);
	}
	req_write_coverage(f, t);
	return ferror(f) ? -1 : 0;
}

/* ", N what" when N is not 0. */
static void part(FILE *f, uint64_t n, const char *what)
{
	if (n)
		fprintf(f, ", %llu %s", (unsigned long long)n, what);
}

/* Every entry call the node made, and where each went: the parts add up
 * to the node's count. What the tracer heard of (entry_msgs) ended as a
 * request, nested, dropped or in flight; the rest of the count came while
 * the entry pattern was off. */
static void write_calls(FILE *f, const struct req_table *t)
{
	uint64_t dropped = t->dropped + t->queued;
	uint64_t heard = t->requests + t->nested + dropped + t->in_flight;
	uint64_t off = t->calls >= t->entry_msgs ? t->calls - t->entry_msgs : 0;
	/* the pauses' counts less the calls in them that were traced after all */
	uint64_t paused = t->untraced >= t->overlap ? t->untraced - t->overlap : 0;
	uint64_t outside = off >= paused ? off - paused : 0;
	fprintf(f, "# %llu entry calls on the node (its call_count): %llu in the table",
		(unsigned long long)t->calls, (unsigned long long)t->requests);
	if (t->id_fun_failed)
		fprintf(f, " (%llu of them _identity_fun_failed)", (unsigned long long)t->id_fun_failed);
	part(f, off - outside, "not traced while the circuit breaker paused tracing");
	if (paused > off) /* calls in flight when a pause began: counted in it, and traced */
		fprintf(f, " (the pauses' counts %llu more: calls in flight at a pause's start, traced too)",
			(unsigned long long)(paused - off));
	if (dropped)
		fprintf(f, ", %llu dropped when it tripped (%llu unread in the tracer's queue, %llu requests in flight)",
			(unsigned long long)dropped, (unsigned long long)t->queued, (unsigned long long)t->dropped);
	part(f, t->in_flight, "still running at the end");
	part(f, t->nested, "inside a request of the same process (counted with it)");
	part(f, outside, t->sample_permille && t->sample_permille < 1000
				 ? "not traced outside the sample, or while the entry pattern was switched"
				 : "not traced while the entry pattern was switched (at the stop, or in flight at a pause's end)");
	/* never expected: said rather than lost */
	part(f, t->entry_msgs > heard ? t->entry_msgs - heard : 0, "heard of and counted nowhere (please report it)");
	part(f, t->entry_msgs > t->calls ? t->entry_msgs - t->calls : 0,
	     "traced beyond the node's count (a module loaded again restarted it)");
	fprintf(f, "%s\n", t->cut_short ? " (up to the tracer's last window: the run did not end normally)" : "");
}

/* Each tier whose rows are short of _total, or that ran outside requests:
 * how many requests it is in, and what is known of the others. At most
 * 10 lines (--full makes a tier of every function). */
static void write_tiers_short(FILE *f, const struct req_table *t)
{
	uint64_t total = 0;
	size_t said = 0, more = 0;
	for (size_t k = 0; k < t->ncells; k++)
		if (strcmp(t->cells[k].tier, "_total") == 0)
			total += t->cells[k].total.count;
	/* the tiers, in the table's order, then those only outside requests */
	for (size_t k = 0; k < t->ncells + t->ntier_out; k++) {
		const char *tier = k < t->ncells ? t->cells[k].tier : t->tier_out[k - t->ncells].tier;
		uint64_t in = 0, after = 0, none = 0;
		int first = 1;
		if (strcmp(tier, "_total") == 0)
			continue;
		for (size_t j = 0; j < k && j < t->ncells + t->ntier_out; j++)
			if (strcmp(j < t->ncells ? t->cells[j].tier : t->tier_out[j - t->ncells].tier, tier) == 0)
				first = 0;
		if (!first)
			continue;
		for (size_t j = 0; j < t->ncells; j++)
			if (strcmp(t->cells[j].tier, tier) == 0)
				in += t->cells[j].total.count;
		for (size_t j = 0; j < t->ntier_out; j++)
			if (strcmp(t->tier_out[j].tier, tier) == 0) {
				after = t->tier_out[j].after_end;
				none = t->tier_out[j].no_request;
			}
		if (in >= total && !after && !none)
			continue;
		if (said == 10) {
			more++;
			continue;
		}
		char name[49];
		fp_ctl_escape(name, sizeof name, tier, strlen(tier));
		fprintf(f, "# tier %s: in %llu of %llu requests", name, (unsigned long long)in,
			(unsigned long long)total);
		if (after)
			fprintf(f, "; %llu of its calls returned after their request had ended or was dropped (in no row)",
				(unsigned long long)after);
		if (none)
			fprintf(f, "; %llu ran under the token of no recent request (an older one's, or the application's own: in no row)",
				(unsigned long long)none);
		if (in < total && total - in > after)
			fprintf(f, "; the other requests did not call it, or had lost the request's token before");
		fputc('\n', f);
		said++;
	}
	if (more)
		fprintf(f, "# and %zu more tiers short of _total\n", more);
}

void req_write_coverage(FILE *f, const struct req_table *t)
{
	if (t->pauses || t->paused_us) {
		double run = (double)t->run_us, paused = (double)t->paused_us;
		if (run > 0 && paused > run)
			paused = run;
		if (run > 0)
			fprintf(f, "# covers %.1f %% of the run: the circuit breaker paused tracing %llu time(s), %.1f s of %.1f s",
				100.0 * (run - paused) / run, (unsigned long long)t->pauses, paused / 1e6, run / 1e6);
		else
			fprintf(f, "# covers part of the run: the circuit breaker paused tracing %llu time(s), %.1f s",
				(unsigned long long)t->pauses, paused / 1e6);
		fprintf(f, "%s\n", t->paused ? " (paused at the end)" : "");
	}
	write_calls(f, t);
	write_tiers_short(f, t);
	if (t->sample_permille && t->sample_permille < 1000)
		fprintf(f, "# a sample: requests started only in the first %u ms of each second (--sample-requests %.3g)\n",
			t->sample_permille, t->sample_permille / 1000.0);
	if (t->id_fun_failed)
		fprintf(f, "# %llu requests named _identity_fun_failed: --identity-fun crashed or took more than 100 ms on them\n",
			(unsigned long long)t->id_fun_failed);
}

/* RFC 3339 in UTC, milliseconds. */
static void json_time(FILE *f, int64_t us)
{
	time_t sec = (time_t)(us / 1000000);
	struct tm tm;
	char buf[32];
	gmtime_r(&sec, &tm);
	strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(f, "\"%s.%03dZ\"", buf, (int)(us % 1000000 / 1000));
}

/* The window's own figures, ending a --stats line. */
static void window_fields(FILE *f, const struct req_table *t)
{
	fprintf(f, ",\"paused_us\":%llu,\"untraced_calls\":%llu,\"identity_fun_failed\":%llu,\"entry_calls\":%llu,\"dropped_calls\":%llu}\n",
		(unsigned long long)t->win_paused_us, (unsigned long long)t->win_untraced,
		(unsigned long long)t->win_id_fun_failed, (unsigned long long)t->win_calls,
		(unsigned long long)t->win_dropped);
}

int req_write_stats(FILE *f, const struct req_table *t, int64_t window_end_us)
{
	size_t rows = 0;
	for (size_t k = 0; k < t->ncells; k++) {
		const struct req_cell *c = &t->cells[k];
		const struct hist *h = &c->window;
		if (c->stamp != t->stamp || !h->count)
			continue;
		fputs("{\"window_end\":", f);
		json_time(f, window_end_us);
		fputs(",\"identity\":", f);
		fp_json_string(f, c->identity);
		fputs(",\"tier\":", f);
		fp_json_string(f, c->tier);
		fprintf(f, ",\"count\":%llu,\"sum_us\":%llu,\"mean_us\":%llu,\"p50_us\":%llu,\"p90_us\":%llu,\"p99_us\":%llu,\"max_us\":%llu",
			(unsigned long long)h->count, (unsigned long long)h->sum,
			(unsigned long long)(h->sum / h->count), (unsigned long long)hist_quantile(h, 0.50),
			(unsigned long long)hist_quantile(h, 0.90), (unsigned long long)hist_quantile(h, 0.99),
			(unsigned long long)h->max);
		window_fields(f, t);
		rows++;
	}
	if (!rows && t->win_paused_us) {
		fputs("{\"window_end\":", f);
		json_time(f, window_end_us);
		fputs(",\"identity\":\"_paused\",\"tier\":\"_total\",\"count\":0", f);
		window_fields(f, t);
	}
	return fflush(f) != 0 || ferror(f) ? -1 : 0;
}

int req_write_slow(FILE *f, const struct req_window *w)
{
	for (size_t k = 0; k < w->nslow; k++) {
		const struct req_slow *s = &w->slow[k];
		fputs("{\"window_end\":", f);
		json_time(f, w->end_us);
		fputs(",\"identity\":", f);
		fp_json_string(f, s->identity);
		fprintf(f, ",\"total_us\":%llu,\"tiers\":{", (unsigned long long)s->total_us);
		for (size_t t = 0; t < s->ntiers; t++) {
			if (t)
				fputc(',', f);
			fp_json_string(f, s->tiers[t].tier);
			fprintf(f, ":%llu", (unsigned long long)s->tiers[t].us);
		}
		fputs("},\"pids\":[", f);
		for (size_t p = 0; p < s->npids; p++) {
			if (p)
				fputc(',', f);
			fp_json_string(f, s->pids[p]);
		}
		fputs("]}\n", f);
	}
	return fflush(f) != 0 || ferror(f) ? -1 : 0;
}

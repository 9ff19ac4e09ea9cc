/*
 * requests_decode.c - the messages of the requests tracer
 * (flameprof_requests.erl) into struct req_msg. A message is first walked
 * by node_term_check() with its length, then decoded with ei; every size is
 * checked before it is used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ei.h>
#include "requests.h"
#include "../tracer/tracer_proto.h"

#define PROTO 1
#define MAX_ITEMS 1000000

/* A list's header; *items a fresh zeroed array of n elements of size sz. */
static int get_list(struct tracer_cursor *c, int *n, void **items, size_t sz)
{
	if (ei_decode_list_header(c->buf, &c->i, n) < 0 || *n < 0 || *n > MAX_ITEMS)
		return tracer_tc_fail(c, "expected a list at byte %d", c->i);
	*items = NULL;
	if (*n > 0 && !(*items = calloc((size_t)*n, sz)))
		return -2;
	return 0;
}

static int end_list(struct tracer_cursor *c, int n)
{
	int t;
	if (n > 0 && (ei_decode_list_header(c->buf, &c->i, &t) < 0 || t != 0))
		return tracer_tc_fail(c, "list not ended at byte %d", c->i);
	return 0;
}

/* {Identity, Tier, Count, SumUs, MaxUs, [{Bucket, N}]} */
static int get_row(struct tracer_cursor *c, struct req_row *row)
{
	int r, n;
	void *items;
	if (tracer_tc_tuple(c, 6) < 0)
		return -1;
	if ((r = tracer_tc_client_text(c, &row->identity)) < 0 || (r = tracer_tc_client_text(c, &row->tier)) < 0 ||
	    (r = tracer_tc_u64(c, &row->count)) < 0 || (r = tracer_tc_u64(c, &row->sum_us)) < 0 ||
	    (r = tracer_tc_u64(c, &row->max_us)) < 0 || (r = get_list(c, &n, &items, sizeof *row->buckets)) < 0)
		return r;
	row->buckets = items;
	for (int k = 0; k < n; k++) {
		uint64_t b = 0;
		row->nbuckets++;
		if (tracer_tc_tuple(c, 2) < 0 || tracer_tc_u64(c, &b) < 0 || tracer_tc_u64(c, &row->buckets[k].n) < 0)
			return -1;
		if (b > 1000000)
			return tracer_tc_fail(c, "bucket %llu out of range", (unsigned long long)b);
		row->buckets[k].index = (unsigned)b;
	}
	return end_list(c, n);
}

/* {Identity, TotalUs, [{Tier, Us}], [Pid]} */
static int get_slow(struct tracer_cursor *c, struct req_slow *s)
{
	int r, n;
	void *items;
	if (tracer_tc_tuple(c, 4) < 0)
		return -1;
	if ((r = tracer_tc_client_text(c, &s->identity)) < 0 || (r = tracer_tc_u64(c, &s->total_us)) < 0 ||
	    (r = get_list(c, &n, &items, sizeof *s->tiers)) < 0)
		return r;
	s->tiers = items;
	for (int k = 0; k < n; k++) {
		s->ntiers++;
		if (tracer_tc_tuple(c, 2) < 0)
			return -1;
		if ((r = tracer_tc_client_text(c, &s->tiers[k].tier)) < 0 || (r = tracer_tc_u64(c, &s->tiers[k].us)) < 0)
			return r;
	}
	if (end_list(c, n) < 0 || (r = get_list(c, &n, &items, sizeof *s->pids)) < 0)
		return r < 0 ? r : -1;
	s->pids = items;
	for (int k = 0; k < n; k++) {
		s->npids++;
		if ((r = tracer_tc_text(c, &s->pids[k])) < 0)
			return r;
	}
	return end_list(c, n);
}

static int get_window(struct tracer_cursor *c, struct req_window *w)
{
	long long end;
	int r, n;
	void *items;
	uint64_t paused = 0;
	if (ei_decode_longlong(c->buf, &c->i, &end) < 0)
		return tracer_tc_fail(c, "expected the window's end at byte %d", c->i);
	w->end_us = end;
	if ((r = get_list(c, &n, &items, sizeof *w->rows)) < 0)
		return r;
	w->rows = items;
	for (int k = 0; k < n; k++) {
		w->nrows++;
		if ((r = get_row(c, &w->rows[k])) < 0)
			return r;
	}
	if (end_list(c, n) < 0 || (r = get_list(c, &n, &items, sizeof *w->slow)) < 0)
		return r < 0 ? r : -1;
	w->slow = items;
	for (int k = 0; k < n; k++) {
		w->nslow++;
		if ((r = get_slow(c, &w->slow[k])) < 0)
			return r;
	}
	if (end_list(c, n) < 0 || tracer_tc_tuple(c, 17) < 0 || tracer_tc_u64(c, &w->requests) < 0 ||
	    tracer_tc_u64(c, &w->stray) < 0 || tracer_tc_u64(c, &w->pauses) < 0 || tracer_tc_u64(c, &paused) < 0 ||
	    tracer_tc_u64(c, &w->slow_left_out) < 0 || tracer_tc_u64(c, &w->dropped) < 0)
		return -1;
	w->paused = paused != 0;
	if ((r = get_list(c, &n, &items, sizeof *w->reloaded)) < 0)
		return r;
	w->reloaded = items;
	for (int k = 0; k < n; k++) {
		w->nreloaded++;
		if ((r = tracer_tc_text(c, &w->reloaded[k])) < 0)
			return r;
	}
	if (end_list(c, n) < 0 || tracer_tc_u64(c, &w->id_fun_failed) < 0 || tracer_tc_u64(c, &w->paused_us) < 0 ||
	    tracer_tc_u64(c, &w->untraced) < 0 || tracer_tc_u64(c, &w->calls) < 0 ||
	    tracer_tc_u64(c, &w->entry_msgs) < 0 || tracer_tc_u64(c, &w->nested) < 0 ||
	    tracer_tc_u64(c, &w->queued) < 0 || tracer_tc_u64(c, &w->in_flight) < 0)
		return -1;
	/* [{Tier, AfterEnd, NoRequest}] */
	if ((r = get_list(c, &n, &items, sizeof *w->tier_out)) < 0)
		return r;
	w->tier_out = items;
	for (int k = 0; k < n; k++) {
		struct req_tier_out *o = &w->tier_out[k];
		w->ntier_out++;
		if (tracer_tc_tuple(c, 3) < 0)
			return -1;
		if ((r = tracer_tc_client_text(c, &o->tier)) < 0)
			return r;
		if (tracer_tc_u64(c, &o->after_end) < 0 || tracer_tc_u64(c, &o->no_request) < 0)
			return -1;
	}
	if (end_list(c, n) < 0 || tracer_tc_u64(c, &w->overlap) < 0)
		return -1;
	return 0;
}

void req_window_free(struct req_window *w)
{
	for (size_t k = 0; k < w->nrows; k++) {
		free(w->rows[k].identity);
		free(w->rows[k].tier);
		free(w->rows[k].buckets);
	}
	for (size_t k = 0; k < w->nslow; k++) {
		struct req_slow *s = &w->slow[k];
		free(s->identity);
		for (size_t t = 0; t < s->ntiers; t++)
			free(s->tiers[t].tier);
		for (size_t p = 0; p < s->npids; p++)
			free(s->pids[p]);
		free(s->tiers);
		free(s->pids);
	}
	for (size_t k = 0; k < w->nreloaded; k++)
		free(w->reloaded[k]);
	for (size_t k = 0; k < w->ntier_out; k++)
		free(w->tier_out[k].tier);
	free(w->tier_out);
	free(w->rows);
	free(w->slow);
	free(w->reloaded);
	memset(w, 0, sizeof *w);
}

static int read_window(struct tracer_cursor *c, void *out)
{
	struct req_msg *m = out;
	int r = get_window(c, &m->window);
	if (r < 0)
		req_window_free(&m->window);
	return r;
}

static int read_stopped(struct tracer_cursor *c, void *out)
{
	struct req_msg *m = out;
	return tracer_tc_u64(c, &m->tokens_cleared) < 0 || tracer_tc_u64(c, &m->tokens_left) < 0 ? -1 : 0;
}

_Static_assert((int)REQ_MSG_OTHER == TRACER_OTHER && (int)REQ_MSG_STARTED == TRACER_STARTED &&
		       (int)REQ_MSG_ERROR == TRACER_ERROR,
	       "the first words' codes are tracer_decode()'s");
static void drop_window(void *out)
{
	req_window_free(&((struct req_msg *)out)->window);
}

static const struct tracer_body bodies[] = {
	{ "fp_req_window", 6, REQ_MSG_WINDOW, read_window, drop_window, 0 },
	{ "fp_req_stopped", 4, REQ_MSG_STOPPED, read_stopped, NULL, 1 },
};
const struct tracer_proto req_proto = { "fp_req_", PROTO, bodies, sizeof bodies / sizeof bodies[0],
					sizeof(struct req_msg) };

int req_decode(const char *buf, size_t len, struct req_msg *out, char *err, size_t errlen)
{
	struct tracer_first f = { &out->nentry, &out->ntier, out->reason, out->detail, sizeof out->reason,
				   sizeof out->detail };
	memset(out, 0, sizeof *out);
	return tracer_decode(&req_proto, buf, len, &f, out, err, errlen);
}

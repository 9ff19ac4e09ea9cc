/*
 * rep_pprof.c - events summed per (trie leaf, process, node), with the
 * sample count and every metric's delta, for the pprof writer
 * (rep_pprof_write.c).
 */
#include "rep_pprof.h"

#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/hash.h"

struct agg_key {
	uint32_t leaf, pid, serial, node;
};

struct rep_pprof_s {
	/* metric columns: names as written after "metric_" */
	char *cols[REP_MAX_METRICS];
	size_t col_len[REP_MAX_METRICS], ncols;
	/* node names, index = node id; nodes[0] = "" (unknown) */
	char **nodes;
	size_t nnodes, nodes_cap, cur_node;
	/* samples: keys, counts, and ncols sums each (stride ncols) */
	struct agg_key *keys;
	uint64_t *count;
	int64_t *sums;
	size_t n, cap;
	uint32_t *slots; /* open addressing: sample index + 1, 0 empty */
	size_t nslots;
	int64_t first_us, last_us; /* of the events summed */
	int have_time;
};

rep_pprof *rep_pprof_create(void)
{
	rep_pprof *p = calloc(1, sizeof *p);
	if (!p || rep_pprof_set_node(p, "") != 0) {
		rep_pprof_free(p);
		return NULL;
	}
	return p;
}

void rep_pprof_free(rep_pprof *p)
{
	size_t i;
	if (!p)
		return;
	for (i = 0; i < p->ncols; i++)
		free(p->cols[i]);
	for (i = 0; i < p->nnodes; i++)
		free(p->nodes[i]);
	free(p->nodes);
	free(p->keys);
	free(p->count);
	free(p->sums);
	free(p->slots);
	free(p);
}

int rep_pprof_set_node(rep_pprof *p, const char *node)
{
	char **nn;
	size_t i;
	if (!node)
		node = "";
	for (i = 0; i < p->nnodes; i++)
		if (strcmp(p->nodes[i], node) == 0) {
			p->cur_node = i;
			return 0;
		}
	if (fp_grow((void **)&p->nodes, &p->nodes_cap, p->nnodes + 1, sizeof *p->nodes, 4) != 0)
		return -1;
	nn = p->nodes;
	if (!(nn[p->nnodes] = strdup(node)))
		return -1;
	p->cur_node = p->nnodes++;
	return 0;
}

/* The column of a metric name, added if new (the sums then get a wider
 * stride). @return the column, or -1 (too many, or no memory). */
static long column(rep_pprof *p, const char *name, size_t len, size_t hint)
{
	size_t i;
	if (hint < p->ncols && p->col_len[hint] == len && memcmp(p->cols[hint], name, len) == 0)
		return (long)hint;
	for (i = 0; i < p->ncols; i++)
		if (p->col_len[i] == len && memcmp(p->cols[i], name, len) == 0)
			return (long)i;
	if (p->ncols == REP_MAX_METRICS)
		return -1;
	if (p->n > 0) { /* a metric that appears late: widen every row */
		int64_t *ns = calloc(p->cap * (p->ncols + 1), sizeof *ns);
		if (!ns)
			return -1;
		for (i = 0; i < p->n; i++)
			memcpy(ns + i * (p->ncols + 1), p->sums + i * p->ncols, p->ncols * sizeof *ns);
		free(p->sums);
		p->sums = ns;
	} else if (p->cap) {
		int64_t *ns = realloc(p->sums, p->cap * (p->ncols + 1) * sizeof *ns);
		if (!ns)
			return -1;
		p->sums = ns;
	}
	if (!(p->cols[p->ncols] = malloc(len + 1)))
		return -1;
	memcpy(p->cols[p->ncols], name, len);
	p->cols[p->ncols][len] = '\0';
	p->col_len[p->ncols] = len;
	return (long)p->ncols++;
}

static int grow(rep_pprof *p)
{
	size_t nc = p->cap ? p->cap * 2 : 1024, i;
	struct agg_key *nk = realloc(p->keys, nc * sizeof *nk);
	uint64_t *cn;
	int64_t *ns;
	uint32_t *sl;
	if (!nk)
		return -1;
	p->keys = nk;
	if (!(cn = realloc(p->count, nc * sizeof *cn)))
		return -1;
	p->count = cn;
	if (!(ns = realloc(p->sums, nc * (p->ncols ? p->ncols : 1) * sizeof *ns)))
		return -1;
	p->sums = ns;
	if (!(sl = calloc(nc * 2, sizeof *sl)))
		return -1;
	for (i = 0; i < p->n; i++) {
		size_t j = fp_hash32(0, &p->keys[i], sizeof p->keys[i]) & (nc * 2 - 1);
		while (sl[j])
			j = (j + 1) & (nc * 2 - 1);
		sl[j] = (uint32_t)i + 1;
	}
	free(p->slots);
	p->slots = sl;
	p->nslots = nc * 2;
	p->cap = nc;
	return 0;
}

int rep_pprof_kept(void *arg, const struct rep_kept *ev)
{
	rep_pprof *p = arg;
	struct agg_key key = { ev->leaf, ev->pid, ev->serial, (uint32_t)p->cur_node };
	long cols[REP_MAX_METRICS];
	size_t i, j;
	for (i = 0; i < ev->nmetrics && i < REP_MAX_METRICS; i++)
		if ((cols[i] = column(p, ev->names[i], ev->lens[i], i)) < 0 &&
		    p->ncols < REP_MAX_METRICS)
			return -1; /* out of memory; past 32 metrics the rest are left out */
	if (p->n == p->cap && (p->n >= UINT32_MAX - 1 || grow(p) != 0))
		return -1;
	j = fp_hash32(0, &key, sizeof key) & (p->nslots - 1);
	while (p->slots[j] && memcmp(&p->keys[p->slots[j] - 1], &key, sizeof key) != 0)
		j = (j + 1) & (p->nslots - 1);
	if (!p->slots[j]) {
		p->keys[p->n] = key;
		p->count[p->n] = 0;
		memset(p->sums + p->n * p->ncols, 0, p->ncols * sizeof *p->sums);
		p->slots[j] = (uint32_t)++p->n;
	}
	j = p->slots[j] - 1;
	p->count[j]++;
	for (i = 0; i < ev->nmetrics && i < REP_MAX_METRICS; i++)
		if (cols[i] >= 0) {
			int64_t *s = &p->sums[j * p->ncols + (size_t)cols[i]];
			*s = rep_add_sat(*s, ev->deltas[i]);
		}
	if (!p->have_time) {
		p->have_time = 1;
		p->first_us = p->last_us = ev->time_us;
	}
	if (ev->time_us < p->first_us)
		p->first_us = ev->time_us;
	if (ev->time_us > p->last_us)
		p->last_us = ev->time_us;
	return 0;
}

size_t rep_pprof_nsamples(const rep_pprof *p)
{
	return p->n;
}

void rep_pprof_get(const rep_pprof *p, size_t i, struct rep_pprof_sample *out)
{
	out->leaf = p->keys[i].leaf;
	out->pid = p->keys[i].pid;
	out->serial = p->keys[i].serial;
	out->node = p->nodes[p->keys[i].node];
	out->count = p->count[i];
	out->sums = p->sums + i * p->ncols;
}

size_t rep_pprof_ncolumns(const rep_pprof *p)
{
	return p->ncols;
}

const char *rep_pprof_column(const rep_pprof *p, size_t k)
{
	return p->cols[k];
}

void rep_pprof_times(const rep_pprof *p, int64_t *first_us, int64_t *last_us)
{
	*first_us = p->have_time ? p->first_us : 0;
	*last_us = p->have_time ? p->last_us : 0;
}

/*
 * rep_collect.c - the hot path: one call per input line.
 *
 * Per event: one parse of the event line, one hash lookup per frame line
 * (rep_frames), one whole-stack lookup (rep_trie), one heatmap cell. The
 * vectors below grow only when a longer stack than any before arrives, so
 * nothing is allocated per event.
 */
#include "rep_collect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rep_parse.h"

#define MARK_STATUS_OK 1u

/* memmem is a GNU extension; this runs once per distinct category frame. */
static int contains(const char *h, size_t hl, const char *n, size_t nl)
{
	for (size_t i = 0; i + nl <= hl; i++)
		if (memcmp(h + i, n, nl) == 0)
			return 1;
	return 0;
}
#define MARK_CAT(k) (2u << (k))

struct rep_collect_s {
	const struct rep_config *cfg;
	rep_frames *frames;
	rep_trie *trie;
	uint32_t negative_id;
	/* weight */
	int weighted, use_delta, resolved;
	char metric[128];
	size_t metric_len;
	char weight_name[160];
	/* the event being read */
	int in_event, keep;
	int64_t time_us, w;
	uint32_t status_id, catmask, need_mask;
	uint32_t *ids, *path;
	size_t nids, capids;
	/* heatmap */
	uint64_t *heat_n;
	int64_t *heat_w;
	size_t heat_cols, heat_cap;
	uint64_t before_t0;
	int64_t from_us, to_us; /* absolute, resolved at the first event */
	int have_t0;
	struct rep_stats st;
	char err[512];
};

rep_collect *rep_collect_create(const struct rep_config *cfg, enum rep_c_err *err, char *detail,
				size_t cap)
{
	rep_collect *c = calloc(1, sizeof *c);
	*err = REP_C_NOMEM;
	if (!c) {
		snprintf(detail, cap, "out of memory");
		return NULL;
	}
	c->cfg = cfg;
	c->frames = rep_frames_create();
	c->trie = rep_trie_create();
	c->capids = 256;
	c->ids = malloc(c->capids * sizeof *c->ids);
	c->path = malloc((c->capids + 2) * sizeof *c->path);
	if (!c->frames || !c->trie || !c->ids || !c->path) {
		snprintf(detail, cap, "out of memory");
		rep_collect_free(c);
		return NULL;
	}
	c->negative_id = rep_frames_intern(c->frames, REP_K_NEGATIVE, "negative", 8, "", 0, NULL);
	if (c->negative_id == REP_NO_FRAME) {
		snprintf(detail, cap, "out of memory");
		rep_collect_free(c);
		return NULL;
	}
	c->need_mask = 0;
	for (size_t k = 0; k < cfg->ncategories; k++)
		c->need_mask |= MARK_CAT(k);
	if (cfg->weight && strcmp(cfg->weight, "samples") != 0) {
		size_t wl = strlen(cfg->weight);
		if (wl >= sizeof c->metric) {
			*err = REP_C_USAGE;
			snprintf(detail, cap, "the metric name is too long");
			rep_collect_free(c);
			return NULL;
		}
		c->weighted = 1;
	}
	snprintf(c->weight_name, sizeof c->weight_name, "samples");
	c->st.first_us = c->st.last_us = 0;
	*err = REP_C_OK;
	return c;
}

void rep_collect_free(rep_collect *c)
{
	if (!c)
		return;
	rep_frames_free(c->frames);
	rep_trie_free(c->trie);
	free(c->ids);
	free(c->path);
	free(c->heat_n);
	free(c->heat_w);
	free(c);
}

/* ==== Weight: which metric, resolved on the first event ==== */

static int names_match(const char *have, size_t hl, const char *want, size_t wl)
{
	for (size_t i = 0; i < hl; i++) /* names go into pictures and scripts: keep them plain */
		if (!((have[i] >= 'a' && have[i] <= 'z') || (have[i] >= 'A' && have[i] <= 'Z') ||
		      (have[i] >= '0' && have[i] <= '9') || have[i] == '_' || have[i] == '.'))
			return 0;
	if (hl == wl && memcmp(have, want, wl) == 0)
		return 1;
	/* flameprof writes metric_erlang_<name>; accept the short <name>. */
	return hl == wl + 7 && memcmp(have, "erlang_", 7) == 0 && memcmp(have + 7, want, wl) == 0;
}

static int resolve_metric(rep_collect *c, const char *rest, size_t len)
{
	const char *want = c->cfg->weight, *nm;
	size_t wl = strlen(want), pos = 0, nl;
	char known[256] = "";
	size_t kl = 0;
	int pass;
	for (pass = 0; pass < 2; pass++) {
		size_t ml = wl;
		if (pass == 1) {
			if (wl <= 6 || strcmp(want + wl - 6, "_delta") != 0)
				break;
			ml = wl - 6;
		}
		pos = 0;
		while (rep_next_metric(rest, len, &pos, &nm, &nl)) {
			if (names_match(nm, nl, want, ml) && nl < sizeof c->metric) {
				memcpy(c->metric, nm, nl);
				c->metric[nl] = '\0';
				c->metric_len = nl;
				c->use_delta = pass == 1;
				c->resolved = 1;
				snprintf(c->weight_name, sizeof c->weight_name, "%s%s",
					 c->metric + (nl > 7 && memcmp(nm, "erlang_", 7) == 0 ? 7 : 0),
					 c->use_delta ? "_delta" : "");
				return 0;
			}
		}
	}
	pos = 0;
	while (rep_next_metric(rest, len, &pos, &nm, &nl) && kl + nl + 3 < sizeof known) {
		if (nl > 7 && memcmp(nm, "erlang_", 7) == 0) {
			nm += 7;
			nl -= 7;
		}
		kl += (size_t)snprintf(known + kl, sizeof known - kl, "%s%.*s", kl ? ", " : "",
				       (int)nl, nm);
	}
	if (kl == 0)
		snprintf(c->err, sizeof c->err,
			 "the events carry no metrics (plain perf script?); weight by samples");
	else
		snprintf(c->err, sizeof c->err,
			 "no metric '%s' on the events; use samples or one of: %s[_delta]", want,
			 known);
	return REP_C_METRIC;
}

/* ==== Events ==== */

static int pid_ok(const struct rep_config *cfg, const struct rep_event_line *ev)
{
	size_t i;
	if (cfg->npids == 0)
		return 1;
	for (i = 0; i < cfg->npids; i++)
		if (cfg->pids[i].pid == ev->pid &&
		    (cfg->pids[i].any_serial || cfg->pids[i].serial == ev->tid))
			return 1;
	return 0;
}

static int status_selected(const char *list, const char *s, size_t len)
{
	const char *p = list;
	if (!list)
		return 1;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == len && memcmp(p, s, len) == 0)
			return 1;
		p += l + (e ? 1 : 0);
	}
	return 0;
}

static int heat_add(rep_collect *c, int64_t t_us, int64_t w)
{
	int64_t rel = t_us - c->st.t0_s * 1000000;
	size_t col, row;
	if (rel < 0) {
		c->before_t0++;
		return 0;
	}
	col = (size_t)(rel / 1000000);
	row = (size_t)(rel % 1000000) / (1000000 / REP_HEAT_ROWS);
	if (col >= c->heat_cap) {
		size_t nc = c->heat_cap ? c->heat_cap : 64, i;
		uint64_t *nn;
		int64_t *nw;
		while (nc <= col)
			nc *= 2;
		if (nc > ((size_t)1 << 26)) /* over two years of seconds: not a capture */
			return 0;
		nn = realloc(c->heat_n, nc * REP_HEAT_ROWS * sizeof *nn);
		if (!nn)
			return REP_C_NOMEM;
		c->heat_n = nn;
		nw = realloc(c->heat_w, nc * REP_HEAT_ROWS * sizeof *nw);
		if (!nw)
			return REP_C_NOMEM;
		c->heat_w = nw;
		for (i = c->heat_cap * REP_HEAT_ROWS; i < nc * REP_HEAT_ROWS; i++) {
			nn[i] = 0;
			nw[i] = 0;
		}
		c->heat_cap = nc;
	}
	if (col >= c->heat_cols)
		c->heat_cols = col + 1;
	c->heat_n[col * REP_HEAT_ROWS + row]++;
	c->heat_w[col * REP_HEAT_ROWS + row] += w;
	return 0;
}

static int commit(rep_collect *c)
{
	size_t n = 0, i;
	int64_t w = c->w;
	int rc;
	if (!c->in_event)
		return 0;
	c->in_event = 0;
	if (!c->keep)
		return 0;
	if ((c->catmask & c->need_mask) != c->need_mask) {
		c->st.filtered++;
		return 0;
	}
	if ((rc = heat_add(c, c->time_us, w)) < 0)
		return rc;
	if (c->time_us < c->from_us || c->time_us >= c->to_us) {
		c->st.out_of_range++;
		return 0;
	}
	if (w < 0) {
		c->path[n++] = c->negative_id;
		w = -w;
		c->st.negative++;
	}
	c->path[n++] = c->status_id;
	for (i = c->nids; i > 0; i--)
		c->path[n++] = c->ids[i - 1];
	if (rep_trie_add(c->trie, c->path, n, w) != 0)
		return REP_C_NOMEM;
	c->st.used++;
	return 0;
}

static int64_t cut_time(const struct rep_collect_s *c, int abs, int64_t v)
{
	return abs ? v : c->st.t0_s * 1000000 + v;
}

static int event_line(rep_collect *c, const char *s, size_t len)
{
	struct rep_event_line ev;
	int is_new, rc;
	uint32_t id;
	if (rep_parse_event(s, len, &ev) != 0) {
		c->st.bad_lines++;
		return 0;
	}
	c->st.events++;
	if (!c->have_t0) {
		c->have_t0 = 1;
		c->st.first_us = ev.time_us;
		c->st.t0_s = ev.time_us / 1000000;
		c->from_us = c->cfg->has_from ? cut_time(c, c->cfg->from_abs, c->cfg->from_us)
					      : INT64_MIN;
		c->to_us = c->cfg->has_to ? cut_time(c, c->cfg->to_abs, c->cfg->to_us) : INT64_MAX;
	}
	if (ev.time_us > c->st.last_us || c->st.events == 1)
		c->st.last_us = ev.time_us;
	c->in_event = 1;
	c->nids = 0;
	c->catmask = 0;
	c->time_us = ev.time_us;
	c->w = 1;
	id = rep_frames_intern(c->frames, REP_K_STATUS, ev.comm, ev.comm_len, "", 0, &is_new);
	if (id == REP_NO_FRAME)
		return REP_C_NOMEM;
	if (is_new && status_selected(c->cfg->status, ev.comm, ev.comm_len))
		rep_frames_set_mark(c->frames, id, MARK_STATUS_OK);
	c->status_id = id;
	c->keep = (rep_frames_mark(c->frames, id) & MARK_STATUS_OK) && pid_ok(c->cfg, &ev);
	if (!c->keep) {
		c->st.filtered++;
		return 0;
	}
	if (c->weighted) {
		int64_t v, d;
		if (!c->resolved && (rc = resolve_metric(c, ev.rest, ev.rest_len)) != 0)
			return rc;
		if (rep_find_metric(ev.rest, ev.rest_len, c->metric, c->metric_len, &v, &d)) {
			c->w = c->use_delta ? d : v;
		} else {
			c->w = 0;
			c->st.no_metric++;
		}
	}
	return 0;
}

static int frame_line(rep_collect *c, const char *s, size_t len)
{
	struct rep_frame_line fr;
	uint32_t id;
	int is_new;
	if (!c->in_event || !c->keep)
		return 0;
	if (rep_parse_frame(s, len, &fr) != 0) {
		c->st.bad_lines++;
		return 0;
	}
	id = rep_frames_intern(c->frames, fr.is_category ? REP_K_CATEGORY : REP_K_CODE, fr.sym,
			       fr.sym_len, fr.dso, fr.dso_len, &is_new);
	if (id == REP_NO_FRAME)
		return REP_C_NOMEM;
	if (is_new && fr.is_category && c->cfg->ncategories) {
		struct rep_frame_info fi;
		uint32_t m = 0;
		size_t k;
		rep_frames_get(c->frames, id, &fi);
		for (k = 0; k < c->cfg->ncategories; k++) {
			const char *want = c->cfg->categories[k];
			size_t wl = strlen(want);
			if (contains(fi.name, fi.name_len, want, wl) ||
			    contains(fi.raw, fi.raw_len, want, wl))
				m |= MARK_CAT(k);
		}
		rep_frames_set_mark(c->frames, id, m);
	}
	if (fr.is_category)
		c->catmask |= rep_frames_mark(c->frames, id);
	if (c->nids == c->capids) {
		size_t nc = c->capids * 2;
		uint32_t *ni = realloc(c->ids, nc * sizeof *ni), *np;
		if (!ni)
			return REP_C_NOMEM;
		c->ids = ni;
		np = realloc(c->path, (nc + 2) * sizeof *np);
		if (!np)
			return REP_C_NOMEM;
		c->path = np;
		c->capids = nc;
	}
	c->ids[c->nids++] = id;
	return 0;
}

int rep_collect_line(rep_collect *c, const char *s, size_t len)
{
	int rc = 0;
	switch (rep_line_kind(s, len)) {
	case REP_L_BLANK:
		rc = commit(c);
		break;
	case REP_L_COMMENT:
		break;
	case REP_L_EVENT:
		if ((rc = commit(c)) == 0)
			rc = event_line(c, s, len);
		break;
	case REP_L_FRAME:
		rc = frame_line(c, s, len);
		break;
	case REP_L_OTHER:
		c->st.bad_lines++;
		break;
	}
	if (rc == REP_C_NOMEM)
		snprintf(c->err, sizeof c->err, "out of memory");
	return rc;
}

int rep_collect_end_file(rep_collect *c)
{
	int rc = commit(c);
	if (rc == REP_C_NOMEM)
		snprintf(c->err, sizeof c->err, "out of memory");
	return rc;
}

void rep_collect_finish(rep_collect *c)
{
	rep_trie_finish(c->trie);
}

const char *rep_collect_error(const rep_collect *c)
{
	return c->err;
}

const struct rep_stats *rep_collect_stats(const rep_collect *c)
{
	return &c->st;
}

rep_frames *rep_collect_frames(rep_collect *c)
{
	return c->frames;
}

rep_trie *rep_collect_trie(rep_collect *c)
{
	return c->trie;
}

void rep_collect_heat(const rep_collect *c, struct rep_heat *out)
{
	out->ncols = c->heat_cols;
	out->n = c->heat_n;
	out->w = c->heat_w;
	out->before_t0 = c->before_t0;
}

const char *rep_collect_weight_name(const rep_collect *c)
{
	return c->weight_name;
}

int rep_collect_weighted(const rep_collect *c)
{
	return c->weighted;
}

void rep_collect_range(const rep_collect *c, int64_t *from_us, int64_t *to_us)
{
	*from_us = c->have_t0 ? c->from_us : INT64_MIN;
	*to_us = c->have_t0 ? c->to_us : INT64_MAX;
}

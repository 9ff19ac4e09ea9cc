/*
 * rep_collect.c - the hot path: one call per input line.
 *
 * Per event: one parse of the event line, one hash lookup per frame line
 * (rep_frames), one whole-stack lookup (rep_trie), one heatmap cell. The
 * vectors below grow only when a longer stack than any before arrives, so
 * nothing is allocated per event.
 */
#include "rep_collect.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/hash.h"
#include "../common/slots.h"
#include "../formatter/formatter.h"
#include "../index/ix_parse.h"

#define MARK_STATUS_OK 1u
#define MAX_NAMES 64 /* metric names read from an event */
/* a path is an event's frames and up to 3 more: node, "negative", status */
#define PATH_MORE 3
#define MARK_STATUS_IDLE (1u << 30) /* waiting, suspended, exiting: not at work */

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
	uint32_t node_id, node_mask; /* rep_collect_set_node(); REP_NO_FRAME: none */
	/* the event being read */
	int in_event, keep;
	uint64_t filler;        /* bytes of lines in a row outside any event */
	int64_t time_us, w;
	uint32_t status_id, catmask, need_mask;
	uint32_t *ids, *path;
	size_t nids, capids;
	/* heatmap: a block of REP_HEAT_ROWS cells per second that has events
	 * (memory follows the data, not the time span), built only when a
	 * heatmap is asked for */
	int want_heat, heat_unsorted;
	struct rep_heat_sec *hsec;
	uint64_t *heat_n;
	int64_t *heat_w;
	size_t hn, hcap, heat_cols, hlast;
	uint32_t *hslots;
	size_t hnslots;
	uint64_t before_t0, beyond;
	int64_t from_us, to_us; /* absolute, resolved at the first event */
	int have_t0;
	/* the on_kept callback, and the event being read's pid and metrics */
	rep_kept_fn on_kept;
	void *on_kept_arg;
	uint32_t pid, serial;
	size_t nmetrics;
	const char *mnames[REP_MAX_METRICS];
	size_t mlens[REP_MAX_METRICS];
	int64_t mdeltas[REP_MAX_METRICS];
	char mname_buf[REP_MAX_METRICS * 64];
	struct rep_stats st;
	char err[MAX_NAMES * 24 + 256];
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
	c->want_heat = cfg->format == REP_F_HEATMAP || cfg->heatmap;
	c->frames = rep_frames_create();
	c->trie = rep_trie_create();
	c->capids = 256;
	c->ids = malloc(c->capids * sizeof *c->ids);
	c->path = malloc((c->capids + PATH_MORE) * sizeof *c->path);
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
	c->node_id = REP_NO_FRAME;
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
	free(c->hsec);
	free(c->hslots);
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

/* The length of the metric a "<metric>_delta" weight names, 0 for another weight. */
static size_t delta_base(const char *want, size_t wl)
{
	return wl > 6 && strcmp(want + wl - 6, "_delta") == 0 ? wl - 6 : 0;
}

/* Picks the --weight metric among an event's metric names (the first event
 * kept): the name itself, or its "_delta" form. */
static int resolve_names(rep_collect *c, const char *const *names, const size_t *lens, size_t n)
{
	const char *want = c->cfg->weight;
	size_t wl = strlen(want), i;
	/* room for every metric name of MAX_NAMES: 256 bytes dropped the last
	 * of flameprof's 16 (minor_gcs) */
	char known[MAX_NAMES * 24] = "";
	size_t kl = 0;
	int pass;
	for (pass = 0; pass < 2; pass++) {
		size_t ml = pass == 0 ? wl : delta_base(want, wl);
		if (ml == 0 && pass == 1)
			break;
		for (i = 0; i < n; i++) {
			const char *nm = names[i];
			size_t nl = lens[i];
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
	for (i = 0; i < n && kl + lens[i] + 3 < sizeof known; i++) {
		const char *nm = names[i];
		size_t nl = lens[i];
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

static int resolve_metric(rep_collect *c, const char *rest, size_t len)
{
	const char *names[MAX_NAMES];
	size_t lens[MAX_NAMES], n = 0, pos = 0;
	while (n < MAX_NAMES && ix_next_metric(rest, len, &pos, &names[n], &lens[n]))
		n++;
	return resolve_names(c, names, lens, n);
}

/* ==== Events ==== */

int rep_collect_pid_ok(const rep_collect *c, uint32_t pid, uint32_t tid)
{
	const struct rep_config *cfg = c->cfg;
	size_t i;
	if (cfg->npids == 0)
		return 1;
	for (i = 0; i < cfg->npids; i++)
		if (cfg->pids[i].pid == pid && (cfg->pids[i].any_serial || cfg->pids[i].serial == tid))
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

/* Room for at least n frame ids, and in the path for them and PATH_MORE. */
static int grow_ids(rep_collect *c, size_t n)
{
	size_t nc = c->capids;
	uint32_t *ni, *np;
	while (nc < n)
		nc *= 2;
	if (nc == c->capids)
		return 0;
	if (!(ni = realloc(c->ids, nc * sizeof *ni)))
		return -1;
	c->ids = ni;
	if (!(np = realloc(c->path, (nc + PATH_MORE) * sizeof *np)))
		return -1;
	c->path = np;
	c->capids = nc;
	return 0;
}

/* The block of second `sec`, added (zeroed) if new. @return its index, or
 * -1 when out of memory. */
static long heat_block(rep_collect *c, uint32_t sec)
{
	uint32_t h;
	size_t j, cn, cw, cs;
	if (c->hlast && c->hsec[c->hlast - 1].sec == sec)
		return (long)c->hlast - 1;
	h = fp_hash32(0, &sec, sizeof sec);
	for (j = h & (c->hnslots - 1); c->hnslots && c->hslots[j]; j = (j + 1) & (c->hnslots - 1))
		if (c->hsec[c->hslots[j] - 1].sec == sec) {
			c->hlast = c->hslots[j];
			return (long)c->hslots[j] - 1;
		}
	cn = cw = cs = c->hcap;
	if (fp_slots_room(&c->hslots, &c->hnslots, c->hn, c->hsec, sizeof *c->hsec,
			  offsetof(struct rep_heat_sec, hash), 64) != 0 ||
	    fp_grow((void **)&c->hsec, &cs, c->hn + 1, sizeof *c->hsec, 16) != 0 ||
	    fp_grow((void **)&c->heat_n, &cn, c->hn + 1, REP_HEAT_ROWS * sizeof *c->heat_n, 16) != 0 ||
	    fp_grow((void **)&c->heat_w, &cw, c->hn + 1, REP_HEAT_ROWS * sizeof *c->heat_w, 16) != 0)
		return -1;
	c->hcap = cs;
	if (c->hn && sec < c->hsec[c->hn - 1].sec)
		c->heat_unsorted = 1;
	c->hsec[c->hn].sec = sec;
	c->hsec[c->hn].hash = h;
	memset(c->heat_n + c->hn * REP_HEAT_ROWS, 0, REP_HEAT_ROWS * sizeof *c->heat_n);
	memset(c->heat_w + c->hn * REP_HEAT_ROWS, 0, REP_HEAT_ROWS * sizeof *c->heat_w);
	fp_slots_put(c->hslots, c->hnslots, h, c->hn);
	if (sec >= c->heat_cols)
		c->heat_cols = (size_t)sec + 1;
	c->hlast = ++c->hn;
	return (long)c->hn - 1;
}

static int heat_add(rep_collect *c, int64_t t_us, int64_t w)
{
	int64_t rel = t_us - c->st.t0_s * 1000000;
	size_t row;
	long k;
	if (!c->want_heat)
		return 0;
	if (rel < 0) {
		c->before_t0++;
		return 0;
	}
	if (rel / 1000000 >= REP_HEAT_MAX_SECONDS) {
		c->beyond++;
		return 0;
	}
	row = (size_t)(rel % 1000000) / (1000000 / REP_HEAT_ROWS);
	if ((k = heat_block(c, (uint32_t)(rel / 1000000))) < 0)
		return REP_C_NOMEM;
	c->heat_n[(size_t)k * REP_HEAT_ROWS + row]++;
	{
		int64_t *cell = &c->heat_w[(size_t)k * REP_HEAT_ROWS + row];
		*cell = rep_add_sat(*cell, w);
	}
	return 0;
}

/* The part of an event after its filters by status and pid: the category
 * filter, the heatmap, the time cut, the trie. ids are leaf first. leaf
 * (may be NULL) caches the trie node of this stack under this status, for
 * positive [0] and negative [1] weights. */
static int kept(rep_collect *c, int64_t time_us, uint32_t node, uint32_t status_id, int64_t w,
		const struct rep_kept *more)
{
	static const int64_t zeros[REP_MAX_METRICS];
	struct rep_kept k = *more;
	if (!c->on_kept)
		return 0;
	k.time_us = time_us;
	k.leaf = node;
	k.w = w;
	/* as for a delta weight: a process not at work carries no delta */
	if (rep_frames_mark(c->frames, status_id) & MARK_STATUS_IDLE)
		k.deltas = zeros;
	return c->on_kept(c->on_kept_arg, &k) == 0 ? 0 : REP_C_NOMEM;
}

static int add_event(rep_collect *c, int64_t time_us, int64_t w, uint32_t status_id,
		     const uint32_t *ids, size_t nids, uint32_t catmask, uint32_t *leaf,
		     const struct rep_kept *more)
{
	size_t n = 0, i;
	int neg, rc;
	if (c->use_delta && w != 0 && (rep_frames_mark(c->frames, status_id) & MARK_STATUS_IDLE)) {
		/* a waiting process's delta is the work it did before it waited,
		 * elsewhere than the receive it is sampled in */
		w = 0;
		c->st.idle_delta++;
	}
	neg = w < 0;
	if (c->node_id != REP_NO_FRAME)
		catmask |= c->node_mask;
	if ((catmask & c->need_mask) != c->need_mask) {
		c->st.filtered++;
		return 0;
	}
	if ((rc = heat_add(c, time_us, w)) < 0)
		return rc;
	if (time_us < c->from_us || time_us >= c->to_us) {
		c->st.out_of_range++;
		return 0;
	}
	if (neg) {
		w = w == INT64_MIN ? INT64_MAX : -w;
		c->st.negative++;
	}
	c->st.used++;
	if (leaf && leaf[neg]) {
		rep_trie_add_at(c->trie, leaf[neg], w);
		return kept(c, time_us, leaf[neg], status_id, neg ? -w : w, more);
	}
	/* ids may be c->ids itself (a text event), which never holds more
	 * than capids: the path has room for those, so it is not moved */
	if (nids > c->capids && grow_ids(c, nids) != 0)
		return REP_C_NOMEM;
	if (c->node_id != REP_NO_FRAME)
		c->path[n++] = c->node_id;
	if (neg)
		c->path[n++] = c->negative_id;
	c->path[n++] = status_id;
	for (i = nids; i > 0; i--)
		c->path[n++] = ids[i - 1];
	{
		uint32_t node;
		if (rep_trie_leaf(c->trie, c->path, n, &node) != 0)
			return REP_C_NOMEM;
		rep_trie_add_at(c->trie, node, w);
		if (leaf)
			leaf[neg] = node;
		return kept(c, time_us, node, status_id, neg ? -w : w, more);
	}
}

static int commit(rep_collect *c)
{
	if (!c->in_event)
		return 0;
	c->in_event = 0;
	if (!c->keep)
		return 0;
	{
		struct rep_kept more = { 0, 0, c->pid, c->serial, c->nmetrics,
					 c->mnames, c->mlens, c->mdeltas, 0 };
		return add_event(c, c->time_us, c->w, c->status_id, c->ids, c->nids, c->catmask,
				 NULL, &more);
	}
}

/* Every metric's delta of the event line, for the on_kept callback: the
 * names are copied, since the line goes away before the event ends. */
static void read_metrics(rep_collect *c, const char *rest, size_t len)
{
	size_t pos = 0, used = 0, nl;
	const char *nm;
	int64_t v, d;
	int r;
	c->nmetrics = 0;
	while (c->nmetrics < REP_MAX_METRICS &&
	       (r = ix_next_metric_value(rest, len, &pos, &nm, &nl, &v, &d)) != 0) {
		if (r < 0 || nl > sizeof c->mname_buf - used)
			continue;
		memcpy(c->mname_buf + used, nm, nl);
		c->mnames[c->nmetrics] = c->mname_buf + used;
		c->mlens[c->nmetrics] = nl;
		c->mdeltas[c->nmetrics++] = d;
		used += nl;
	}
}

static int64_t cut_time(const struct rep_collect_s *c, int abs, int64_t v)
{
	return abs ? v : c->st.t0_s * 1000000 + v;
}

static void set_t0(rep_collect *c, int64_t time_us)
{
	c->have_t0 = 1;
	c->st.t0_s = time_us / 1000000;
	c->from_us = c->cfg->has_from ? cut_time(c, c->cfg->from_abs, c->cfg->from_us) : INT64_MIN;
	c->to_us = c->cfg->has_to ? cut_time(c, c->cfg->to_abs, c->cfg->to_us) : INT64_MAX;
}

void rep_collect_set_t0(rep_collect *c, int64_t time_us)
{
	if (c->st.events == 0)
		set_t0(c, time_us);
}

void rep_collect_want_heat(rep_collect *c)
{
	c->want_heat = 1;
}

/* Every event, kept or not: the count, the time origin (the first event's
 * unless set before), the first and last times. */
static void event_seen(rep_collect *c, int64_t time_us)
{
	c->st.events++;
	if (!c->have_t0)
		set_t0(c, time_us);
	if (time_us < c->st.first_us || c->st.events == 1)
		c->st.first_us = time_us;
	if (time_us > c->st.last_us || c->st.events == 1)
		c->st.last_us = time_us;
}

uint32_t rep_collect_status(rep_collect *c, const char *comm, size_t len, int *ok)
{
	int is_new;
	uint32_t id = rep_frames_intern(c->frames, REP_K_STATUS, comm, len, "", 0, &is_new);
	if (id == REP_NO_FRAME)
		return id;
	if (is_new) {
		uint32_t m = status_selected(c->cfg->status, comm, len) ? MARK_STATUS_OK : 0;
		if ((len == 7 && !memcmp(comm, "waiting", 7)) || (len == 9 && !memcmp(comm, "suspended", 9)) ||
		    (len == 7 && !memcmp(comm, "exiting", 7)))
			m |= MARK_STATUS_IDLE;
		rep_frames_set_mark(c->frames, id, m);
	}
	*ok = (rep_frames_mark(c->frames, id) & MARK_STATUS_OK) != 0;
	return id;
}

/* An event left out by --status alone, counted by its status. */
static void hidden(rep_collect *c, uint32_t status_id)
{
	size_t k;
	for (k = 0; k < c->st.nhidden && c->st.hidden_id[k] != status_id; k++)
		;
	if (k == REP_MAX_HIDDEN) {
		c->st.hidden_more++;
		return;
	}
	if (k == c->st.nhidden) {
		c->st.hidden_id[k] = status_id;
		c->st.nhidden++;
	}
	c->st.hidden_n[k]++;
}

static int event_line(rep_collect *c, const char *s, size_t len)
{
	struct ix_event_line ev;
	int ok, rc;
	uint32_t id;
	if (ix_parse_event(s, len, &ev) != 0) {
		c->st.bad_lines++;
		return 0;
	}
	event_seen(c, ev.time_us);
	c->in_event = 1;
	c->nids = 0;
	c->catmask = 0;
	c->time_us = ev.time_us;
	c->w = 1;
	id = rep_collect_status(c, ev.comm, ev.comm_len, &ok);
	if (id == REP_NO_FRAME)
		return REP_C_NOMEM;
	c->status_id = id;
	c->keep = ok && rep_collect_pid_ok(c, ev.pid, ev.tid);
	if (!c->keep) {
		c->st.filtered++;
		if (!ok && rep_collect_pid_ok(c, ev.pid, ev.tid))
			hidden(c, id);
		return 0;
	}
	c->pid = ev.pid;
	c->serial = ev.tid;
	if (c->on_kept)
		read_metrics(c, ev.rest, ev.rest_len);
	if (c->weighted) {
		int64_t v, d;
		if (!c->resolved && (rc = resolve_metric(c, ev.rest, ev.rest_len)) != 0)
			return rc;
		if (ix_find_metric(ev.rest, ev.rest_len, c->metric, c->metric_len, &v, &d)) {
			c->w = c->use_delta ? d : v;
		} else {
			c->w = 0;
			c->st.no_metric++;
		}
	}
	return 0;
}

uint32_t rep_collect_frame(rep_collect *c, int is_category, const char *sym, size_t len,
			   const char *dso, size_t dso_len, uint32_t *catmask)
{
	int is_new;
	uint32_t id = rep_frames_intern(c->frames, is_category ? REP_K_CATEGORY : REP_K_CODE, sym,
					len, dso, dso_len, &is_new);
	if (id == REP_NO_FRAME)
		return id;
	if (is_new && is_category && c->cfg->ncategories) {
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
	if (is_category)
		*catmask |= rep_frames_mark(c->frames, id);
	return id;
}

int rep_collect_set_node(rep_collect *c, const char *node)
{
	char text[600], sym[2048];
	uint32_t mask = 0;
	if (!node) {
		c->node_id = REP_NO_FRAME;
		return 0;
	}
	/* as a capture writes a category frame's symbol (formatter/escape.c) */
	snprintf(text, sizeof text, "node:%s", *node ? node : "unknown");
	size_t len = fmt_escape(text, strlen(text), sym, sizeof sym);
	if (len >= sizeof sym)
		len = sizeof sym - 1;
	uint32_t id = rep_collect_frame(c, 1, sym, len, "[category]", 10, &mask);
	if (id == REP_NO_FRAME) {
		snprintf(c->err, sizeof c->err, "out of memory");
		return REP_C_NOMEM;
	}
	c->node_id = id;
	c->node_mask = mask;
	return 0;
}

static int frame_line(rep_collect *c, const char *s, size_t len)
{
	struct ix_frame_line fr;
	uint32_t id;
	if (!c->in_event || !c->keep)
		return 0;
	if (ix_parse_frame(s, len, &fr) != 0) {
		c->st.bad_lines++;
		return 0;
	}
	if (c->nids >= REP_MAX_FRAMES) {
		snprintf(c->err, sizeof c->err, "an event has more than %u frames", REP_MAX_FRAMES);
		return REP_C_DATA;
	}
	if (fr.sym_len + fr.dso_len > REP_MAX_FRAME_BYTES) {
		snprintf(c->err, sizeof c->err, "a frame is longer than %d bytes", REP_MAX_FRAME_BYTES);
		return REP_C_DATA;
	}
	id = rep_collect_frame(c, fr.is_category, fr.sym, fr.sym_len, fr.dso, fr.dso_len,
			       &c->catmask);
	if (id == REP_NO_FRAME)
		return REP_C_NOMEM;
	if (c->nids == c->capids && grow_ids(c, c->nids + 1) != 0)
		return REP_C_NOMEM;
	c->ids[c->nids++] = id;
	return 0;
}

int rep_collect_line(rep_collect *c, const char *s, size_t len)
{
	int rc = 0;
	enum ix_line_kind kind = ix_line_kind(s, len);
	switch (kind) {
	case IX_L_BLANK:
		rc = commit(c);
		break;
	case IX_L_COMMENT:
		break;
	case IX_L_EVENT:
		if ((rc = commit(c)) == 0)
			rc = event_line(c, s, len);
		break;
	case IX_L_FRAME:
		rc = frame_line(c, s, len);
		break;
	case IX_L_OTHER:
		c->st.bad_lines++;
		break;
	}
	if (kind == IX_L_EVENT || (kind == IX_L_FRAME && c->in_event)) {
		c->filler = 0;
	} else if ((c->filler += len + 1) > REP_MAX_FILLER_BYTES && rc == 0) {
		snprintf(c->err, sizeof c->err, "over %u MiB of lines in a row outside any event (comments, "
			 "blank lines or text that is not perf script's)", REP_MAX_FILLER_BYTES >> 20);
		rc = REP_C_DATA;
	}
	if (rc == REP_C_NOMEM)
		snprintf(c->err, sizeof c->err, "out of memory");
	return rc;
}

int rep_collect_end_file(rep_collect *c)
{
	int rc = commit(c);
	c->filler = 0;
	if (rc == REP_C_NOMEM)
		snprintf(c->err, sizeof c->err, "out of memory");
	return rc;
}

void rep_collect_finish(rep_collect *c)
{
	rep_trie_finish(c->trie);
}

void rep_collect_on_kept(rep_collect *c, rep_kept_fn fn, void *arg)
{
	c->on_kept = fn;
	c->on_kept_arg = arg;
}

int rep_collect_wants_metrics(const rep_collect *c)
{
	return c->on_kept != NULL;
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

static int cmp_sec(const void *a, const void *b)
{
	const struct rep_heat_sec *x = a, *y = b;
	return x->sec < y->sec ? -1 : x->sec > y->sec;
}

int rep_collect_heat(rep_collect *c, struct rep_heat *out)
{
	memset(out, 0, sizeof *out);
	out->before_t0 = c->before_t0;
	out->beyond = c->beyond;
	if (c->heat_unsorted) { /* files out of time order: sort the seconds once */
		uint64_t *nn = malloc(c->hn * REP_HEAT_ROWS * sizeof *nn);
		int64_t *nw = malloc(c->hn * REP_HEAT_ROWS * sizeof *nw);
		size_t i;
		if (!nn || !nw) {
			free(nn);
			free(nw);
			return -1;
		}
		for (i = 0; i < c->hn; i++)
			c->hsec[i].hash = (uint32_t)i; /* its block, before the sort */
		qsort(c->hsec, c->hn, sizeof *c->hsec, cmp_sec);
		for (i = 0; i < c->hn; i++) {
			memcpy(nn + i * REP_HEAT_ROWS, c->heat_n + (size_t)c->hsec[i].hash * REP_HEAT_ROWS,
			       REP_HEAT_ROWS * sizeof *nn);
			memcpy(nw + i * REP_HEAT_ROWS, c->heat_w + (size_t)c->hsec[i].hash * REP_HEAT_ROWS,
			       REP_HEAT_ROWS * sizeof *nw);
		}
		free(c->heat_n);
		free(c->heat_w);
		c->heat_n = nn;
		c->heat_w = nw;
		/* no more adds after this: the slots and hashes are done with */
		free(c->hslots);
		c->hslots = NULL;
		c->hnslots = 0;
		c->want_heat = 0;
		c->heat_unsorted = 0;
	}
	out->ncols = c->heat_cols;
	out->nsecs = c->hn;
	out->sec = c->hsec;
	out->n = c->heat_n;
	out->w = c->heat_w;
	return 0;
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

/* ==== Pre-parsed events (the report index) ==== */

int rep_collect_weight_candidate(const rep_collect *c, const char *name, size_t len)
{
	const char *want = c->cfg->weight;
	size_t wl;
	if (!c->weighted)
		return 0;
	if (c->resolved)
		return len == c->metric_len && memcmp(name, c->metric, len) == 0;
	wl = strlen(want);
	return names_match(name, len, want, wl) ||
	       (delta_base(want, wl) && names_match(name, len, want, delta_base(want, wl)));
}

int rep_collect_resolve(rep_collect *c, const char *const *names, const size_t *lens, size_t n)
{
	if (!c->weighted || c->resolved)
		return 0;
	return resolve_names(c, names, lens, n);
}

int rep_collect_metric_is(const rep_collect *c, const char *name, size_t len)
{
	return c->resolved && len == c->metric_len && memcmp(name, c->metric, len) == 0;
}

int rep_collect_weighs_delta(const rep_collect *c)
{
	return c->use_delta;
}

int rep_collect_pre_event(rep_collect *c, int64_t time_us, uint32_t status_id, int pass,
			  const uint32_t *ids, size_t nids, uint32_t catmask, int has_w, int64_t w,
			  uint32_t *leaf, const struct rep_kept *more)
{
	int rc;
	event_seen(c, time_us);
	if (!pass) {
		c->st.filtered++;
		if (!(rep_frames_mark(c->frames, status_id) & MARK_STATUS_OK) &&
		    rep_collect_pid_ok(c, more->pid, more->serial))
			hidden(c, status_id);
		return 0;
	}
	if (!c->weighted) {
		w = 1;
	} else if (!has_w) {
		w = 0;
		c->st.no_metric++;
	}
	rc = add_event(c, time_us, w, status_id, ids, nids, catmask, leaf, more);
	if (rc == REP_C_NOMEM)
		snprintf(c->err, sizeof c->err, "out of memory");
	return rc;
}

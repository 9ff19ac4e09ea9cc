/*
 * top_run.c - `flameprof top NODE` (top_run.h): the capture's agent and
 * budget, no files, the view (top_view.h) redrawn every --interval.
 *
 * Every way out (q, -n, a stop signal, an error) leaves the terminal first
 * (door->leave) and then stops the agent as a capture does
 * (capture/cap_agent.h); kill -9 leaves the node to the agent's own
 * monitor_node.
 */
#include "top_run.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "top_view.h"
#include "../capture/cap_agent.h"
#include "../common/clock.h"
#include "../common/names.h"
#include "../node/node.h"
#include "../sampler/sampler.h"

struct top {
	const struct top_config *cfg;
	const struct top_door *door;
	node_t *n;
	sampler_t *sampler;
	top_view *view;
	const char *node;        /* as the node calls itself, once connected */
	int table, sort, paused;
	unsigned width, height;
	long long start_ms;
	unsigned share;          /* the cost budget's part (permille), from the last round */
	unsigned selected;       /* processes selected at the last round */
	int add_failed;          /* out of memory once: said once */
};

static void say(const struct top *t, enum cap_say kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(const struct top *t, enum cap_say kind, const char *fmt, ...)
{
	char s[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s, sizeof s, fmt, ap);
	va_end(ap);
	t->door->base.say(t->door->base.arg, kind, s);
}

/* What the window covers so far, in seconds. */
static double covered(const struct top *t)
{
	double s = (fp_mono_ms() - t->start_ms) / 1e3, w = t->cfg->window_us / 1e6;
	return s < w ? s : w;
}

/* One screen: the title, the keys (a terminal), the table, lines ended
 * with '\n' (the door draws them). @return 0, or -1 when it could not be
 * shown or memory ran out. */
static int draw(struct top *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return -1;
	int tty = t->door->tty;
	unsigned width = tty ? t->width : 120;
	char title[512], when[16] = "";
	time_t now = time(NULL);
	struct tm tm;
	if (localtime_r(&now, &tm))
		strftime(when, sizeof when, "%H:%M:%S", &tm);
	/* what changes with the keys first, the node and the clock last: a
	 * narrow terminal cuts the least useful part */
	int n = snprintf(title, sizeof title, "%s%s by %s  %.0fs  %llu/%llu on-CPU", t->paused ? "PAUSED  " : "",
			 t->table == TOP_FUNCTIONS ? "functions" : "processes", top_sort_name(t->table, t->sort),
			 covered(t), (unsigned long long)top_view_oncpu(t->view),
			 (unsigned long long)top_view_samples(t->view));
	if (n > 0 && (size_t)n < sizeof title && t->share < 1000)
		n += snprintf(title + n, sizeof title - n, "  budget %u%%", t->share / 10);
	if (n > 0 && (size_t)n < sizeof title)
		snprintf(title + n, sizeof title - n, "  %u procs  %s  %s", t->selected, t->node, when);
	unsigned rows = t->cfg->rows;
	fprintf(f, "%.*s\n", (int)width, title);
	if (tty) {
		fprintf(f, "%.*s\n", (int)width, "Tab/v view  f functions  p processes  s sort (1-5)  space pause  q quit");
		rows = t->height > 4 ? t->height - 4 : 1;
	}
	int lines = top_view_write(t->view, f, t->table, t->sort, rows, width, covered(t), "\n");
	/* before the agent's first samples the table is its header alone: say why */
	if (lines >= 0 && top_view_samples(t->view) == 0) {
		char g[160];
		snprintf(g, sizeof g, "gathering samples: the busiest processes are picked every %gs, the "
			 "shares cover the last %gs", t->cfg->rec.every_us / 1e6, t->cfg->window_us / 1e6);
		fprintf(f, "%.*s\n", (int)width, g);
	}
	if (!tty)
		fputs("\n", f);
	if (fclose(f) != 0 || lines < 0) {
		free(buf);
		return -1;
	}
	int rc = t->door->show(t->door->base.arg, buf, len);
	free(buf);
	return rc;
}

/* The keys waiting. @return 1 to quit, 2 to redraw, 0 nothing. */
static int keys(struct top *t)
{
	unsigned char k[16];
	size_t n = t->door->keys(t->door->base.arg, k, sizeof k);
	int redraw = 0;
	for (size_t i = 0; i < n; i++) {
		int nsorts = t->table == TOP_FUNCTIONS ? TOP_FUN_SORTS : TOP_PROC_SORTS;
		switch (k[i]) {
		case 'q': case 'Q':
			return 1;
		case '\t': case 'v':
			t->table = t->table == TOP_FUNCTIONS ? TOP_PROCESSES : TOP_FUNCTIONS;
			t->sort = 0;
			break;
		case 'f':
			t->sort = t->table == TOP_FUNCTIONS ? t->sort : 0;
			t->table = TOP_FUNCTIONS;
			break;
		case 'p':
			t->sort = t->table == TOP_PROCESSES ? t->sort : 0;
			t->table = TOP_PROCESSES;
			break;
		case 's':
			t->sort = (t->sort + 1) % nsorts;
			break;
		case ' ':
			t->paused = !t->paused;
			break;
		default:
			if (k[i] >= '1' && k[i] < '1' + nsorts)
				t->sort = k[i] - '1';
			else
				continue;
		}
		redraw = 2;
	}
	return redraw;
}

static void take_batch(struct top *t, const struct sampler_batch *b)
{
	for (size_t k = 0; k < b->nsamples; k++)
		if (top_view_add(t->view, &b->samples[k]) < 0 && !t->add_failed) {
			t->add_failed = 1;
			if (!t->door->tty)
				say(t, CAP_SAY_WARN, "out of memory: some samples are left out of the view");
		}
	if (b->has_round) {
		t->share = b->round.share_permille;
		t->selected = b->round.selected;
	}
}

static void stop_agent(struct top *t)
{
	long long ms = t->cfg->rec.connect_timeout_us / 1000;
	cap_agent_stop(t->sampler, t->n, t->cfg->rec.node, ms, NULL, NULL, &t->door->base);
}

/* The view until q, -n, a signal or an error. @return as top_run(). */
static int watch(struct top *t)
{
	const struct top_config *cfg = t->cfg;
	const struct top_door *d = t->door;
	long long interval = cfg->interval_us / 1000, next = fp_mono_ms() + interval;
	unsigned shown = 0;
	struct sampler_batch b;
	t->start_ms = fp_mono_ms();
	if (d->tty) {
		d->size(d->base.arg, &t->width, &t->height);
		if (draw(t) < 0) /* at once: the first screen says it is gathering */
			goto out_failed;
	}
	while (!d->base.stops(d->base.arg)) {
		long long wait = next - fp_mono_ms();
		/* keys are looked at every 100 ms at least */
		if (wait > (d->tty ? 100 : 200))
			wait = d->tty ? 100 : 200;
		int rc = sampler_next(t->sampler, wait < 1 ? 1 : (int)wait, &b);
		if (rc < 0) {
			d->leave(d->base.arg);
			say(t, CAP_SAY_ERROR, "%s", node_error(t->n));
			if (rc == NODE_ERR_AGENT_DOWN)
				cap_agent_unloaded(t->sampler, t->n, cfg->rec.node, &d->base);
			else if (rc != NODE_ERR_LOST)
				stop_agent(t);
			return rc;
		}
		if (rc == 1)
			take_batch(t, &b);
		int redraw = 0;
		if (d->tty) {
			int k = keys(t);
			if (k == 1)
				break;
			redraw = k == 2 || d->size(d->base.arg, &t->width, &t->height);
		}
		if (fp_mono_ms() >= next) {
			/* the window's slot ends here: shown, then the oldest goes */
			if (!t->paused)
				redraw = 1;
			next += interval;
			if (next < fp_mono_ms()) /* fell behind (a stopped process): no catching up */
				next = fp_mono_ms() + interval;
			if (redraw && draw(t) < 0)
				goto out_failed;
			redraw = 0;
			top_view_tick(t->view);
			if (cfg->iterations && ++shown >= cfg->iterations)
				break;
		}
		if (redraw && draw(t) < 0)
			goto out_failed;
	}
	d->leave(d->base.arg);
	say(t, CAP_SAY_NOTE, "stopping");
	stop_agent(t);
	return 0;
out_failed:
	d->leave(d->base.arg);
	say(t, CAP_SAY_ERROR, d->tty ? "out of memory while drawing the view" : "cannot write the view to standard output");
	stop_agent(t);
	return d->tty ? TOP_E_NOMEM : TOP_E_OUTPUT;
}

/* Connects, starts the agent. @return 0, or a negative enum node_err once said. */
static int start(struct top *t)
{
	const struct cap_config *rec = &t->cfg->rec;
	const struct cap_door *d = &t->door->base;
	struct sampler_options so;
	const char *ck = NULL, *from = NULL;
	cap_agent_options(rec, &so);
	if (d->cookie(d->arg, rec->node, 1, &ck, &from) < 0)
		return NODE_ERR_COOKIE;
	struct node_options no = {
		.node = rec->node, .cookie = ck, .cookie_from = from, .alive = rec->node_name,
		.connect_timeout_ms = (int)(rec->connect_timeout_us / 1000), .compile_on_target = rec->compile_on_target,
	};
	say(t, CAP_SAY_NOTE, "connecting to '%s'", rec->node);
	int e = node_connect(&t->n, &no);
	d->wipe(d->arg);
	if (e >= 0) {
		say(t, CAP_SAY_NOTE, "connected; loading the agent");
		e = sampler_start(&t->sampler, t->n, &so);
	}
	if (e < 0) {
		say(t, CAP_SAY_ERROR, "%s", node_error(t->n));
		return e;
	}
	t->node = node_own_name(t->n);
	int elixir = 0;
	if (rec->lang == FP_NAMES_ELIXIR || (rec->lang == FP_NAMES_AUTO && node_runs_elixir(t->n, &elixir) == 0 && elixir))
		top_view_set_elixir(t->view, 1);
	const char *missing;
	if (sampler_missing(t->sampler, &missing))
		say(t, CAP_SAY_WARN, "no live process on '%s' for %s; watching the others", rec->node, missing);
	say(t, CAP_SAY_NOTE, "watching '%s' (OTP %s): top %u every %.1fs at %g Hz", rec->node,
	    node_otp_release(t->n), rec->top, rec->every_us / 1e6, rec->hz);
	return 0;
}

int top_run(const struct top_config *cfg, const struct top_door *door)
{
	struct top t = { .cfg = cfg, .door = door, .node = cfg->rec.node, .table = cfg->view, .share = 1000 };
	int rc;
	t.sort = cfg->sort < 0 ? 0 : cfg->sort;
	if (!(t.view = top_view_create((unsigned)(cfg->window_us / cfg->interval_us)))) {
		say(&t, CAP_SAY_ERROR, "out of memory");
		door->base.wipe(door->base.arg);
		return TOP_E_NOMEM;
	}
	if ((rc = start(&t)) == 0)
		rc = watch(&t);
	door->leave(door->base.arg);
	sampler_free(t.sampler);
	node_free(t.n);
	top_view_free(t.view);
	return rc;
}

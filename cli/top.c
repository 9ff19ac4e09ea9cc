/*
 * top.c - `flameprof top NODE`: the capture's agent and budget, no files,
 * a view redrawn every --interval (top/top_view.h counts, this file shows).
 *
 * On a terminal (stdin and stdout both) the screen is drawn with plain
 * ANSI escapes on the alternate screen, keys are read without echo and
 * without waiting for Enter (termios, ISIG kept: Ctrl-C is SIGINT), the
 * size comes from TIOCGWINSZ and SIGWINCH redraws. Every way out (q,
 * -n, Ctrl-C, SIGTERM, SIGHUP, an error) goes through restore_terminal()
 * first and then stops the agent as a capture does (capture/cap_agent.h);
 * kill -9 leaves the terminal to `reset`, and the node to the agent's own
 * monitor_node. Elsewhere one plain table per refresh on stdout.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "capture_door.h"
#include "lang.h"
#include "msg.h"
#include "session.h"
#include "top_options.h"
#include "../capture/cap_agent.h"
#include "../node/node.h"
#include "../sampler/sampler.h"
#include "../top/top_view.h"

struct top {
	const struct top_config *cfg;
	struct fp_node_cmd nc;   /* the node (session.h's frame) */
	struct cap_door door;    /* the agent's stop says through it (capture_door.h) */
	sampler_t *sampler;
	top_view *view;
	const char *node;
	int tty;                 /* drawing on a terminal */
	int table, sort, paused;
	unsigned width, height;
	long long start_ms;
	unsigned share;          /* the cost budget's part (permille), from the last round */
	unsigned selected;       /* processes selected at the last round */
	uint64_t dropped;        /* samples the agent dropped (nosuspend), in total */
	int add_failed;          /* out of memory once: said once */
};

/* The terminal as found, put back by restore_terminal() (also atexit). */
static struct termios saved_tio;
static int raw_on;
static volatile sig_atomic_t resized;

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

static void restore_terminal(void)
{
	if (!raw_on)
		return;
	raw_on = 0;
	/* cursor back, main screen back; a hung-up terminal refuses both, harmlessly */
	static const char back[] = "\x1b[?25h\x1b[?1049l";
	ssize_t w = write(STDOUT_FILENO, back, sizeof back - 1);
	(void)w;
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tio);
}

/* Keys one at a time, no echo, reads never wait; signals keep their keys
 * (Ctrl-C, Ctrl-\) but Ctrl-Z is off: a stopped view would leave the
 * terminal raw under the shell. @return 0, or -1 (stays plain). */
static int raw_terminal(void)
{
	struct termios t;
	if (tcgetattr(STDIN_FILENO, &saved_tio) < 0)
		return -1;
	t = saved_tio;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
#ifdef _POSIX_VDISABLE
	t.c_cc[VSUSP] = _POSIX_VDISABLE;
#endif
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &t) < 0)
		return -1;
	raw_on = 1;
	atexit(restore_terminal);
	static const char enter[] = "\x1b[?1049h\x1b[?25l\x1b[2J";
	ssize_t w = write(STDOUT_FILENO, enter, sizeof enter - 1);
	(void)w;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_winch;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, NULL);
	return 0;
}

static void terminal_size(struct top *t)
{
	struct winsize ws;
	t->width = 80;
	t->height = 24;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20 && ws.ws_row >= 5) {
		t->width = ws.ws_col > 1000 ? 1000 : ws.ws_col;
		t->height = ws.ws_row > 1000 ? 1000 : ws.ws_row;
	}
}

/* What the window covers so far, in seconds. */
static double covered(const struct top *t)
{
	double s = (fp_mono_ms() - t->start_ms) / 1e3, w = t->cfg->window_us / 1e6;
	return s < w ? s : w;
}

/* Draws the view once: the title, the keys (terminal), the table.
 * @return 0, or -1 when stdout failed (plain) or out of memory. */
static int draw(struct top *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return -1;
	const char *eol = t->tty ? "\x1b[K\r\n" : "\n";
	unsigned width = t->tty ? t->width : 120;
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
	if (t->tty) {
		fputs("\x1b[H", f);
		fprintf(f, "\x1b[7m%-*.*s\x1b[0m%s", (int)width, (int)width, title, eol);
		fprintf(f, "%.*s%s", (int)width,
			"Tab/v view  f functions  p processes  s sort (1-5)  space pause  q quit", eol);
		rows = t->height > 4 ? t->height - 4 : 1;
	} else {
		fprintf(f, "%s%s", title, eol);
	}
	int lines = top_view_write(t->view, f, t->table, t->sort, rows, width, covered(t), eol);
	/* before the agent's first samples the table is its header alone: say why */
	if (lines >= 0 && top_view_samples(t->view) == 0) {
		char g[160];
		snprintf(g, sizeof g, "gathering samples: the busiest processes are picked every %gs, the "
			 "shares cover the last %gs", t->cfg->rec.every_us / 1e6, t->cfg->window_us / 1e6);
		fprintf(f, "%.*s%s", (int)width, g, eol);
	}
	if (t->tty)
		fputs("\x1b[J", f);
	else
		fputs("\n", f);
	if (fclose(f) != 0 || lines < 0) {
		free(buf);
		return -1;
	}
	int bad = 0;
	if (t->tty) {
		/* one write: no flicker; a terminal that went away is the signal's business */
		for (size_t off = 0; off < len;) {
			ssize_t w = write(STDOUT_FILENO, buf + off, len - off);
			if (w <= 0 && errno != EINTR)
				break;
			off += w > 0 ? (size_t)w : 0;
		}
	} else {
		bad = fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0;
	}
	free(buf);
	return bad ? -1 : 0;
}

/* Keys waiting on stdin. @return 1 to quit, 2 to redraw, 0 nothing. */
static int keys(struct top *t)
{
	unsigned char k[16];
	ssize_t n = read(STDIN_FILENO, k, sizeof k);
	int redraw = 0;
	for (ssize_t i = 0; i < n; i++) {
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
			if (!t->tty)
				fp_warn("out of memory: some samples are left out of the view");
		}
	if (b->has_round) {
		t->share = b->round.share_permille;
		t->selected = b->round.selected;
		t->dropped = b->round.dropped_total;
	}
}

/* The view until q, -n, a signal or an error. @return an exit status. */
static int watch(struct top *t)
{
	const struct top_config *cfg = t->cfg;
	long long interval = cfg->interval_us / 1000, next = fp_mono_ms() + interval;
	unsigned shown = 0;
	struct sampler_batch b;
	t->start_ms = fp_mono_ms();
	if (t->tty && draw(t) < 0)
		return EX_OSERR;
	while (!fp_stop_signals()) {
		long long wait = next - fp_mono_ms();
		/* keys are looked at every 100 ms at least */
		if (wait > (t->tty ? 100 : 200))
			wait = t->tty ? 100 : 200;
		int rc = sampler_next(t->sampler, wait < 1 ? 1 : (int)wait, &b);
		if (rc < 0) {
			restore_terminal();
			fp_error("%s", node_error(t->nc.n));
			if (rc == NODE_ERR_AGENT_DOWN)
				cap_agent_unloaded(t->sampler, t->nc.n, t->nc.node, &t->door);
			else if (rc != NODE_ERR_LOST)
				cap_agent_stop(t->sampler, t->nc.n, t->nc.node, cfg->rec.connect_timeout_us / 1000, NULL, NULL, &t->door);
			return fp_exit_for_node(rc);
		}
		if (rc == 1)
			take_batch(t, &b);
		int redraw = 0;
		if (t->tty) {
			int k = keys(t);
			if (k == 1)
				break;
			redraw = k == 2;
			if (resized) {
				resized = 0;
				terminal_size(t);
				redraw = 1;
			}
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
	restore_terminal();
	fp_note("stopping");
	cap_agent_stop(t->sampler, t->nc.n, t->nc.node, cfg->rec.connect_timeout_us / 1000, NULL, NULL, &t->door);
	return 0;
out_failed:
	restore_terminal();
	fp_error(t->tty ? "out of memory while drawing the view" : "cannot write the view to standard output");
	cap_agent_stop(t->sampler, t->nc.n, t->nc.node, cfg->rec.connect_timeout_us / 1000, NULL, NULL, &t->door);
	return t->tty ? EX_OSERR : EX_IOERR;
}

static int start(struct top *t)
{
	const struct cap_config *rec = &t->cfg->rec;
	struct sampler_options so;
	cap_agent_options(rec, &so);
	int e = fp_node_connect(&t->nc);
	if (e != 0)
		return e;
	fp_note("connected; loading the agent");
	if ((e = sampler_start(&t->sampler, t->nc.n, &so)) < 0)
		return fp_node_fail(&t->nc, e);
	t->node = node_own_name(t->nc.n);
	top_view_set_elixir(t->view, fp_lang_elixir(rec->lang, t->nc.n));
	const char *missing;
	if (sampler_missing(t->sampler, &missing))
		fp_warn("no live process on '%s' for %s; watching the others", rec->node, missing);
	fp_note("watching '%s' (OTP %s): top %u every %.1fs at %g Hz", rec->node,
		node_otp_release(t->nc.n), rec->top, rec->every_us / 1e6, rec->hz);
	return 0;
}

int fp_top_run(const struct top_config *cfg)
{
	struct top t = { .cfg = cfg, .node = cfg->rec.node, .table = cfg->view, .share = 1000 };
	int rc;
	t.sort = cfg->sort < 0 ? 0 : cfg->sort;
	const struct cap_config *rec = &cfg->rec;
	t.nc = (struct fp_node_cmd){
		.node = rec->node, .node_name = rec->node_name, .cookie = rec->cookie,
		.cookie_file = rec->cookie_file, .connect_timeout_us = rec->connect_timeout_us,
		.compile_on_target = rec->compile_on_target,
	};
	fp_capture_door(&t.door, rec);
	if ((rc = fp_node_begin(&t.nc)) != 0)
		goto out;
	if (!(t.view = top_view_create((unsigned)(cfg->window_us / cfg->interval_us)))) {
		fp_error("out of memory");
		rc = EX_OSERR;
		goto out;
	}
	if ((rc = start(&t)) != 0)
		goto out;
	t.tty = !cfg->plain && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && raw_terminal() == 0;
	if (t.tty)
		terminal_size(&t);
	rc = watch(&t);
out:
	restore_terminal();
	sampler_free(t.sampler);
	fp_node_end(&t.nc);
	top_view_free(t.view);
	return rc;
}

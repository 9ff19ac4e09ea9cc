/*
 * top_run.h - `flameprof top NODE` behind one entry, as capture_run() is
 * the capture's: connect, the capture's agent and budget, the view
 * (top_view.h) redrawn every --interval, the keys, the stop. It prints
 * nothing and picks no exit status: it says each sentence, asks for the
 * cookie and the stop signals, shows each screen and reads the keys
 * through the door the front door supplies (struct top_door), and ends
 * with 0, a negative enum node_err, or a TOP_E_* code.
 */
#ifndef TOP_RUN_H
#define TOP_RUN_H

#include <stddef.h>
#include <stdint.h>
#include "../capture/cap_config.h"
#include "../capture/cap_door.h"

/* What `flameprof top` was asked, as plain data. */
struct top_config {
	struct cap_config rec;   /* first: NODE, sampling, budget, connection, -q/-v/-h */
	int64_t interval_us;    /* --interval: one refresh */
	int64_t window_us;      /* --window: what the shares are over */
	unsigned iterations;    /* -n: stop after N refreshes; 0: until q or a signal */
	int view;               /* --view: enum top_table */
	int sort;               /* --sort: the view's key; -1: the view's first */
	unsigned rows;          /* --rows: rows of a plain table (a terminal: its height) */
	int plain;              /* --plain: plain tables even on a terminal */
};

/* The front door's side: the capture's door (its voice, the cookie, the
 * stop signals; cap_door.h: line and found are not used), and the screen. */
struct top_door {
	struct cap_door base;
	int tty;                 /* a terminal: each screen drawn in place, keys read */
	/* One screen, or one plain table (tty 0). @return 0, or -1 when it
	 * cannot be written (the view ends). */
	int (*show)(void *arg, const char *screen, size_t len);
	/* Keys waiting (tty): at most cap of them into k, never waiting. */
	size_t (*keys)(void *arg, unsigned char *k, size_t cap);
	/* The terminal's size (tty). @return 1 when it changed since the last
	 * call (the first call: 1), else 0. */
	int (*size)(void *arg, unsigned *width, unsigned *height);
	/* The terminal back as it was found, before the last sentences. */
	void (*leave)(void *arg);
};

enum top_rc {
	TOP_E_NOMEM = 1,  /* out of memory */
	TOP_E_OUTPUT,     /* a screen or table could not be written */
};

/* The live view until q, -n, a stop signal or an error; the agent stopped
 * and the node restored every way out (the terminal left first).
 * @return 0, a negative enum node_err (its sentence said), or a TOP_E_*
 * code (said). */
int top_run(const struct top_config *cfg, const struct top_door *door);

#endif

/*
 * capture.h - the capture's door: one capture over cfg's nodes, from
 * connecting to the summary (sampler -> formatter -> rotate, the report
 * index beside). As report_run() is the report's, capture_run() is its one
 * entry; the front door (cli/) turns argv into the config and supplies the
 * door below: the voice, the status line, the cookies and the stop signals.
 * The capture prints nothing and picks no exit status: it says each
 * sentence through door->say and returns a CAP_* code.
 */
#ifndef CAP_CAPTURE_H
#define CAP_CAPTURE_H

#include <stddef.h>
#include "cap_config.h"

/* What the capture says on its way; one sentence, no "flameprof: ", no
 * newline. Text from outside (node names, reasons) is in it as it came:
 * the voice escapes what a terminal must not see. */
enum cap_say {
	CAP_SAY_ERROR, /* a failure (a node's, the files'), or "warning: ..." of a target left out */
	CAP_SAY_WARN,  /* something went less well than asked, and what the capture did */
	CAP_SAY_INFO,  /* the summary, the plain status line (level 1) */
	CAP_SAY_NOTE,  /* each step (-v) */
};

/* How a capture ended. */
enum cap_rc {
	CAP_OK,
	CAP_E_USAGE,      /* what was asked cannot be done (--top 0 and no live process; too many nodes) */
	CAP_E_NODE,       /* cannot connect, or start the agent */
	CAP_E_AGENT_DOWN, /* the agent ended unasked (the node restored) */
	CAP_E_NOMEM,      /* out of memory */
	CAP_E_CANTCREAT,  /* the output directory, or this host's lock directory, not usable */
	CAP_E_IO,         /* the files cannot be written (disk full) */
	CAP_E_LOST,       /* the node was lost during the capture */
	CAP_E_PROTOCOL,   /* the node sent what it must not */
	CAP_E_COOKIE,     /* the cookie was rejected, or its file refused */
	CAP_E_PARTIAL,    /* several nodes: some failed (each said), the others' files are complete */
};

/* The front door's side of the capture: functions it calls back. */
struct cap_door {
	/* each sentence, as enum cap_say sorts them */
	void (*say)(void *arg, enum cap_say kind, const char *sentence);
	/* The status line: text, then the current file's name, which goes
	 * last and may be cut from its start to fit; redrawn in place (live),
	 * or a plain line of its own. */
	void (*line)(void *arg, const char *text, const char *file, int live);
	/* The cookie of node, read (its own --cookie-file NODE=FILE, else the
	 * one the first node used where that is shared); *ck stays valid until
	 * wipe. @return 0, or -1 once said. */
	int (*cookie)(void *arg, const char *node, int first, const char **ck);
	/* --cluster: the nodes found (the first one given, then its peers),
	 * before any of them is connected to: a --cookie-file NODE=FILE for
	 * none of them is the door's to warn of */
	void (*found)(void *arg, const char *const *nodes, size_t n);
	/* every cookie read, wiped (called as soon as the last node is
	 * connected, and at the end) */
	void (*wipe)(void *arg);
	/* how many stop signals have arrived (a second one means "now") */
	int (*stops)(void *arg);
	void *arg;
	int live;   /* redraw a status line (a terminal, in the foreground); else a plain line a minute */
};

/* One capture over cfg's nodes (cfg->node, cfg->nodes, --cluster's
 * discovery), each name already checked by the front door. Every failure
 * is said through door->say first. @return CAP_OK, or the first failed
 * node's CAP_E_* when all failed, or CAP_E_PARTIAL. */
int capture_run(const struct cap_config *cfg, const struct cap_door *door);

#endif

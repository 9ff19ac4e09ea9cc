/*
 * cap_door.h - what the capture asks of the front door and how it ends:
 * the sentences it says, the status line it draws, the cookies and stop
 * signals it asks for (struct cap_door, supplied by whoever runs a
 * capture), and the CAP_* codes of its end. Every file of the capture
 * speaks through it; none of them prints.
 */
#ifndef CAP_DOOR_H
#define CAP_DOOR_H

#include <stddef.h>

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
	 * wipe, *from (where it came from, for a rejection's sentence; never
	 * the cookie) for the run. @return 0, or -1 once said. */
	int (*cookie)(void *arg, const char *node, int first, const char **ck, const char **from);
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

#endif

/*
 * capture_door.c - see capture_door.h.
 */
#include <stdio.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>
#include "capture_door.h"
#include "cookie_files.h"
#include "msg.h"
#include "session.h"

/* One door per process: a process runs one command. */
static struct {
	const struct cap_config *cfg;
	char bufs[CAP_MAX_NODES][1024]; /* each cookie read (fp_wipe_cookie() wipes them) */
	size_t used;
	const char *first, *first_from; /* the first node's cookie, and where it came from */
	const char *plain, *plain_from; /* the plain one (--cookie-file FILE, --cookie, ...), once read */
} door_state;

static void door_say(void *arg, enum cap_say kind, const char *sentence)
{
	(void)arg;
	switch (kind) {
	case CAP_SAY_ERROR: fp_error("%s", sentence); break;
	case CAP_SAY_WARN: fp_warn("%s", sentence); break;
	case CAP_SAY_INFO: fp_info("%s", sentence); break;
	case CAP_SAY_NOTE: fp_note("%s", sentence); break;
	}
}

/* The file name goes last; when the line is too wide, its end (the time
 * it started) matters more than its start (the node, shown). */
static void door_line(void *arg, const char *text, const char *file, int live)
{
	char line[1024];
	(void)arg;
	int n = (int)strlen(text), room = fp_status_width() - n, len = (int)strlen(file);
	snprintf(line, sizeof line, "%s%s%s", text, room > 3 && len > room ? "..." : "",
		 room > 3 && len > room ? file + len - (room - 3) : file);
	if (live)
		fp_status_show(line);
	else
		fprintf(stderr, "flameprof: %s\n", line);
}

/* The first node's: its own NODE=FILE, else the plain one. The others':
 * their own, else under --cluster the first's (its cluster shares it),
 * else the plain one, read once (--cookie and $RELEASE_COOKIE are blanked
 * once read). */
static int door_cookie(void *arg, const char *node, int first, const char **ck, const char **from)
{
	(void)arg;
	const struct cap_config *cfg = door_state.cfg;
	const char *own = fp_cookie_file_for(node);
	if (!first && !own && (cfg->cluster || door_state.plain)) {
		*ck = cfg->cluster ? door_state.first : door_state.plain;
		*from = cfg->cluster ? door_state.first_from : door_state.plain_from;
		return 0;
	}
	if (door_state.used == CAP_MAX_NODES)
		return -1; /* cannot happen: one per node at most */
	char *buf = door_state.bufs[door_state.used++];
	int rc = own ? fp_read_cookie(NULL, own, buf, sizeof door_state.bufs[0], ck, from)
		     : fp_read_cookie(cfg->cookie, cfg->cookie_file, buf, sizeof door_state.bufs[0], ck, from);
	if (rc != 0)
		return -1;
	if (first) {
		door_state.first = *ck;
		door_state.first_from = *from;
	}
	if (!own) {
		door_state.plain = *ck;
		door_state.plain_from = *from;
	}
	return 0;
}

static void door_found(void *arg, const char *const *nodes, size_t n)
{
	(void)arg;
	const char *stray = fp_cookie_files_unknown(nodes, n);
	if (stray)
		fp_warn("--cookie-file names '%s', which '%s' is not connected to; not used", stray, door_state.cfg->node);
}

static void door_wipe(void *arg)
{
	(void)arg;
	fp_wipe_cookie();
}

static int door_stops(void *arg)
{
	(void)arg;
	return fp_stop_signals();
}

static int in_foreground(void)
{
	pid_t fg = tcgetpgrp(STDERR_FILENO);
	return fg < 0 || fg == getpgrp();
}

void fp_capture_door(struct cap_door *door, const struct cap_config *cfg)
{
	door_state.cfg = cfg;
	int tty = cfg->fake_tty || (isatty(STDERR_FILENO) && in_foreground());
	*door = (struct cap_door){
		.say = door_say, .line = door_line, .cookie = door_cookie, .found = door_found, .wipe = door_wipe,
		.stops = door_stops, .live = cfg->progress == 1 || (cfg->progress == -1 && tty),
	};
}

int fp_exit_for_capture(int rc)
{
	switch ((enum cap_rc)rc) {
	case CAP_OK: return 0;
	case CAP_E_USAGE: return EX_USAGE;
	case CAP_E_NODE: return EX_UNAVAILABLE;
	case CAP_E_AGENT_DOWN: return EX_SOFTWARE;
	case CAP_E_NOMEM: return EX_OSERR;
	case CAP_E_CANTCREAT: return EX_CANTCREAT;
	case CAP_E_IO: return EX_IOERR;
	case CAP_E_LOST: return EX_TEMPFAIL;
	case CAP_E_PROTOCOL: return EX_PROTOCOL;
	case CAP_E_COOKIE: return EX_NOPERM;
	case CAP_E_PARTIAL: return FP_EX_PARTIAL;
	}
	return EX_SOFTWARE;
}

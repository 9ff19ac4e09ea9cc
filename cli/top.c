/*
 * top.c - the front door of `flameprof top NODE`: the checks no option
 * can make alone, then top_run() (top/top_run.h) through a door whose
 * voice, cookie and stop signals are the capture's (capture_door.h) and
 * whose screen is here.
 *
 * On a terminal (stdin and stdout both) the screen is drawn with plain
 * ANSI escapes on the alternate screen, entered at the first screen (not
 * while connecting), keys are read without echo and without waiting for
 * Enter (termios, ISIG kept: Ctrl-C is SIGINT), the size comes from
 * TIOCGWINSZ and SIGWINCH redraws. restore_terminal() runs on every way
 * out (door.leave, and atexit); kill -9 leaves the terminal to `reset`.
 * Elsewhere one plain table per refresh on stdout.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "capture_door.h"
#include "cookie_files.h"
#include "msg.h"
#include "session.h"
#include "top_options.h"
#include "../node/node.h"

/* The terminal as found, put back by restore_terminal() (also atexit). */
static struct termios saved_tio;
static int raw_on, raw_failed;
static volatile sig_atomic_t resized = 1; /* the first size asked is news */

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
 * terminal raw under the shell. @return 0, or -1 (drawn plain). */
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

/* A screen on the terminal: drawn over the last one in one write (no
 * flicker), its first line in reverse video across the width. */
static int show_tty(const char *screen, size_t len)
{
	struct winsize ws;
	unsigned width = ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20 ? ws.ws_col : 80;
	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	if (!f)
		return -1;
	fputs("\x1b[H", f);
	for (size_t at = 0, line = 0; at < len; line++) {
		const char *nl = memchr(screen + at, '\n', len - at);
		int n = (int)((nl ? (size_t)(nl - screen) : len) - at);
		if (line == 0)
			fprintf(f, "\x1b[7m%-*.*s\x1b[0m\x1b[K\r\n", (int)width, n, screen + at);
		else
			fprintf(f, "%.*s\x1b[K\r\n", n, screen + at);
		at += (size_t)n + (nl != NULL);
	}
	fputs("\x1b[J", f);
	if (fclose(f) != 0) {
		free(buf);
		return -1;
	}
	/* a terminal that went away is the signal's business */
	for (size_t off = 0; off < blen;) {
		ssize_t w = write(STDOUT_FILENO, buf + off, blen - off);
		if (w <= 0 && errno != EINTR)
			break;
		off += w > 0 ? (size_t)w : 0;
	}
	free(buf);
	return 0;
}

static int door_show(void *arg, const char *screen, size_t len)
{
	const int *tty = arg;
	if (*tty && !raw_on && !raw_failed && raw_terminal() < 0)
		raw_failed = 1;
	if (raw_on)
		return show_tty(screen, len);
	return fwrite(screen, 1, len, stdout) != len || fflush(stdout) != 0 ? -1 : 0;
}

static size_t door_keys(void *arg, unsigned char *k, size_t cap)
{
	(void)arg;
	ssize_t n = raw_on ? read(STDIN_FILENO, k, cap) : 0;
	return n > 0 ? (size_t)n : 0;
}

static int door_size(void *arg, unsigned *width, unsigned *height)
{
	struct winsize ws;
	(void)arg;
	if (!resized)
		return 0;
	resized = 0;
	*width = 80;
	*height = 24;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20 && ws.ws_row >= 5) {
		*width = ws.ws_col > 1000 ? 1000 : ws.ws_col;
		*height = ws.ws_row > 1000 ? 1000 : ws.ws_row;
	}
	return 1;
}

static void door_leave(void *arg)
{
	(void)arg;
	restore_terminal();
}

int fp_top_run(const struct top_config *cfg)
{
	static int tty; /* the door's arg: its voice and cookie keep none */
	const struct cap_config *rec = &cfg->rec;
	char err[512];
	const char *other;
	if (node_check_target(rec->node, err, sizeof err) < 0 ||
	    (rec->node_name && node_check_alive(rec->node_name, err, sizeof err) < 0)) {
		fp_usage("%s", err);
		return EX_USAGE;
	}
	if ((other = fp_cookie_files_unknown(&rec->node, 1))) {
		fp_usage("--cookie-file names '%s', which is not the node given ('%s')", other, rec->node);
		return EX_USAGE;
	}
	fp_install_stop_signals();
	struct top_door door;
	fp_capture_door(&door.base, rec);
	tty = !cfg->plain && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	door.base.arg = &tty;
	door.tty = tty;
	door.show = door_show;
	door.keys = door_keys;
	door.size = door_size;
	door.leave = door_leave;
	int rc = top_run(cfg, &door);
	restore_terminal();
	fp_wipe_cookie();
	if (rc < 0)
		return fp_exit_for_node(rc);
	return rc == TOP_E_NOMEM ? EX_OSERR : rc == TOP_E_OUTPUT ? EX_IOERR : 0;
}

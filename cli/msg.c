/* msg.c - see msg.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "msg.h"
#include "../common/ctl_escape.h"

int fp_verbosity = 1;
int fp_status_active;

/* Messages carry text from outside (node and epmd names, the agent's and
 * tracer's reasons, file names): its control bytes are written as \xNN,
 * so nothing a node sends can move the cursor or retitle the terminal. */
static void say(const char *prefix, const char *fmt, va_list ap)
{
	char text[4096], safe[4 * sizeof text];
	int n = vsnprintf(text, sizeof text, fmt, ap);
	if (n < 0)
		n = 0;
	fp_ctl_escape(safe, sizeof safe, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
	fp_status_clear();
	fprintf(stderr, "flameprof: %s%s\n", prefix, safe);
	fflush(stderr);
}

/* Each reporter says its sentence at its level of the scale (msg.h). */
#define SAY_AT(level, prefix)                             \
	do {                                              \
		va_list ap;                               \
		if (fp_verbosity < (level))               \
			return;                           \
		va_start(ap, fmt);                        \
		say(prefix, fmt, ap);                     \
		va_end(ap);                               \
	} while (0)

void fp_error(const char *fmt, ...) { SAY_AT(0, ""); }
void fp_warn(const char *fmt, ...) { SAY_AT(1, "warning: "); }
void fp_info(const char *fmt, ...) { SAY_AT(1, ""); }
void fp_note(const char *fmt, ...) { SAY_AT(2, ""); }

const char *fp_help_command = "flameprof --help";

void fp_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
	fprintf(stderr, "flameprof: try '%s' for more information\n", fp_help_command);
}

int fp_status_width(void)
{
	struct winsize ws;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col - 1 > 240 ? 240 : ws.ws_col - 1;
	/* no terminal (--progress into a pipe or a log): room for the whole
	 * line, the time, the cost and the file's time included */
	return 159;
}

void fp_status_clear(void)
{
	if (!fp_status_active)
		return;
	fprintf(stderr, "\r%*s\r", fp_status_width(), "");
	fp_status_active = 0;
}

void fp_status_show(const char *line)
{
	int w = fp_status_width();
	fprintf(stderr, "\r%-*.*s", w, w, line);
	fflush(stderr);
	fp_status_active = 1;
}

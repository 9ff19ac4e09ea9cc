/*
 * session.c - see session.h.
 */
#include <signal.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include "msg.h"
#include "session.h"
#include "../sampler/sampler.h"

static volatile sig_atomic_t stop_signals;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_signals++;
}

void fp_install_stop_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGXFSZ, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
}

int fp_stop_signals(void)
{
	return stop_signals;
}

long long fp_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int fp_read_cookie(const char *cookie, const char *cookie_file, char *buf, size_t cap, const char **out)
{
	char err[512];
	int loose;
	if (cookie) {
		fp_warn("--cookie shows the cookie to every user in 'ps'; use --cookie-file FILE");
		*out = cookie;
		return 0;
	}
	if (sampler_read_cookie(cookie_file, buf, cap, &loose, err, sizeof err) < 0) {
		fp_error("%s", err);
		return EX_NOPERM;
	}
	if (loose)
		fp_warn("cookie file '%s' can be read by other users; chmod 400 it",
			cookie_file ? cookie_file : "~/.erlang.cookie");
	*out = buf;
	return 0;
}

int fp_exit_for_sampler(int err)
{
	switch (err) {
	case SAMPLER_ERR_USAGE: return EX_USAGE;
	case SAMPLER_ERR_COOKIE: return EX_NOPERM;
	case SAMPLER_ERR_LOST: return EX_TEMPFAIL;
	case SAMPLER_ERR_PROTO: return EX_PROTOCOL;
	case SAMPLER_ERR_NOMEM: return EX_OSERR;
	case SAMPLER_ERR_AGENT_DOWN: return EX_SOFTWARE;
	default: return EX_UNAVAILABLE;
	}
}

/*
 * session.c - see session.h.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include "msg.h"
#include "session.h"
#include "../common/clock.h"
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
	return fp_mono_ms();
}

/* The one copy of the cookie this side keeps, until fp_wipe_cookie(). */
static char *cookie_copy;
static size_t cookie_cap;

void fp_wipe_cookie(void)
{
	if (cookie_copy)
		explicit_bzero(cookie_copy, cookie_cap);
	cookie_copy = NULL;
}

int fp_read_cookie(const char *cookie, const char *cookie_file, char *buf, size_t cap, const char **out)
{
	char err[512], *env;
	/* A core dump would hold the cookie: none from here on (also no
	 * ptrace attach by another process of the same user). */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	struct rlimit none = { 0, 0 };
	setrlimit(RLIMIT_CORE, &none);
	if (cookie) {
		fp_warn("--cookie shows the cookie to every user in 'ps'; use --cookie-file FILE");
		size_t n = strlen(cookie);
		if (n >= cap) {
			fp_error("the cookie given with --cookie is too long (at most %zu bytes)", cap - 1);
			return EX_NOPERM;
		}
		memcpy(buf, cookie, n + 1);
		/* argv's copy, blanked from here on */
		explicit_bzero((char *)cookie, n);
	} else if (!cookie_file && (env = getenv("RELEASE_COOKIE")) && *env) {
		/* as a mix release's scripts take it (they default it to
		 * releases/COOKIE): the release's own cookie, no file needed */
		size_t n = strlen(env);
		if (n >= cap) {
			fp_error("the cookie in RELEASE_COOKIE is too long (at most %zu bytes)", cap - 1);
			return EX_NOPERM;
		}
		memcpy(buf, env, n + 1);
		explicit_bzero(env, n); /* our environment's copy, as argv's above */
		unsetenv("RELEASE_COOKIE");
	} else if (sampler_read_cookie(cookie_file, buf, cap, err, sizeof err) < 0) {
		fp_error("%s", err);
		return EX_NOPERM;
	}
	cookie_copy = buf;
	cookie_cap = cap;
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
	case SAMPLER_ERR_LOCAL: return EX_CANTCREAT;
	default: return EX_UNAVAILABLE;
	}
}

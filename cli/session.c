/*
 * session.c - see session.h.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include "msg.h"
#include "session.h"
#include "cookie_files.h"
#include "../node/node.h"

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

/* The copies of cookies this side keeps (one per cookie read: several
 * nodes may have their own), until fp_wipe_cookie(). */
static struct {
	char *buf;
	size_t cap;
	char from[600]; /* where it came from: not secret, kept past the wipe */
} copies[FP_MAX_COOKIE_FILES + 2];
static size_t ncopies;

void fp_wipe_cookie(void)
{
	for (size_t k = 0; k < ncopies; k++)
		explicit_bzero(copies[k].buf, copies[k].cap);
	ncopies = 0;
}

static int keep_dumpable;

void fp_test_keep_dumpable(void)
{
	keep_dumpable = 1;
}

int fp_read_cookie(const char *cookie, const char *cookie_file, char *buf, size_t cap, const char **out,
		   const char **from)
{
	const char *origin, *prefix = "";
	char err[512], *env;
	/* A core dump would hold the cookie: none from here on (also no
	 * ptrace attach by another process of the same user). */
	if (!keep_dumpable)
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
		origin = "--cookie";
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
		origin = "RELEASE_COOKIE";
	} else if (node_read_cookie(cookie_file, buf, cap, err, sizeof err) < 0) {
		fp_error("%s", err);
		return EX_NOPERM;
	} else {
		origin = cookie_file ? cookie_file : "~/.erlang.cookie";
		prefix = cookie_file ? "--cookie-file " : "";
	}
	size_t k = 0;
	while (k < ncopies && copies[k].buf != buf)
		k++;
	if (k == sizeof copies / sizeof copies[0]) {
		explicit_bzero(buf, cap); /* cannot happen: one per node at most */
		fp_error("too many cookies read");
		return EX_SOFTWARE;
	}
	copies[k].buf = buf;
	copies[k].cap = cap;
	snprintf(copies[k].from, sizeof copies[k].from, "%s%s", prefix, origin);
	ncopies += k == ncopies;
	*out = buf;
	*from = copies[k].from;
	return 0;
}

int fp_cookie_rows_check(const char *cookie, const char *cookie_file, char *detail, size_t cap)
{
	if (!cookie || !cookie_file)
		return FP_OPT_OK;
	return fp_opt_fail(detail, cap, "--cookie and --cookie-file cannot be used together");
}

int fp_exit_for_node(int err)
{
	switch (err) {
	case NODE_ERR_USAGE: return EX_USAGE;
	case NODE_ERR_COOKIE: return EX_NOPERM;
	case NODE_ERR_LOST: return EX_TEMPFAIL;
	case NODE_ERR_PROTO: return EX_PROTOCOL;
	case NODE_ERR_NOMEM: return EX_OSERR;
	case NODE_ERR_AGENT_DOWN: return EX_SOFTWARE;
	case NODE_ERR_LOCAL: return EX_CANTCREAT;
	default: return EX_UNAVAILABLE;
	}
}

int fp_node_begin(struct fp_node_cmd *c)
{
	char err[512];
	if (node_check_target(c->node, err, sizeof err) < 0 ||
	    (c->node_name && node_check_alive(c->node_name, err, sizeof err) < 0)) {
		fp_usage("%s", err);
		return EX_USAGE;
	}
	const char *own = fp_cookie_file_for(c->node), *other;
	if (!c->keep_cookie && (other = fp_cookie_files_unknown(&c->node, 1))) {
		fp_usage("--cookie-file names '%s', which is not the node given ('%s')", other, c->node);
		return EX_USAGE;
	}
	fp_install_stop_signals();
	if (own)
		return fp_read_cookie(NULL, own, c->cookie_buf, sizeof c->cookie_buf, &c->ck, &c->ck_from);
	return fp_read_cookie(c->cookie, c->cookie_file, c->cookie_buf, sizeof c->cookie_buf, &c->ck, &c->ck_from);
}

int fp_node_connect(struct fp_node_cmd *c)
{
	struct node_options no = {
		.node = c->node, .cookie = c->ck, .cookie_from = c->ck_from, .alive = c->node_name, .role = c->role,
		.connect_timeout_ms = (int)(c->connect_timeout_us / 1000),
		.compile_on_target = c->compile_on_target,
	};
	fp_note("connecting to '%s'", c->node);
	int e = node_connect(&c->n, &no);
	if (!c->keep_cookie) {
		fp_wipe_cookie();
		explicit_bzero(c->cookie_buf, sizeof c->cookie_buf);
	}
	return e < 0 ? fp_node_fail(c, e) : 0;
}

int fp_node_fail(struct fp_node_cmd *c, int e)
{
	fp_error("%s", node_error(c->n));
	return fp_exit_for_node(e);
}

void fp_node_say_unload(struct fp_node_cmd *c, int e, const char *what, const char *done)
{
	if (e < 0)
		fp_warn("%s", node_error(c->n));
	else if (e == NODE_PURGING)
		fp_note("%s module deleted; '%s' is still purging its old code and finishes by itself", what, c->node);
	else if (done)
		fp_note("%s", done);
}

void fp_node_end(struct fp_node_cmd *c)
{
	explicit_bzero(c->cookie_buf, sizeof c->cookie_buf);
	node_free(c->n);
	c->n = NULL;
}

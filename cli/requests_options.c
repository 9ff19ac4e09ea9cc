/*
 * requests_options.c - the option table of `flameprof requests`, its
 * parser and its --help.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "msg.h"
#include "options.h"
#include "requests_options.h"

enum kind { K_UINT, K_DUR, K_STR, K_ENTRY, K_TIER, K_FULL, K_IDENTITY, K_IDFUN, K_FRACTION, K_SET };

struct opt {
	const char *name;
	char short_name;
	const char *value;
	enum kind kind;
	size_t offset;
	long long min, max;
	const char *help;
};

#define F(field) offsetof(struct requests_config, field)

static const struct opt options[] = {
	{ "entry", 'e', "MOD:FUN/ARITY", K_ENTRY, F(entry), 0, 0,
	  "each call of this function starts a request (required; ARITY may be '_')" },
	{ "tier", 't', "NAME=MOD:FUN/ARITY", K_TIER, F(tiers), 0, 0,
	  "time these functions, call to return, as tier NAME inside requests ('_' for FUN or ARITY; repeatable)" },
	{ "full", 0, "MOD[:FUN/ARITY]", K_FULL, F(full), 0, 0,
	  "time every function of MOD inside requests, each as a tier named by its MFA (costly: see doc/requests.md; repeatable)" },
	{ "limit", 0, "N", K_UINT, F(limit), 1, 100000,
	  "refuse tier and --full patterns that match more than N functions (default 1000)" },
	{ "identity", 'i', "arg:N", K_IDENTITY, F(identity), 0, 0,
	  "group requests by the entry call's Nth argument (default: the entry function's name)" },
	{ "identity-fun", 0, "SOURCE", K_IDFUN, F(identity_fun), 0, 0,
	  "group by what an Erlang fun({M, F, Args}) returns (an atom, string or undefined); evaluated on the node" },
	{ "duration", 'd', "DUR", K_DUR, F(duration_us), 0, 0,
	  "trace for DUR, e.g. 30s, 5m (default 10s; Ctrl-C or SIGTERM end it sooner, with the summary)" },
	{ "every", 0, "DUR", K_DUR, F(every_us), 0, 0,
	  "one window of figures every DUR: the live table and --stats lines (default 1s)" },
	{ "stats", 0, "FILE", K_STR, F(stats), 0, 0,
	  "append one JSON line per identity and tier per window to FILE" },
	{ "slow", 0, "DUR", K_DUR, F(slow_us), 0, 0,
	  "keep each request slower than DUR (identity, total, tiers, pids) as JSON lines in --slow-file" },
	{ "slow-file", 0, "FILE", K_STR, F(slow_file), 0, 0,
	  "where --slow writes (default flameprof-slow.jsonl)" },
	{ "sample-requests", 0, "P", K_FRACTION, F(sample_permille), 0, 0,
	  "start requests only for the fraction P of each second, e.g. 0.1 (default 1)" },
	{ "max-late", 0, "DUR", K_DUR, F(max_late_us), 0, 0,
	  "circuit breaker: pause tracing when trace messages arrive DUR late (default 1s)" },
	{ "max-queue", 0, "N", K_UINT, F(max_queue), 100, 10000000,
	  "circuit breaker: pause tracing when the node's tracer holds N messages (default 50000)" },
	{ "node-name", 0, "NAME", K_STR, F(node_name), 0, 0,
	  "our node name before the '@' (default flameprof_requests_<user>)" },
	{ "cookie-file", 0, "FILE", K_STR, F(cookie_file), 0, 0,
	  "read the node's cookie from FILE (default ~/.erlang.cookie)" },
	{ "cookie", 0, "COOKIE", K_STR, F(cookie), 0, 0,
	  "the cookie itself: visible to every user in ps, prefer --cookie-file" },
	{ "connect-timeout", 0, "DUR", K_DUR, F(connect_timeout_us), 0, 0,
	  "give up connecting, and each setup request, after DUR (default 5s)" },
	{ "quiet", 'q', NULL, K_SET, F(verbosity), 0, 0, "print errors only" },
	{ "verbose", 'v', NULL, K_SET, F(verbosity), 2, 0, "also print each step" },
	{ "help", 'h', NULL, K_SET, F(help), 1, 0, "print this help" },
};

#define NOPTS (sizeof options / sizeof options[0])

/* MOD:FUN/ARITY, FUN and ARITY each a name or '_'; t is modified and the
 * pattern points into it. */
static int split_pattern(char *t, struct calls_pattern *p)
{
	char *colon = strchr(t, ':'), *slash = colon ? strrchr(colon, '/') : NULL;
	if (!colon || !slash)
		return -1;
	*colon = *slash = '\0';
	p->module = t;
	p->function = colon + 1;
	p->arity = -1;
	if (strcmp(slash + 1, "_") != 0) {
		char *end;
		errno = 0;
		long a = strtol(slash + 1, &end, 10);
		if (end == slash + 1 || *end || errno || a < 0 || a > 255)
			return -1;
		p->arity = (int)a;
	}
	if (!*p->module || !*p->function || strcmp(p->module, "_") == 0 || strlen(p->module) > 255 ||
	    strlen(p->function) > 255)
		return -1;
	return 0;
}

static int apply(const struct opt *o, const char *val, struct requests_config *cfg, const char *spelled)
{
	char *field = (char *)cfg + o->offset, *end;
	switch (o->kind) {
	case K_UINT: {
		errno = 0;
		long long v = strtoll(val, &end, 10);
		if (end == val || *end || errno || v < o->min || v > o->max) {
			fp_usage("'%s' is not a valid value for %s: give a whole number from %lld to %lld",
				 val, spelled, o->min, o->max);
			return -1;
		}
		*(unsigned *)field = (unsigned)v;
		return 0;
	}
	case K_DUR:
		if (fp_parse_duration(val, (int64_t *)field) < 0) {
			fp_usage("'%s' is not a valid duration for %s: write e.g. 500ms, 10s, 2m or 1h", val, spelled);
			return -1;
		}
		return 0;
	case K_STR:
		*(const char **)field = val;
		return 0;
	case K_ENTRY: {
		free(cfg->entry_text);
		if (!(cfg->entry_text = strdup(val))) {
			fp_error("out of memory");
			return -1;
		}
		if (split_pattern(cfg->entry_text, &cfg->entry) < 0) {
			fp_usage("'%s' is not an entry for %s: write MOD:FUN/ARITY, e.g. kv_handler:handle/2 ('_' for FUN or ARITY)",
				 val, spelled);
			return -1;
		}
		return 0;
	}
	case K_TIER: {
		if (cfg->ntiers == REQ_MAX_TIERS) {
			fp_usage("too many %s options: at most %d", spelled, REQ_MAX_TIERS);
			return -1;
		}
		char *t = strdup(val);
		if (!t) {
			fp_error("out of memory");
			return -1;
		}
		cfg->tier_text[cfg->ntiers] = t;
		struct req_tier_pattern *tp = &cfg->tiers[cfg->ntiers++];
		char *eq = strchr(t, '=');
		if (!eq || eq == t || eq - t > 64 || split_pattern(eq + 1, &tp->pattern) < 0) {
			fp_usage("'%s' is not a tier for %s: write NAME=MOD:FUN/ARITY, e.g. db=kv_db:query/2", val, spelled);
			return -1;
		}
		*eq = '\0';
		tp->name = t;
		if (t[0] == '_') {
			fp_usage("tier names starting with '_' are flameprof's own (_total); choose another name than '%s'", t);
			return -1;
		}
		return 0;
	}
	case K_FULL: {
		if (cfg->nfull == REQ_MAX_TIERS) {
			fp_usage("too many %s options: at most %d", spelled, REQ_MAX_TIERS);
			return -1;
		}
		char *t = strdup(val);
		if (!t) {
			fp_error("out of memory");
			return -1;
		}
		cfg->full_text[cfg->nfull] = t;
		struct calls_pattern *p = &cfg->full[cfg->nfull++];
		int bad = strchr(t, ':') ? split_pattern(t, p) : (p->module = t, p->function = "_", p->arity = -1,
								   !*t || strcmp(t, "_") == 0 || strlen(t) > 255);
		if (bad) {
			fp_usage("'%s' is not a module or function for %s: write MOD or MOD:FUN/ARITY (a module, not '_')",
				 val, spelled);
			return -1;
		}
		return 0;
	}
	case K_IDENTITY: {
		errno = 0;
		long n = strncmp(val, "arg:", 4) == 0 ? strtol(val + 4, &end, 10) : 0;
		if (strncmp(val, "arg:", 4) != 0 || end == val + 4 || *end || errno || n < 1 || n > 255) {
			fp_usage("'%s' is not an identity for %s: write arg:N, N from 1 (the first argument of the entry call), or use --identity-fun",
				 val, spelled);
			return -1;
		}
		cfg->identity = REQ_ID_ARG;
		cfg->identity_arg = (unsigned)n;
		return 0;
	}
	case K_IDFUN:
		if (strlen(val) > 2000) {
			fp_usage("%s is longer than 2000 characters; keep the fun short, it runs once per request", spelled);
			return -1;
		}
		cfg->identity = REQ_ID_FUN;
		cfg->identity_fun = val;
		return 0;
	case K_FRACTION: {
		errno = 0;
		double p = strtod(val, &end);
		if (end == val || *end || errno || !(p > 0.0 && p <= 1.0) || p * 1000 < 1) {
			fp_usage("'%s' is not a fraction for %s: give a number from 0.001 to 1, e.g. 0.1", val, spelled);
			return -1;
		}
		cfg->sample_permille = (unsigned)(p * 1000 + 0.5);
		return 0;
	}
	case K_SET:
		*(int *)field = (int)o->min;
		return 0;
	}
	return -1;
}

static void defaults(struct requests_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->duration_us = 10000000;
	cfg->every_us = 1000000;
	cfg->slow_file = "flameprof-slow.jsonl";
	cfg->sample_permille = 1000;
	cfg->max_late_us = 1000000;
	cfg->max_queue = 50000;
	cfg->limit = 1000;
	cfg->connect_timeout_us = 5000000;
	cfg->verbosity = 1;
}

static const struct opt *find(const char *name, size_t n, char short_name)
{
	for (size_t k = 0; k < NOPTS; k++)
		if (short_name ? options[k].short_name == short_name
			       : strlen(options[k].name) == n && strncmp(options[k].name, name, n) == 0)
			return &options[k];
	return NULL;
}

static int check(const struct requests_config *cfg, int identities)
{
	if (cfg->help)
		return 0;
	if (!cfg->node) {
		fp_usage("no node given; name the node to trace, e.g. 'flameprof requests --entry kv:handle/2 app@db1'");
		return -1;
	}
	if (!cfg->entry_text) {
		fp_usage("no --entry given; name the function whose calls start requests, e.g. --entry kv_handler:handle/2");
		return -1;
	}
	if (identities > 1) {
		fp_usage("--identity and --identity-fun both say how to group requests; give one of them");
		return -1;
	}
	for (size_t a = 0; a < cfg->ntiers; a++)
		for (size_t b = 0; b < a; b++)
			if (strcmp(cfg->tiers[a].name, cfg->tiers[b].name) == 0 &&
			    strcmp(cfg->tiers[a].pattern.module, cfg->tiers[b].pattern.module) == 0 &&
			    strcmp(cfg->tiers[a].pattern.function, cfg->tiers[b].pattern.function) == 0 &&
			    cfg->tiers[a].pattern.arity == cfg->tiers[b].pattern.arity) {
				fp_usage("tier '%s' is given twice with the same pattern", cfg->tiers[a].name);
				return -1;
			}
	if (cfg->duration_us < 1000 || cfg->every_us < 100000 || cfg->connect_timeout_us < 100000 ||
	    cfg->max_late_us < 10000) {
		fp_usage("--duration must be at least 1ms, --every and --connect-timeout at least 100ms, --max-late at least 10ms");
		return -1;
	}
	if (cfg->cookie && cfg->cookie_file) {
		fp_usage("--cookie and --cookie-file cannot be used together");
		return -1;
	}
	return 0;
}

int requests_parse_options(int argc, char **argv, struct requests_config *cfg)
{
	defaults(cfg);
	int only_args = 0, identities = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		const struct opt *o;
		char spelled[64];
		if (!only_args && strcmp(a, "--") == 0) {
			only_args = 1;
			continue;
		}
		if (!only_args && a[0] == '-' && a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			o = find(a + 2, n, 0);
			snprintf(spelled, sizeof spelled, "--%.*s", (int)n, a + 2);
			if (eq)
				val = eq + 1;
		} else if (!only_args && a[0] == '-' && a[1] && !a[2]) {
			o = find(NULL, 0, a[1]);
			snprintf(spelled, sizeof spelled, "-%c", a[1]);
		} else {
			if (cfg->node) {
				fp_usage("one node at a time: '%s' and '%s' given", cfg->node, a);
				return 64;
			}
			cfg->node = a;
			continue;
		}
		if (!o) {
			fp_usage("unknown option '%s' for 'flameprof requests'", spelled);
			return 64;
		}
		if (o->value && !val) {
			if (i + 1 >= argc) {
				fp_usage("%s needs a value (%s)", spelled, o->value);
				return 64;
			}
			val = argv[++i];
		} else if (!o->value && val) {
			fp_usage("%s takes no value", spelled);
			return 64;
		}
		identities += o->kind == K_IDENTITY || o->kind == K_IDFUN;
		if (apply(o, val, cfg, spelled) < 0)
			return 64;
	}
	return check(cfg, identities) < 0 ? 64 : 0;
}

void requests_config_free(struct requests_config *cfg)
{
	free(cfg->entry_text);
	cfg->entry_text = NULL;
	for (size_t k = 0; k < cfg->ntiers; k++)
		free(cfg->tier_text[k]);
	cfg->ntiers = 0;
	for (size_t k = 0; k < cfg->nfull; k++)
		free(cfg->full_text[k]);
	cfg->nfull = 0;
}

void requests_print_help(void)
{
	printf("usage: flameprof requests [options] --entry MOD:FUN/ARITY [--tier NAME=MOD:FUN/ARITY]... NODE\n\n"
	       "Where each kind of request spends its time, tier by tier, across processes.\n"
	       "Each call of the entry function starts a request: it gets a seq_trace token,\n"
	       "which the VM passes along with every message, so the gen_servers and workers\n"
	       "that serve it are timed too. Tiers are timed call to return, only inside\n"
	       "requests; _total is the entry call to its return. Percentiles come from\n"
	       "log-linear histograms. Everything set is removed at the end, on Ctrl-C, and\n"
	       "if flameprof dies.\n\n"
	       "options:\n");
	for (size_t k = 0; k < NOPTS; k++) {
		const struct opt *o = &options[k];
		char left[64], sh[8] = "    ";
		if (o->short_name)
			snprintf(sh, sizeof sh, "-%c, ", o->short_name);
		snprintf(left, sizeof left, "%s--%s%s%s", sh, o->name, o->value ? " " : "", o->value ? o->value : "");
		printf("  %-32s %s\n", left, o->help);
	}
	printf("\nexample: flameprof requests --entry kv_handler:handle/2 --identity arg:1 \\\n"
	       "           --tier parse=kv_proto:parse/1 --tier db=kv_db:_/_ --stats s.jsonl app@db1\n"
	       "\nCost: two trace messages per entry and per tier call inside a request; a\n"
	       "message sent without waiting for its answer (a cast) carries the request's\n"
	       "token into the work it starts: call seq_trace:set_token([]) before casting\n"
	       "work that is not part of the request. See doc/requests.md.\n"
	       "\nexit status: 0 done, 64 usage (also: a pattern that matches nothing, a bad\n"
	       "--identity-fun), 69 cannot connect, node busy with another tracing session,\n"
	       "or a function traced by someone else, 73 a file not writable, 74 I/O error,\n"
	       "75 node lost during the run, 76 protocol error, 77 cookie rejected.\n");
}

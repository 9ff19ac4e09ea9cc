/*
 * calls_options.c - the option table of `flameprof calls`, its parser
 * and its --help.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calls_options.h"
#include "msg.h"
#include "options.h"

enum kind { K_UINT, K_DUR, K_STR, K_LIST, K_TYPE, K_FORMAT, K_PATTERN, K_SET };

struct opt {
	const char *name;     /* long name without "--" */
	char short_name;      /* 0: none */
	const char *value;    /* value name in --help; NULL: no value */
	enum kind kind;
	size_t offset;        /* field in struct calls_config */
	long long min, max;   /* K_UINT bounds; K_SET: min is the value set */
	const char *help;
};

#define F(field) offsetof(struct calls_config, field)

static const struct opt options[] = {
	{ "type", 't', "TYPE", K_TYPE, F(type), 0, 0,
	  "count (default: calls, every process), time (microseconds on a scheduler) or memory (heap words; OTP 26+)" },
	{ "pattern", 'p', "MOD[:FUN[/ARITY]]", K_PATTERN, F(patterns), 0, 0,
	  "trace the matching functions of a loaded module; '_' for any (repeatable, at least one)" },
	{ "pid", 0, "PID", K_LIST, F(pids), 0, 0,
	  "time or memory: measure in this process, e.g. '<0.123.0>' (repeatable)" },
	{ "name", 0, "NAME", K_LIST, F(names), 0, 0,
	  "time or memory: measure in this registered process (repeatable)" },
	{ "all", 0, NULL, K_SET, F(all), 1, 0,
	  "time or memory: measure in every process, new ones too (the default)" },
	{ "new", 0, NULL, K_SET, F(new_procs), 1, 0,
	  "time or memory: measure only in processes spawned during the run" },
	{ "per-process", 0, NULL, K_SET, F(per_process), 1, 0,
	  "time or memory: one table per process" },
	{ "duration", 'd', "DUR", K_DUR, F(duration_us), 0, 0,
	  "trace for DUR, e.g. 500ms, 10s, 2m (default 10s; Ctrl-C or SIGTERM end it sooner, with results)" },
	{ "top", 0, "N", K_UINT, F(top), 0, 1000000,
	  "print the N largest rows of each table (default: all)" },
	{ "json", 0, "FILE", K_STR, F(json), 0, 0,
	  "also write every row to FILE as JSON ('-': standard output, instead of the table)" },
	{ "format", 0, "FORMAT", K_FORMAT, F(format), 0, 0,
	  "table (default, as OTP's tprof) or folded (lines for flame graph tools)" },
	{ "limit", 0, "N", K_UINT, F(limit), 1, 1000000,
	  "refuse patterns that match more than N functions (default 1000)" },
	{ "force", 0, NULL, K_SET, F(force), 1, 0, "trace however many functions match" },
	{ "max-run-queue", 0, "N", K_UINT, F(max_run_queue), 0, 100000000,
	  "end the run early, with its results, once the node's run queues stay above N (or 4x their length at the start) for 1 s (default 200; 0: never)" },
	{ "node-name", 0, "NAME", K_STR, F(node_name), 0, 0,
	  "our node name before '@' (default flameprof_calls_<user>, one run of yours per node at a time)" },
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

/* MOD[:FUN[/ARITY]], each part a name or '_'. The text is copied: the
 * pattern points into the copy. */
static int parse_pattern(struct calls_config *cfg, const char *text)
{
	if (cfg->npatterns == CALLS_MAX_PATTERNS)
		return -2;
	char *t = strdup(text);
	if (!t)
		return -3;
	cfg->pattern_text[cfg->npatterns] = t;
	struct calls_pattern *p = &cfg->patterns[cfg->npatterns++];
	p->function = NULL;
	p->arity = -1;
	p->module = t;
	char *colon = strchr(t, ':');
	if (colon) {
		*colon = '\0';
		p->function = colon + 1;
		char *slash = strrchr(p->function, '/');
		if (slash) {
			*slash = '\0';
			if (strcmp(slash + 1, "_") != 0) {
				char *end;
				errno = 0;
				long a = strtol(slash + 1, &end, 10);
				if (end == slash + 1 || *end || errno || a < 0 || a > 255)
					return -1;
				p->arity = (int)a;
			}
		}
		if (p->function[0] == '\0')
			return -1;
	}
	if (p->module[0] == '\0' || strlen(p->module) > 255 || (p->function && strlen(p->function) > 255))
		return -1;
	return 0;
}

static int apply(const struct opt *o, const char *val, struct calls_config *cfg, const char *spelled)
{
	char *field = (char *)cfg + o->offset;
	char *end;
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
	case K_LIST: {
		size_t *n = o->offset == F(pids) ? &cfg->npids : &cfg->nnames;
		if (*n == CALLS_MAX_TARGETS) {
			fp_usage("too many %s options: at most %d", spelled, CALLS_MAX_TARGETS);
			return -1;
		}
		((const char **)field)[(*n)++] = val;
		return 0;
	}
	case K_TYPE:
		if (strcmp(val, "count") == 0 || strcmp(val, "call_count") == 0)
			cfg->type = CALLS_COUNT;
		else if (strcmp(val, "time") == 0 || strcmp(val, "call_time") == 0)
			cfg->type = CALLS_TIME;
		else if (strcmp(val, "memory") == 0 || strcmp(val, "call_memory") == 0)
			cfg->type = CALLS_MEMORY;
		else {
			fp_usage("'%s' is not a type for %s: use count, time or memory", val, spelled);
			return -1;
		}
		return 0;
	case K_FORMAT:
		if (strcmp(val, "table") == 0)
			cfg->format = CALLS_FORMAT_TABLE;
		else if (strcmp(val, "folded") == 0)
			cfg->format = CALLS_FORMAT_FOLDED;
		else {
			fp_usage("'%s' is not a format for %s: use table or folded", val, spelled);
			return -1;
		}
		return 0;
	case K_PATTERN: {
		int r = parse_pattern(cfg, val);
		if (r == -2)
			fp_usage("too many %s options: at most %d", spelled, CALLS_MAX_PATTERNS);
		else if (r == -3)
			fp_error("out of memory");
		else if (r < 0)
			fp_usage("'%s' is not a pattern for %s: write MOD, MOD:FUN or MOD:FUN/ARITY, '_' for any part",
				 val, spelled);
		return r < 0 ? -1 : 0;
	}
	case K_SET:
		*(int *)field = (int)o->min;
		return 0;
	}
	return -1;
}

static void defaults(struct calls_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->type = CALLS_COUNT;
	cfg->duration_us = 10000000;
	cfg->limit = 1000;
	cfg->max_run_queue = 200;
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

/* Combinations, checked once everything is parsed. */
static int check(struct calls_config *cfg)
{
	int explicit = cfg->npids || cfg->nnames;
	if (cfg->help)
		return 0;
	if (!cfg->node) {
		fp_usage("no node given; name the node to trace, e.g. 'flameprof calls --pattern mymod app@db1'");
		return -1;
	}
	if (cfg->npatterns == 0) {
		fp_usage("no --pattern given; name what to trace, e.g. --pattern mymod:handle_call/3 (flameprof never traces what you did not name)");
		return -1;
	}
	if (cfg->type == CALLS_COUNT && (explicit || cfg->all || cfg->new_procs || cfg->per_process)) {
		fp_usage("--type count counts calls in every process together; --pid, --name, --all, --new and --per-process need --type time or memory");
		return -1;
	}
	if ((cfg->all != 0) + (cfg->new_procs != 0) + (explicit != 0) > 1) {
		fp_usage("--all, --new and --pid/--name choose the processes in different ways; give one of them");
		return -1;
	}
	if (cfg->duration_us < 1000 || cfg->connect_timeout_us < 100000) {
		fp_usage("--duration must be at least 1ms and --connect-timeout at least 100ms");
		return -1;
	}
	if (cfg->cookie && cfg->cookie_file) {
		fp_usage("--cookie and --cookie-file cannot be used together");
		return -1;
	}
	if (cfg->json && strcmp(cfg->json, "-") == 0 && cfg->format == CALLS_FORMAT_FOLDED) {
		fp_usage("--json - and --format folded both want standard output; write the JSON to a file");
		return -1;
	}
	return 0;
}

int calls_parse_options(int argc, char **argv, struct calls_config *cfg)
{
	defaults(cfg);
	int only_args = 0;
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
			fp_usage("unknown option '%s' for 'flameprof calls'", spelled);
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
		if (apply(o, val, cfg, spelled) < 0)
			return 64;
	}
	return check(cfg) < 0 ? 64 : 0;
}

void calls_config_free(struct calls_config *cfg)
{
	for (size_t k = 0; k < cfg->npatterns; k++)
		free(cfg->pattern_text[k]);
	cfg->npatterns = 0;
}

void calls_print_help(void)
{
	printf("usage: flameprof calls [options] --pattern MOD[:FUN[/ARITY]]... NODE\n\n"
	       "Counts every call of the named functions on a running node, with the time\n"
	       "or heap words they took, using the VM's call_count, call_time and\n"
	       "call_memory breakpoints (what OTP 27's tprof uses), from outside the node.\n"
	       "Everything set is removed at the end, on Ctrl-C, and if flameprof dies.\n\n"
	       "options:\n");
	for (size_t k = 0; k < NOPTS; k++) {
		const struct opt *o = &options[k];
		char left[64], sh[8] = "    ";
		if (o->short_name)
			snprintf(sh, sizeof sh, "-%c, ", o->short_name);
		snprintf(left, sizeof left, "%s--%s%s%s", sh, o->name, o->value ? " " : "", o->value ? o->value : "");
		printf("  %-30s %s\n", left, o->help);
	}
	printf("\nexample: flameprof calls --type time --pattern 'my_db:query/_' --duration 30s app@db1\n"
	       "\nexit status: 0 done, 64 usage (also: a pattern that matches nothing, too many\n"
	       "functions), 69 cannot connect, node busy with another tracing session, or\n"
	       "memory asked of a node older than OTP 26, 73 JSON file not writable, 74 I/O\n"
	       "error, 75 node lost during the run, 76 protocol error, 77 cookie rejected.\n"
	       "See doc/calls.md and flameprof(1).\n");
}

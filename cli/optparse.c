/*
 * optparse.c - the option engine (see optparse.h).
 */
#include "optparse.h"
#include "cookie_files.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "../common/names.h"
#include "../common/near.h"

static const struct fp_opt *find_long(const struct fp_command *cmd, const char *name, size_t n)
{
	for (size_t k = 0; k < cmd->nopts; k++)
		if (strlen(cmd->opts[k].name) == n && strncmp(cmd->opts[k].name, name, n) == 0)
			return &cmd->opts[k];
	return NULL;
}

static const struct fp_opt *find_short(const struct fp_command *cmd, char c)
{
	for (size_t k = 0; k < cmd->nopts; k++)
		if (cmd->opts[k].short_name == c)
			return &cmd->opts[k];
	return NULL;
}

/* The option a mistyped long name (n bytes) was most likely meant to be
 * (common/near.h), among those --help shows; NULL: none is near. */
static const char *nearest_long(const struct fp_command *cmd, const char *name, size_t n)
{
	const char *best = NULL;
	int best_d = -1;
	for (size_t k = 0; k < cmd->nopts; k++) {
		const struct fp_opt *o = &cmd->opts[k];
		int d = o->help ? fp_near(name, n, o->name, strlen(o->name)) : -1;
		if (d >= 0 && (best_d < 0 || d < best_d)) {
			best = o->name;
			best_d = d;
		}
	}
	return best;
}

/* Finds the option argv[*i] names and its value (taking the next argument
 * when the option needs one). @return the option, or NULL with detail. */
static const struct fp_opt *option_of(const struct fp_command *cmd, int argc, char **argv, int *i,
				      const char **val, char *spelled, size_t scap, char *detail,
				      size_t cap)
{
	const char *a = argv[*i];
	const struct fp_opt *o;
	*val = NULL;
	if (a[1] == '-') {
		const char *eq = strchr(a + 2, '=');
		size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		snprintf(spelled, scap, "--%.*s", (int)n, a + 2);
		o = find_long(cmd, a + 2, n);
		if (o && eq)
			*val = eq + 1;
	} else {
		snprintf(spelled, scap, "-%c", a[1]);
		o = find_short(cmd, a[1]);
		if (o && a[2]) {
			if (!o->value) /* "-qz": not a switch followed by a value */
				o = NULL, snprintf(spelled, scap, "%s", a);
			else
				*val = a + 2;
		}
	}
	if (!o) {
		const char *near = a[1] == '-' ? nearest_long(cmd, a + 2, strcspn(a + 2, "=")) : NULL;
		if (!near)
			snprintf(detail, cap, "unknown option '%s'", spelled);
		else if (cmd->hint_inline) /* the hint follows: "; see '... --help'" */
			snprintf(detail, cap, "unknown option '%s' (did you mean '--%s'?)", spelled, near);
		else
			snprintf(detail, cap, "unknown option '%s'; did you mean '--%s'?", spelled, near);
		return NULL;
	}
	if (o->value && !*val) {
		if (*i + 1 >= argc) {
			snprintf(detail, cap, "option '%s' needs a value (%s)", spelled, o->value);
			return NULL;
		}
		*val = argv[++*i];
	} else if (!o->value && *val && !(o->id == FP_K_HELP && strcmp(*val, "all") == 0)) {
		snprintf(detail, cap, "option '%s' takes no value", spelled);
		return NULL;
	}
	return o;
}

int fp_opt_apply(const struct fp_command *cmd, void *cfg, const struct fp_opt *o, const char *val,
		 const char *spelled, char *detail, size_t cap)
{
	char *field = (char *)cfg + o->field;
	long long v;
	if (o->id < FP_K_UINT)
		return cmd->apply(cfg, o, val, spelled, detail, cap);
	switch ((enum fp_opt_kind)o->id) {
	case FP_K_UINT:
	case FP_K_INT:
		if (fp_opt_whole(o, val, spelled, &v, detail, cap) != FP_OPT_OK)
			return FP_OPT_USAGE;
		if (o->id == FP_K_INT)
			*(int *)field = (int)v;
		else
			*(unsigned *)field = (unsigned)v;
		return FP_OPT_OK;
	case FP_K_DUR:
	case FP_K_TIMEOUT:
		return fp_opt_duration(val, spelled, o->id == FP_K_DUR ? cmd->duration_eg : "5s", (int64_t *)field,
				       detail, cap);
	case FP_K_STR:
		*(const char **)field = val;
		return FP_OPT_OK;
	case FP_K_SET:
		*(int *)field = (int)o->min;
		return FP_OPT_OK;
	case FP_K_HELP:
		*(int *)field = val ? 2 : 1;
		return FP_OPT_OK;
	case FP_K_NAMES:
		return fp_opt_names(val, spelled, (int *)field, detail, cap);
	case FP_K_COOKIE_FILE:
		return fp_cookie_file_option(val, spelled, (const char **)field, detail, cap);
	}
	return fp_opt_fail(detail, cap, "%s: no such kind of option", spelled);
}

int fp_opt_parse(const struct fp_command *cmd, int argc, char **argv, void *cfg, char *detail,
		 size_t cap)
{
	int only_operands = 0;
	*detail = '\0';
	fp_cookie_files_reset();
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val;
		const struct fp_opt *o;
		char spelled[64];
		int rc;
		if (only_operands || a[0] != '-' || a[1] == '\0') {
			rc = cmd->operand ? cmd->operand(cfg, a, detail, cap)
					  : fp_opt_one_node((const char **)((char *)cfg + cmd->node_field), a, detail, cap);
			if (rc != FP_OPT_OK)
				return rc;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_operands = 1;
			continue;
		}
		o = option_of(cmd, argc, argv, &i, &val, spelled, sizeof spelled, detail, cap);
		if (!o)
			return FP_OPT_USAGE;
		/* "--help all": the word is the option's, not an operand */
		if (o->id == FP_K_HELP && !val && i + 1 < argc && strcmp(argv[i + 1], "all") == 0)
			val = argv[++i];
		if ((rc = fp_opt_apply(cmd, cfg, o, val, spelled, detail, cap)) != FP_OPT_OK)
			return rc;
	}
	return FP_OPT_OK;
}

/* text on lines of at most width columns, each but the first indented by
 * indent (the first starts where the caller left the line), broken at
 * spaces (a word longer than a line stands alone) */
static void wrapped(FILE *f, const char *text, int indent, int width)
{
	int room = width - indent;
	while ((int)strlen(text) > room) {
		int cut = room;
		while (cut > 0 && text[cut] != ' ')
			cut--;
		if (cut == 0) /* one long word: up to the next space */
			cut = (int)strcspn(text, " ");
		fprintf(f, "%.*s\n%*s", cut, text, indent, "");
		text += cut;
		while (*text == ' ')
			text++;
	}
	fprintf(f, "%s\n", text);
}

void fp_opt_help_all(const struct fp_command *cmd, FILE *f, int all)
{
	if (cmd->head)
		cmd->head(f, all || !cmd->brief);
	if (cmd->brief && !all) {
		fputs(cmd->brief, f);
		return;
	}
	fputs(cmd->synopsis, f);
	for (size_t k = 0; k < cmd->nopts; k++) {
		const struct fp_opt *o = &cmd->opts[k];
		char left[64], sh[8] = "    ";
		if (!o->help)
			continue;
		if (o->short_name)
			snprintf(sh, sizeof sh, "-%c, ", o->short_name);
		snprintf(left, sizeof left, "%s--%s%s%s", sh, o->name, o->value ? " " : "",
			 o->value ? o->value : "");
		/* a left column too wide for its place: the text on the next line */
		int indent = 2 + cmd->help_column + 1;
		if ((int)strlen(left) > cmd->help_column)
			fprintf(f, "  %s\n%*s", left, indent, "");
		else
			fprintf(f, "  %-*s ", cmd->help_column, left);
		wrapped(f, o->help, indent, cmd->wrap ? cmd->wrap : FP_HELP_WIDTH);
	}
	if (cmd->epilog)
		fputs(cmd->epilog, f);
}

void fp_opt_help(const struct fp_command *cmd, FILE *f)
{
	fp_opt_help_all(cmd, f, 0);
}

void fp_opt_usage(const struct fp_command *cmd, const char *detail)
{
	if (cmd->hint_inline) {
		fp_error("%s; see '%s --help'", detail, cmd->name);
		return;
	}
	fp_error("%s", detail);
	fp_error("try '%s --help' for more information", cmd->name);
}

int fp_opt_command(const struct fp_command *cmd, int argc, char **argv, void *cfg)
{
	char detail[512];
	int rc = fp_opt_parse(cmd, argc, argv, cfg, detail, sizeof detail);
	if (rc == FP_OPT_OK && cmd->check)
		rc = cmd->check(cfg, detail, sizeof detail);
	if (rc == FP_OPT_USAGE) {
		fp_opt_usage(cmd, detail);
		return 64; /* EX_USAGE */
	}
	return 0;
}

int fp_opt_main(const struct fp_command *cmd, int argc, char **argv, void *cfg, int (*run)(void *cfg))
{
	static char hint[64];
	snprintf(hint, sizeof hint, "%s --help", cmd->name);
	fp_help_command = hint;
	cmd->defaults(cfg);
	int rc = fp_opt_command(cmd, argc, argv, cfg);
	int help = *(int *)((char *)cfg + cmd->help_field);
	if (rc == 0 && help) {
		fp_opt_help_all(cmd, stdout, help == 2);
	} else if (rc == 0) {
		fp_verbosity = *(int *)((char *)cfg + cmd->verbosity_field);
		rc = run(cfg);
	}
	if (cmd->free)
		cmd->free(cfg);
	return rc;
}

int fp_opt_fail(char *detail, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, cap, fmt, ap);
	va_end(ap);
	return FP_OPT_USAGE;
}

int fp_opt_whole(const struct fp_opt *o, const char *val, const char *spelled, long long *v,
		 char *detail, size_t cap)
{
	char *end;
	errno = 0;
	*v = strtoll(val, &end, 10);
	if (end == val || *end || errno || *v < o->min || *v > o->max)
		return fp_opt_fail(detail, cap, "'%s' is not a valid value for %s: give a whole number from %lld to %lld",
				   val, spelled, o->min, o->max);
	return FP_OPT_OK;
}

int fp_opt_duration(const char *val, const char *spelled, const char *eg, int64_t *us,
		    char *detail, size_t cap)
{
	if (fp_parse_duration(val, us) < 0)
		return fp_opt_fail(detail, cap, "'%s' is not a valid duration for %s: write e.g. 500ms, %s, 2m or 1h",
				   val, spelled, eg);
	return FP_OPT_OK;
}

char *fp_opt_repeat(const char *val, const char *spelled, char **texts, size_t n, size_t max,
		    char *detail, size_t cap)
{
	if (n == max) {
		snprintf(detail, cap, "too many %s options: at most %zu", spelled, max);
		return NULL;
	}
	char *t = strdup(val);
	if (!t)
		snprintf(detail, cap, "out of memory");
	return texts[n] = t;
}

void fp_opt_free_texts(char **texts, size_t *n)
{
	for (size_t k = 0; k < *n; k++)
		free(texts[k]);
	*n = 0;
}

int fp_opt_tier(const char *val, const char *spelled, struct fp_tier_pattern *tiers, char **texts,
		size_t *n, char *detail, size_t cap)
{
	char *t = fp_opt_repeat(val, spelled, texts, *n, FP_MAX_TIERS, detail, cap);
	if (!t)
		return FP_OPT_USAGE;
	struct fp_tier_pattern *tp = &tiers[(*n)++];
	switch (fp_tier_parse(t, tp)) {
	case FP_TIER_OK:
		return FP_OPT_OK;
	case FP_TIER_RESERVED:
		return fp_opt_fail(detail, cap, "tier names starting with '_' are flameprof's own (_total); choose another name than '%s'",
				   tp->name);
	default:
		return fp_opt_fail(detail, cap, "'%s' is not a tier for %s: write NAME=MOD:FUN/ARITY, e.g. db=kv_db:query/2 or db=MyApp.Repo.query/_",
				   val, spelled);
	}
}

int fp_opt_name(const char *val, const char *spelled, char *detail, size_t cap)
{
	char text[2 * FP_ATOM_MAX + 8];
	struct fp_mfa_pattern p;
	if (strlen(val) < sizeof text && (strcpy(text, val), fp_name_parse(text, &p) == 0))
		return FP_OPT_OK;
	return fp_opt_fail(detail, cap, "'%s' is not a registered name for %s: write it as Erlang does (my_server, 'my server') or as Elixir does (MyApp.Server, :my_server)",
			   val, spelled);
}

int fp_opt_target(const char *val, const char *spelled, int is_name, const char **list, size_t *n, size_t max,
		  char *detail, size_t cap)
{
	if (*n == max)
		return fp_opt_fail(detail, cap, "too many %s options: at most %zu", spelled, max);
	if (is_name && fp_opt_name(val, spelled, detail, cap) != FP_OPT_OK)
		return FP_OPT_USAGE;
	list[(*n)++] = val;
	return FP_OPT_OK;
}

int fp_opt_names(const char *val, const char *spelled, int *lang, char *detail, size_t cap)
{
	if ((*lang = fp_names_parse(val)) >= 0)
		return FP_OPT_OK;
	return fp_opt_fail(detail, cap, "'%s' is not a valid value for %s: give elixir, erlang or auto", val, spelled);
}

int fp_opt_word(const char *val, const char *spelled, const char *const *words, size_t n, const char *what,
		const char *use, char *detail, size_t cap)
{
	for (size_t k = 0; k < n; k++)
		if (strcmp(val, words[k]) == 0)
			return (int)k;
	snprintf(detail, cap, "'%s' is not %s for %s: use %s", val, what, spelled, use);
	return -1;
}

int fp_opt_one_node(const char **node, const char *arg, char *detail, size_t cap)
{
	if (*node) {
		/* a trace session's table or top's view is of one node; summing
		 * them across a cluster is not built yet */
		return fp_opt_fail(detail, cap, "one node at a time: '%s' and '%s' given (only the capture, 'flameprof NODE...', "
				   "takes several)", *node, arg);
	}
	*node = arg;
	return FP_OPT_OK;
}

int fp_opt_tiers_check(const struct fp_tier_pattern *tiers, size_t n, char *detail, size_t cap)
{
	const char *twice = fp_tier_given_twice(tiers, n);
	if (!twice)
		return FP_OPT_OK;
	return fp_opt_fail(detail, cap, "tier '%s' is given twice with the same pattern", twice);
}

int fp_parse_duration(const char *text, int64_t *us)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || errno || !(v >= 0) || isinf(v))
		return -1;
	double scale = 1e6;
	if (strcmp(end, "") == 0 || strcmp(end, "s") == 0)
		scale = 1e6;
	else if (strcmp(end, "ms") == 0)
		scale = 1e3;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		scale = 60e6;
	else if (strcmp(end, "h") == 0)
		scale = 3600e6;
	else if (strcmp(end, "d") == 0)
		scale = 86400e6;
	else
		return -1;
	if (v * scale > 9e18)
		return -1;
	*us = (int64_t)(v * scale + 0.5);
	return 0;
}

int fp_parse_size(const char *text, uint64_t *bytes)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || errno || !(v >= 0) || isinf(v))
		return -1;
	double scale;
	switch (end[0] == '\0' ? 'b' : end[0]) {
	case 'b': case 'B': scale = 1; break;
	case 'k': case 'K': scale = 1024.0; break;
	case 'm': case 'M': scale = 1024.0 * 1024; break;
	case 'g': case 'G': scale = 1024.0 * 1024 * 1024; break;
	case 't': case 'T': scale = 1024.0 * 1024 * 1024 * 1024; break;
	default: return -1;
	}
	if (end[0] && end[1] && strcmp(end + 1, "B") != 0 && strcmp(end + 1, "iB") != 0)
		return -1;
	if (v * scale > 1.8e19)
		return -1;
	*bytes = (uint64_t)(v * scale);
	return 0;
}

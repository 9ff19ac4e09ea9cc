/*
 * test_optparse.c - the one option engine (cli/optparse.c) on a small
 * command of its own: every spelling of an option and its value, "--" and
 * "-", each usage error's sentence, what stops parsing, and --help from
 * the table. The commands' own tables are tested through them
 * (test_report_parse.c, tests/e2e/fault_options.t, man_options.t).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "../../cli/optparse.h"

enum { T_NAME, T_COUNT, T_QUIET, T_HELP, T_SECRET };

struct tcfg {
	const char *name;
	int count, quiet;
	const char *ops[8];
	int nops;
};

static const struct fp_opt OPTS[] = {
	{ "name", 'n', "NAME", T_NAME, .help = "a name" },
	{ "count", 0, "N", T_COUNT, .help = "a number" },
	{ "quiet", 'q', NULL, T_QUIET, .help = "a switch" },
	{ "help", 'h', NULL, T_HELP, .help = "stops" },
	{ "secret", 0, NULL, T_SECRET, .help = NULL }, /* hidden */
};

static int apply(void *ctx, const struct fp_opt *o, const char *val, const char *spelled,
		 char *detail, size_t cap)
{
	struct tcfg *c = ctx;
	switch (o->id) {
	case T_NAME: c->name = val; return FP_OPT_OK;
	case T_COUNT:
		if (strcmp(val, "bad") == 0) {
			snprintf(detail, cap, "'%s' is bad for %s", val, spelled);
			return FP_OPT_USAGE;
		}
		c->count = atoi(val);
		return FP_OPT_OK;
	case T_QUIET: c->quiet++; return FP_OPT_OK;
	case T_HELP: return FP_OPT_STOP;
	default: return FP_OPT_OK;
	}
}

static int operand(void *ctx, const char *arg, char *detail, size_t cap)
{
	struct tcfg *c = ctx;
	if (c->nops == 8) {
		snprintf(detail, cap, "too many");
		return FP_OPT_USAGE;
	}
	c->ops[c->nops++] = arg;
	return FP_OPT_OK;
}

static const struct fp_command CMD = {
	.name = "tool sub", .synopsis = "usage: tool sub [options] ARG...\n\n",
	.epilog = "\nthe end\n", .help_column = 18, .hint_inline = 1,
	.opts = OPTS, .nopts = sizeof OPTS / sizeof OPTS[0],
	.apply = apply, .operand = operand,
};

/* Parses the arguments given (up to a NULL) into *c. @return the engine's rc. */
static int parse(struct tcfg *c, char *detail, ...)
{
	char *av[16] = { "sub" };
	int ac = 1;
	va_list ap;
	va_start(ap, detail);
	while (ac < 15 && (av[ac] = va_arg(ap, char *)) != NULL)
		ac++;
	va_end(ap);
	memset(c, 0, sizeof *c);
	return fp_opt_parse(&CMD, ac, av, c, detail, 256);
}

static void test_spellings(void)
{
	struct tcfg c;
	char d[256];
	is_int(parse(&c, d, "--name", "a", "x", "--count=3", "-q", "y", NULL), FP_OPT_OK, "parses");
	is_str(c.name, "a", "--name VALUE");
	is_int(c.count, 3, "--count=VALUE");
	is_int(c.quiet, 1, "-q");
	ok(c.nops == 2 && !strcmp(c.ops[0], "x") && !strcmp(c.ops[1], "y"), "operands in order");
	parse(&c, d, "-n", "b", NULL);
	is_str(c.name, "b", "-n VALUE");
	parse(&c, d, "-nc", NULL);
	is_str(c.name, "c", "-nVALUE");
	parse(&c, d, "--name=", NULL);
	is_str(c.name, "", "--name= is an empty value");
	parse(&c, d, "-", "--", "--quiet", "-n", NULL);
	ok(c.nops == 3 && !strcmp(c.ops[0], "-") && !strcmp(c.ops[1], "--quiet") && !c.quiet,
	   "'-' is an operand; after '--' everything is");
	is_int(parse(&c, d, "--help", "--bogus", NULL), FP_OPT_STOP, "FP_OPT_STOP ends parsing");
	is_int(parse(&c, d, "--secret", NULL), FP_OPT_OK, "a hidden option still parses");
}

static void test_errors(void)
{
	struct tcfg c;
	char d[256];
	is_int(parse(&c, d, "--bogus=1", NULL), FP_OPT_USAGE, "unknown long option");
	is_str(d, "unknown option '--bogus'", "... named without its value");
	is_int(parse(&c, d, "-x", NULL), FP_OPT_USAGE, "unknown short option");
	is_str(d, "unknown option '-x'", "... named");
	is_int(parse(&c, d, "-qz", NULL), FP_OPT_USAGE, "a switch with text after it");
	is_str(d, "unknown option '-qz'", "... named whole");
	is_int(parse(&c, d, "x", "--name", NULL), FP_OPT_USAGE, "a value missing at the end");
	is_str(d, "option '--name' needs a value (NAME)", "... says which");
	is_int(parse(&c, d, "--quiet=1", NULL), FP_OPT_USAGE, "a value for a switch");
	is_str(d, "option '--quiet' takes no value", "... says so");
	is_int(parse(&c, d, "--count", "bad", NULL), FP_OPT_USAGE, "the command's own refusal");
	is_str(d, "'bad' is bad for --count", "... passes its sentence through");
}

static void test_help(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fp_opt_help(&CMD, f);
	fclose(f);
	is_str(buf, "usage: tool sub [options] ARG...\n\n"
		    "  -n, --name NAME    a name\n"
		    "      --count N      a number\n"
		    "  -q, --quiet        a switch\n"
		    "  -h, --help         stops\n"
		    "\nthe end\n",
	       "--help: the table's visible rows in its column, between synopsis and epilog");
	free(buf);
}

int main(void)
{
	subtest("spellings", test_spellings);
	subtest("usage errors", test_errors);
	subtest("--help", test_help);
	return done_testing();
}

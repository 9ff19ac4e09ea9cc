/*
 * test_optparse.c - the one option engine (cli/optparse.c) on a small
 * command of its own: every spelling of an option and its value, "--" and
 * "-", each usage error's sentence, what stops parsing, and --help from
 * the table; the kinds the engine reads itself, the NODE operand and a
 * command's whole life (fp_opt_main()). The commands' own tables are tested through them
 * (test_report_parse.c, tests/e2e/fault_options.t, man_options.t).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "../../cli/msg.h"
#include "../../cli/optparse.h"
#include "../../common/names.h"

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

/* ---------------------------------------------------------------- a node command */

struct ncfg {
	const char *node, *s;
	unsigned n;
	int i, set, lang, own, help, verbosity;
	int64_t dur, tmo;
	int defaulted, freed, ran;
};

enum { N_OWN };
#define NF(field) offsetof(struct ncfg, field)
static const struct fp_opt NOPTS[] = {
	{ "n", 0, "N", FP_K_UINT, NF(n), 1, 10, "a count" },
	{ "i", 0, "N", FP_K_INT, NF(i), -5, 5, "an int" },
	{ "dur", 0, "DUR", FP_K_DUR, NF(dur), 0, 0, "a duration" },
	{ "tmo", 0, "DUR", FP_K_TIMEOUT, NF(tmo), 0, 0, "a timeout" },
	{ "s", 0, "TEXT", FP_K_STR, NF(s), 0, 0, "a text" },
	{ "set", 0, NULL, FP_K_SET, NF(set), 7, 0, "a switch" },
	{ "names", 0, "LANG", FP_K_NAMES, NF(lang), 0, 0, "a spelling" },
	{ "own", 0, NULL, N_OWN, 0, 0, 0, "the command's own" },
	{ "verbose", 'v', NULL, FP_K_SET, NF(verbosity), 2, 0, "more" },
	{ "help", 'h', NULL, FP_K_HELP, NF(help), 1, 0, "this help" },
	{ "a-rather-long-option", 0, "VALUE", FP_K_STR, NF(s), 0, 0,
	  "a help text long enough to be wrapped over two lines at thirty-six columns" },
};

static int napply(void *ctx, const struct fp_opt *o, const char *val, const char *spelled, char *detail,
		  size_t cap)
{
	(void)o, (void)val, (void)spelled, (void)detail, (void)cap;
	((struct ncfg *)ctx)->own = 1;
	return FP_OPT_OK;
}

static void ndefaults(void *ctx)
{
	memset(ctx, 0, sizeof(struct ncfg));
	((struct ncfg *)ctx)->verbosity = 1;
	((struct ncfg *)ctx)->defaulted = 1;
}

static void nfree(void *ctx)
{
	((struct ncfg *)ctx)->freed++;
}

static struct ncfg last; /* what run() saw */
static int nrun(void *ctx)
{
	last = *(struct ncfg *)ctx;
	last.ran = fp_verbosity;
	return 42;
}

static const struct fp_command NCMD = {
	.name = "tool node", .synopsis = "", .epilog = "", .help_column = 10,
	.opts = NOPTS, .nopts = sizeof NOPTS / sizeof NOPTS[0], .apply = napply,
	.duration_eg = "7s", .defaults = ndefaults, .free = nfree,
	.node_field = NF(node), .help_field = NF(help), .verbosity_field = NF(verbosity),
};

static int nparse(struct ncfg *c, char *detail, const char *a, const char *b)
{
	char *av[] = { "node", (char *)a, (char *)b, NULL };
	ndefaults(c);
	return fp_opt_parse(&NCMD, b ? 3 : a ? 2 : 1, av, c, detail, 256);
}

static void test_kinds(void)
{
	struct ncfg c;
	char d[256];
	char *av[] = { "node", "--n", "3", "--i=-2", "--dur", "2s", "--tmo", "500ms", "--s", "x", "--set",
		       "--names", "erlang", "--own", "a@h" };
	ndefaults(&c);
	is_int(fp_opt_parse(&NCMD, 15, av, &c, d, sizeof d), FP_OPT_OK, "every kind parses");
	ok(c.n == 3 && c.i == -2, "FP_K_UINT and FP_K_INT within their bounds");
	ok(c.dur == 2000000 && c.tmo == 500000, "FP_K_DUR and FP_K_TIMEOUT in microseconds");
	ok(c.s == av[9] && c.set == 7 && c.lang == FP_NAMES_ERLANG, "FP_K_STR is argv's, FP_K_SET stores min, --names");
	ok(c.own == 1, "the command's own kind goes to its apply()");
	is_str(c.node, "a@h", "the NODE operand lands at node_field");
	is_int(nparse(&c, d, "--n", "11"), FP_OPT_USAGE, "a number out of bounds");
	is_str(d, "'11' is not a valid value for --n: give a whole number from 1 to 10", "... says the bounds");
	nparse(&c, d, "--dur", "x");
	is_str(d, "'x' is not a valid duration for --dur: write e.g. 500ms, 7s, 2m or 1h",
	       "FP_K_DUR's example is the command's");
	nparse(&c, d, "--tmo", "x");
	is_str(d, "'x' is not a valid duration for --tmo: write e.g. 500ms, 5s, 2m or 1h",
	       "FP_K_TIMEOUT's is 5s in every command");
	nparse(&c, d, "--names", "x");
	is_str(d, "'x' is not a valid value for --names: give elixir, erlang or auto", "--names refused");
	is_int(nparse(&c, d, "a@h", "b@h"), FP_OPT_USAGE, "a second node");
	is_str(d, "one node at a time: 'a@h' and 'b@h' given (only the capture, 'flameprof NODE...', takes several)",
	       "... says both, and which command takes several");
}

static void test_main(void)
{
	struct ncfg c;
	char *av[] = { "node", "-v", "--n", "2", "a@h", NULL };
	memset(&last, 0, sizeof last);
	is_int(fp_opt_main(&NCMD, 5, av, &c, nrun), 42, "fp_opt_main returns run()'s status");
	ok(last.defaulted && last.n == 2 && last.node && !strcmp(last.node, "a@h"), "run() sees the defaults and argv");
	is_int(last.ran, 2, "the verbosity is set before run()");
	is_int(c.freed, 1, "the config is freed after");
	is_str(fp_help_command, "tool node --help", "a usage error points to the command's --help");
	char *bad[] = { "node", "--n", "0", NULL };
	memset(&last, 0, sizeof last);
	fp_verbosity = 1;
	is_int(fp_opt_main(&NCMD, 3, bad, &c, nrun), 64, "a usage error: 64");
	ok(!last.defaulted && c.freed == 1, "run() is not called; the config is freed");
}

/* "did you mean": a long name near one of the table's visible rows */
static void test_near(void)
{
	struct tcfg c;
	char d[256];
	is_int(parse(&c, d, "--naem", NULL), FP_OPT_USAGE, "a mistyped option is still refused");
	is_str(d, "unknown option '--naem' (did you mean '--name'?)", "... and the one meant is offered (before the inline hint)");
	parse(&c, d, "--cuont=3", NULL);
	is_str(d, "unknown option '--cuont' (did you mean '--count'?)", "... also with its value attached");
	parse(&c, d, "--quie", NULL);
	is_str(d, "unknown option '--quie' (did you mean '--quiet'?)", "a beginning of a name");
	parse(&c, d, "--secre", NULL);
	is_str(d, "unknown option '--secre'", "a hidden row is never offered");
	parse(&c, d, "--xyzzy", NULL);
	is_str(d, "unknown option '--xyzzy'", "nothing near: nothing offered");
}

/* --help all, --help=all, and the whole table wrapped to the command's columns */
static void test_help_all(void)
{
	static const struct fp_command B = {
		.name = "tool b", .synopsis = "usage: all\n", .epilog = "end\n", .help_column = 8, .wrap = 36,
		.brief = "usage: brief\n", .opts = NOPTS, .nopts = sizeof NOPTS / sizeof NOPTS[0],
		.apply = napply, .duration_eg = "7s", .defaults = ndefaults, .free = nfree,
		.node_field = NF(node), .help_field = NF(help), .verbosity_field = NF(verbosity),
	};
	struct ncfg c;
	char d[256];
	char *a1[] = { "b", "--help", "all", NULL }, *a2[] = { "b", "--help=all", NULL }, *a3[] = { "b", "-h", NULL },
	     *a4[] = { "b", "--help=x", NULL }, *a5[] = { "b", "--help", "a@h", NULL };
	ndefaults(&c);
	is_int(fp_opt_parse(&B, 3, a1, &c, d, sizeof d), FP_OPT_OK, "--help all parses");
	ok(c.help == 2 && !c.node, "... the word is the option's, not a node");
	ndefaults(&c);
	fp_opt_parse(&B, 2, a2, &c, d, sizeof d);
	is_int(c.help, 2, "--help=all too");
	ndefaults(&c);
	fp_opt_parse(&B, 2, a3, &c, d, sizeof d);
	is_int(c.help, 1, "-h alone: the brief help");
	ndefaults(&c);
	is_int(fp_opt_parse(&B, 2, a4, &c, d, sizeof d), FP_OPT_USAGE, "--help=x is refused");
	ndefaults(&c);
	fp_opt_parse(&B, 3, a5, &c, d, sizeof d);
	ok(c.help == 1 && c.node && !strcmp(c.node, "a@h"), "--help NODE: the node stays an operand");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fp_opt_help_all(&B, f, 0);
	fclose(f);
	is_str(buf, "usage: brief\n", "--help: the brief help alone");
	free(buf);
	f = open_memstream(&buf, &len);
	fp_opt_help_all(&B, f, 1);
	fclose(f);
	ok(strstr(buf, "usage: all\n") == buf && strstr(buf, "end\n"), "--help all: synopsis, the table, epilog");
	ok(strstr(buf, "      --a-rather-long-option VALUE\n           a help text long enough\n"
		       "           to be wrapped over two\n           lines at thirty-six\n           columns\n") != NULL,
	   "a row wider than its column: its text on the lines below, wrapped to 36 columns");
	int wide = 0;
	for (char *l = buf, *e; *l; l = e + 1) {
		e = strchr(l, '\n');
		if (!e)
			break;
		wide += e - l > 36;
	}
	is_int(wide, 0, "no line wider than 36 columns");
	free(buf);
}

int main(void)
{
	subtest("spellings", test_spellings);
	subtest("usage errors", test_errors);
	subtest("--help", test_help);
	subtest("the engine's kinds and NODE", test_kinds);
	subtest("fp_opt_main", test_main);
	subtest("did you mean", test_near);
	subtest("--help all, and the table wrapped", test_help_all);
	return done_testing();
}

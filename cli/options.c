/*
 * options.c - the capture's (record's) option table and its front door:
 * argv to struct cap_config through the option engine (optparse.h), the
 * combinations checked, the nodes' names, then the capture
 * (capture_run(), through the door of capture_door.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include "capture_door.h"
#include "commands.h"
#include "cookie_files.h"
#include "msg.h"
#include "optparse.h"
#include "session.h"
#include "options.h"
#include "../node/node.h"
#include "../formatter/formatter.h"

/* Each row's id is its kind: the engine's (FP_K_*), or how apply()
 * reads the value into field. */
enum kind { K_HZ, K_SIZE, K_LIST, K_CODEC, K_CATS, K_TIER, K_PCT, K_STATUS };

#define F(field) offsetof(struct cap_config, field)

static const struct fp_opt options[] = {
	FP_CAP_ROW_TOP(FP_K_UINT, "sample the N processes that gained the most reductions in each window (default 100; 0: only --pid/--name)"),
	FP_CAP_ROW_EVERY(FP_K_DUR, "pick the busiest processes again every DUR (default 5s)"),
	FP_CAP_ROW_HZ(K_HZ, "samples per second per process (default 97)"),
	FP_CAP_ROW_DEPTH(FP_K_UINT, "stack frames kept, raises backtrace_depth while sampling (default 64, the VM's maximum)"),
	FP_CAP_ROW_PID(K_LIST),
	FP_CAP_ROW_NAME(K_LIST, "also sample this registered process, e.g. my_server or MyApp.Server (repeatable)"),
	FP_OPT_OWN(0, "status", "LIST", K_STATUS, F(statuses), "write samples of these statuses: on-cpu (default: running,garbage_collecting), all (the wall-clock view: also waiting, runnable, suspended), or a list"),
	FP_ROW_DURATION(struct cap_config, "stop after DUR (default: run until Ctrl-C or SIGTERM)"),
	FP_OPT_STRING('o', "output", "DIR", F(outdir), "write the files into DIR (default ./flameprof-out)"),
	FP_OPT_OWN(0, "compress", "CODEC", K_CODEC, F(codec), "zstd (default), gzip (for stock Flamescope) or none"),
	FP_OPT_INT(0, "level", "N", F(level), 1, 22, "compression level (default: zstd 3, gzip 6)"),
	FP_OPT_SWITCH(0, "no-index", F(no_index), 1, "leave the report index out of zstd files (smaller files; 'flameprof report' then reads the text)"),
	FP_OPT_DUR(0, "flush", "DUR", F(flush_us), "end a compressed frame and write it every DUR (default 5s)"),
	FP_OPT_DUR(0, "rotate", "DUR", F(rotate_us), "start a new file every DUR (default 2m; 0: never)"),
	FP_OPT_OWN(0, "rotate-size", "SIZE", K_SIZE, F(rotate_bytes), "start a new file once one reaches SIZE on disk, e.g. 100M (default: no limit)"),
	FP_OPT_UINT(0, "keep", "N", F(keep), 0, 1000000, "keep the newest N files of this node in DIR (default 15; 0: keep all)"),
	FP_OPT_OWN(0, "keep-size", "SIZE", K_SIZE, F(keep_bytes), "... and at most SIZE of them (default: no limit)"),
	FP_OPT_OWN(0, "categories", "LIST", K_CATS, F(cats), "root-most frames, outermost first, from initial_call,name,memory,queue,seq_trace,tier (default initial_call,name,seq_trace; with --tier seq_trace,tier,initial_call,name; 'none')"),
	FP_OPT_OWN('t', "tier", "NAME=MOD:FUN/ARITY", K_TIER, F(tiers), "a category frame tier:NAME on each sample whose innermost matching frame is this function ('_' for FUN or ARITY; repeatable)"),
	FP_ROW_NAMES(struct cap_config, "write names=elixir or names=erlang in the files' headers: the spelling 'flameprof report' draws frames in (Shop.Pricing.handle_call/3, or Elixir.Shop.Pricing:handle_call/3 as the files hold it); auto (default): elixir when the node runs the elixir application"),
	FP_OPT_SWITCH(0, "cluster", F(cluster), 1, "profile NODE and every visible node it is connected to (its nodes()), at most " CAP_MAX_NODES_TEXT " in all"),
	FP_OPT_STRING(0, "cluster-hosts", "PATTERNS", F(cluster_hosts), "with --cluster, connect only to peers on hosts that match one of these comma-separated shell patterns, e.g. '*.prod.example.com,10.1.*' (default: any host NODE lists)"),
	FP_ROW_COOKIE_FILE(struct cap_config),
	FP_ROW_COOKIE(struct cap_config),
	FP_ROW_CONNECT_TIMEOUT(struct cap_config),
	FP_CAP_ROW_SILENCE_TIMEOUT(FP_K_DUR),
	FP_ROW_NODE_NAME(struct cap_config, "our own node name on the target, the part before '@' (default flameprof_<user>; the same name each run, so no new atom)"),
	FP_CAP_ROW_MAX_COST(K_PCT, "while the node is busy, keep sampling's cost (samples and the selection scan) under PCT of its schedulers by sampling part of the selected processes each round (default 1%; 0: no budget)"),
	FP_CAP_ROW_FORCE(FP_K_SET),
	FP_ROW_QUIET(struct cap_config),
	FP_ROW_VERBOSE(struct cap_config),
	FP_OPT_SWITCH(0, "progress", F(progress), 1, "show the status line even when stderr is not a terminal (its late N: samples answered after their round, still written)"),
	FP_OPT_SWITCH(0, "no-progress", F(progress), 0, "never show the status line"),
	FP_ROW_HELP(struct cap_config),
	FP_OPT_SWITCH('V', "version", F(version), 1, "print the version"),
	/* hidden: for the tests, as zstd's --fake-stderr-is-console */
	FP_OPT_SWITCH(0, "test-compile-on-target", F(compile_on_target), 1, NULL),
	FP_OPT_SWITCH(0, "test-fake-tty", F(fake_tty), 1, NULL),
	/* cookie_copies.t reads our memory for copies of the cookie */
	FP_OPT_SWITCH(0, "test-dumpable", F(test_dumpable), 1, NULL),
};

static int parse_cats(struct cap_config *cfg, const char *text)
{
	cfg->ncats = 0;
	if (strcmp(text, "none") == 0 || text[0] == '\0')
		return 0;
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, ",");
		enum fmt_category c;
		if (fmt_category_parse(p, n, &c) < 0)
			return -1;
		for (size_t k = 0; k < cfg->ncats; k++)
			if (cfg->cats[k] == c)
				return -1;
		cfg->cats[cfg->ncats++] = c;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

static int apply(void *ctx, const struct fp_opt *o, const char *val, const char *spelled,
		 char *detail, size_t cap)
{
	struct cap_config *cfg = ctx;
	char *field = (char *)cfg + o->field;
	char *end;
	switch ((enum kind)o->id) {
	case K_HZ: {
		errno = 0;
		double v = strtod(val, &end);
		if (end == val || *end || errno || !(v > 0) || v > 10000)
			return fp_opt_fail(detail, cap, "'%s' is not a valid value for %s: give a rate above 0 and at most 10000, e.g. 97",
					   val, spelled);
		*(double *)field = v;
		return FP_OPT_OK;
	}
	case K_SIZE:
		if (fp_parse_size(val, (uint64_t *)field) < 0)
			return fp_opt_fail(detail, cap, "'%s' is not a valid size for %s: write e.g. 64k, 100M or 1G", val, spelled);
		return FP_OPT_OK;
	case K_LIST:
		return fp_opt_target(val, spelled, o->field == F(names), (const char **)field,
				     o->field == F(pids) ? &cfg->npids : &cfg->nnames, CAP_MAX_TARGETS, detail, cap);
	case K_CODEC:
		if (rot_codec_parse(val, (enum rot_codec *)field) < 0)
			return fp_opt_fail(detail, cap, "'%s' is not a codec for %s: use zstd, gzip or none", val, spelled);
		return FP_OPT_OK;
	case K_CATS:
		cfg->cats_given = 1;
		if (parse_cats(cfg, val) < 0)
			return fp_opt_fail(detail, cap, "'%s' is not a valid list for %s: use names from initial_call,name,memory,queue,seq_trace,tier, each once, or 'none'",
					   val, spelled);
		return FP_OPT_OK;
	case K_TIER:
		return fp_opt_tier(val, spelled, cfg->tiers, cfg->tier_text, &cfg->ntiers, detail, cap);
	case K_STATUS:
		if (fmt_status_parse(val, (unsigned *)field) < 0)
			return fp_opt_fail(detail, cap, "'%s' is not a valid value for %s: use on-cpu, all, or statuses from running,runnable,waiting,garbage_collecting,exiting,suspended",
					   val, spelled);
		return FP_OPT_OK;
	case K_PCT: {
		errno = 0;
		double v = strtod(val, &end);
		if (end != val && *end == '%')
			end++;
		if (end == val || *end || errno || !(v >= 0) || v > 100)
			return fp_opt_fail(detail, cap, "'%s' is not a valid value for %s: give a percentage from 0 to 100, e.g. 1%% (0: no budget)",
					   val, spelled);
		*(unsigned *)field = (unsigned)(v * 10000 + 0.5);
		return FP_OPT_OK;
	}
	}
	return fp_opt_fail(detail, cap, "%s: no such kind of option", spelled);
}

int fp_record_option(struct cap_config *cfg, const char *name, const char *val, const char *spelled,
		     char *detail, size_t cap)
{
	for (size_t k = 0; k < sizeof options / sizeof options[0]; k++)
		if (strcmp(options[k].name, name) == 0)
			return fp_opt_apply(&fp_record_command, cfg, &options[k], val, spelled, detail, cap);
	return fp_opt_fail(detail, cap, "%s: no such option of the capture", spelled);
}

void fp_record_defaults(struct cap_config *cfg)
{
	*cfg = (struct cap_config){
		/* sampling */
		.top = 100, .hz = 97, .every_us = 5000000, .depth = 64, .max_cost_ppm = CAP_MAX_COST_PPM,
		.statuses = FMT_ON_CPU,
		/* the files */
		.outdir = "flameprof-out", .codec = ROT_ZSTD, .flush_us = 5000000, .rotate_us = 120000000,
		.keep = 15, .cats = { FMT_CAT_INITIAL_CALL, FMT_CAT_NAME, FMT_CAT_SEQ_TRACE }, .ncats = 3,
		.silence_timeout_us = 15000000, .progress = -1,
		FP_NODE_DEFAULTS,
	};
}

static int has_cat(const struct cap_config *cfg, enum fmt_category c)
{
	for (size_t k = 0; k < cfg->ncats; k++)
		if (cfg->cats[k] == c)
			return 1;
	return 0;
}

/* --tier and the categories: with tiers and no --categories, the request's
 * label is root-most and the tier under it, so a flame graph splits by
 * request kind first; a list the user gave is kept as given, and must
 * then name the tier frame (and may only name it with --tier). */
static int check_tiers(struct cap_config *cfg, char *detail, size_t cap)
{
	static const enum fmt_category with_tiers[] = { FMT_CAT_SEQ_TRACE, FMT_CAT_TIER,
							FMT_CAT_INITIAL_CALL, FMT_CAT_NAME };
	if (fp_opt_tiers_check(cfg->tiers, cfg->ntiers, detail, cap) != FP_OPT_OK)
		return FP_OPT_USAGE;
	if (cfg->ntiers && !cfg->cats_given) {
		memcpy(cfg->cats, with_tiers, sizeof with_tiers);
		cfg->ncats = sizeof with_tiers / sizeof with_tiers[0];
	} else if (cfg->ntiers && !has_cat(cfg, FMT_CAT_TIER)) {
		return fp_opt_fail(detail, cap, "--categories leaves out the tier frame that --tier writes; add 'tier' to the list, e.g. --categories seq_trace,tier,initial_call,name");
	} else if (!cfg->ntiers && has_cat(cfg, FMT_CAT_TIER)) {
		return fp_opt_fail(detail, cap, "--categories names 'tier' but no --tier is given; add --tier NAME=MOD:FUN/ARITY or leave 'tier' out");
	}
	return FP_OPT_OK;
}

/* Combinations, checked once everything is parsed (redis-cli). */
static int check(void *arg, char *detail, size_t cap)
{
	struct cap_config *cfg = arg;
	if (cfg->help || cfg->version)
		return FP_OPT_OK;
	if (check_tiers(cfg, detail, cap) != FP_OPT_OK)
		return FP_OPT_USAGE;
	if (!cfg->node)
		return fp_opt_fail(detail, cap, "no node given; name the node to profile, e.g. 'flameprof app@db1'");
	if (cfg->cluster_hosts && !cfg->cluster)
		return fp_opt_fail(detail, cap, "--cluster-hosts bounds the hosts --cluster connects to; add --cluster, or leave it out");
	if (cfg->cluster && cfg->nnodes > 1)
		return fp_opt_fail(detail, cap, "--cluster takes one node (it finds the others): '%s' and '%s' given", cfg->nodes[0],
				   cfg->nodes[1]);
	if (cfg->top == 0 && cfg->npids == 0 && cfg->nnames == 0)
		return fp_opt_fail(detail, cap, "--top 0 samples only explicit processes; add --pid or --name");
	if (cfg->every_us < 100000)
		return fp_opt_fail(detail, cap, "--every must be at least 100ms");
	if (cfg->flush_us < 100000)
		return fp_opt_fail(detail, cap, "--flush must be at least 100ms");
	if (cfg->connect_timeout_us < 100000 || cfg->silence_timeout_us < 1000000)
		return fp_opt_fail(detail, cap, "--connect-timeout must be at least 100ms and --silence-timeout at least 1s");
	if (cfg->level > 9 && cfg->codec == ROT_GZIP)
		return fp_opt_fail(detail, cap, "gzip levels go from 1 to 9");
	if ((double)(cfg->top + cfg->npids + cfg->nnames) * cfg->hz > CAP_LOAD_BOUND && !cfg->force)
		return fp_opt_fail(detail, cap, "--top %u at --hz %g asks for %.0f samples/s, beyond the %s the agent delivers on the node without harm; "
				   "lower --top or --hz, or add --force", cfg->top, cfg->hz,
				   (cfg->top + cfg->npids + cfg->nnames) * cfg->hz, CAP_LOAD_BOUND_TEXT);
	if (fp_cookie_rows_check(cfg->cookie, cfg->cookie_file, detail, cap) != FP_OPT_OK)
		return FP_OPT_USAGE;
	return FP_OPT_OK;
}

static void defaults(void *cfg)
{
	fp_record_defaults(cfg);
}

static int operand(void *ctx, const char *arg, char *detail, size_t cap)
{
	struct cap_config *cfg = ctx;
	if (cfg->nnodes == CAP_MAX_NODES)
		return fp_opt_fail(detail, cap, "more than " CAP_MAX_NODES_TEXT " nodes given; one run profiles at most " CAP_MAX_NODES_TEXT
				   " (a connection, an agent and open files each): run several flameprof");
	for (size_t k = 0; k < cfg->nnodes; k++)
		if (strcmp(cfg->nodes[k], arg) == 0)
			return fp_opt_fail(detail, cap, "node '%s' is given twice", arg);
	cfg->nodes[cfg->nnodes++] = arg;
	if (!cfg->node)
		cfg->node = arg;
	return FP_OPT_OK;
}

static void config_free(void *cfg)
{
	fp_config_free(cfg);
}

/* The usage lines of every command, from the one list of them. */
static void usage_lines(FILE *f, int all)
{
	if (all)
		fp_commands_usage(f);
	else
		fp_commands_brief(f);
}

const struct fp_command fp_record_command = {
	.name = "flameprof",
	.help_column = 26,
	.hint_inline = 0,
	.duration_eg = "5s",
	FP_NODE_COMMAND(struct cap_config),
	.operand = operand, /* several nodes: its own, not the engine's one NODE */
	.head = usage_lines,
	.synopsis = "\nSamples the busiest processes of a running Erlang/OTP node and writes Linux\n"
		    "'perf script' text into rotated, compressed files that Flamescope opens.\n"
		    "Several nodes (at most " CAP_MAX_NODES_TEXT ") are sampled at once, each with its own agent,\n"
		    "budget and files; one that fails is named and the others go on.\n\n"
		    "options:\n",
	/* one screen (24 lines of 80 columns: man_options.t checks it); every
	 * option in --help all, from the table, and in flameprof(1) */
	.brief = "\nSamples the busiest processes of running Erlang/OTP nodes into rotated files\n"
		 "of 'perf script' text; 'flameprof report DIR -o profile.html' draws them.\n\n"
		 "  -d, --duration DUR     stop after DUR (default: until Ctrl-C or SIGTERM)\n"
		 "  -o, --output DIR       write the files into DIR (default ./flameprof-out)\n"
		 "      --top N            sample the N busiest processes (default 100)\n"
		 "      --hz N             samples per second per process (default 97)\n"
		 "      --pid PID          also sample this process (repeatable)\n"
		 "      --name NAME        also sample this registered process (repeatable)\n"
		 "      --status LIST      on-cpu (default) or all: the wall-clock view\n"
		 "  -t, --tier NAME=MOD:FUN/ARITY  a tier:NAME frame where that function runs\n"
		 "      --cluster          NODE and every visible node it is connected to\n"
		 "      --cookie-file FILE the node's cookie (default ~/.erlang.cookie)\n"
		 "      --max-cost PCT     keep sampling's cost under PCT of the node (default 1%)\n"
		 "  -q, --quiet            print errors only (-v, --verbose: every step)\n"
		 "  -V, --version          print the version\n\n"
		 "Every option: 'flameprof --help all', or 'man flameprof'. Exit status: 0 done,\n"
		 "64 usage, 69 cannot connect, 75 node lost, 77 cookie; all in --help all.\n",
	.epilog = "\nexit status: 0 done, 64 usage (also: --top 0 and no --pid/--name process\n"
		  "exists), 69 cannot connect or start the agent, 70 the agent ended unasked\n"
		  "(node restored), 73 output directory or /tmp/flameprof-UID not usable,\n"
		  "74 I/O error (disk full), 75 node lost during the capture, 76 protocol\n"
		  "error, 77 cookie rejected or its file refused, 79 several nodes: some\n"
		  "failed (each named), the others' files are complete; when all failed,\n"
		  "the first failed node's status.\n"
		  "See flameprof(1) and README.md.\n",
};

void fp_config_free(struct cap_config *cfg)
{
	fp_opt_free_texts(cfg->tier_text, &cfg->ntiers);
}

/* What the options cannot say alone: every node's name and ours (a
 * usage error), each --cookie-file NODE=FILE for a node given. Then the
 * stop signals. @return 0 or an exit status once said. */
static int record_begin(const struct cap_config *cfg)
{
	const char *const *nodes = cfg->nnodes ? cfg->nodes : &cfg->node;
	size_t n = cfg->nnodes ? cfg->nnodes : 1;
	char err[512];
	for (size_t k = 1; k < n; k++)
		if (node_check_target(nodes[k], err, sizeof err) < 0) {
			fp_usage("%s", err);
			return EX_USAGE;
		}
	const char *stray = cfg->cluster || n == 1 ? NULL : fp_cookie_files_unknown(nodes, n);
	if (stray) {
		fp_usage("--cookie-file names '%s', which is not one of the nodes given", stray);
		return EX_USAGE;
	}
	if (node_check_target(cfg->node, err, sizeof err) < 0 ||
	    (cfg->node_name && node_check_alive(cfg->node_name, err, sizeof err) < 0)) {
		fp_usage("%s", err);
		return EX_USAGE;
	}
	if (n == 1 && !cfg->cluster && (stray = fp_cookie_files_unknown(&cfg->node, 1))) {
		fp_usage("--cookie-file names '%s', which is not the node given ('%s')", stray, cfg->node);
		return EX_USAGE;
	}
	fp_install_stop_signals();
	return 0;
}

/* After the options: --version, or the capture. */
static int record_main(void *arg)
{
	struct cap_config *cfg = arg;
	if (cfg->test_dumpable)
		fp_test_keep_dumpable();
	if (!cfg->version) {
		int rc = record_begin(cfg);
		if (rc != 0)
			return rc;
		struct cap_door door;
		fp_capture_door(&door, cfg);
		rc = capture_run(cfg, &door);
		fp_status_clear();
		return fp_exit_for_capture(rc);
	}
	printf("flameprof %s (agent %s)\n", FP_VERSION, FP_AGENT_MODULE);
	return 0;
}

int fp_record_main(int argc, char **argv)
{
	struct cap_config cfg;
	return fp_opt_main(&fp_record_command, argc, argv, &cfg, record_main);
}

/*
 * options.h - the capture (record): argv becomes one struct fp_config;
 * nothing past the front door sees argv. Its table runs on the one option
 * engine (optparse.h), which drives parsing and --help alike.
 */
#ifndef FP_OPTIONS_H
#define FP_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include "../formatter/formatter.h"
#include "../rotate/rotate.h"
#include "optparse.h"

#define FP_MAX_TARGETS 64
/* The nodes of one run (NODE..., or --cluster's discovery): each is a
 * connection and a lock file (two fds), an agent on its node, a formatter,
 * a zstd context and an index writer (a few MiB), and a distribution
 * connection its node keeps ticking. 32 keeps one flameprof within a
 * default fd limit and a few hundred MiB at most, and is more nodes than
 * one terminal's status line or one person reads at once; a bigger
 * cluster is profiled by several flameprof runs. */
#define FP_MAX_NODES 32
#define FP_MAX_NODES_TEXT "32"
/* Samples per second (processes x --hz) the agent is allowed to be asked
 * for without --force: what it delivered on a saturated 2-core node in
 * doc/benchmarks.md ("load bound"), not more. */
#define FP_LOAD_BOUND 20000
#define FP_LOAD_BOUND_TEXT "20000"
/* The default cost budget: 1 % of the node's schedulers (in millionths). */
#define FP_MAX_COST_PPM 10000

struct fp_config {
	const char *node;              /* the target, name@host (the first NODE) */
	const char *nodes[FP_MAX_NODES]; /* every NODE given, node first */
	size_t nnodes;
	int cluster;                   /* --cluster: NODE and every visible node it is connected to */
	unsigned top;                  /* --top */
	double hz;                     /* --hz */
	int64_t every_us;              /* --every */
	unsigned depth;                /* --depth */
	const char *pids[FP_MAX_TARGETS];  /* --pid, repeatable */
	size_t npids;
	const char *names[FP_MAX_TARGETS]; /* --name, repeatable */
	size_t nnames;
	int64_t duration_us;           /* --duration; 0: until stopped */
	const char *outdir;            /* -o */
	enum rot_codec codec;          /* --compress */
	int level;                     /* --level; 0: codec default */
	int no_index;                  /* --no-index: no report index in zstd files */
	int64_t flush_us;              /* --flush */
	int64_t rotate_us;             /* --rotate */
	uint64_t rotate_bytes;         /* --rotate-size */
	unsigned keep;                 /* --keep */
	uint64_t keep_bytes;           /* --keep-size */
	enum fmt_category cats[FMT_CAT_COUNT]; /* --categories, root-most first */
	size_t ncats;
	int cats_given;                /* --categories was given (else the default, by --tier) */
	struct fp_tier_pattern tiers[FP_MAX_TIERS]; /* --tier NAME=MOD:FUN/ARITY */
	char *tier_text[FP_MAX_TIERS]; /* owned copies the tiers point into */
	size_t ntiers;
	const char *cookie_file;       /* --cookie-file */
	const char *cookie;            /* --cookie (discouraged) */
	int64_t connect_timeout_us;    /* --connect-timeout */
	int64_t silence_timeout_us;    /* --silence-timeout */
	int lang;                      /* --names: enum fp_names (common/names.h), 0 auto */
	int verbosity;                 /* -q 0, default 1, -v 2 */
	int progress;                  /* --progress 1, --no-progress 0, auto -1 */
	const char *node_name;         /* --node-name: our alive part; NULL: flameprof_<user> */
	int force;                     /* --force: past the load bound */
	unsigned statuses;             /* --status: the statuses written (fmt_options) */
	unsigned max_cost_ppm;         /* --max-cost, in millionths of the schedulers; 0: none */
	int compile_on_target;         /* hidden test switch */
	int fake_tty;                  /* hidden test switch: act as if stderr were a terminal */
	int test_dumpable;             /* hidden test switch: keep the process dumpable (its memory readable) */
	int help, version;
};

/* argv[0] is the program; the rest are the capture's options and NODE.
 * Parses them, prints --help, --version or a usage error, else runs the
 * capture (fp_run()). @return an exit status from <sysexits.h>. */
int fp_record_main(int argc, char **argv);
/* The capture's command: its table, defaults and checks, run by
 * fp_opt_main(). */
extern const struct fp_command fp_record_command;
/* What cfg owns, freed. */
void fp_config_free(struct fp_config *cfg);
/* The capture's defaults into cfg (what fp_parse_options() starts from). */
void fp_record_defaults(struct fp_config *cfg);
/* Applies the capture's option `name` (its long name) with val, as its
 * row in the capture's table reads it: for commands that sample as the
 * capture does (`flameprof top`) and list some of its options in their
 * own table. @return an fp_opt_rc (optparse.h), detail filled on a usage
 * error. */
int fp_record_option(struct fp_config *cfg, const char *name, const char *val, const char *spelled,
		     char *detail, size_t cap);

#endif

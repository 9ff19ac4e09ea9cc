/*
 * cap_config.h - what a capture was asked to do, as plain data (as
 * report/rep_config.h is the report's). Filled by the front door from argv
 * (cli/options.c); nothing past it sees argv.
 */
#ifndef CAP_CONFIG_H
#define CAP_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include "../common/mfa_pattern.h"
#include "../formatter/formatter.h"
#include "../rotate/rotate.h"

#define CAP_MAX_TARGETS 64
/* The nodes of one run (NODE..., or --cluster's discovery): each is a
 * connection and a lock file (two fds), an agent on its node, a formatter,
 * a zstd context and an index writer (a few MiB), and a distribution
 * connection its node keeps ticking. 32 keeps one flameprof within a
 * default fd limit and a few hundred MiB at most, and is more nodes than
 * one terminal's status line or one person reads at once; a bigger
 * cluster is profiled by several flameprof runs. */
#define CAP_MAX_NODES 32
#define CAP_MAX_NODES_TEXT "32"
/* Samples per second (processes x --hz) the agent is allowed to be asked
 * for without --force: what it delivered on a saturated 2-core node in
 * doc/benchmarks.md ("Measurements behind the code"), not more. */
#define CAP_LOAD_BOUND 20000
#define CAP_LOAD_BOUND_TEXT "20000"
/* The default cost budget: 1 % of the node's schedulers (in millionths). */
#define CAP_MAX_COST_PPM 10000

struct cap_config {
	const char *node;              /* the target, name@host (the first NODE) */
	const char *nodes[CAP_MAX_NODES]; /* every NODE given, node first */
	size_t nnodes;
	int cluster;                   /* --cluster: NODE and every visible node it is connected to */
	const char *cluster_hosts;     /* --cluster-hosts: the peers' hosts allowed (shell patterns, comma-separated); NULL: any */
	unsigned top;                  /* --top */
	double hz;                     /* --hz */
	int64_t every_us;              /* --every */
	unsigned depth;                /* --depth */
	const char *pids[CAP_MAX_TARGETS];  /* --pid, repeatable */
	size_t npids;
	const char *names[CAP_MAX_TARGETS]; /* --name, repeatable */
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
	int progress;                  /* --progress 1, --no-progress 0, auto -1 (the door decides the live line) */
	const char *node_name;         /* --node-name: our alive part; NULL: flameprof_<user> */
	int force;                     /* --force: past the load bound */
	unsigned statuses;             /* --status: the statuses written (fmt_options) */
	unsigned max_cost_ppm;         /* --max-cost, in millionths of the schedulers; 0: none */
	int compile_on_target;         /* hidden test switch */
	/* the front door's alone (the capture never reads them): */
	int fake_tty;                  /* hidden test switch: act as if stderr were a terminal */
	int test_dumpable;             /* hidden test switch: keep the process dumpable (its memory readable) */
	int help, version;
};

/* 1 when NODE's host (after '@') matches one of the comma-separated shell
 * patterns (fnmatch, case-blind), 0 otherwise (--cluster-hosts). */
int cap_host_allowed(const char *node, const char *patterns);

#endif

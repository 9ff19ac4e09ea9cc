/*
 * optparse.h - the one option engine of every command (git's
 * parse-options): a command is a table of options plus the two functions
 * that turn an option or an operand into its config; the engine walks argv
 * and prints --help from the same table, so the help, the parser and the
 * man page (tests/unit/man_options.t) cannot drift apart.
 *
 * Syntax, the same for every command: "--name VALUE", "--name=VALUE",
 * "-x VALUE", "-xVALUE", "--" ends the options, "-" alone is an operand.
 * The engine never prints an error: it fills one sentence into detail and
 * the front door says it (fp_opt_usage).
 */
#ifndef FP_OPTPARSE_H
#define FP_OPTPARSE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "../common/mfa_pattern.h"

struct fp_opt {
	const char *name;  /* long name without "--" */
	char short_name;   /* 0: none */
	const char *value; /* value name in --help; NULL: a switch */
	int id;            /* the command's own tag for this option (record: its kind) */
	/* For a command whose apply() is driven by the table (record): the
	 * field in its config, and bounds or the value a switch sets. */
	size_t field;
	long long min, max;
	const char *help;  /* one line for --help; NULL: hidden (test switches) */
};

/* The kinds of value every command reads alike: a row whose id is one of
 * these is read by the engine into the config's field, the rest go to
 * the command's apply() (its own kinds are below FP_K_UINT). */
enum fp_opt_kind {
	FP_K_UINT = 1000, /* unsigned, a whole number within [min, max] */
	FP_K_INT,         /* int, the same */
	FP_K_DUR,         /* int64_t microseconds ("5s", "500ms"); e.g. cmd->duration_eg */
	FP_K_TIMEOUT,     /* the same, a connection's timeout: e.g. 5s in every command */
	FP_K_STR,         /* const char *: the value itself (argv's) */
	FP_K_SET,         /* int: a switch, which stores min */
	FP_K_NAMES,       /* int: --names elixir|erlang|auto, an enum fp_names */
	FP_K_COOKIE_FILE, /* const char *: --cookie-file FILE, or NODE=FILE kept aside (cookie_files.h) */
	FP_K_HELP,        /* int: --help 1; "--help all" or "--help=all" 2 (every option, where the
	                     command has a brief help) */
};

/* Rows by kind, as git's OPT_BOOL and OPT_STRING: a row says what it
 * reads, and only the kinds with bounds take them. s: the short name (0:
 * none); field: offsetof the config's field; help NULL: a hidden row. */
#define FP_OPT_SWITCH(s, name, field, sets, help) { name, s, NULL, FP_K_SET, field, sets, 0, help }
#define FP_OPT_STRING(s, name, value, field, help) { name, s, value, FP_K_STR, field, 0, 0, help }
#define FP_OPT_DUR(s, name, value, field, help) { name, s, value, FP_K_DUR, field, 0, 0, help }
#define FP_OPT_UINT(s, name, value, field, min, max, help) \
	{ name, s, value, FP_K_UINT, field, min, max, help }
#define FP_OPT_INT(s, name, value, field, min, max, help) { name, s, value, FP_K_INT, field, min, max, help }
/* A value the command's own apply() reads: kind is the command's tag. */
#define FP_OPT_OWN(s, name, value, kind, field, help) { name, s, value, kind, field, 0, 0, help }

enum fp_opt_rc {
	FP_OPT_OK = 0,
	FP_OPT_STOP = 1,   /* parsing stopped early with success (report's --help) */
	FP_OPT_USAGE = -1  /* bad argv: detail says why in one sentence */
};

struct fp_command {
	const char *name;       /* as typed: "flameprof", "flameprof report" */
	const char *synopsis;   /* --help's text above the options */
	/* NULL, or what --help prints first, before the brief help (all 0) or
	 * the synopsis (all 1): the capture's usage lines, from commands.h */
	void (*head)(FILE *f, int all);
	const char *epilog;     /* ... and below them */
	int help_column;        /* width of --help's left column */
	/* NULL, or a screen of the options most runs need: what --help prints,
	 * the whole table then behind "--help all" */
	const char *brief;
	int wrap;               /* the columns the table's lines are wrapped to (0: FP_HELP_WIDTH) */
	int hint_inline;        /* usage errors end "; see '<name> --help'" (else a second line) */
	const struct fp_opt *opts;
	size_t nopts;
	/* One option with its value (NULL for a switch); spelled is how argv
	 * named it. @return an fp_opt_rc (detail filled on FP_OPT_USAGE). */
	int (*apply)(void *cfg, const struct fp_opt *o, const char *val, const char *spelled,
		     char *detail, size_t cap);
	/* One operand (an argument that is not an option). @return as apply.
	 * NULL: the command takes one NODE, a const char * at node_field (a
	 * second is a usage error). */
	int (*operand)(void *cfg, const char *arg, char *detail, size_t cap);
	size_t node_field;
	/* Combinations, once everything is parsed (NULL: none). @return as apply. */
	int (*check)(void *cfg, char *detail, size_t cap);
	const char *duration_eg; /* FP_K_DUR rows' example, e.g. "5s" */
	/* For fp_opt_main(): the config's defaults (all of it: the frame does
	 * not clear it), what it owns freed (NULL: nothing), and where its
	 * int help and int verbosity are. */
	void (*defaults)(void *cfg);
	void (*free)(void *cfg);
	size_t help_field, verbosity_field;
};

/* A command whole (record, calls, requests, top: the next one too): cfg
 * set to its defaults, argv parsed and checked (a usage error said), then
 * --help printed, or the verbosity set and run(cfg) run; what cfg owns
 * freed. The usage hint names "<cmd->name> --help". @return 0, 64, or
 * run's exit status. */
int fp_opt_main(const struct fp_command *cmd, int argc, char **argv, void *cfg, int (*run)(void *cfg));
/* One option with its value: the engine's kinds (FP_K_*) read here, the
 * others by cmd->apply. @return as apply. */
int fp_opt_apply(const struct fp_command *cmd, void *cfg, const struct fp_opt *o, const char *val,
		 const char *spelled, char *detail, size_t cap);
/* Walks argv[1..argc-1] through cmd into cfg (which the caller has set to
 * its defaults). @return an fp_opt_rc; on FP_OPT_USAGE detail names the
 * offending argument. */
int fp_opt_parse(const struct fp_command *cmd, int argc, char **argv, void *cfg, char *detail,
		 size_t cap);
/* A command's whole argv: fp_opt_parse, then cmd->check, and a usage error
 * said on stderr. @return 0, or 64 (EX_USAGE) once said. */
int fp_opt_command(const struct fp_command *cmd, int argc, char **argv, void *cfg);
/* A usage sentence, printf's way, into detail: for apply(), operand()
 * and check(), as `return fp_opt_fail(detail, cap, "...", ...);`.
 * @return FP_OPT_USAGE. */
int fp_opt_fail(char *detail, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Value readers for apply(), each with its usage sentence in detail:
 * a whole number within o's [min, max], and a duration ("500ms", "5s",
 * "2m", "1h"; eg is the middle example the sentence gives, e.g. "5s").
 * @return FP_OPT_OK or FP_OPT_USAGE. */
int fp_opt_whole(const struct fp_opt *o, const char *val, const char *spelled, long long *v,
		 char *detail, size_t cap);
int fp_opt_duration(const char *val, const char *spelled, const char *eg, int64_t *us,
		    char *detail, size_t cap);
/* A repeatable option's next value: a copy of val kept in texts[*n] (the
 * caller frees it), at most max of them; the caller fills its own slot *n
 * and grows *n. @return the copy, or NULL with the sentence in detail. */
char *fp_opt_repeat(const char *val, const char *spelled, char **texts, size_t n, size_t max,
		    char *detail, size_t cap);
/* What fp_opt_repeat() and fp_opt_tier() kept: texts[0..*n-1] freed, *n
 * set to 0. */
void fp_opt_free_texts(char **texts, size_t *n);
/* --tier NAME=MOD:FUN/ARITY (record and requests alike): a copy of val
 * is parsed into tiers[*n], texts[*n] owns it (the caller frees it, also
 * after an error), and *n grows; at most FP_MAX_TIERS. @return as above. */
int fp_opt_tier(const char *val, const char *spelled, struct fp_tier_pattern *tiers, char **texts,
		size_t *n, char *detail, size_t cap);
/* --name NAME (record and calls): a registered name in Erlang's or
 * Elixir's spelling (pricer, :pricer, Shop.Pricer, 'a b'). @return as above. */
int fp_opt_name(const char *val, const char *spelled, char *detail, size_t cap);
/* --pid PID or --name NAME (record, calls): val itself (argv's) kept in
 * list[*n], a name checked with fp_opt_name() first, at most max of them;
 * *n grows. @return as above. */
int fp_opt_target(const char *val, const char *spelled, int is_name, const char **list, size_t *n, size_t max,
		  char *detail, size_t cap);
/* --names LANG (record, calls, requests): elixir, erlang or auto into
 * *lang (an enum fp_names). @return as above. */
int fp_opt_names(const char *val, const char *spelled, int *lang, char *detail, size_t cap);
/* A value that is one of a few words (--type count|time|memory): val's
 * index in words[0..n-1], or -1 with "'VAL' is not WHAT for SPELLED: use
 * USE" in detail. */
int fp_opt_word(const char *val, const char *spelled, const char *const *words, size_t n, const char *what,
		const char *use, char *detail, size_t cap);
/* The tiers as a whole: none given twice. @return as above. */
int fp_opt_tiers_check(const struct fp_tier_pattern *tiers, size_t n, char *detail, size_t cap);
/* The NODE operand of record, calls and requests: one node, kept in *node
 * (arg itself, not a copy). @return as above. */
int fp_opt_one_node(const char **node, const char *arg, char *detail, size_t cap);
/* "5s", "500ms", "2m", "1h", "1.5s", plain seconds. @return 0 or -1. */
int fp_parse_duration(const char *text, int64_t *us);
/* "64k", "100M", "1G", plain bytes. @return 0 or -1. */
int fp_parse_size(const char *text, uint64_t *bytes);
/* The width every --help fits in: the options' help is wrapped to it, and
 * each command's synopsis, brief help and epilog are written within it
 * (tests/unit/man_options.t checks every command's). */
#define FP_HELP_WIDTH 80
/* --help: the synopsis, one line per visible option, the epilog. */
void fp_opt_help(const struct fp_command *cmd, FILE *f);
/* --help (all 0: the brief help, where cmd has one) or --help all. */
void fp_opt_help_all(const struct fp_command *cmd, FILE *f, int all);
/* Says a usage error (detail) on stderr the command's way, with the hint
 * to its --help. */
void fp_opt_usage(const struct fp_command *cmd, const char *detail);

#endif

/*
 * load.c - putting our modules on the node and taking them off again.
 *
 * Our modules (the caller's struct node_module: the agent, the tracers)
 * are compiled at build time and embedded with their source. One is loaded with code:load_binary/3 under a versioned
 * module name; if the node cannot load our .beam (another OTP release), the
 * embedded source is compiled on the node: erl_scan, erl_parse per form,
 * compile:forms. Only export funs travel: nothing here needs a fun of ours.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal.h"

/* Compiling on the node loads the compiler first: 22 s measured on a node
 * with one busy process, 1.5 s once loaded. */
#define LOAD_TIMEOUT_MS 60000
#define MAX_FORMS 512
/* How long a purge is waited for once the module is deleted: it checks
 * every process of the node, milliseconds on an ordinary node; on one of
 * 100,000 processes it took 1.5 s to more than 15 s (doc/benchmarks.md,
 * "Measurements behind the code"), and waiting that long at every stop buys nothing: the purge
 * goes on by itself, and the next run waits for it. */
#define PURGE_WAIT_MS 1000

static int load_binary(node_t *s, const char *name, const char *file, const char *beam, long len,
		       char *why, size_t cap, int *loaded)
{
	struct node_args a;
	struct node_rex_reply rr;
	ei_x_buff reply;
	int r;
	if (ei_x_new(&reply) < 0)
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");
	node_args_begin(&a, 3);
	node_arg_atom(&a, name);
	a.ok = a.ok && ei_x_encode_string(&a.x, file) == 0 &&
	       ei_x_encode_binary(&a.x, beam, (int)len) == 0;
	r = node_rex_call_args(s, "code", "load_binary", &a, &reply, &rr, LOAD_TIMEOUT_MS);
	if (r == 0)
		*loaded = node_rex_reply_loaded(&rr, why, cap);
	ei_x_free(&reply);
	return r;
}

/* Compiles the embedded source on the node and loads the result. */
static int compile_on_node(node_t *s, const struct node_module *m)
{
	struct node_args a;
	struct node_rex_reply rr;
	ei_x_buff scan, one;
	int at, n, r, arity, loaded = 0;
	size_t size;
	char tag[MAXATOMLEN_UTF8], why[MAXATOMLEN_UTF8];

	if (ei_x_new(&scan) < 0)
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");
	if (ei_x_new(&one) < 0) {
		ei_x_free(&scan);
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");
	}
	node_args_begin(&a, 1);
	a.ok = a.ok && ei_x_encode_string_len(&a.x, (const char *)m->source, (int)*m->source_len) == 0;
	r = node_rex_call_args(s, "erl_scan", "string", &a, &scan, &rr, LOAD_TIMEOUT_MS);
	if (r < 0)
		goto out;
	at = rr.at;
	r = node_errf(s, NODE_ERR_AGENT, "cannot compile %s on '%s' (erl_scan failed)", m->what, s->node);
	if (ei_decode_tuple_header(scan.buff, &at, &arity) < 0 || arity != 3 ||
	    ei_decode_atom(scan.buff, &at, tag) < 0 || strcmp(tag, "ok") != 0 ||
	    ei_decode_list_header(scan.buff, &at, &n) < 0)
		goto out;

	/* Split the tokens at each {dot, _} and parse every form on the node. */
	int nforms = 0, form_start = at, ntok = 0;
	ei_x_buff parsed[MAX_FORMS];
	for (int k = 0; k < n; k++) {
		int t = at, ta, is_dot = 0;
		if (ei_decode_tuple_header(scan.buff, &t, &ta) == 0 && ta == 2 &&
		    ei_decode_atom(scan.buff, &t, tag) == 0 && strcmp(tag, "dot") == 0)
			is_dot = 1;
		if (ei_skip_term(scan.buff, &at) < 0)
			goto free_parsed;
		ntok++;
		if (!is_dot)
			continue;
		if (nforms == MAX_FORMS || ei_x_new(&parsed[nforms]) < 0)
			goto free_parsed;
		node_args_begin(&a, 1);
		a.ok = a.ok && ei_x_encode_list_header(&a.x, ntok) == 0;
		node_arg_raw(&a, scan.buff + form_start, at - form_start);
		a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
		r = node_rex_call_args(s, "erl_parse", "parse_form", &a, &parsed[nforms], &rr, LOAD_TIMEOUT_MS);
		nforms++;
		if (r < 0)
			goto free_parsed;
		int pat = rr.at;
		r = node_errf(s, NODE_ERR_AGENT, "cannot compile %s on '%s' (erl_parse failed)", m->what, s->node);
		if (ei_decode_tuple_header(parsed[nforms - 1].buff, &pat, &ta) < 0 || ta != 2 ||
		    ei_decode_atom(parsed[nforms - 1].buff, &pat, tag) < 0 || strcmp(tag, "ok") != 0)
			goto free_parsed;
		int end = pat;
		if (ei_skip_term(parsed[nforms - 1].buff, &end) < 0)
			goto free_parsed;
		/* keep only the form: shift it to the front of its buffer */
		memmove(parsed[nforms - 1].buff, parsed[nforms - 1].buff + pat, (size_t)(end - pat));
		parsed[nforms - 1].index = end - pat;
		form_start = at;
		ntok = 0;
	}

	node_args_begin(&a, 2);
	a.ok = a.ok && ei_x_encode_list_header(&a.x, nforms) == 0;
	for (int k = 0; k < nforms; k++)
		node_arg_raw(&a, parsed[k].buff, parsed[k].index);
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0 && ei_x_encode_list_header(&a.x, 2) == 0;
	node_arg_atom(&a, "binary");
	node_arg_atom(&a, "return_errors");
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	r = node_rex_call_args(s, "compile", "forms", &a, &one, &rr, LOAD_TIMEOUT_MS);
	if (r < 0)
		goto free_parsed;
	r = node_errf(s, NODE_ERR_AGENT, "cannot compile %s on '%s' (compile:forms failed; is the compiler application there?)", m->what, s->node);
	if (ei_decode_tuple_header(one.buff, &rr.at, &arity) < 0 || arity < 3 ||
	    ei_decode_atom(one.buff, &rr.at, tag) < 0 || strcmp(tag, "ok") != 0 ||
	    ei_skip_term(one.buff, &rr.at) < 0 || node_rex_reply_binary_size(&rr, NODE_MAX_MSG, &size) < 0)
		goto free_parsed;
	at = rr.at;
	char *beam = malloc(size + 1);
	long blen;
	if (!beam) {
		r = node_errf(s, NODE_ERR_NOMEM, "out of memory");
		goto free_parsed;
	}
	if (ei_decode_binary(one.buff, &at, beam, &blen) == 0)
		r = load_binary(s, m->name, m->file, beam, blen, why, sizeof why, &loaded);
	free(beam);
	if (r == 0 && !loaded)
		r = node_errf(s, NODE_ERR_AGENT, "cannot load %s compiled on '%s' (%s)", m->what, s->node, why);
free_parsed:
	for (int k = 0; k < nforms; k++)
		ei_x_free(&parsed[k]);
out:
	ei_x_free(&scan);
	ei_x_free(&one);
	return r;
}

/* The term inside the reply {ok, Term, ...} of a rex call: its start and
 * end in x. @return 0, or -1 when the reply is not such a tuple. */
static int ok_term(const ei_x_buff *x, const struct node_rex_reply *rr, int *start, int *end)
{
	int at = rr->at, arity;
	char tag[MAXATOMLEN_UTF8];
	if (ei_decode_tuple_header(x->buff, &at, &arity) < 0 || arity < 2 || ei_decode_atom(x->buff, &at, tag) < 0 ||
	    strcmp(tag, "ok") != 0)
		return -1;
	*start = at;
	if (ei_skip_term(x->buff, &at) < 0)
		return -1;
	*end = at;
	return 0;
}

/* Starts the delete and purge of tracer/fp_purge.hrl (the modules' own
 * unload_self/0 runs the same text): parsed on the node, then run by
 * erl_eval in a process of its own at high priority, with M bound to the
 * module. Three requests, where the modules' own unload needs none of
 * ours: only a failed start, a module left by an earlier run, or one its
 * owner is slow to remove gets here. */
static int spawn_purge(node_t *s, const char *name)
{
	struct node_args a;
	struct node_rex_reply rr;
	ei_x_buff toks, exprs;
	int r, start, end;
	if (ei_x_new(&toks) < 0)
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");
	if (ei_x_new(&exprs) < 0) {
		ei_x_free(&toks);
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");
	}
	node_args_begin(&a, 1);
	a.ok = a.ok && ei_x_encode_string(&a.x, fp_purge_text) == 0;
	r = node_rex_call_args(s, "erl_scan", "string", &a, &toks, &rr, s->opts.connect_timeout_ms);
	if (r == 0 && ok_term(&toks, &rr, &start, &end) < 0)
		r = node_errf(s, NODE_ERR_AGENT, "'%s' could not read flameprof's purge (erl_scan failed)", s->node);
	if (r == 0) {
		node_args_begin(&a, 1);
		node_arg_raw(&a, toks.buff + start, end - start);
		r = node_rex_call_args(s, "erl_parse", "parse_exprs", &a, &exprs, &rr, s->opts.connect_timeout_ms);
		if (r == 0 && ok_term(&exprs, &rr, &start, &end) < 0)
			r = node_errf(s, NODE_ERR_AGENT, "'%s' could not read flameprof's purge (erl_parse failed)", s->node);
	}
	if (r == 0) {
		/* erl_eval:exprs(Exprs, [{'M', Name}]), at high priority */
		node_args_begin(&a, 4);
		node_arg_atom(&a, "erl_eval");
		node_arg_atom(&a, "exprs");
		a.ok = a.ok && ei_x_encode_list_header(&a.x, 2) == 0;
		node_arg_raw(&a, exprs.buff + start, end - start);
		a.ok = a.ok && ei_x_encode_list_header(&a.x, 1) == 0 && ei_x_encode_tuple_header(&a.x, 2) == 0;
		node_arg_atom(&a, "M");
		node_arg_atom(&a, name);
		a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0 && ei_x_encode_empty_list(&a.x) == 0 &&
		       ei_x_encode_list_header(&a.x, 1) == 0 && ei_x_encode_tuple_header(&a.x, 2) == 0;
		node_arg_atom(&a, "priority");
		node_arg_atom(&a, "high");
		a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
		r = node_rex_call_do(s, "erlang", "spawn_opt", &a);
	}
	ei_x_free(&toks);
	ei_x_free(&exprs);
	return r;
}

int node_unload_embedded(node_t *s, const char *name)
{
	/* As the modules do: the delete and the purge in a process of their
	 * own, so the code server is not held while every process of the node
	 * is checked, every process asked at once, and the module deleted only
	 * while it is loaded, by one process of ours at a time: a second
	 * code:delete/1 (ours racing the module's own) made the emulator log
	 * "must be purged before deleting", and the node's logger load its
	 * formatter for it, 220 atoms (tracer/fp_purge.hrl says why). */
	return spawn_purge(s, name);
}

int node_load_embedded(node_t *s, const struct node_module *m)
{
	char why[MAXATOMLEN_UTF8];
	int loaded = 0, r;
	if (!s->opts.compile_on_target) {
		r = load_binary(s, m->name, m->file, (const char *)m->beam, (long)*m->beam_len, why, sizeof why, &loaded);
		if (r < 0)
			return r;
		if (loaded)
			return 0;
		if (strcmp(why, "not_purged") == 0)
			return node_errf(s, NODE_ERR_BUSY, "'%s' is still purging the old code of '%s' from an earlier run; it finishes by itself, try again in a few seconds",
				    s->node, m->name);
	}
	/* compiling is seconds of CPU: through rex, at normal priority, not
	 * in the high-priority runner (node/runner.exprs) */
	s->runner_off = 1;
	r = compile_on_node(s, m);
	s->runner_off = 0;
	return r;
}

int node_release(node_t *s)
{
	struct node_args a;
	ei_x_buff reply;
	struct node_rex_reply rr;
	int r;
	/* every start begins here: the run's later calls go to the runner */
	if ((r = node_runner_start(s)) < 0)
		return r;
	if (ei_x_new(&reply) < 0)
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");
	node_args_begin(&a, 1);
	node_arg_atom(&a, "otp_release");
	r = node_rex_call_args(s, "erlang", "system_info", &a, &reply, &rr, s->opts.connect_timeout_ms);
	/* "25", or "R16B03" on old releases: anything else is no release */
	if (r == 0 && node_rex_reply_word(&rr, s->otp, sizeof s->otp) < 0)
		r = node_errf(s, NODE_ERR_PROTO,
			 "'%s' answered erlang:system_info(otp_release) with something that is not a release; the node is not behaving as an Erlang node should",
			 s->node);
	ei_x_free(&reply);
	if (r < 0)
		return r;
	/* The node's own name, as node() says it: 'rabbit@vm' whether it was
	 * reached as rabbit@vm or rabbit@127.0.0.1 (files are named by it). */
	if (ei_x_new(&reply) < 0)
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");
	node_args_begin(&a, 0);
	r = node_rex_call_args(s, "erlang", "node", &a, &reply, &rr, s->opts.connect_timeout_ms);
	/* It goes into file names and headers: taken only when it is a node
	 * name as flameprof accepts one on its command line. */
	char why[160];
	if (r == 0 && (node_rex_reply_atom(&rr, s->own_name, sizeof s->own_name) < 0 ||
		       node_check_target(s->own_name, why, sizeof why) < 0))
		s->own_name[0] = '\0'; /* not a name a node can have: keep the one given */
	ei_x_free(&reply);
	return r;
}

int node_clear_stale(node_t *s, const char *module, const char *what)
{
	int loaded, old, r;
	if ((r = node_rex_call_atom_is(s, "erlang", "module_loaded", module, "true", &loaded)) < 0)
		return r;
	if (loaded && (r = node_unload_embedded(s, module)) < 0)
		return r;
	/* Old code left by an earlier run whose purge never started (all of
	 * its processes killed at once, and its flameprof gone): we start
	 * one. Another purge under way meanwhile is harmless: the code purger
	 * runs them one after the other. */
	if (!loaded && (r = node_rex_call_atom_is(s, "erlang", "check_old_code", module, "true", &old)) == 0 &&
	    old && (r = node_unload_embedded(s, module)) < 0)
		return r;
	/* A purge of a few seconds (a busy node) is waited for, and the
	 * delete before it: the module is deleted by the purge's process,
	 * which must be done before ours is loaded under the same name. */
	long long until = fp_mono_ms() + s->opts.connect_timeout_ms;
	struct timespec pause = { 0, 200 * 1000 * 1000 };
	for (;;) {
		if ((r = node_rex_call_atom_is(s, "erlang", "check_old_code", module, "true", &old)) < 0 ||
		    (r = node_rex_call_atom_is(s, "erlang", "module_loaded", module, "true", &loaded)) < 0)
			return r;
		if ((!old && !loaded) || fp_mono_ms() >= until)
			break;
		nanosleep(&pause, NULL);
	}
	/* The purge under way may be ours just started or an earlier run's
	 * (purging asks every process of the node), or ours waiting for
	 * another of flameprof's purges (one at a time: fp_purge.hrl); each
	 * goes on by itself: 0.1 s measured on a node of 1,000 busy
	 * processes, and tests/e2e/advice_retry.t retries right after the
	 * purge before ours ends. */
	if (old || loaded)
		return node_errf(s, NODE_ERR_BUSY,
			    "'%s' is still purging the %s of an earlier run (a purge asks every process, and flameprof's purges run one at a time); it finishes by itself, try again in a few seconds",
			    s->node, what);
	return 0;
}

int node_unload_wait(node_t *s, const char *name)
{
	return node_unload_wait_grace(s, name, -1);
}

int node_unload_wait_grace(node_t *s, const char *name, int grace_ms)
{
	long long start = fp_mono_ms(), deadline = start + s->opts.connect_timeout_ms;
	int loaded, old, r, deleted = 0;
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	for (;;) {
		if ((r = node_rex_call_atom_is(s, "erlang", "module_loaded", name, "true", &loaded)) < 0 ||
		    (r = node_rex_call_atom_is(s, "erlang", "check_old_code", name, "true", &old)) < 0)
			return r;
		if (!loaded && !old)
			return 0;
		if (fp_mono_ms() >= deadline)
			break;
		/* Deleted: the purge gets PURGE_WAIT_MS, not the whole timeout. */
		if (!loaded && deadline > fp_mono_ms() + PURGE_WAIT_MS)
			deadline = fp_mono_ms() + PURGE_WAIT_MS;
		if (grace_ms >= 0) {
			/* The agent deletes its module and starts its purge
			 * within milliseconds of ending. If that has not
			 * happened after grace_ms, nothing of it is left to do
			 * it (its processes were killed together): we do, so
			 * that the node is ready for the next run when we exit
			 * (a purge nobody started left the old code there until
			 * the next run gave up on it). */
			if (!deleted && fp_mono_ms() >= start + grace_ms) {
				if ((r = node_unload_embedded(s, name)) < 0)
					return r;
				deleted = 1;
			}
		} else if (loaded && !deleted && fp_mono_ms() + s->opts.connect_timeout_ms / 2 >= deadline) {
			/* The module's owner deletes it itself; if it could
			 * not, we have it deleted and purged (one process of
			 * ours at a time deletes: fp_purge.hrl). */
			if ((r = node_unload_embedded(s, name)) < 0)
				return r;
			deleted = 1;
		}
		nanosleep(&pause, NULL);
	}
	if (!loaded)
		/* Purging walks every process of the node (slow with 100,000 of
		 * them); the purge the agent started goes on by itself. */
		return NODE_PURGING;
	/* Our removal (delete, then purge) was started: slow through a busy
	 * code server, or waiting for another purge of flameprof's to end
	 * (one at a time: fp_purge.hrl); it goes on by itself either way
	 * (tests/e2e/advice_retry.t). */
	if (deleted)
		return node_errf(s, NODE_ERR_AGENT,
			    "module '%s' is still loaded on '%s': flameprof's removal of it is under way (behind another purge of flameprof's, if one is running: one at a time) and goes on by itself",
			    name, s->node);
	return node_errf(s, NODE_ERR_AGENT,
		    "module '%s' is still loaded on '%s'; remove it with code:delete(%s), code:purge(%s)",
		    name, s->node, name, name);
}

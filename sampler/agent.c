/*
 * agent.c - putting the agent on the node and taking it off again.
 *
 * The agent (flameprof_agent.erl) is compiled at build time and embedded
 * with its source. It is loaded with code:load_binary/3 under a versioned
 * module name; if the node cannot load our .beam (another OTP release), the
 * embedded source is compiled on the node: erl_scan, erl_parse per form,
 * compile:forms. Only export funs travel: nothing here needs a fun of ours.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal.h"

extern const unsigned char fp_agent_beam[], fp_agent_source[];
extern const size_t fp_agent_beam_len, fp_agent_source_len;

#define LOAD_TIMEOUT_MS 15000 /* compiling on a busy node takes a while */
#define MAX_FORMS 512

/* ---------------------------------------------------------------- args */

struct args {
	ei_x_buff x;
	int ok;
};

static void args_begin(struct args *a, int n)
{
	a->ok = ei_x_new(&a->x) == 0;
	if (a->ok && n > 0)
		a->ok = ei_x_encode_list_header(&a->x, n) == 0;
}

static int args_end(sampler_t *s, struct args *a)
{
	if (a->ok)
		a->ok = ei_x_encode_empty_list(&a->x) == 0;
	if (!a->ok) {
		ei_x_free(&a->x);
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	}
	return 0;
}

static void arg_atom(struct args *a, const char *v)
{
	a->ok = a->ok && ei_x_encode_atom(&a->x, v) == 0;
}

static void arg_raw(struct args *a, const char *buf, int len)
{
	a->ok = a->ok && ei_x_append_buf(&a->x, buf, len) == 0;
}

/* Calls M:F(Args), frees the args; reply/at as rex_call. */
static int call(sampler_t *s, const char *mod, const char *fun, struct args *a,
		ei_x_buff *reply, int *at, int timeout_ms)
{
	int r = args_end(s, a);
	if (r < 0)
		return r;
	r = rex_call(s, mod, fun, &a->x, reply, at, timeout_ms);
	ei_x_free(&a->x);
	return r;
}

/* Calls M:F(Atom) and reports whether the answer is the atom `want`. */
static int call_atom_is(sampler_t *s, const char *mod, const char *fun, const char *arg,
			const char *want, int *yes)
{
	struct args a;
	ei_x_buff reply;
	char got[MAXATOMLEN_UTF8];
	int at, r;
	args_begin(&a, 1);
	arg_atom(&a, arg);
	if (ei_x_new(&reply) < 0)
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	r = call(s, mod, fun, &a, &reply, &at, s->opts.connect_timeout_ms);
	if (r == 0)
		*yes = ei_decode_atom(reply.buff, &at, got) == 0 && strcmp(got, want) == 0;
	ei_x_free(&reply);
	return r;
}

static int type_at(const ei_x_buff *x, int at)
{
	int type, size;
	return ei_get_type(x->buff, &at, &type, &size) < 0 ? -1 : type;
}

/* ---------------------------------------------------------------- loading */

/* {module, Mod} or {error, What}: copies What's text into why. */
static int load_reply_ok(const ei_x_buff *x, int at, char *why, size_t cap)
{
	int arity;
	char tag[MAXATOMLEN_UTF8];
	why[0] = '\0';
	if (ei_decode_tuple_header(x->buff, &at, &arity) < 0 || arity != 2 ||
	    ei_decode_atom(x->buff, &at, tag) < 0)
		return 0;
	if (strcmp(tag, "module") == 0)
		return 1;
	if (ei_decode_atom(x->buff, &at, why) < 0)
		snprintf(why, cap, "%s", tag);
	return 0;
}

static int load_binary(sampler_t *s, const char *beam, long len, char *why, size_t cap, int *loaded)
{
	struct args a;
	ei_x_buff reply;
	int at, r;
	args_begin(&a, 3);
	arg_atom(&a, FP_AGENT_MODULE);
	a.ok = a.ok && ei_x_encode_string(&a.x, "flameprof_agent") == 0 &&
	       ei_x_encode_binary(&a.x, beam, (int)len) == 0;
	if (ei_x_new(&reply) < 0)
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	r = call(s, "code", "load_binary", &a, &reply, &at, LOAD_TIMEOUT_MS);
	if (r == 0)
		*loaded = load_reply_ok(&reply, at, why, cap);
	ei_x_free(&reply);
	return r;
}

/* Compiles the embedded source on the node and loads the result. */
static int compile_on_node(sampler_t *s)
{
	struct args a;
	ei_x_buff scan, one;
	int at, n, r, arity, loaded = 0;
	char tag[MAXATOMLEN_UTF8], why[MAXATOMLEN_UTF8];

	if (ei_x_new(&scan) < 0 || ei_x_new(&one) < 0)
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	args_begin(&a, 1);
	a.ok = a.ok && ei_x_encode_string_len(&a.x, (const char *)fp_agent_source, (int)fp_agent_source_len) == 0;
	r = call(s, "erl_scan", "string", &a, &scan, &at, LOAD_TIMEOUT_MS);
	if (r < 0)
		goto out;
	r = serr(s, SAMPLER_ERR_AGENT, "cannot compile the agent on '%s' (erl_scan failed)", s->node);
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
		if (nforms == MAX_FORMS)
			goto free_parsed;
		args_begin(&a, 1);
		a.ok = a.ok && ei_x_encode_list_header(&a.x, ntok) == 0;
		arg_raw(&a, scan.buff + form_start, at - form_start);
		a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
		if (ei_x_new(&parsed[nforms]) < 0)
			goto free_parsed;
		int pat;
		r = call(s, "erl_parse", "parse_form", &a, &parsed[nforms], &pat, LOAD_TIMEOUT_MS);
		nforms++;
		if (r < 0)
			goto free_parsed;
		r = serr(s, SAMPLER_ERR_AGENT, "cannot compile the agent on '%s' (erl_parse failed)", s->node);
		int end = pat;
		if (ei_decode_tuple_header(parsed[nforms - 1].buff, &pat, &ta) < 0 || ta != 2 ||
		    ei_decode_atom(parsed[nforms - 1].buff, &pat, tag) < 0 || strcmp(tag, "ok") != 0)
			goto free_parsed;
		end = pat;
		if (ei_skip_term(parsed[nforms - 1].buff, &end) < 0)
			goto free_parsed;
		/* keep only the form: shift it to the front of its buffer */
		memmove(parsed[nforms - 1].buff, parsed[nforms - 1].buff + pat, (size_t)(end - pat));
		parsed[nforms - 1].index = end - pat;
		form_start = at;
		ntok = 0;
	}

	args_begin(&a, 2);
	a.ok = a.ok && ei_x_encode_list_header(&a.x, nforms) == 0;
	for (int k = 0; k < nforms; k++)
		arg_raw(&a, parsed[k].buff, parsed[k].index);
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0 && ei_x_encode_list_header(&a.x, 2) == 0;
	arg_atom(&a, "binary");
	arg_atom(&a, "return_errors");
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	r = call(s, "compile", "forms", &a, &one, &at, LOAD_TIMEOUT_MS);
	if (r < 0)
		goto free_parsed;
	r = serr(s, SAMPLER_ERR_AGENT, "cannot compile the agent on '%s' (compile:forms failed; is the compiler application there?)", s->node);
	if (ei_decode_tuple_header(one.buff, &at, &arity) < 0 || arity < 3 ||
	    ei_decode_atom(one.buff, &at, tag) < 0 || strcmp(tag, "ok") != 0 ||
	    ei_skip_term(one.buff, &at) < 0 || type_at(&one, at) != ERL_BINARY_EXT)
		goto free_parsed;
	int type, size;
	ei_get_type(one.buff, &at, &type, &size);
	char *beam = malloc((size_t)size + 1);
	long blen;
	if (!beam) {
		r = serr(s, SAMPLER_ERR_NOMEM, "out of memory");
		goto free_parsed;
	}
	if (ei_decode_binary(one.buff, &at, beam, &blen) == 0)
		r = load_binary(s, beam, blen, why, sizeof why, &loaded);
	free(beam);
	if (r == 0 && !loaded)
		r = serr(s, SAMPLER_ERR_AGENT, "cannot load the agent compiled on '%s' (%s)", s->node, why);
free_parsed:
	for (int k = 0; k < nforms; k++)
		ei_x_free(&parsed[k]);
out:
	ei_x_free(&scan);
	ei_x_free(&one);
	return r;
}

/* Removes a stale copy of our module (a run that died before unloading). */
static int purge_and_delete(sampler_t *s)
{
	int yes, r;
	if ((r = call_atom_is(s, "code", "purge", FP_AGENT_MODULE, "true", &yes)) < 0 ||
	    (r = call_atom_is(s, "code", "delete", FP_AGENT_MODULE, "true", &yes)) < 0 ||
	    (r = call_atom_is(s, "code", "purge", FP_AGENT_MODULE, "true", &yes)) < 0)
		return r;
	return 0;
}

static int load_agent(sampler_t *s)
{
	char why[MAXATOMLEN_UTF8];
	int loaded = 0, r;
	if (!s->opts.compile_on_target) {
		r = load_binary(s, (const char *)fp_agent_beam, (long)fp_agent_beam_len, why, sizeof why, &loaded);
		if (r < 0)
			return r;
		if (!loaded && strcmp(why, "not_purged") == 0) {
			if ((r = purge_and_delete(s)) < 0)
				return r;
			r = load_binary(s, (const char *)fp_agent_beam, (long)fp_agent_beam_len, why, sizeof why, &loaded);
			if (r < 0)
				return r;
		}
		if (loaded)
			return 0;
	}
	return compile_on_node(s);
}

/* ---------------------------------------------------------------- starting */

static int check_node(sampler_t *s)
{
	struct args a;
	ei_x_buff reply;
	int at, r, holder;

	if (ei_x_new(&reply) < 0)
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	args_begin(&a, 1);
	arg_atom(&a, "otp_release");
	r = call(s, "erlang", "system_info", &a, &reply, &at, s->opts.connect_timeout_ms);
	if (r == 0 && ei_decode_string(reply.buff, &at, s->otp) < 0)
		snprintf(s->otp, sizeof s->otp, "?");
	if (r == 0) {
		args_begin(&a, 1);
		arg_atom(&a, "flameprof_agent");
		r = call(s, "erlang", "whereis", &a, &reply, &at, s->opts.connect_timeout_ms);
		holder = r == 0 && type_at(&reply, at) != ERL_ATOM_EXT &&
			 type_at(&reply, at) != ERL_SMALL_ATOM_UTF8_EXT && type_at(&reply, at) != ERL_SMALL_ATOM_EXT &&
			 type_at(&reply, at) != ERL_ATOM_UTF8_EXT;
		if (holder)
			r = serr(s, SAMPLER_ERR_BUSY,
				 "'%s' is already being profiled by another flameprof; wait for it to finish, flameprof runs one at a time per node",
				 s->node);
	}
	ei_x_free(&reply);
	return r;
}

static int spawn_agent(sampler_t *s)
{
	struct args a;
	ei_x_buff reply;
	int at, r;

	args_begin(&a, 4);
	arg_atom(&a, FP_AGENT_MODULE);
	arg_atom(&a, "init");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, 1) == 0 && ei_x_encode_map_header(&a.x, 7) == 0;
	arg_atom(&a, "sink");
	a.ok = a.ok && ei_x_encode_pid(&a.x, ei_self(&s->ec)) == 0;
	arg_atom(&a, "top");
	a.ok = a.ok && ei_x_encode_ulong(&a.x, s->opts.top) == 0;
	arg_atom(&a, "hz");
	a.ok = a.ok && ei_x_encode_double(&a.x, s->opts.hz) == 0;
	arg_atom(&a, "every_ms");
	a.ok = a.ok && ei_x_encode_ulong(&a.x, s->opts.every_ms) == 0;
	arg_atom(&a, "depth");
	a.ok = a.ok && ei_x_encode_ulong(&a.x, s->opts.depth) == 0;
	arg_atom(&a, "pids");
	for (size_t k = 0; k < s->opts.npids; k++)
		a.ok = a.ok && ei_x_encode_list_header(&a.x, 1) == 0 &&
		       ei_x_encode_binary(&a.x, s->opts.pids[k], (int)strlen(s->opts.pids[k])) == 0;
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	arg_atom(&a, "names");
	for (size_t k = 0; k < s->opts.nnames; k++)
		a.ok = a.ok && ei_x_encode_list_header(&a.x, 1) == 0 &&
		       ei_x_encode_binary(&a.x, s->opts.names[k], (int)strlen(s->opts.names[k])) == 0;
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0 && ei_x_encode_empty_list(&a.x) == 0;
	/* spawn_opt options: [{priority, max}] */
	a.ok = a.ok && ei_x_encode_list_header(&a.x, 1) == 0 && ei_x_encode_tuple_header(&a.x, 2) == 0;
	arg_atom(&a, "priority");
	arg_atom(&a, "max");
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	if (ei_x_new(&reply) < 0)
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	r = call(s, "erlang", "spawn_opt", &a, &reply, &at, s->opts.connect_timeout_ms);
	if (r == 0 && ei_decode_pid(reply.buff, &at, &s->agent) < 0)
		r = serr(s, SAMPLER_ERR_AGENT, "cannot start the agent on '%s' (spawn_opt failed)", s->node);
	ei_x_free(&reply);
	return r;
}

/* Waits for fp_started (or fp_error), holding any early batch. */
static int await_start(sampler_t *s)
{
	long long deadline = mono_ms() + s->opts.connect_timeout_ms;
	erlang_msg msg;
	struct dec_result res;
	char why[128];
	for (;;) {
		int r = recv_one(s, &s->rx, &msg, deadline);
		if (r < 0)
			return r;
		if (r == 0)
			return serr(s, SAMPLER_ERR_AGENT, "the agent did not start on '%s' within %d ms",
				    s->node, s->opts.connect_timeout_ms);
		int k = dec_message(&s->tables, s->rx.buff, (size_t)s->rx.index, &res, why, sizeof why);
		if (k == DEC_STARTED) {
			s->old_depth = res.old_depth;
			s->have_agent = 1;
			return 0;
		}
		if (k == DEC_AGENT_ERROR && strcmp(res.reason, "busy") == 0)
			return serr(s, SAMPLER_ERR_BUSY,
				    "'%s' is already being profiled by another flameprof (agent %s); wait for it to finish, flameprof runs one at a time per node",
				    s->node, res.detail);
		if (k == DEC_AGENT_ERROR)
			return serr(s, SAMPLER_ERR_AGENT, "the agent refused to start on '%s' (%s)", s->node, res.reason);
	}
}

int sampler_start(sampler_t *s)
{
	int r, loaded;
	if ((r = check_node(s)) < 0)
		return r;
	/* A module left by a run that died between loading and starting. */
	if ((r = call_atom_is(s, "erlang", "module_loaded", FP_AGENT_MODULE, "true", &loaded)) < 0)
		return r;
	if (loaded && (r = purge_and_delete(s)) < 0)
		return r;
	if ((r = load_agent(s)) < 0)
		return r;
	if ((r = spawn_agent(s)) < 0 || (r = await_start(s)) < 0) {
		if (r != SAMPLER_ERR_LOST)
			purge_and_delete(s); /* best effort: the first error is the one to report */
		return r;
	}
	return 0;
}

/* ---------------------------------------------------------------- running */

int sampler_next(sampler_t *s, int timeout_ms, struct sampler_batch *out)
{
	long long deadline = mono_ms() + timeout_ms;
	struct dec_result res;
	erlang_msg msg;
	char why[160];
	for (;;) {
		const ei_x_buff *x = &s->rx;
		struct held_msg *h = s->held;
		if (h) {
			s->held = h->next;
			if (!s->held)
				s->held_tail = NULL;
			x = &h->x;
		} else {
			long long silent_until = s->last_rx_ms + s->opts.silence_timeout_ms;
			int r = recv_one(s, &s->rx, &msg, deadline < silent_until ? deadline : silent_until);
			if (r < 0)
				return r;
			if (r == 0 && mono_ms() >= silent_until)
				return serr(s, SAMPLER_ERR_LOST,
					    "'%s' has sent nothing for %d s (frozen, overloaded or cut off)",
					    s->node, s->opts.silence_timeout_ms / 1000);
			if (r == 0)
				return 0;
		}
		int k = dec_message(&s->tables, x->buff, (size_t)x->index, &res, why, sizeof why);
		if (h) {
			ei_x_free(&h->x);
			free(h);
		}
		if (k == -2)
			return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
		if (k < 0)
			return serr(s, SAMPLER_ERR_PROTO, "cannot read a message from the agent on '%s': %s",
				    s->node, why);
		if (k == DEC_BATCH) {
			*out = res.batch;
			return 1;
		}
		if (k == DEC_STOPPED) {
			s->stopped = 1;
			s->have_agent = 0;
			return 2;
		}
	}
}

int sampler_request_stop(sampler_t *s)
{
	ei_x_buff x;
	if (!s->have_agent)
		return 0;
	if (ei_x_new_with_version(&x) < 0 || ei_x_encode_atom(&x, "stop") < 0) {
		ei_x_free(&x);
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	}
	int r = ei_send_tmo(s->fd, &s->agent, x.buff, x.index, (unsigned)s->opts.connect_timeout_ms);
	ei_x_free(&x);
	if (r < 0)
		return serr(s, SAMPLER_ERR_LOST, "cannot ask the agent on '%s' to stop", s->node);
	return 0;
}

int sampler_unload(sampler_t *s)
{
	long long deadline = mono_ms() + s->opts.connect_timeout_ms;
	int loaded, old, r, tries = 0;
	for (;;) {
		if ((r = call_atom_is(s, "erlang", "module_loaded", FP_AGENT_MODULE, "true", &loaded)) < 0 ||
		    (r = call_atom_is(s, "erlang", "check_old_code", FP_AGENT_MODULE, "true", &old)) < 0)
			return r;
		if (!loaded && !old)
			return 0;
		if (mono_ms() >= deadline)
			return serr(s, SAMPLER_ERR_AGENT,
				    "the agent module is still loaded on '%s'; remove it with code:purge(%s), code:delete(%s)",
				    s->node, FP_AGENT_MODULE, FP_AGENT_MODULE);
		/* The agent deletes itself and has itself purged; help if it is slow. */
		if (++tries > 5 && (r = purge_and_delete(s)) < 0)
			return r;
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

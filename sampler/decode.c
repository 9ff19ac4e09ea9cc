/*
 * decode.c - the agent's messages into struct fp_sample records.
 *
 * A message is first walked by node_term_check() with its length, then decoded
 * with ei. Definitions (frames, stacks, labels, processes) are kept in
 * tables; samples carry only integers and are resolved against them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ei.h>
#include "decode.h"
#include "../node/term_check.h"
#include "../common/grow.h"

enum entry_kind { ENTRY_NONE, ENTRY_FRAME, ENTRY_STACK, ENTRY_LABEL };

struct dec_stack {
	size_t n;
	const struct fp_frame *frames[]; /* leaf first */
};

struct dec_entry {
	enum entry_kind kind;
	union {
		struct fp_frame *frame;   /* one block: struct + its strings */
		struct dec_stack *stack;
		struct fp_str *label;     /* one block: struct + text */
	} u;
};

struct dec_proc {
	int defined;
	uint32_t number, serial;
	struct fp_str initial_call, name; /* each its own allocation */
};

/* One decoding pass over a validated buffer. */
struct cur {
	const char *buf;
	int i;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct cur *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

void dec_init(struct dec_tables *t)
{
	memset(t, 0, sizeof *t);
}

static void free_entry(struct dec_entry *e)
{
	switch (e->kind) {
	case ENTRY_FRAME: free(e->u.frame); break;
	case ENTRY_STACK: free(e->u.stack); break;
	case ENTRY_LABEL: free(e->u.label); break;
	case ENTRY_NONE: break;
	}
	e->kind = ENTRY_NONE;
}

static void free_proc(struct dec_proc *p)
{
	free((char *)p->initial_call.ptr);
	free((char *)p->name.ptr);
	memset(p, 0, sizeof *p);
}

static void reset(struct dec_tables *t)
{
	for (size_t i = 0; i < t->nentries; i++)
		free_entry(&t->entries[i]);
	for (size_t i = 0; i < t->nprocs; i++)
		free_proc(&t->procs[i]);
	t->bytes = 0;
}

/* Counts n more bytes of definitions against DEC_MAX_BYTES. */
static int charge(struct dec_tables *t, struct cur *c, size_t n)
{
	if (n > DEC_MAX_BYTES - t->bytes)
		return fail(c, "definitions beyond %zu MiB without a reset", DEC_MAX_BYTES >> 20);
	t->bytes += n;
	return 0;
}

void dec_free(struct dec_tables *t)
{
	reset(t);
	free(t->entries);
	free(t->procs);
	free(t->samples);
	memset(t, 0, sizeof *t);
}

/* Grows a table so that index id exists; new slots are zeroed. */
static int grow(void **arr, size_t *n, size_t id, size_t size)
{
	size_t old = *n;
	if (id < *n)
		return 0;
	if (id == SIZE_MAX || fp_grow(arr, n, id + 1, size, 256) != 0)
		return -2;
	memset((char *)*arr + old * size, 0, (*n - old) * size);
	return 0;
}

/* ---------------------------------------------------------------- scalars */

static int get_int(struct cur *c, long long *v)
{
	if (ei_decode_longlong(c->buf, &c->i, v) < 0)
		return fail(c, "expected an integer at byte %d", c->i);
	return 0;
}

static int get_uint(struct cur *c, unsigned long long max, unsigned long long *v)
{
	long long x;
	if (get_int(c, &x) < 0)
		return -1;
	if (x < 0 || (unsigned long long)x > max)
		return fail(c, "integer %lld out of range at byte %d", x, c->i);
	*v = (unsigned long long)x;
	return 0;
}

static int get_tuple(struct cur *c, int arity)
{
	int n;
	if (ei_decode_tuple_header(c->buf, &c->i, &n) < 0 || n != arity)
		return fail(c, "expected a tuple of %d at byte %d", arity, c->i);
	return 0;
}

static int get_atom(struct cur *c, char *atom)
{
	if (ei_decode_atom(c->buf, &c->i, atom) < 0)
		return fail(c, "expected an atom at byte %d", c->i);
	return 0;
}

static int list_len(struct cur *c, int *n)
{
	if (ei_decode_list_header(c->buf, &c->i, n) < 0)
		return fail(c, "expected a list at byte %d", c->i);
	return 0;
}

static int list_end(struct cur *c, int n)
{
	if (n > 0 && ei_decode_list_header(c->buf, &c->i, &n) < 0)
		return fail(c, "improper list at byte %d", c->i);
	return 0;
}

/* Size of the binary at the cursor (the walk has checked it fits), at
 * most DEC_MAX_TEXT. */
static int bin_size(struct cur *c, size_t *size)
{
	int type, n;
	if (ei_get_type(c->buf, &c->i, &type, &n) < 0 || type != ERL_BINARY_EXT)
		return fail(c, "expected a binary at byte %d", c->i);
	if (n < 0 || n > DEC_MAX_TEXT)
		return fail(c, "a text of %d bytes at byte %d, more than %d", n, c->i, DEC_MAX_TEXT);
	*size = (size_t)n;
	return 0;
}

/* Decodes the binary at the cursor into dst (which has room for it). */
static int get_bin(struct cur *c, char *dst, struct fp_str *out)
{
	long n;
	if (ei_decode_binary(c->buf, &c->i, dst, &n) < 0)
		return fail(c, "expected a binary at byte %d", c->i);
	out->ptr = dst;
	out->len = (size_t)n;
	return 0;
}

static int dup_bin(struct cur *c, struct fp_str *out)
{
	size_t n;
	if (bin_size(c, &n) < 0)
		return -1;
	char *p = malloc(n + 1);
	if (!p)
		return -2;
	if (get_bin(c, p, out) < 0) {
		free(p);
		return -1;
	}
	if (n == 0) {
		free(p);
		out->ptr = NULL;
	}
	return 0;
}

/* ---------------------------------------------------------------- definitions */

static int def_slot(struct dec_tables *t, struct cur *c, size_t *id)
{
	unsigned long long v;
	if (get_uint(c, DEC_MAX_ID - 1, &v) < 0)
		return -1;
	if (grow((void **)&t->entries, &t->nentries, v, sizeof *t->entries) < 0)
		return -2;
	/* Stacks point at frames: an id is defined once until a reset. */
	if (t->entries[v].kind != ENTRY_NONE)
		return fail(c, "id %llu defined twice", v);
	*id = v;
	return 0;
}

/* {frame, Id, Module, Function, Arity, File, Line} */
static int def_frame(struct dec_tables *t, struct cur *c)
{
	size_t id, nm, nf, nfile;
	long long arity;
	unsigned long long line;
	int r = def_slot(t, c, &id);
	if (r < 0)
		return r;
	/* Measure the three strings first, then decode them into one block. */
	int start = c->i;
	if (bin_size(c, &nm) < 0 || ei_skip_term(c->buf, &c->i) < 0 ||
	    bin_size(c, &nf) < 0 || ei_skip_term(c->buf, &c->i) < 0 ||
	    get_int(c, &arity) < 0 || bin_size(c, &nfile) < 0)
		return -1;
	c->i = start;
	if (charge(t, c, sizeof(struct fp_frame) + nm + nf + nfile + 1) < 0)
		return -1;
	struct fp_frame *f = malloc(sizeof *f + nm + nf + nfile + 1);
	if (!f)
		return -2;
	char *text = (char *)(f + 1);
	if (get_bin(c, text, &f->module) < 0 || get_bin(c, text + nm, &f->function) < 0 ||
	    get_int(c, &arity) < 0 || get_bin(c, text + nm + nf, &f->file) < 0 ||
	    get_uint(c, UINT32_MAX, &line) < 0) {
		free(f);
		return -1;
	}
	f->arity = arity < 0 || arity > 255 ? -1 : (int)arity;
	f->line = (unsigned)line;
	t->entries[id].kind = ENTRY_FRAME;
	t->entries[id].u.frame = f;
	return 0;
}

/* {stack, Id, [FrameId]} */
static int def_stack(struct dec_tables *t, struct cur *c)
{
	size_t id;
	int n, type, r = def_slot(t, c, &id);
	if (r < 0)
		return r;
	/* A list of ids below 256 travels as a string: one byte per id. */
	const unsigned char *bytes = NULL;
	if (ei_get_type(c->buf, &c->i, &type, &n) == 0 && type == ERL_STRING_EXT) {
		bytes = (const unsigned char *)c->buf + c->i + 3;
		c->i += 3 + n;
	} else if (list_len(c, &n) < 0) {
		return -1;
	}
	if (n > DEC_MAX_FRAMES)
		return fail(c, "stack %zu of %d frames, more than %d", id, n, DEC_MAX_FRAMES);
	if (charge(t, c, sizeof(struct dec_stack) + (size_t)n * sizeof(void *)) < 0)
		return -1;
	struct dec_stack *s = malloc(sizeof *s + (size_t)n * sizeof s->frames[0]);
	if (!s)
		return -2;
	s->n = (size_t)n;
	for (int k = 0; k < n; k++) {
		unsigned long long fid = bytes ? bytes[k] : 0;
		if ((!bytes && get_uint(c, DEC_MAX_ID - 1, &fid) < 0) || fid >= t->nentries ||
		    t->entries[fid].kind != ENTRY_FRAME) {
			free(s);
			return fail(c, "stack %zu names an unknown frame", id);
		}
		s->frames[k] = t->entries[fid].u.frame;
	}
	if (!bytes && list_end(c, n) < 0) {
		free(s);
		return -1;
	}
	t->entries[id].kind = ENTRY_STACK;
	t->entries[id].u.stack = s;
	return 0;
}

/* {label, Id, Text} */
static int def_label(struct dec_tables *t, struct cur *c)
{
	size_t id, n;
	int r = def_slot(t, c, &id);
	if (r < 0)
		return r;
	if (bin_size(c, &n) < 0 || charge(t, c, sizeof(struct fp_str) + n + 1) < 0)
		return -1;
	struct fp_str *l = malloc(sizeof *l + n + 1);
	if (!l)
		return -2;
	if (get_bin(c, (char *)(l + 1), l) < 0) {
		free(l);
		return -1;
	}
	t->entries[id].kind = ENTRY_LABEL;
	t->entries[id].u.label = l;
	return 0;
}

/* {proc, Index, Pid, InitialCall, Name} */
static int def_proc(struct dec_tables *t, struct cur *c)
{
	unsigned long long idx;
	erlang_pid pid;
	if (get_uint(c, DEC_MAX_PROC - 1, &idx) < 0)
		return -1;
	if (ei_decode_pid(c->buf, &c->i, &pid) < 0)
		return fail(c, "expected a pid at byte %d", c->i);
	if (grow((void **)&t->procs, &t->nprocs, idx, sizeof *t->procs) < 0)
		return -2;
	struct dec_proc *p = &t->procs[idx];
	size_t held = p->defined ? p->initial_call.len + p->name.len + 2 : 0;
	t->bytes -= held < t->bytes ? held : t->bytes;
	free_proc(p);
	int r = dup_bin(c, &p->initial_call);
	if (r == 0)
		r = dup_bin(c, &p->name);
	if (r == 0)
		r = charge(t, c, p->initial_call.len + p->name.len + 2);
	if (r < 0) {
		free_proc(p);
		return r;
	}
	p->defined = 1;
	p->number = pid.num;
	p->serial = pid.serial;
	return 0;
}

static int definitions(struct dec_tables *t, struct cur *c)
{
	int n;
	if (list_len(c, &n) < 0)
		return -1;
	for (int k = 0; k < n; k++) {
		char kind[MAXATOMLEN_UTF8];
		int arity, r;
		if (ei_decode_atom(c->buf, &c->i, kind) == 0 && strcmp(kind, "reset") == 0) {
			reset(t);
			continue;
		}
		if (ei_decode_tuple_header(c->buf, &c->i, &arity) < 0 || get_atom(c, kind) < 0)
			return fail(c, "expected a definition at byte %d", c->i);
		if (strcmp(kind, "frame") == 0 && arity == 7)
			r = def_frame(t, c);
		else if (strcmp(kind, "stack") == 0 && arity == 3)
			r = def_stack(t, c);
		else if (strcmp(kind, "label") == 0 && arity == 3)
			r = def_label(t, c);
		else if (strcmp(kind, "proc") == 0 && arity == 5)
			r = def_proc(t, c);
		else
			return fail(c, "unknown definition '%s'/%d", kind, arity);
		if (r < 0)
			return r;
	}
	return list_end(c, n);
}

/* ---------------------------------------------------------------- samples */

/* {Time, ProcIndex, Status, StackId, LabelId, {16 metrics}}: read whole,
 * then checked. @return 0 (s filled), 1 (read past: see below), or <0. */
static int sample(struct dec_tables *t, struct cur *c, struct fp_sample *s)
{
	long long time, metrics[FP_METRIC_COUNT];
	unsigned long long idx, status, stack, label;
	if (get_tuple(c, 6) < 0 || get_int(c, &time) < 0 ||
	    get_uint(c, DEC_MAX_PROC - 1, &idx) < 0 ||
	    get_uint(c, FP_STATUS_COUNT - 1, &status) < 0 ||
	    get_uint(c, DEC_MAX_ID - 1, &stack) < 0 || get_uint(c, DEC_MAX_ID - 1, &label) < 0 ||
	    get_tuple(c, FP_METRIC_COUNT) < 0)
		return -1;
	for (int m = 0; m < FP_METRIC_COUNT; m++)
		if (get_int(c, &metrics[m]) < 0)
			return -1;
	/* A process the agent has not defined on this connection: the sample
	 * cannot be drawn, but the rest of the batch and the run can. It is
	 * read past, and counted with the dropped ones. (The agent once sent
	 * one: a process that ended between its sample and the read of its
	 * name, in its first sample of a run.) */
	if (idx >= t->nprocs || !t->procs[idx].defined)
		return 1;
	/* stack 0: on a CPU, but its stack was not read in time (the agent's
	 * read_in_time/4) */
	if (stack != 0 && (stack >= t->nentries || t->entries[stack].kind != ENTRY_STACK))
		return fail(c, "sample with undefined stack %llu", stack);
	const struct dec_proc *p = &t->procs[idx];
	memset(s, 0, sizeof *s);
	s->time_us = time;
	s->pid_number = p->number;
	s->pid_serial = p->serial;
	s->status = (enum fp_status)status;
	if (stack != 0) {
		const struct dec_stack *st = t->entries[stack].u.stack;
		s->frames = st->frames;
		s->nframes = st->n;
	} else {
		s->stack_late = 1;
	}
	s->initial_call = p->initial_call;
	s->name = p->name;
	if (label != 0) {
		if (label >= t->nentries || t->entries[label].kind != ENTRY_LABEL)
			return fail(c, "sample with undefined label %llu", label);
		s->seq_label = *t->entries[label].u.label;
	}
	for (int m = 0; m < FP_METRIC_COUNT; m++)
		s->metrics[m] = metrics[m];
	return 0;
}

static int samples(struct dec_tables *t, struct cur *c, struct sampler_batch *b)
{
	int n;
	if (list_len(c, &n) < 0)
		return -1;
	if (fp_grow((void **)&t->samples, &t->capsamples, (size_t)n, sizeof *t->samples, 64) != 0)
		return -2;
	size_t kept = 0;
	for (int k = 0; k < n; k++) {
		int r = sample(t, c, &t->samples[kept]);
		if (r < 0)
			return -1;
		if (r == 0)
			kept++;
		else
			t->orphans++;
	}
	if (list_end(c, n) < 0)
		return -1;
	b->samples = t->samples;
	b->nsamples = kept;
	b->round.dropped_total += t->orphans;
	return 0;
}

/* {Start, Duration, Lateness, Asked, Answered, LateTotal, MissedTotal,
 *  DroppedTotal, Selected, SharePermille, CostPpm, Unseen, Work, AtOnce,
 *  BusyPermille}; rounds of 10 (no cost: 0), 11 (no work figures: 0) and
 *  13 (no schedulers' figures: 0 at once, busy unknown) are read too. */
static int round_info(struct cur *c, struct sampler_round *r)
{
	long long v[15] = { 0 };
	int n;
	if (ei_decode_tuple_header(c->buf, &c->i, &n) < 0 || n < 10 || n > 15 || n == 12 || n == 14)
		return fail(c, "expected a tuple of 15 at byte %d", c->i);
	v[14] = -1;
	for (int k = 0; k < n; k++)
		if (get_int(c, &v[k]) < 0)
			return -1;
	r->start_us = v[0];
	r->duration_us = v[1];
	r->lateness_us = v[2];
	r->asked = (unsigned)v[3];
	r->answered = (unsigned)v[4];
	r->late_total = (uint64_t)v[5];
	r->missed_total = (uint64_t)v[6];
	r->dropped_total = (uint64_t)v[7];
	r->selected = (unsigned)v[8];
	r->share_permille = v[9] < 0 ? 0 : v[9] > 1000 ? 1000 : (unsigned)v[9];
	r->cost_ppm = v[10] < 0 ? 0 : v[10] > 1000000 ? 1000000 : (unsigned)v[10];
	/* the unseen part is a part of the work: a message saying more is
	 * cut to it, not trusted */
	r->work_reds = v[12] < 0 ? 0 : (uint64_t)v[12];
	r->unseen_reds = v[11] < 0 ? 0 : (uint64_t)v[11] > r->work_reds ? r->work_reds : (uint64_t)v[11];
	r->at_once = v[13] < 0 ? 0 : v[13] > 65535 ? 65535 : (unsigned)v[13];
	r->busy_permille = v[14] < 0 ? -1 : v[14] > 65535000 ? 65535000 : (int)v[14];
	return 0;
}

/* ---------------------------------------------------------------- messages */

/* {'EXIT', Pid, Reason}: the node layer's form of a linked process's end.
 * The reason goes to out->detail: an atom as it is, any other term printed
 * and cut (the term has been checked whole already; one of more than 512
 * bytes is only measured, not printed: a node may send any). */
static int link_exit(struct cur *c, size_t len, struct dec_result *out)
{
	char atom[MAXATOMLEN_UTF8];
	/* a link's exit always names a pid: without one, another process's
	 * message that looks like it */
	if (ei_decode_pid(c->buf, &c->i, &out->exit_from) < 0)
		return DEC_OTHER;
	if (ei_decode_atom(c->buf, &c->i, atom) == 0) {
		snprintf(out->detail, sizeof out->detail, "%.127s", atom);
		return DEC_LINK_EXIT;
	}
	if (len - (size_t)c->i > 512) {
		snprintf(out->detail, sizeof out->detail, "a term of %zu bytes", len - (size_t)c->i);
		return DEC_LINK_EXIT;
	}
	char *text = NULL;
	int at = c->i;
	if (ei_s_print_term(&text, c->buf, &at) < 0) {
		free(text);
		snprintf(out->detail, sizeof out->detail, "a reason that cannot be printed");
		return DEC_LINK_EXIT; /* whose exit it is decides, not its reason */
	}
	snprintf(out->detail, sizeof out->detail, "%s", text);
	free(text);
	return DEC_LINK_EXIT;
}

static int batch(struct dec_tables *t, struct cur *c, struct dec_result *out)
{
	long long seq;
	int r;
	t->nsamples = 0;
	if (get_int(c, &seq) < 0 || round_info(c, &out->batch.round) < 0)
		return -1;
	out->batch.has_round = out->batch.round.asked > 0;
	if ((r = definitions(t, c)) < 0 || (r = samples(t, c, &out->batch)) < 0)
		return r;
	return DEC_BATCH;
}

int dec_message(struct dec_tables *t, const char *buf, size_t len,
		struct dec_result *out, char *err, size_t errlen)
{
	struct cur c = { buf, 0, err, errlen };
	char tag[MAXATOMLEN_UTF8];
	int arity, version;
	long long proto;

	memset(out, 0, sizeof *out);
	out->old_depth = -1;
	/* Any process on the node may send to our pid: what is not one
	 * well-formed term (a fun, a term nested past 64 levels) is not the
	 * agent's, and is dropped like any other stranger's message. */
	if (len > INT32_MAX || node_term_check(buf, len) < 0 || ei_decode_version(buf, &c.i, &version) < 0)
		return DEC_OTHER;
	if (ei_decode_tuple_header(buf, &c.i, &arity) < 0 || arity < 2 ||
	    ei_decode_atom(buf, &c.i, tag) < 0)
		return DEC_OTHER;
	if (strcmp(tag, "fp_batch") == 0 && arity == 5)
		return batch(t, &c, out);
	if (strcmp(tag, "EXIT") == 0 && arity == 3)
		return link_exit(&c, len, out);
	if (strncmp(tag, "fp_", 3) != 0 || get_int(&c, &proto) < 0)
		return DEC_OTHER;
	if (proto != 1)
		return fail(&c, "agent protocol %lld, expected 1", proto);
	if (strcmp(tag, "fp_started") == 0 && arity == 5) {
		long long depth;
		int n;
		if (ei_skip_term(buf, &c.i) < 0 || get_int(&c, &depth) < 0 ||
		    ei_decode_list_header(buf, &c.i, &n) < 0)
			return fail(&c, "a malformed fp_started");
		out->old_depth = (int)depth;
		/* the --pid and --name texts that name no process, comma-joined
		 * (cut at the buffer: they are only said) */
		for (int k = 0; k < n; k++) {
			size_t len, used = strlen(out->missing);
			struct fp_str d = { NULL, 0 };
			if (bin_size(&c, &len) < 0)
				return -1;
			char *tmp = malloc(len + 1);
			if (!tmp)
				return -2;
			if (get_bin(&c, tmp, &d) < 0) {
				free(tmp);
				return -1;
			}
			snprintf(out->missing + used, sizeof out->missing - used, "%s'%.*s'",
				 used ? ", " : "", (int)d.len, d.ptr);
			free(tmp);
			out->nmissing++;
		}
		return DEC_STARTED;
	}
	if (strcmp(tag, "fp_stopped") == 0 && arity == 3)
		return DEC_STOPPED;
	if (strcmp(tag, "fp_error") == 0 && arity == 4) {
		struct fp_str d = { NULL, 0 };
		size_t n;
		if (get_atom(&c, tag) < 0 || bin_size(&c, &n) < 0)
			return -1;
		snprintf(out->reason, sizeof out->reason, "%.63s", tag);
		char *tmp = malloc(n + 1);
		if (!tmp)
			return -2;
		if (get_bin(&c, tmp, &d) == 0)
			snprintf(out->detail, sizeof out->detail, "%.*s", (int)d.len, d.ptr);
		free(tmp);
		return DEC_AGENT_ERROR;
	}
	return DEC_OTHER;
}

/*
 * test_decode.c - sampler/decode.c and node/term_check.c without a node.
 *
 * Agent messages are built with ei_x_encode_* exactly as the agent sends
 * them (the shapes are at the top of sampler/flameprof_agent.erl and in
 * decode.c), decoded with dec_message(), and every field of the resulting
 * records is checked. Then the decoder is given what a broken or hostile
 * peer could send: every truncation of a valid batch, every byte of it
 * changed, wrong arities, unknown and redefined ids, huge counts and
 * lengths. Nothing may crash, leak or be accepted half-read. Each input ends right at an inaccessible page, so a read past
 * its end faults even inside libei, which ASan does not instrument.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ei.h>

#include "ei_enc.h"
#include "tap.h"
#include "../../sampler/decode.h"
#include "../../node/term_check.h"

/* ==== encoding helpers: abort on an encoder failure (a bug in the test) ==== */

static void raw(ei_x_buff *x, const void *p, int n) { E(ei_x_append_buf(x, p, n)); }

static void pid(ei_x_buff *x, unsigned num, unsigned serial)
{
	erlang_pid p;
	memset(&p, 0, sizeof p);
	strcpy(p.node, "target@127.0.0.1");
	p.num = num;
	p.serial = serial;
	p.creation = 1700000000u;
	E(ei_x_encode_pid(x, &p));
}

static void x_new(ei_x_buff *x) { E(ei_x_new_with_version(x)); }

/* {frame, Id, Module, Function, Arity, File, Line} */
static void def_frame(ei_x_buff *x, long long id, const char *m, const char *f, long long arity,
		      const char *file, long long line)
{
	tup(x, 7); atom(x, "frame"); lng(x, id); bin(x, m); bin(x, f); lng(x, arity); bin(x, file); lng(x, line);
}

/* {stack, Id, [FrameId]}: as a string, the way the VM encodes a list of
 * bytes (every id < 256) */
static void def_stack_str(ei_x_buff *x, long long id, const unsigned char *ids, int n)
{
	tup(x, 3); atom(x, "stack"); lng(x, id);
	E(ei_x_encode_string_len(x, (const char *)ids, n));
}

/* ... and as a proper list (some id >= 256) */
static void def_stack_list(ei_x_buff *x, long long id, const long long *ids, int n)
{
	tup(x, 3); atom(x, "stack"); lng(x, id);
	lst(x, n);
	for (int k = 0; k < n; k++)
		lng(x, ids[k]);
	nil(x);
}

static void def_label(ei_x_buff *x, long long id, const char *text)
{
	tup(x, 3); atom(x, "label"); lng(x, id); bin(x, text);
}

/* {proc, Index, Pid, InitialCall, Name} */
static void def_proc(ei_x_buff *x, long long idx, unsigned num, unsigned serial, const char *ic,
		     const char *name)
{
	tup(x, 5); atom(x, "proc"); lng(x, idx); pid(x, num, serial); bin(x, ic); bin(x, name);
}

/* {Time, ProcIndex, Status, StackId, LabelId, {16 metrics}}: metric m is base + m */
static void sample(ei_x_buff *x, long long time, long long idx, long long status, long long stack,
		   long long label, long long base)
{
	tup(x, 6); lng(x, time); lng(x, idx); lng(x, status); lng(x, stack); lng(x, label);
	tup(x, FP_METRIC_COUNT);
	for (int m = 0; m < FP_METRIC_COUNT; m++)
		lng(x, base + m);
}

/* {fp_batch, Seq, Info, Defs, Samples}, up to the Defs list header.
 * Info: {Start, Duration, Lateness, Asked, Answered, LateTotal, MissedTotal,
 * DroppedTotal, Selected, SharePermille, CostPpm}. */
static void batch_begin(ei_x_buff *x, long long seq, long long asked, int ndefs)
{
	x_new(x);
	tup(x, 5); atom(x, "fp_batch"); lng(x, seq);
	tup(x, 11);
	lng(x, 1700000000000000LL); lng(x, 1234); lng(x, 56); lng(x, asked); lng(x, asked ? asked - 1 : 0);
	lng(x, 7); lng(x, 8); lng(x, 9); lng(x, 10); lng(x, 1000); lng(x, 3100);
	lst(x, ndefs);
}

/* ==== decoding helpers ==== */

static char err[256];

/* Inputs are placed right before an inaccessible page: libei is not built
 * with ASan, so a read past the end inside ei would go unseen; here it
 * faults. */
#define GUARD_DATA (64 * 1024)
static char *guard_end;

static const char *guarded(const void *buf, size_t len)
{
	if (!guard_end) {
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		char *base = mmap(NULL, GUARD_DATA + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (base == MAP_FAILED || mprotect(base + GUARD_DATA, page, PROT_NONE) != 0)
			abort();
		guard_end = base + GUARD_DATA;
	}
	if (len > GUARD_DATA)
		abort();
	memmove(guard_end - len, buf, len);
	return guard_end - len;
}

/* dec_message on a copy that ends at the guard page. */
static int dec(struct dec_tables *t, const char *buf, size_t len, struct dec_result *r)
{
	err[0] = '\0';
	return dec_message(t, guarded(buf, len), len, r, err, sizeof err);
}

static int decx(struct dec_tables *t, const ei_x_buff *x, struct dec_result *r)
{
	return dec(t, x->buff, (size_t)x->index, r);
}

/* decode one message with fresh tables */
static int dec_fresh(const char *buf, size_t len)
{
	struct dec_tables t;
	struct dec_result r;
	dec_init(&t);
	int k = dec(&t, buf, len, &r);
	dec_free(&t);
	return k;
}

static int str_is(struct fp_str s, const char *want)
{
	return s.len == strlen(want) && (s.len == 0 || memcmp(s.ptr, want, s.len) == 0);
}

static int frame_is(const struct fp_frame *f, const char *m, const char *fn, int arity, const char *file,
		    unsigned line)
{
	return str_is(f->module, m) && str_is(f->function, fn) && f->arity == arity && str_is(f->file, file) &&
	       f->line == line;
}

/* Reads every byte a sample points to (ASan checks the pointers). */
static unsigned long touch(const struct fp_sample *s)
{
	unsigned long sum = (unsigned long)s->time_us + s->pid_number + s->pid_serial + (unsigned)s->status;
	const struct fp_str *strs[3] = { &s->initial_call, &s->name, &s->seq_label };
	for (int k = 0; k < 3; k++)
		for (size_t i = 0; i < strs[k]->len; i++)
			sum += (unsigned char)strs[k]->ptr[i];
	for (size_t f = 0; f < s->nframes; f++) {
		const struct fp_frame *fr = s->frames[f];
		const struct fp_str *fs[3] = { &fr->module, &fr->function, &fr->file };
		for (int k = 0; k < 3; k++)
			for (size_t i = 0; i < fs[k]->len; i++)
				sum += (unsigned char)fs[k]->ptr[i];
		sum += (unsigned)fr->arity + fr->line;
	}
	for (int m = 0; m < FP_METRIC_COUNT; m++)
		sum += (unsigned long)s->metrics[m];
	return sum;
}

/* ==== the reference batch: every kind of definition and two samples ==== */

#define T0 1700000000123456LL

static void reference_batch(ei_x_buff *x)
{
	static const unsigned char small[] = { 1, 2, 3 };
	static const long long big[] = { 300, 1, 3 };
	batch_begin(x, 42, 2, 9);
	def_frame(x, 1, "fp_busy", "burn_cpu", 1, "fp_busy.erl", 12);
	def_frame(x, 2, "proc_lib", "init_p_do_apply", 3, "proc_lib.erl", 240);
	def_frame(x, 3, "erlang", "apply", 2, "", 0);
	def_stack_str(x, 4, small, 3);          /* ids < 256: a string */
	def_frame(x, 300, "odd mod", "f->g", 1000, "dir/odd.erl", 4294967295LL);
	def_stack_list(x, 301, big, 3);         /* an id >= 256: a list */
	def_label(x, 5, "req-17");
	def_proc(x, 1, 77, 3, "fp_busy:burn_cpu/1", "fp_idle_server");
	def_proc(x, 2, 88, 0, "", "");
	nil(x);
	lst(x, 2);
	sample(x, T0, 1, FP_STATUS_RUNNING, 4, 0, 100);
	sample(x, T0 + 5, 2, FP_STATUS_SUSPENDED, 301, 5, -3);
	nil(x);
}

static void test_reference_batch(void)
{
	ei_x_buff x;
	struct dec_tables t;
	struct dec_result r;
	reference_batch(&x);
	dec_init(&t);
	int k = decx(&t, &x, &r);
	is_int(k, DEC_BATCH, "a batch with every kind of definition decodes (%s)", err);
	const struct sampler_batch *b = &r.batch;
	is_int(b->nsamples, 2, "two samples");
	ok(b->has_round, "a batch with asked > 0 carries a round");
	is_int(b->round.start_us, 1700000000000000LL, "round start");
	is_int(b->round.duration_us, 1234, "round duration");
	is_int(b->round.lateness_us, 56, "round lateness");
	is_int(b->round.asked, 2, "asked");
	is_int(b->round.answered, 1, "answered");
	is_int(b->round.late_total, 7, "late total");
	is_int(b->round.missed_total, 8, "missed total");
	is_int(b->round.dropped_total, 9, "dropped total");
	is_int(b->round.selected, 10, "selected");
	is_int(b->round.share_permille, 1000, "the budget's part");
	is_int(b->round.cost_ppm, 3100, "the cost, millionths of the schedulers");
	if (b->nsamples != 2) {
		ei_x_free(&x);
		dec_free(&t);
		return;
	}
	const struct fp_sample *s = &b->samples[0];
	is_int(s->time_us, T0, "sample 0: time");
	is_int(s->pid_number, 77, "sample 0: pid number");
	is_int(s->pid_serial, 3, "sample 0: pid serial");
	is_int(s->status, FP_STATUS_RUNNING, "sample 0: status");
	is_int(s->nframes, 3, "sample 0: 3 frames from a string-encoded stack");
	ok(s->nframes == 3 && frame_is(s->frames[0], "fp_busy", "burn_cpu", 1, "fp_busy.erl", 12),
	   "sample 0: frame 0 (leaf) is fp_busy:burn_cpu/1 (fp_busy.erl:12)");
	ok(s->nframes == 3 && frame_is(s->frames[1], "proc_lib", "init_p_do_apply", 3, "proc_lib.erl", 240),
	   "sample 0: frame 1 is proc_lib:init_p_do_apply/3");
	ok(s->nframes == 3 && frame_is(s->frames[2], "erlang", "apply", 2, "", 0),
	   "sample 0: frame 2 (root) is erlang:apply/2 with no file and line 0");
	ok(str_is(s->initial_call, "fp_busy:burn_cpu/1"), "sample 0: initial call");
	ok(str_is(s->name, "fp_idle_server"), "sample 0: registered name");
	ok(s->seq_label.len == 0, "sample 0: label 0 means no seq_trace label");
	int all = 1;
	for (int m = 0; m < FP_METRIC_COUNT; m++)
		all &= s->metrics[m] == 100 + m;
	ok(all, "sample 0: the 16 metrics in order");

	s = &b->samples[1];
	is_int(s->time_us, T0 + 5, "sample 1: time");
	is_int(s->pid_number, 88, "sample 1: pid number");
	is_int(s->pid_serial, 0, "sample 1: pid serial");
	is_int(s->status, FP_STATUS_SUSPENDED, "sample 1: status");
	is_int(s->nframes, 3, "sample 1: 3 frames from a list-encoded stack");
	ok(s->nframes == 3 && frame_is(s->frames[0], "odd mod", "f->g", -1, "dir/odd.erl", 4294967295u),
	   "sample 1: frame id 300: bytes as sent, arity out of range becomes -1, line 2^32-1 kept");
	ok(s->nframes == 3 && s->frames[1] == b->samples[0].frames[0], "sample 1: frame 1 is the same record as frame id 1");
	ok(s->nframes == 3 && frame_is(s->frames[2], "erlang", "apply", 2, "", 0), "sample 1: frame 2 is frame id 3");
	ok(s->initial_call.len == 0 && s->name.len == 0, "sample 1: empty initial call and name are absent");
	ok(str_is(s->seq_label, "req-17"), "sample 1: seq_trace label");
	all = 1;
	for (int m = 0; m < FP_METRIC_COUNT; m++)
		all &= s->metrics[m] == -3 + m;
	ok(all, "sample 1: negative metrics kept");

	/* the next batch refers to the definitions of the first */
	ei_x_buff y;
	batch_begin(&y, 43, 0, 0);
	nil(&y);
	lst(&y, 1);
	sample(&y, T0 + 10, 2, FP_STATUS_WAITING, 4, 5, 1LL << 40);
	nil(&y);
	k = decx(&t, &y, &r);
	is_int(k, DEC_BATCH, "a later batch uses earlier definitions (%s)", err);
	ok(!r.batch.has_round, "a batch with asked 0 has no round (the final one)");
	ok(r.batch.nsamples == 1 && r.batch.samples[0].pid_number == 88 && r.batch.samples[0].nframes == 3 &&
	   str_is(r.batch.samples[0].seq_label, "req-17") && r.batch.samples[0].metrics[0] == 1LL << 40,
	   "its sample resolves proc 2, stack 4, label 5, and a 2^40 metric");

	/* an empty batch: no definitions, no samples */
	ei_x_free(&y);
	batch_begin(&y, 44, 5, 0);
	nil(&y);
	nil(&y);
	k = decx(&t, &y, &r);
	ok(k == DEC_BATCH && r.batch.nsamples == 0 && r.batch.has_round, "an empty batch (keep-alive) decodes");
	ei_x_free(&y);
	ei_x_free(&x);
	dec_free(&t);
}

/* ==== the other messages ==== */

static int one_message(void (*build)(ei_x_buff *), struct dec_result *r)
{
	ei_x_buff x;
	struct dec_tables t;
	x_new(&x);
	build(&x);
	dec_init(&t);
	int k = decx(&t, &x, r);
	dec_free(&t);
	ei_x_free(&x);
	return k;
}

static void m_started(ei_x_buff *x) { tup(x, 5); atom(x, "fp_started"); lng(x, 1); pid(x, 5, 0); lng(x, 8); nil(x); }
static void m_started_missing(ei_x_buff *x)
{
	tup(x, 5); atom(x, "fp_started"); lng(x, 1); pid(x, 5, 0); lng(x, 8);
	lst(x, 2); bin(x, "<0.99999.0>"); bin(x, "no_such_xyz"); nil(x);
}
static void m_started_4(ei_x_buff *x) { tup(x, 4); atom(x, "fp_started"); lng(x, 1); pid(x, 5, 0); lng(x, 8); }
static void m_started_v2(ei_x_buff *x) { tup(x, 5); atom(x, "fp_started"); lng(x, 2); pid(x, 5, 0); lng(x, 8); nil(x); }
static void m_started_3(ei_x_buff *x) { tup(x, 3); atom(x, "fp_started"); lng(x, 1); pid(x, 5, 0); }
static void m_stopped(ei_x_buff *x)
{
	tup(x, 3); atom(x, "fp_stopped"); lng(x, 1);
	tup(x, 5); lng(x, 10); lng(x, 20); lng(x, 0); lng(x, 1); lng(x, 2);
}
static void m_error(ei_x_buff *x) { tup(x, 4); atom(x, "fp_error"); lng(x, 1); atom(x, "busy"); bin(x, "<0.123.0>"); }
static void m_error_long(ei_x_buff *x)
{
	char d[600];
	memset(d, 'x', sizeof d - 1);
	d[sizeof d - 1] = '\0';
	tup(x, 4); atom(x, "fp_error"); lng(x, 1); atom(x, "busy"); bin(x, d);
}
static void m_rex(ei_x_buff *x) { tup(x, 2); atom(x, "rex"); atom(x, "true"); }
static void m_rex_int(ei_x_buff *x) { tup(x, 2); atom(x, "rex"); lng(x, 13); }
static void m_foo_int(ei_x_buff *x) { tup(x, 3); atom(x, "foo"); lng(x, 2); lng(x, 3); }
static void m_atom(ei_x_buff *x) { atom(x, "hello"); }
static void m_list(ei_x_buff *x) { lst(x, 1); lng(x, 1); nil(x); }
static void m_tuple_int(ei_x_buff *x) { tup(x, 2); lng(x, 1); lng(x, 2); }
static void m_exit_killed(ei_x_buff *x) { tup(x, 3); atom(x, "EXIT"); pid(x, 5, 0); atom(x, "killed"); }
static void m_exit_tuple(ei_x_buff *x)
{
	tup(x, 3); atom(x, "EXIT"); pid(x, 5, 0);
	tup(x, 2); atom(x, "badarg"); lst(x, 1); tup(x, 2); atom(x, "m"); lng(x, 7); nil(x);
}
static void m_exit_big(ei_x_buff *x)
{
	tup(x, 3); atom(x, "EXIT"); pid(x, 5, 0);
	lst(x, 300);
	for (int k = 0; k < 300; k++)
		lng(x, 100000 + k);
	nil(x);
}
static void m_exit_no_pid(ei_x_buff *x) { tup(x, 3); atom(x, "EXIT"); atom(x, "nopid"); atom(x, "killed"); }

static void test_other_messages(void)
{
	struct dec_result r;
	int k = one_message(m_started, &r);
	ok(k == DEC_STARTED && r.old_depth == 8 && r.nmissing == 0 && r.missing[0] == '\0',
	   "{fp_started, 1, Agent, 8, []}: started, old depth 8, no target missing");
	k = one_message(m_started_missing, &r);
	ok(k == DEC_STARTED && r.nmissing == 2 && strcmp(r.missing, "'<0.99999.0>', 'no_such_xyz'") == 0,
	   "{fp_started, ..., [<<\"<0.99999.0>\">>, <<\"no_such_xyz\">>]}: both missing targets, quoted");
	k = one_message(m_started_4, &r);
	ok(k != DEC_STARTED, "fp_started without the missing list (arity 4) is not taken as a start");
	k = one_message(m_stopped, &r);
	is_int(k, DEC_STOPPED, "{fp_stopped, 1, {...}}: stopped");
	k = one_message(m_error, &r);
	ok(k == DEC_AGENT_ERROR && strcmp(r.reason, "busy") == 0 && strcmp(r.detail, "<0.123.0>") == 0,
	   "{fp_error, 1, busy, <<\"<0.123.0>\">>}: reason and detail");
	k = one_message(m_error_long, &r);
	ok(k == DEC_AGENT_ERROR && strlen(r.detail) == sizeof r.detail - 1,
	   "a 599-byte error detail is cut to the buffer");
	k = one_message(m_started_v2, &r);
	is_int(k, -1, "another agent protocol (2) is refused");
	k = one_message(m_started_3, &r);
	ok(k != DEC_STARTED, "fp_started of the wrong arity is not taken as a start");
	is_int(one_message(m_rex, &r), DEC_OTHER, "{rex, true} (a late rex reply) is someone else's");
	is_int(one_message(m_atom, &r), DEC_OTHER, "an atom is someone else's");
	is_int(one_message(m_list, &r), DEC_OTHER, "a list is someone else's");
	is_int(one_message(m_tuple_int, &r), DEC_OTHER, "{1, 2} is someone else's");
	is_int(one_message(m_rex_int, &r), DEC_OTHER, "{rex, 13} (a late reply holding an integer) is someone else's");
	is_int(one_message(m_foo_int, &r), DEC_OTHER, "{foo, 2, 3} is someone else's, not a protocol error");
	k = one_message(m_exit_killed, &r);
	ok(k == DEC_LINK_EXIT && strcmp(r.detail, "killed") == 0 && r.exit_from.num == 5,
	   "{'EXIT', Pid, killed}: a linked process's end, its pid and reason");
	k = one_message(m_exit_tuple, &r);
	ok(k == DEC_LINK_EXIT && strncmp(r.detail, "{badarg,", 8) == 0 && strstr(r.detail, "7}"),
	   "{'EXIT', Pid, {badarg, [{m, 7}]}}: a reason not an atom is printed");
	k = one_message(m_exit_big, &r);
	ok(k == DEC_LINK_EXIT && strncmp(r.detail, "a term of ", 10) == 0,
	   "a reason of over 512 bytes is measured, not printed");
	is_int(one_message(m_exit_no_pid, &r), DEC_OTHER, "{'EXIT', nopid, killed} names no pid: someone else's, not the end of a link");
}

/* ==== ids: unknown, redefined, reset ==== */

/* Tables that hold the reference batch's definitions. */
static void holding_reference(struct dec_tables *t)
{
	ei_x_buff ref;
	struct dec_result r;
	reference_batch(&ref);
	dec_init(t);
	if (decx(t, &ref, &r) != DEC_BATCH)
		abort();
	ei_x_free(&ref);
}

/* A batch of one definition list built by defs() and one sample, against
 * tables that already hold the reference batch. */
static int against_reference(void (*defs)(ei_x_buff *), int ndefs, long long idx, long long stack,
			     long long label, int nsamples)
{
	ei_x_buff x;
	struct dec_tables t;
	struct dec_result r;
	holding_reference(&t);
	batch_begin(&x, 2, 1, ndefs);
	if (defs)
		defs(&x);
	nil(&x);
	lst(&x, nsamples);
	if (nsamples)
		sample(&x, T0 + 100, idx, FP_STATUS_RUNNABLE, stack, label, 0);
	nil(&x);
	int k = decx(&t, &x, &r);
	if (k == DEC_BATCH)
		for (size_t i = 0; i < r.batch.nsamples; i++)
			touch(&r.batch.samples[i]);
	ei_x_free(&x);
	dec_free(&t);
	return k;
}

static void d_frame1(ei_x_buff *x) { def_frame(x, 1, "m", "f", 0, "m.erl", 1); }
static void d_stack4(ei_x_buff *x) { static const unsigned char ids[] = { 1 }; def_stack_str(x, 4, ids, 1); }
static void d_label300(ei_x_buff *x) { def_label(x, 300, "x"); }
static void d_reset_frame1(ei_x_buff *x) { atom(x, "reset"); d_frame1(x); }
static void d_reset_all(ei_x_buff *x)
{
	static const unsigned char ids[] = { 1 };
	atom(x, "reset");
	def_frame(x, 1, "m", "f", 0, "m.erl", 1);
	def_stack_str(x, 2, ids, 1);
	def_proc(x, 1, 99, 1, "", "");
}
static void d_stack_unknown_frame(ei_x_buff *x) { static const unsigned char ids[] = { 1, 9 }; def_stack_str(x, 50, ids, 2); }
static void d_stack_zero(ei_x_buff *x) { static const unsigned char ids[] = { 0 }; def_stack_str(x, 50, ids, 1); }
static void d_stack_of_stack(ei_x_buff *x) { static const long long ids[] = { 1, 4 }; def_stack_list(x, 50, ids, 2); }
static void d_stack_of_label(ei_x_buff *x) { static const unsigned char ids[] = { 5 }; def_stack_str(x, 50, ids, 1); }
static void d_stack_big_unknown(ei_x_buff *x) { static const long long ids[] = { 1, 70000 }; def_stack_list(x, 50, ids, 2); }
static void d_proc_redefined(ei_x_buff *x) { def_proc(x, 1, 500, 2, "a:b/0", "new_name"); }
static void d_empty_stack(ei_x_buff *x) { def_stack_str(x, 60, NULL, 0); }
static void d_frame_far(ei_x_buff *x) { def_frame(x, 100000, "m", "f", 0, "m.erl", 1); }
static void d_frame_max(ei_x_buff *x) { def_frame(x, DEC_MAX_ID, "m", "f", 0, "m.erl", 1); }
static void d_frame_neg(ei_x_buff *x) { def_frame(x, -1, "m", "f", 0, "m.erl", 1); }
static void d_proc_max(ei_x_buff *x) { def_proc(x, DEC_MAX_PROC, 1, 1, "", ""); }
static void d_frame_line_big(ei_x_buff *x) { def_frame(x, 60, "m", "f", 0, "m.erl", 4294967296LL); }
static void d_frame_id_bignum(ei_x_buff *x)
{
	tup(x, 7); atom(x, "frame"); E(ei_x_encode_ulonglong(x, 1ULL << 63)); bin(x, "m"); bin(x, "f");
	lng(x, 0); bin(x, "m.erl"); lng(x, 1);
}
static void d_other_atom(ei_x_buff *x) { atom(x, "resetx"); d_frame1(x); }

/* Stack 0: the agent's word for a sample on a CPU whose process ran on to
 * its receive before its stack was read: no frames, and said so. */
static void test_stack_late(void)
{
	ei_x_buff x;
	struct dec_tables t;
	struct dec_result r;
	holding_reference(&t);
	batch_begin(&x, 2, 1, 0);
	nil(&x);
	lst(&x, 2);
	sample(&x, T0 + 100, 1, FP_STATUS_RUNNING, 0, 0, 0);
	sample(&x, T0 + 200, 1, FP_STATUS_RUNNING, 4, 0, 0);
	nil(&x);
	int k = decx(&t, &x, &r);
	ok(k == DEC_BATCH && r.batch.nsamples == 2, "a batch with a stack-0 sample decodes whole");
	if (k == DEC_BATCH && r.batch.nsamples == 2) {
		ok(r.batch.samples[0].stack_late == 1 && r.batch.samples[0].nframes == 0,
		   "stack 0: no frames, stack_late set");
		ok(r.batch.samples[1].stack_late == 0 && r.batch.samples[1].nframes > 0,
		   "the next sample, of a defined stack, has its frames and no stack_late");
	} else {
		ok(0, "stack 0: no frames, stack_late set");
		ok(0, "the next sample has its frames");
	}
	ei_x_free(&x);
	dec_free(&t);
}

static void test_ids(void)
{
	is_int(against_reference(NULL, 0, 1, 4, 5, 1), DEC_BATCH, "control: a sample of known ids decodes");
	is_int(against_reference(NULL, 0, 9, 4, 0, 1), DEC_BATCH,
	       "a sample of an undefined process index is read past (counted as dropped), the batch kept");
	is_int(against_reference(NULL, 0, 1, 99, 0, 1), -1, "a sample of an undefined stack is refused");
	is_int(against_reference(NULL, 0, 1, 0, 0, 1), DEC_BATCH,
	       "stack 0 (on a CPU, its stack not read in time) decodes");
	is_int(against_reference(NULL, 0, 1, 1, 0, 1), -1, "a sample whose stack id is a frame is refused");
	is_int(against_reference(NULL, 0, 1, 4, 99, 1), -1, "a sample of an undefined label is refused");
	is_int(against_reference(NULL, 0, 1, 4, 4, 1), -1, "a sample whose label id is a stack is refused");
	is_int(against_reference(d_frame1, 1, 1, 4, 0, 0), -1, "frame id 1 defined again is refused");
	is_int(against_reference(d_stack4, 1, 1, 4, 0, 0), -1, "stack id 4 defined again is refused");
	is_int(against_reference(d_label300, 1, 1, 4, 0, 0), -1, "label over frame id 300 is refused");
	is_int(against_reference(d_reset_frame1, 2, 1, 4, 0, 0), DEC_BATCH, "after 'reset', id 1 can be defined again");
	is_int(against_reference(d_reset_frame1, 2, 1, 4, 0, 1), DEC_BATCH,
	       "after 'reset', process 1 is gone: its sample is read past (counted as dropped)");
	is_int(against_reference(d_reset_frame1, 2, 2, 301, 0, 1), DEC_BATCH,
	       "after 'reset', old processes are gone: read past, the batch kept");
	is_int(against_reference(d_reset_all, 4, 1, 2, 0, 1), DEC_BATCH, "after 'reset', new definitions resolve");
	is_int(against_reference(d_stack_unknown_frame, 1, 1, 4, 0, 0), -1, "a stack naming an unknown frame is refused (string)");
	is_int(against_reference(d_stack_zero, 1, 1, 4, 0, 0), -1, "a stack naming id 0 is refused");
	is_int(against_reference(d_stack_of_stack, 1, 1, 4, 0, 0), -1, "a stack naming a stack is refused");
	is_int(against_reference(d_stack_of_label, 1, 1, 4, 0, 0), -1, "a stack naming a label is refused");
	is_int(against_reference(d_stack_big_unknown, 1, 1, 4, 0, 0), -1, "a stack naming an unknown frame is refused (list)");
	is_int(against_reference(d_proc_redefined, 1, 1, 4, 0, 1), DEC_BATCH, "a process index may be redefined (a new window)");
	is_int(against_reference(d_empty_stack, 1, 1, 60, 0, 1), DEC_BATCH, "an empty stack is a stack");
	is_int(against_reference(d_frame_far, 1, 1, 4, 0, 0), DEC_BATCH, "frame id 100000 (the table grows)");
	is_int(against_reference(d_frame_max, 1, 1, 4, 0, 0), -1, "frame id DEC_MAX_ID is refused");
	is_int(against_reference(d_frame_neg, 1, 1, 4, 0, 0), -1, "a negative id is refused");
	is_int(against_reference(d_frame_id_bignum, 1, 1, 4, 0, 0), -1, "an id of 2^63 (a bignum) is refused");
	is_int(against_reference(d_proc_max, 1, 1, 4, 0, 0), -1, "process index DEC_MAX_PROC is refused");
	is_int(against_reference(d_frame_line_big, 1, 1, 4, 0, 0), -1, "a line of 2^32 is refused");
	is_int(against_reference(d_other_atom, 2, 1, 4, 0, 0), -1, "an atom other than 'reset' among definitions is refused");
	is_int(against_reference(NULL, 0, -1, 4, 0, 1), -1, "a negative process index is refused");

	/* sample-level ranges, built by hand */
	ei_x_buff ref, x;
	struct dec_tables t;
	struct dec_result r;
	reference_batch(&ref);
	dec_init(&t);
	decx(&t, &ref, &r);
	batch_begin(&x, 2, 1, 0);
	nil(&x);
	lst(&x, 1);
	sample(&x, T0, 1, FP_STATUS_COUNT, 4, 0, 0);
	nil(&x);
	is_int(decx(&t, &x, &r), -1, "status %d (past the last) is refused", FP_STATUS_COUNT);
	ei_x_free(&x);
	/* a metric that does not fit in 64 bits: SMALL_BIG_EXT of 9 bytes */
	batch_begin(&x, 2, 1, 0);
	nil(&x);
	lst(&x, 1);
	tup(&x, 6); lng(&x, T0); lng(&x, 1); lng(&x, 0); lng(&x, 4); lng(&x, 0);
	tup(&x, FP_METRIC_COUNT);
	static const unsigned char big9[] = { 'n', 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	raw(&x, big9, sizeof big9);
	for (int m = 1; m < FP_METRIC_COUNT; m++)
		lng(&x, m);
	nil(&x);
	is_int(decx(&t, &x, &r), -1, "a metric of 2^64 and more is refused");
	ei_x_free(&x);
	ei_x_free(&ref);
	dec_free(&t);
}

/* ==== wrong arities ==== */

static int batch_with(void (*defs)(ei_x_buff *), int ndefs, void (*samples)(ei_x_buff *), int nsamples)
{
	ei_x_buff x;
	struct dec_tables t;
	struct dec_result r;
	batch_begin(&x, 1, 1, ndefs);
	if (defs)
		defs(&x);
	nil(&x);
	lst(&x, nsamples);
	if (samples)
		samples(&x);
	nil(&x);
	dec_init(&t);
	int k = decx(&t, &x, &r);
	dec_free(&t);
	ei_x_free(&x);
	return k;
}

static void a_frame6(ei_x_buff *x) { tup(x, 6); atom(x, "frame"); lng(x, 1); bin(x, "m"); bin(x, "f"); lng(x, 0); bin(x, "m.erl"); }
static void a_frame8(ei_x_buff *x) { tup(x, 8); atom(x, "frame"); lng(x, 1); bin(x, "m"); bin(x, "f"); lng(x, 0); bin(x, "m.erl"); lng(x, 1); lng(x, 1); }
static void a_stack4(ei_x_buff *x) { tup(x, 4); atom(x, "stack"); lng(x, 1); nil(x); nil(x); }
static void a_label2(ei_x_buff *x) { tup(x, 2); atom(x, "label"); lng(x, 1); }
static void a_proc4(ei_x_buff *x) { tup(x, 4); atom(x, "proc"); lng(x, 1); pid(x, 1, 1); bin(x, ""); }
static void a_unknown(ei_x_buff *x) { tup(x, 3); atom(x, "frobnicate"); lng(x, 1); lng(x, 2); }
static void a_frame_atoms(ei_x_buff *x) { tup(x, 7); atom(x, "frame"); lng(x, 1); atom(x, "m"); atom(x, "f"); lng(x, 0); bin(x, ""); lng(x, 0); }
static void a_proc_nopid(ei_x_buff *x) { tup(x, 5); atom(x, "proc"); lng(x, 1); lng(x, 1); bin(x, ""); bin(x, ""); }
static void a_defs_ok(ei_x_buff *x)
{
	static const unsigned char ids[] = { 1 };
	def_frame(x, 1, "m", "f", 0, "m.erl", 1);
	def_stack_str(x, 2, ids, 1);
	def_proc(x, 1, 9, 0, "", "");
}
static void s_ok(ei_x_buff *x) { sample(x, T0, 1, 0, 2, 0, 0); }
static void s_tuple5(ei_x_buff *x) { tup(x, 5); lng(x, T0); lng(x, 1); lng(x, 0); lng(x, 2); lng(x, 0); }
static void s_tuple7(ei_x_buff *x) { tup(x, 7); lng(x, T0); lng(x, 1); lng(x, 0); lng(x, 2); lng(x, 0); tup(x, 0); lng(x, 0); }
static void s_metrics15(ei_x_buff *x)
{
	tup(x, 6); lng(x, T0); lng(x, 1); lng(x, 0); lng(x, 2); lng(x, 0);
	tup(x, FP_METRIC_COUNT - 1);
	for (int m = 0; m < FP_METRIC_COUNT - 1; m++)
		lng(x, m);
}
static void s_metrics17(ei_x_buff *x)
{
	tup(x, 6); lng(x, T0); lng(x, 1); lng(x, 0); lng(x, 2); lng(x, 0);
	tup(x, FP_METRIC_COUNT + 1);
	for (int m = 0; m < FP_METRIC_COUNT + 1; m++)
		lng(x, m);
}
static void s_metric_float(ei_x_buff *x)
{
	tup(x, 6); lng(x, T0); lng(x, 1); lng(x, 0); lng(x, 2); lng(x, 0);
	tup(x, FP_METRIC_COUNT);
	E(ei_x_encode_double(x, 1.5));
	for (int m = 1; m < FP_METRIC_COUNT; m++)
		lng(x, m);
}

static void test_arities(void)
{
	is_int(batch_with(a_defs_ok, 3, s_ok, 1), DEC_BATCH, "control: a well-formed batch decodes");
	is_int(batch_with(a_frame6, 1, NULL, 0), -1, "{frame, ...} of 6 is refused");
	is_int(batch_with(a_frame8, 1, NULL, 0), -1, "{frame, ...} of 8 is refused");
	is_int(batch_with(a_stack4, 1, NULL, 0), -1, "{stack, ...} of 4 is refused");
	is_int(batch_with(a_label2, 1, NULL, 0), -1, "{label, ...} of 2 is refused");
	is_int(batch_with(a_proc4, 1, NULL, 0), -1, "{proc, ...} of 4 is refused");
	is_int(batch_with(a_unknown, 1, NULL, 0), -1, "an unknown definition is refused");
	is_int(batch_with(a_frame_atoms, 1, NULL, 0), -1, "a frame with atoms for binaries is refused");
	is_int(batch_with(a_proc_nopid, 1, NULL, 0), -1, "a proc without a pid is refused");
	is_int(batch_with(a_defs_ok, 3, s_tuple5, 1), -1, "a sample of 5 is refused");
	is_int(batch_with(a_defs_ok, 3, s_tuple7, 1), -1, "a sample of 7 is refused");
	is_int(batch_with(a_defs_ok, 3, s_metrics15, 1), -1, "15 metrics are refused");
	is_int(batch_with(a_defs_ok, 3, s_metrics17, 1), -1, "17 metrics are refused");
	is_int(batch_with(a_defs_ok, 3, s_metric_float, 1), -1, "a float metric is refused");

	/* the envelope */
	ei_x_buff x;
	struct dec_tables t;
	struct dec_result r;
	dec_init(&t);
	/* the sizes no agent sends */
	const int refused[] = { 8, 12, 14, 16 };
	for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
		x_new(&x);
		tup(&x, 5); atom(&x, "fp_batch"); lng(&x, 1);
		tup(&x, refused[k]); for (int i = 0; i < refused[k]; i++) lng(&x, i + 1);
		nil(&x); nil(&x);
		is_int(decx(&t, &x, &r), -1, "a round info of %d is refused", refused[k]);
		ei_x_free(&x);
	}
	/* a round of 10, as agents before the cost was sent: read, cost 0;
	 * of 11, before the work figures: read, none unseen; a cost past all
	 * the schedulers is cut to them, an unseen part past the work to it */
	for (int n = 10; n <= 15; n += n == 11 || n == 13 ? 2 : 1) {
		x_new(&x);
		tup(&x, 5); atom(&x, "fp_batch"); lng(&x, 1);
		tup(&x, n); for (int k = 0; k < n; k++) lng(&x, k < 10 ? k + 1 : k == 10 ? 5000000 : k == 11 ? 9000000000LL :
							      k == 12 ? 8000000000LL : k == 13 ? 1 : 380);
		nil(&x); nil(&x);
		is_int(decx(&t, &x, &r), DEC_BATCH, "a round info of %d is read (%s)", n, err);
		is_int(r.batch.round.cost_ppm, n == 10 ? 0 : 1000000, "round of %d: its cost", n);
		is_int(r.batch.round.work_reds, n >= 13 ? 8000000000LL : 0, "round of %d: the node's work", n);
		is_int(r.batch.round.unseen_reds, n >= 13 ? 8000000000LL : 0, "round of %d: its unseen part, at most the work", n);
		is_int(r.batch.round.at_once, n == 15 ? 1 : 0, "round of %d: schedulers at once (0: not said)", n);
		is_int(r.batch.round.busy_permille, n == 15 ? 380 : -1, "round of %d: schedulers busy (-1: not known)", n);
		ei_x_free(&x);
	}
	x_new(&x);
	tup(&x, 5); atom(&x, "fp_batch"); lng(&x, 1);
	tup(&x, 13); for (int k = 0; k < 13; k++) lng(&x, k < 11 ? k + 1 : k == 11 ? 250 : 1000);
	nil(&x); nil(&x);
	is_int(decx(&t, &x, &r), DEC_BATCH, "a round info of 13 is read (%s)", err);
	ok(r.batch.round.unseen_reds == 250 && r.batch.round.work_reds == 1000, "... the unseen part and the work as sent");
	ei_x_free(&x);
	/* the schedulers' figures as the agent sends them without a budget
	 * (-1: not known), and cut where they are past any node */
	long long last2[][2] = { { 2, -1 }, { -3, 70000000 }, { 100000, 2500 } };
	for (size_t k = 0; k < sizeof last2 / sizeof last2[0]; k++) {
		x_new(&x);
		tup(&x, 5); atom(&x, "fp_batch"); lng(&x, 1);
		tup(&x, 15); for (int i = 0; i < 15; i++) lng(&x, i < 13 ? i + 1 : last2[k][i - 13]);
		nil(&x); nil(&x);
		is_int(decx(&t, &x, &r), DEC_BATCH, "a round info of 15 ending %lld, %lld is read (%s)", last2[k][0], last2[k][1], err);
		is_int(r.batch.round.at_once, last2[k][0] < 0 ? 0 : last2[k][0] > 65535 ? 65535 : last2[k][0], "... schedulers at once");
		is_int(r.batch.round.busy_permille, last2[k][1] > 65535000 ? 65535000 : last2[k][1], "... schedulers busy");
		ei_x_free(&x);
	}
	x_new(&x);
	tup(&x, 5); atom(&x, "fp_batch"); lng(&x, 1);
	tup(&x, 10); for (int k = 0; k < 10; k++) lng(&x, k + 1);
	atom(&x, "nodefs"); nil(&x);
	is_int(decx(&t, &x, &r), -1, "definitions that are not a list are refused");
	ei_x_free(&x);
	x_new(&x);
	tup(&x, 4); atom(&x, "fp_batch"); lng(&x, 1);
	tup(&x, 10); for (int k = 0; k < 10; k++) lng(&x, k + 1);
	nil(&x);
	ok(decx(&t, &x, &r) != DEC_BATCH, "fp_batch of 4 is not a batch");
	ei_x_free(&x);
	x_new(&x);
	tup(&x, 6); atom(&x, "fp_batch"); lng(&x, 1);
	tup(&x, 10); for (int k = 0; k < 10; k++) lng(&x, k + 1);
	nil(&x); nil(&x); nil(&x);
	ok(decx(&t, &x, &r) != DEC_BATCH, "fp_batch of 6 is not a batch");
	ei_x_free(&x);
	/* an improper samples list: [S | foo] */
	x_new(&x);
	tup(&x, 5); atom(&x, "fp_batch"); lng(&x, 1);
	tup(&x, 10); for (int k = 0; k < 10; k++) lng(&x, k + 1);
	nil(&x);
	E(ei_x_encode_list_header(&x, 1));
	E(ei_x_encode_atom(&x, "x"));
	atom(&x, "foo");
	is_int(decx(&t, &x, &r), -1, "an improper samples list is refused");
	ei_x_free(&x);
	dec_free(&t);
}

/* ==== truncations and changed bytes of a valid batch ==== */

static void test_truncated(void)
{
	ei_x_buff x;
	reference_batch(&x);
	size_t len = (size_t)x.index;
	int all = 1;
	for (size_t n = 0; n < len; n++) {
		int k = dec_fresh(x.buff, n);
		if (k != DEC_OTHER) {
			all = 0;
			fprintf(stderr, "#   cut at %zu of %zu: %d\n", n, len, k);
		}
	}
	ok(all, "the reference batch cut at every one of its %zu byte positions is not one term: dropped as a stranger's, never read past", len);
	is_int(dec_fresh(x.buff, len), DEC_BATCH, "uncut, it decodes");
	E(ei_x_append_buf(&x, "j", 1));
	is_int(dec_fresh(x.buff, len + 1), DEC_OTHER, "with a byte after the term, it is dropped as a stranger's");
	ei_x_free(&x);
}

static void test_mutated(void)
{
	ei_x_buff x;
	reference_batch(&x);
	size_t len = (size_t)x.index;
	char *copy = malloc(len);
	unsigned long runs = 0, batches = 0, sink = 0;
	if (!copy)
		abort();
	for (size_t i = 1; i < len; i++) {
		const unsigned char b = (unsigned char)x.buff[i];
		const unsigned char vals[] = { 0, 0xff, 0x7f, 0x80, (unsigned char)(b ^ 1), (unsigned char)(b + 1),
					       (unsigned char)(b - 1), 'a', 'b', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'w' };
		for (size_t v = 0; v < sizeof vals; v++) {
			struct dec_tables t;
			struct dec_result r;
			memcpy(copy, x.buff, len);
			copy[i] = (char)vals[v];
			dec_init(&t);
			int k = dec(&t, copy, len, &r);
			if (k == DEC_BATCH) {
				batches++;
				for (size_t s = 0; s < r.batch.nsamples; s++)
					sink += touch(&r.batch.samples[s]);
			}
			dec_free(&t);
			runs++;
		}
	}
	ok(1, "%lu one-byte changes of the reference batch decoded or refused without a fault (%lu still batches, %lu)",
	   runs, batches, sink & 1);
	free(copy);
	ei_x_free(&x);
}

/* ==== hostile buffers for term_check ==== */

static int tc(const void *p, size_t n)
{
	return node_term_check(guarded(p, n), n);
}

#define TC(want, msg, ...) do { static const unsigned char b_[] = { __VA_ARGS__ }; \
	is_int(tc(b_, sizeof b_), want, msg); } while (0)

static void test_term_check(void)
{
	is_int(tc("", 0), -1, "term_check: an empty buffer");
	TC(-1, "term_check: the version byte alone", 131);
	TC(-1, "term_check: a wrong version byte", 130, 'j');
	TC(0, "term_check: [] is one term", 131, 'j');
	TC(-1, "term_check: two terms", 131, 'j', 'j');
	TC(-1, "term_check: a binary claiming 4 GiB with 3 bytes", 131, 'm', 0xff, 0xff, 0xff, 0xff, 1, 2, 3);
	TC(-1, "term_check: an atom claiming 65535 bytes", 131, 'd', 0xff, 0xff, 'a', 'b');
	TC(-1, "term_check: a small atom claiming 255 bytes", 131, 'w', 0xff, 'a');
	TC(-1, "term_check: a string claiming 10 bytes with 2", 131, 'k', 0, 10, 'a', 'b');
	TC(-1, "term_check: a list claiming 2^32-1 elements", 131, 'l', 0xff, 0xff, 0xff, 0xff, 'j', 'j');
	TC(-1, "term_check: a list without its tail", 131, 'l', 0, 0, 0, 1, 'a', 1);
	TC(0, "term_check: an improper list is a term", 131, 'l', 0, 0, 0, 1, 'a', 1, 'a', 2);
	TC(-1, "term_check: a large tuple claiming 2^31 elements", 131, 'i', 0x80, 0, 0, 0, 'j');
	TC(-1, "term_check: a map claiming 2^31 pairs", 131, 't', 0x80, 0, 0, 0, 'j', 'j');
	TC(-1, "term_check: a map with a key and no value", 131, 't', 0, 0, 0, 1, 'j');
	TC(-1, "term_check: a small big claiming 255 digits", 131, 'n', 0xff, 0, 1, 2);
	TC(-1, "term_check: a large big claiming 2^32-1 digits", 131, 'o', 0xff, 0xff, 0xff, 0xff, 0, 1);
	TC(-1, "term_check: a fun whose size is less than its size field", 131, 'p', 0, 0, 0, 3);
	TC(-1, "term_check: a reference with 6 id words", 131, 'Z', 0, 6, 'w', 1, 'n', 0, 0, 0, 1,
	   0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 6);
	TC(-1, "term_check: a pid whose node is not an atom", 131, 'X', 'j', 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1);
	TC(-1, "term_check: a pid cut short", 131, 'X', 'w', 1, 'n', 0, 0, 0, 1, 0, 0, 0);
	TC(-1, "term_check: a compressed term (not expected from the agent)", 131, 'P', 0, 0, 0, 1, 0x78, 0x9c);
	TC(-1, "term_check: an atom cache reference", 131, 'R', 0);
	TC(-1, "term_check: an unknown tag", 131, 'z');
	TC(-1, "term_check: a float cut short", 131, 'F', 0, 0, 0);
	TC(-1, "term_check: a tuple of 2 holding 1", 131, 'h', 2, 'a', 1);

	/* nesting: 64 levels pass, 65 do not */
	unsigned char deep[2 + 2 * 70];
	size_t n = 0;
	deep[n++] = 131;
	for (int k = 0; k < 64; k++) {
		deep[n++] = 'h';
		deep[n++] = 1;
	}
	deep[n++] = 'j';
	is_int(tc(deep, n), 0, "term_check: 64 nested tuples pass");
	n = 0;
	deep[n++] = 131;
	for (int k = 0; k < 65; k++) {
		deep[n++] = 'h';
		deep[n++] = 1;
	}
	deep[n++] = 'j';
	is_int(tc(deep, n), -1, "term_check: 65 nested tuples are refused");

	/* every type ei can encode, in one term, passes (and every cut of it fails) */
	ei_x_buff x;
	erlang_ref ref;
	erlang_port port;
	memset(&ref, 0, sizeof ref);
	memset(&port, 0, sizeof port);
	strcpy(ref.node, "n@h");
	ref.len = 3;
	ref.n[0] = 1; ref.n[1] = 2; ref.n[2] = 3;
	ref.creation = 5;
	strcpy(port.node, "n@h");
	port.id = 7;
	port.creation = 5;
	x_new(&x);
	tup(&x, 14);
	pid(&x, 1, 2);
	E(ei_x_encode_ref(&x, &ref));
	E(ei_x_encode_port(&x, &port));
	E(ei_x_encode_double(&x, 2.5));
	E(ei_x_encode_ulonglong(&x, 1ULL << 63));
	E(ei_x_encode_longlong(&x, -5));
	E(ei_x_encode_longlong(&x, 1LL << 40));
	E(ei_x_encode_string(&x, "abc"));
	bin(&x, "bytes");
	E(ei_x_encode_bitstring(&x, "\xff\x80", 0, 9));
	E(ei_x_encode_map_header(&x, 1)); atom(&x, "k"); lng(&x, 1);
	E(ei_x_encode_atom_len_as(&x, "\xc3\xa5ngstr\xc3\xb6m", 10, ERLANG_UTF8, ERLANG_UTF8));
	lst(&x, 2); lng(&x, 1); lng(&x, 2); atom(&x, "tail");
	nil(&x);
	is_int(tc(x.buff, (size_t)x.index), 0, "term_check: pid, ref, port, float, bignum, ints, string, binary, "
	       "bitstring, map, utf8 atom, improper list, nil in one tuple pass");
	int all = 1;
	for (size_t k = 0; k < (size_t)x.index; k++)
		all &= tc(x.buff, k) == -1;
	ok(all, "term_check: every cut of it is refused");
	ei_x_free(&x);
}

/* ==== hostile messages that pass term_check ==== */

/* Runs dec_message on buf in a child process and reports whether it came
 * back without a fault (a read past the end hits the guard page). */
static int survives(const unsigned char *buf, size_t len)
{
	fflush(stdout);
	fflush(stderr);
	pid_t p = fork();
	if (p == 0) {
		if (!freopen("/dev/null", "w", stderr)) /* the fault report is expected noise */
			_exit(4);
		int k = dec_fresh((const char *)buf, len);
		_exit(k == -1 || k == DEC_OTHER ? 0 : 3);
	}
	int st;
	if (p < 0 || waitpid(p, &st, 0) != p)
		return 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void test_hostile_messages(void)
{
	/* a tag atom far longer than an atom may be (ATOM_EXT, 2000 bytes) */
	size_t n = 0;
	unsigned char *m = malloc(2100);
	if (!m)
		abort();
	m[n++] = 131; m[n++] = 'h'; m[n++] = 2; m[n++] = 'd'; m[n++] = 2000 >> 8; m[n++] = 2000 & 0xff;
	memset(m + n, 'a', 2000);
	n += 2000;
	m[n++] = 'a'; m[n++] = 1;
	is_int(tc(m, n), 0, "a 2000-byte atom passes term_check (it is well-formed)");
	ok(survives(m, n), "a message tagged with a 2000-byte atom is refused or ignored, without a fault");

	/* the same in a definition kind and an error reason */
	ei_x_buff x;
	x_new(&x);
	tup(&x, 5); atom(&x, "fp_batch"); lng(&x, 1);
	tup(&x, 10); for (int k = 0; k < 10; k++) lng(&x, k + 1);
	lst(&x, 1); tup(&x, 3);
	static const unsigned char hdr[] = { 'd', 2000 >> 8, 2000 & 0xff };
	raw(&x, hdr, 3); raw(&x, m + 6, 2000);
	lng(&x, 1); lng(&x, 2);
	nil(&x); nil(&x);
	ok(survives((unsigned char *)x.buff, (size_t)x.index), "a definition kind of 2000 bytes: refused without a fault");
	ei_x_free(&x);
	x_new(&x);
	tup(&x, 4); atom(&x, "fp_error"); lng(&x, 1);
	raw(&x, hdr, 3); raw(&x, m + 6, 2000);
	bin(&x, "d");
	ok(survives((unsigned char *)x.buff, (size_t)x.index), "an error reason of 2000 bytes: refused without a fault");
	ei_x_free(&x);
	free(m);

	/* The agent field of fp_started is skipped with ei_skip_term. A
	 * NEW_FUN_EXT there would pass a check of its Size field alone, but ei
	 * walks the fun's fields, past what Size claims: funs are refused. */
	static const unsigned char fun[] = { 131, 'h', 4, 'w', 10, 'f', 'p', '_', 's', 't', 'a', 'r', 't', 'e', 'd',
					      'a', 1, 'p', 0, 0, 0, 4, 'a', 8 };
	is_int(tc(fun, sizeof fun), -1, "{fp_started, 1, <fun of Size 4>, 8} fails term_check");
	ok(survives(fun, sizeof fun), "a fun whose Size lies is refused without a fault");

	/* an export fun (EXPORT_EXT) whose arity is not a small integer */
	static const unsigned char exp[] = { 131, 'h', 4, 'w', 10, 'f', 'p', '_', 's', 't', 'a', 'r', 't', 'e', 'd',
					     'a', 1, 'q', 'w', 1, 'm', 'w', 1, 'f', 'j', 'a', 8 };
	ok(survives(exp, sizeof exp), "an export fun with a [] arity as the agent: refused or ignored, without a fault");
}

/* The bounds of decode.h: a stack longer than DEC_MAX_FRAMES and a text
 * longer than DEC_MAX_TEXT are refused with the reason, right at the
 * bound; one less is read. */
static void test_bounds(void)
{
	struct dec_tables t;
	struct dec_result r;
	ei_x_buff x;
	static long long ids[DEC_MAX_FRAMES + 1];

	for (int extra = 0; extra <= 1; extra++) {
		dec_init(&t);
		batch_begin(&x, 1, 0, 2);
		def_frame(&x, 300, "m", "f", 0, "m.erl", 1);
		for (int k = 0; k <= DEC_MAX_FRAMES; k++)
			ids[k] = 300;
		def_stack_list(&x, 301, ids, DEC_MAX_FRAMES + extra);
		nil(&x); nil(&x);
		int k = decx(&t, &x, &r);
		if (extra) {
			is_int(k, -1, "a stack of %d frames is refused", DEC_MAX_FRAMES + 1);
			ok(strstr(err, "more than") != NULL, "... saying so: %s", err);
		} else {
			is_int(k, DEC_BATCH, "a stack of %d frames is read", DEC_MAX_FRAMES);
		}
		ei_x_free(&x);
		dec_free(&t);
	}

	static char text[DEC_MAX_TEXT + 2];
	memset(text, 'a', DEC_MAX_TEXT + 1);
	for (int extra = 0; extra <= 1; extra++) {
		text[DEC_MAX_TEXT + extra] = '\0';
		dec_init(&t);
		batch_begin(&x, 1, 0, 1);
		def_label(&x, 5, text);
		nil(&x); nil(&x);
		int k = decx(&t, &x, &r);
		if (extra) {
			is_int(k, -1, "a label of %d bytes is refused", DEC_MAX_TEXT + 1);
			ok(strstr(err, "more than") != NULL, "... saying so: %s", err);
		} else {
			is_int(k, DEC_BATCH, "a label of %d bytes is read", DEC_MAX_TEXT);
		}
		ei_x_free(&x);
		dec_free(&t);
		text[DEC_MAX_TEXT + extra] = 'a';
	}
	ok(t.bytes == 0, "freed tables hold nothing");
}

int main(void)
{
	subtest("a batch with every kind of definition", test_reference_batch);
	subtest("fp_started, fp_stopped, fp_error and messages that are not ours", test_other_messages);
	subtest("unknown, redefined and reset ids; ranges", test_ids);
	subtest("stack 0: a sample on a CPU whose stack was not read in time", test_stack_late);
	subtest("wrong arities", test_arities);
	subtest("every truncation", test_truncated);
	subtest("every byte changed", test_mutated);
	subtest("term_check on hostile buffers", test_term_check);
	subtest("hostile messages that pass term_check", test_hostile_messages);
	subtest("bounds: frames per stack, text length", test_bounds);
	return done_testing();
}

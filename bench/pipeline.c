/*
 * pipeline.c - the C pipeline alone: decode -> format -> compress -> write,
 * from a recorded stream of agent batches, with no node.
 *
 *   pipeline [-n BATCHES] [-d DIR]
 *
 * The stream is built here with ei_x_encode in the shapes the agent sends
 * (sampler/flameprof_agent.erl, sampler/decode.c): 100 processes sampled
 * per round at 97 Hz, ~20-frame stacks drawn from a few hundred distinct
 * stacks (each process keeps to a handful of them, as real processes do),
 * definitions sent the first time a frame or stack is used and the process
 * definitions again every 5 s window, 16 metrics per sample that move the
 * way a busy process's do (reductions always, heap size mostly, GC counters
 * and block sizes now and then).
 *
 * Each pass starts from fresh tables and times one stage set on one core
 * (CLOCK_PROCESS_CPUTIME_ID; the program is single-threaded):
 *   decode        dec_message only
 *   format        dec_message + time sort + fmt_event (capture/cap_batch.c, as a
 *                 capture writes a batch)
 *   <codec>       all of it + rot_append, rot_flush every 5 s of samples,
 *                 rot_close: zstd 1/3/19, gzip 6, none, and zstd 3 with the
 *                 report index (what a capture writes by default)
 * One line per pass: "stage codec level samples cpu_s samples_per_s bytes_per_sample".
 */
#include <ei.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../capture/cap_batch.h"
#include "../formatter/formatter.h"
#include "../index/index.h"
#include "../rotate/rotate.h"
#include "../sampler/decode.h"

#define NPROC 100
#define NFRAMES 320
#define NSTACKS 400
#define STACKS_PER_PROC 8
#define PERIOD_US 10309          /* 97 Hz */
#define WINDOW_ROUNDS 485        /* 5 s: proc definitions again, and a flush */

/* ---------------------------------------------------------------- the stream */

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

struct frame { char mod[48], fun[40], file[96]; int arity; unsigned line; int sent; };
struct stack { int n; int frames[24]; int sent; };
struct proc {
	int stacks[STACKS_PER_PROC];
	long long reds, mem, heap_block, heap, old_block, old, stack, recent, vbin, vblock, ovbin, gcs;
	char initial[64], name[40];
};

static struct frame frames[NFRAMES + 1];   /* ids 1..NFRAMES */
static struct stack stacks[NSTACKS];       /* ids NFRAMES+1.. */
static struct proc procs[NPROC];

static const char *mods[] = {
	"my_app_orders", "my_app_cart", "my_app_pricing", "my_app_db", "my_app_cache",
	"my_app_http_handler", "my_app_auth", "my_app_json", "my_app_inventory", "my_app_events",
	"cowboy_handler", "cowboy_stream_h", "ranch_conn", "jsx_decoder", "jsx_encoder",
	"epgsql_sock", "poolboy", "ets", "lists", "maps", "binary", "io_lib_format",
	"unicode", "erl_eval", "gen", "gen_server", "proc_lib", "timer", "crypto", "zlib",
};
static const char *funs[] = {
	"handle_call", "handle_info", "do_request", "lookup", "encode", "decode_value",
	"fold_items", "map_entry", "parse", "validate", "price_line", "apply_rules",
	"loop", "checkout", "reserve", "notify", "fetch", "store", "split", "format",
};
static const long long heap_sizes[] = { 233, 376, 610, 987, 1598, 2586, 4185, 6772, 10958, 17731, 28690, 46422 };

static void make_model(void)
{
	/* a common gen_server root, then application frames */
	const char *root[][2] = { { "proc_lib", "init_p_do_apply" }, { "gen_server", "loop" },
				  { "gen_server", "decode_msg" }, { "gen_server", "handle_msg" },
				  { "gen_server", "try_handle_call" } };
	for (int i = 1; i <= NFRAMES; i++) {
		struct frame *f = &frames[i];
		if (i <= 5) {
			snprintf(f->mod, sizeof f->mod, "%s", root[i - 1][0]);
			snprintf(f->fun, sizeof f->fun, "%s", root[i - 1][1]);
			f->arity = 3 + i;
		} else {
			snprintf(f->mod, sizeof f->mod, "%s", mods[rnd(sizeof mods / sizeof *mods)]);
			snprintf(f->fun, sizeof f->fun, "%s%s", funs[rnd(sizeof funs / sizeof *funs)],
				 rnd(3) ? "" : "_inner");
			f->arity = (int)rnd(5);
		}
		snprintf(f->file, sizeof f->file, "/srv/my_app/lib/%s-1.4.2/src/%s.erl",
			 strncmp(f->mod, "my_app", 6) == 0 ? "my_app" : f->mod, f->mod);
		f->line = 10 + rnd(900);
	}
	for (int s = 0; s < NSTACKS; s++) {
		struct stack *st = &stacks[s];
		st->n = 16 + (int)rnd(9);
		/* leaf first: application frames, then the 5 root frames */
		int app = st->n - 5;
		for (int k = 0; k < app; k++)
			st->frames[k] = 6 + (int)rnd(NFRAMES - 5);
		for (int k = 0; k < 5; k++)
			st->frames[app + k] = 5 - k;
	}
	for (int p = 0; p < NPROC; p++) {
		struct proc *pr = &procs[p];
		for (int k = 0; k < STACKS_PER_PROC; k++)
			pr->stacks[k] = (int)rnd(NSTACKS);
		pr->reds = rnd(1000000);
		pr->heap_block = heap_sizes[3 + rnd(6)];
		pr->heap = pr->heap_block / 2;
		pr->old_block = heap_sizes[rnd(8)];
		pr->old = pr->old_block / 3;
		pr->vblock = 46422;
		pr->gcs = rnd(5000);
		snprintf(pr->initial, sizeof pr->initial, "%s:init/1", mods[p % 10]);
		if (p % 5 == 0)
			snprintf(pr->name, sizeof pr->name, "%s_%d", mods[p % 10], p);
	}
}

static void encode_frame_def(ei_x_buff *x, int id)
{
	const struct frame *f = &frames[id];
	ei_x_encode_tuple_header(x, 7);
	ei_x_encode_atom(x, "frame");
	ei_x_encode_long(x, id);
	ei_x_encode_binary(x, f->mod, (long)strlen(f->mod));
	ei_x_encode_binary(x, f->fun, (long)strlen(f->fun));
	ei_x_encode_long(x, f->arity);
	ei_x_encode_binary(x, f->file, (long)strlen(f->file));
	ei_x_encode_long(x, f->line);
}

/* Counts (and with x, encodes) the definitions a stack needs before use. */
static int encode_stack_defs(ei_x_buff *x, int s)
{
	struct stack *st = &stacks[s];
	int n = 0;
	if (st->sent)
		return 0;
	for (int k = 0; k < st->n; k++)
		if (!frames[st->frames[k]].sent) {
			if (x) {
				encode_frame_def(x, st->frames[k]);
				frames[st->frames[k]].sent = 1;
			}
			n++;
		}
	if (x) {
		ei_x_encode_tuple_header(x, 3);
		ei_x_encode_atom(x, "stack");
		ei_x_encode_long(x, NFRAMES + 1 + s);
		/* as the VM encodes a list of small integers: a string when all < 256 */
		int small = 1;
		for (int k = 0; k < st->n; k++)
			small &= st->frames[k] < 256;
		if (small) {
			char b[24];
			for (int k = 0; k < st->n; k++)
				b[k] = (char)st->frames[k];
			ei_x_encode_string_len(x, b, st->n);
		} else {
			ei_x_encode_list_header(x, st->n);
			for (int k = 0; k < st->n; k++)
				ei_x_encode_long(x, st->frames[k]);
			ei_x_encode_empty_list(x);
		}
		st->sent = 1;
	}
	return n + 1;
}

static void step_metrics(struct proc *p)
{
	p->reds += 1500 + rnd(1000);
	p->heap = rnd((uint32_t)p->heap_block);
	p->stack = 20 + rnd(60);
	if (rnd(4) == 0) {                       /* a minor GC since the last sample */
		p->gcs += 1 + rnd(2);
		p->recent = rnd((uint32_t)p->heap_block / 4 + 1);
		p->old += rnd(50);
		p->vbin = rnd(20000);
	}
	if (p->old > p->old_block) {             /* a major GC */
		p->old = p->old_block / 3;
		p->heap_block = heap_sizes[3 + rnd(6)];
	}
	if (rnd(50) == 0)
		p->ovbin = rnd(100000);
	p->mem = 8 * (p->heap_block + p->old_block) + 1200;
}

/* Encodes one round: {fp_batch, Seq, Info, Defs, Samples}. */
static void encode_batch(ei_x_buff *x, int round, long long t0)
{
	int pick[NPROC], ndefs = 0;
	long long start = t0 + (long long)round * PERIOD_US;
	for (int p = 0; p < NPROC; p++) {
		/* a process stays mostly in its first stacks */
		int k = rnd(2) ? (int)rnd(2) : (int)rnd(STACKS_PER_PROC);
		pick[p] = procs[p].stacks[k];
		ndefs += encode_stack_defs(NULL, pick[p]);
		/* a stack shared by two processes in one round is defined once */
		if (!stacks[pick[p]].sent)
			stacks[pick[p]].sent = -1;
	}
	for (int p = 0; p < NPROC; p++)
		if (stacks[pick[p]].sent == -1)
			stacks[pick[p]].sent = 0;
	/* count again exactly, so the list header is right */
	ndefs = 0;
	{
		int seen[NSTACKS] = { 0 };
		int fseen[NFRAMES + 1] = { 0 };
		for (int p = 0; p < NPROC; p++) {
			struct stack *st = &stacks[pick[p]];
			if (st->sent || seen[pick[p]])
				continue;
			seen[pick[p]] = 1;
			for (int k = 0; k < st->n; k++)
				if (!frames[st->frames[k]].sent && !fseen[st->frames[k]]) {
					fseen[st->frames[k]] = 1;
					ndefs++;
				}
			ndefs++;
		}
	}
	int window = round % WINDOW_ROUNDS == 0;
	if (window)
		ndefs += NPROC;

	ei_x_encode_version(x);
	ei_x_encode_tuple_header(x, 5);
	ei_x_encode_atom(x, "fp_batch");
	ei_x_encode_long(x, round + 1);
	/* {Start, Duration, Lateness, Asked, Answered, LateTotal, MissedTotal, DroppedTotal, Selected,
	 *  SharePermille, CostPpm} */
	ei_x_encode_tuple_header(x, 11);
	ei_x_encode_longlong(x, start);
	ei_x_encode_long(x, 900 + rnd(400));
	ei_x_encode_long(x, rnd(200));
	ei_x_encode_long(x, NPROC);
	ei_x_encode_long(x, NPROC);
	ei_x_encode_long(x, 0);
	ei_x_encode_long(x, 0);
	ei_x_encode_long(x, 0);
	ei_x_encode_long(x, NPROC);
	ei_x_encode_long(x, 1000);
	ei_x_encode_long(x, 3000);

	ei_x_encode_list_header(x, ndefs);
	if (window)
		for (int p = 0; p < NPROC; p++) {
			erlang_pid pid;
			memset(&pid, 0, sizeof pid);
			strcpy(pid.node, "shop@127.0.0.1");
			pid.num = 400 + (unsigned)p * 37;
			pid.serial = 0;
			pid.creation = 1;
			ei_x_encode_tuple_header(x, 5);
			ei_x_encode_atom(x, "proc");
			ei_x_encode_long(x, p + 1);
			ei_x_encode_pid(x, &pid);
			ei_x_encode_binary(x, procs[p].initial, (long)strlen(procs[p].initial));
			ei_x_encode_binary(x, procs[p].name, (long)strlen(procs[p].name));
		}
	for (int p = 0; p < NPROC; p++)
		encode_stack_defs(x, pick[p]);
	if (ndefs)
		ei_x_encode_empty_list(x);

	/* {Time, ProcIndex, Status, StackId, LabelId, {16 metrics}}, newest first as the agent sends */
	ei_x_encode_list_header(x, NPROC);
	for (int p = NPROC - 1; p >= 0; p--) {
		struct proc *pr = &procs[p];
		step_metrics(pr);
		ei_x_encode_tuple_header(x, 6);
		ei_x_encode_longlong(x, start + 300 + p * 9 + rnd(20));
		ei_x_encode_long(x, p + 1);
		ei_x_encode_long(x, rnd(3) ? 0 : 1);
		ei_x_encode_long(x, NFRAMES + 1 + pick[p]);
		ei_x_encode_long(x, 0);
		long long m[16] = { pr->reds, rnd(20) ? 0 : rnd(4), pr->mem, pr->heap_block + pr->old_block,
				    pr->heap_block, pr->old_block, pr->heap, pr->old, pr->stack, 0,
				    pr->recent, pr->vbin, pr->vblock, pr->ovbin, 46422, pr->gcs };
		ei_x_encode_tuple_header(x, 16);
		for (int k = 0; k < 16; k++)
			ei_x_encode_longlong(x, m[k]);
	}
	ei_x_encode_empty_list(x);
}

/* ---------------------------------------------------------------- the passes */

enum stage { DECODE, FORMAT, WRITE };

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int pass(ei_x_buff *batches, int nb, enum stage stage, enum rot_codec codec, int level,
		int index, const char *dir, const char *label)
{
	ix_writer *ixw = index ? ix_writer_create(level) : NULL;
	struct rot_index ix;
	static const enum fmt_category cats[] = { FMT_CAT_INITIAL_CALL, FMT_CAT_NAME, FMT_CAT_SEQ_TRACE };
	struct fmt_options fo = { .categories = cats, .ncategories = 3 };
	struct dec_tables t;
	struct dec_result res;
	char err[256], header[4096];
	fmt_ctx *fmt = fmt_create(&fo);
	struct cap_batch out;
	rot_t *rot = NULL;
	uint64_t samples = 0;

	if (!fmt || cap_batch_init(&out, fmt, NULL) < 0 || (index && !ixw))
		return -1;
	if (ixw)
		ix_writer_hook(ixw, &ix);
	if (stage == WRITE) {
		fmt_header("shop@127.0.0.1", "top=100 every=5.000s hz=97 depth=64 categories=initial_call,name,seq_trace",
			   header, sizeof header);
		struct rot_options ro = { .dir = dir, .node = "shop@127.0.0.1", .codec = codec, .level = level,
					  .rotate_us = 0, .keep = 0, .header = header,
					  .index = ixw ? &ix : NULL };
		if (rot_open(&rot, &ro) < 0) {
			fprintf(stderr, "pipeline: %s\n", rot_error(rot));
			return -1;
		}
		out.rot = rot;
	}
	dec_init(&t);
	double c0 = cpu_now();
	for (int b = 0; b < nb; b++) {
		int k = dec_message(&t, batches[b].buff, (size_t)batches[b].index, &res, err, sizeof err);
		if (k != DEC_BATCH) {
			fprintf(stderr, "pipeline: batch %d: %s\n", b, err);
			return -1;
		}
		size_t n = res.batch.nsamples;
		samples += n;
		if (stage == DECODE)
			continue;
		if (cap_batch_write(&out, res.batch.samples, n) < 0) {
			fprintf(stderr, "pipeline: %s\n", rot ? rot_error(rot) : "out of memory");
			return -1;
		}
		if (stage == WRITE && (b + 1) % WINDOW_ROUNDS == 0 && rot_flush(rot) < 0) {
			fprintf(stderr, "pipeline: %s\n", rot_error(rot));
			return -1;
		}
	}
	double bytes = 0;
	if (stage == WRITE) {
		if (rot_close(rot) < 0) {
			fprintf(stderr, "pipeline: %s\n", rot_error(rot));
			return -1;
		}
		bytes = (double)rot_stats(rot)->bytes_out;
	}
	double secs = cpu_now() - c0;
	if (stage == WRITE)
		printf("%s %s %d %llu %.3f %.0f %.1f\n", "write", label, level, (unsigned long long)samples,
		       secs, samples / secs, bytes / (double)samples);
	else
		printf("%s - 0 %llu %.3f %.0f 0\n", stage == DECODE ? "decode" : "format",
		       (unsigned long long)samples, secs, samples / secs);
	fflush(stdout);
	rot_free(rot);
	ix_writer_free(ixw);
	dec_free(&t);
	fmt_free(fmt);
	cap_batch_free(&out);
	return 0;
}

int main(int argc, char **argv)
{
	int nb = 1000, opt;
	const char *dir = "/tmp";
	const char *only = NULL;
	while ((opt = getopt(argc, argv, "n:d:o:")) != -1) {
		if (opt == 'n')
			nb = atoi(optarg);
		else if (opt == 'd')
			dir = optarg;
		else if (opt == 'o')
			only = optarg;
		else {
			fprintf(stderr, "usage: pipeline [-n BATCHES] [-d DIR] [-o STAGE]\n");
			return 64;
		}
	}
	make_model();
	ei_x_buff *batches = calloc((size_t)nb, sizeof *batches);
	size_t total = 0;
	for (int b = 0; b < nb; b++) {
		ei_x_new(&batches[b]);
		encode_batch(&batches[b], b, INT64_C(1700000000000000));
		total += (size_t)batches[b].index;
	}
	fprintf(stderr, "pipeline: %d batches, %d samples, %.1f bytes/sample on the wire\n",
		nb, nb * NPROC, (double)total / (nb * NPROC));
	struct { const char *stage; enum stage s; enum rot_codec c; int level, index; const char *label; } runs[] = {
		{ "decode", DECODE, ROT_NONE, 0, 0, "-" },
		{ "format", FORMAT, ROT_NONE, 0, 0, "-" },
		{ "none", WRITE, ROT_NONE, 0, 0, "none" },
		{ "gzip", WRITE, ROT_GZIP, 6, 0, "gzip" },
		{ "zstd1", WRITE, ROT_ZSTD, 1, 0, "zstd" },
		{ "zstd3", WRITE, ROT_ZSTD, 3, 0, "zstd" },
		{ "zstdix3", WRITE, ROT_ZSTD, 3, 1, "zstdix" },
		{ "zstd19", WRITE, ROT_ZSTD, 19, 0, "zstd" },
	};
	for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
		if (only && !strstr(only, runs[r].stage))
			continue;
		if (pass(batches, nb, runs[r].s, runs[r].c, runs[r].level, runs[r].index, dir,
			 runs[r].label) < 0)
			return 1;
	}
	for (int b = 0; b < nb; b++)
		ei_x_free(&batches[b]);
	free(batches);
	return 0;
}

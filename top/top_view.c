/*
 * top_view.c - see top_view.h.
 *
 * Two tables of entries (functions by name, processes by pid), each entry
 * with its counts per slot of the ring; one open-addressing index each
 * (common/slots.h). A tick clears the slot that becomes current and
 * drops the entries whose counts are all zero, rebuilding the indexes:
 * a window holds at most what the agent sampled in it, so a rebuild a
 * second is cheap next to the samples themselves.
 */
#include <stdlib.h>
#include <string.h>
#include "top_view.h"
#include "../common/ctl_escape.h"
#include "../common/grow.h"
#include "../common/hash.h"
#include "../common/names.h"
#include "../common/slots.h"

#define NAME_MAX_BYTES 1100 /* module:function/arity, escaped, cut */

struct fun {
	uint32_t hash;
	uint32_t stamp;     /* the sample that last counted it in total */
	char *name;
	uint32_t *count;    /* per slot: self, then total (2 x slots) */
	uint64_t self, total; /* over the window, when sorting */
};

struct pslot {
	uint32_t status[FP_STATUS_COUNT];
	int64_t reds;       /* reductions gained, from sample to sample */
};

struct proc {
	uint32_t hash;
	uint32_t number, serial;
	char *label;        /* registered name, else initial call */
	char *current;      /* the leaf function of its latest sample */
	int64_t memory, queue, last_reds;
	int has_reds;
	struct pslot *slot;
	uint64_t samples, running; /* over the window, when sorting */
	int64_t reds;
};

struct top_view {
	unsigned nslots, cur;
	uint32_t stamp;
	struct fun *fun;
	size_t nfun, fun_cap, nfslots;
	uint32_t *fslots;
	struct proc *proc;
	size_t nproc, proc_cap, npslots;
	uint32_t *pslots;
	uint64_t *oncpu, *all; /* per slot */
	int sort_table, sort_key; /* for the comparators */
	int elixir;               /* names in Elixir's spelling (top_view_set_elixir) */
};

const char *top_sort_name(enum top_table t, int k)
{
	static const char *const f[] = { "self", "total", "function" };
	static const char *const p[] = { "on-CPU share", "reductions/s", "memory", "queue", "name" };
	if (t == TOP_FUNCTIONS)
		return k >= 0 && k < TOP_FUN_SORTS ? f[k] : "?";
	return k >= 0 && k < TOP_PROC_SORTS ? p[k] : "?";
}

top_view *top_view_create(unsigned slots)
{
	if (slots < 1 || slots > 3600)
		return NULL;
	top_view *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->nslots = slots;
	v->oncpu = calloc(slots, sizeof *v->oncpu);
	v->all = calloc(slots, sizeof *v->all);
	if (!v->oncpu || !v->all) {
		top_view_free(v);
		return NULL;
	}
	return v;
}

static void free_fun(struct fun *f)
{
	free(f->name);
	free(f->count);
}

static void free_proc(struct proc *p)
{
	free(p->label);
	free(p->current);
	free(p->slot);
}

void top_view_free(top_view *v)
{
	if (!v)
		return;
	for (size_t k = 0; k < v->nfun; k++)
		free_fun(&v->fun[k]);
	for (size_t k = 0; k < v->nproc; k++)
		free_proc(&v->proc[k]);
	free(v->fun);
	free(v->fslots);
	free(v->proc);
	free(v->pslots);
	free(v->oncpu);
	free(v->all);
	free(v);
}

void top_view_set_elixir(top_view *v, int on)
{
	v->elixir = on;
}

/* buf (a name as the node writes it, escaped) in Elixir's spelling when
 * the view is asked for it: a code name as Elixir's stack traces write it,
 * an alias (a registered name Elixir.Shop.Pricer) without its Elixir. */
static void spell(const top_view *v, char *buf, size_t cap)
{
	char out[2 * NAME_MAX_BYTES + 64];
	size_t len = strlen(buf);
	long n;
	if (!v->elixir)
		return;
	if ((n = fp_names_elixir(0, buf, len, out, sizeof out)) >= 0) {
		size_t k = (size_t)n < cap ? (size_t)n : cap - 1; /* cut as frame_name() cuts */
		memcpy(buf, out, k);
		buf[k] = '\0';
	} else if (len > 7 && memcmp(buf, "Elixir.", 7) == 0) {
		memmove(buf, buf + 7, len - 7 + 1);
	}
}

/* "module:function/arity" of a frame, escaped for a terminal, in the
 * view's spelling. */
static void frame_name(const top_view *v, const struct fp_frame *fr, char *out, size_t cap)
{
	size_t n = fp_ctl_escape(out, cap, fr->module.ptr, fr->module.len);
	if (n + 2 < cap) {
		out[n++] = ':';
		n += fp_ctl_escape(out + n, cap - n, fr->function.ptr, fr->function.len);
	}
	if (n + 12 < cap && fr->arity >= 0)
		snprintf(out + n, cap - n, "/%d", fr->arity);
	spell(v, out, cap);
}

/* The entry of function `name`, added with zero counts if new. @return
 * its index, or -1 when out of memory. */
static long fun_index(top_view *v, const char *name)
{
	size_t len = strlen(name);
	uint32_t h = fp_hash32(1, name, len);
	for (size_t j = v->nfslots ? h & (v->nfslots - 1) : 0; v->nfslots && v->fslots[j];
	     j = (j + 1) & (v->nfslots - 1)) {
		struct fun *f = &v->fun[v->fslots[j] - 1];
		if (f->hash == h && strcmp(f->name, name) == 0)
			return (long)(v->fslots[j] - 1);
	}
	if (fp_slots_room(&v->fslots, &v->nfslots, v->nfun, v->fun, sizeof *v->fun,
			  offsetof(struct fun, hash), 64) < 0 ||
	    fp_grow((void **)&v->fun, &v->fun_cap, v->nfun + 1, sizeof *v->fun, 64) < 0)
		return -1;
	struct fun f = { .hash = h, .stamp = v->stamp - 1 };
	f.name = strdup(name);
	f.count = calloc(2 * (size_t)v->nslots, sizeof *f.count);
	if (!f.name || !f.count) {
		free_fun(&f);
		return -1;
	}
	v->fun[v->nfun] = f;
	fp_slots_put(v->fslots, v->nfslots, h, v->nfun);
	return (long)v->nfun++;
}

static struct proc *proc_of(top_view *v, uint32_t number, uint32_t serial)
{
	uint32_t h = (uint32_t)fp_mix64((uint64_t)number << 32 | serial);
	for (size_t j = v->npslots ? h & (v->npslots - 1) : 0; v->npslots && v->pslots[j];
	     j = (j + 1) & (v->npslots - 1)) {
		struct proc *p = &v->proc[v->pslots[j] - 1];
		if (p->number == number && p->serial == serial)
			return p;
	}
	if (fp_slots_room(&v->pslots, &v->npslots, v->nproc, v->proc, sizeof *v->proc,
			  offsetof(struct proc, hash), 64) < 0 ||
	    fp_grow((void **)&v->proc, &v->proc_cap, v->nproc + 1, sizeof *v->proc, 64) < 0)
		return NULL;
	struct proc p = { .hash = h, .number = number, .serial = serial };
	if (!(p.slot = calloc(v->nslots, sizeof *p.slot)))
		return NULL;
	v->proc[v->nproc] = p;
	fp_slots_put(v->pslots, v->npslots, h, v->nproc);
	return &v->proc[v->nproc++];
}

/* Replaces *dst by an escaped copy of src (kept when equal or out of
 * memory), in the view's spelling when v is given. */
static void set_text(const top_view *v, char **dst, const char *src, size_t len)
{
	char buf[NAME_MAX_BYTES];
	fp_ctl_escape(buf, sizeof buf, src, len);
	if (v)
		spell(v, buf, sizeof buf);
	if (*dst && strcmp(*dst, buf) == 0)
		return;
	char *c = strdup(buf);
	if (c) {
		free(*dst);
		*dst = c;
	}
}

int top_view_add(top_view *v, const struct fp_sample *s)
{
	char name[NAME_MAX_BYTES];
	unsigned cur = v->cur;
	int oncpu = s->status == FP_STATUS_RUNNING || s->status == FP_STATUS_GARBAGE_COLLECTING;
	struct proc *p = proc_of(v, s->pid_number, s->pid_serial);
	if (!p)
		return -1;
	if (s->status < FP_STATUS_COUNT)
		p->slot[cur].status[s->status]++;
	int64_t reds = s->metrics[FP_M_REDUCTIONS];
	if (p->has_reds && reds >= p->last_reds)
		p->slot[cur].reds += reds - p->last_reds;
	p->last_reds = reds;
	p->has_reds = 1;
	p->memory = s->metrics[FP_M_MEMORY];
	p->queue = s->metrics[FP_M_MESSAGE_QUEUE_LEN];
	if (s->name.len)
		set_text(v, &p->label, s->name.ptr, s->name.len);
	else if (s->initial_call.len)
		set_text(v, &p->label, s->initial_call.ptr, s->initial_call.len);
	if (s->nframes) {
		frame_name(v, s->frames[0], name, sizeof name);
		set_text(NULL, &p->current, name, strlen(name)); /* spelled already */
	}
	v->all[cur]++;
	if (!oncpu)
		return 0;
	v->oncpu[cur]++;
	v->stamp++;
	/* a sample on a CPU whose stack was not read is still CPU: a row of its
	 * own, so that the rows add up to the on-CPU samples */
	for (size_t k = 0; k < (s->nframes ? s->nframes : 1); k++) {
		if (s->nframes)
			frame_name(v, s->frames[k], name, sizeof name);
		else
			snprintf(name, sizeof name, "%s", s->stack_late ? "[ran_to_receive]" : "[no_stack]");
		long i = fun_index(v, name);
		if (i < 0)
			return -1;
		struct fun *f = &v->fun[i];
		if (k == 0)
			f->count[cur]++;
		if (f->stamp != v->stamp) {
			f->stamp = v->stamp;
			f->count[v->nslots + cur]++;
		}
	}
	return 0;
}

static int fun_live(const top_view *v, const struct fun *f)
{
	for (unsigned k = 0; k < v->nslots; k++)
		if (f->count[v->nslots + k])
			return 1;
	return 0;
}

static int proc_live(const top_view *v, const struct proc *p)
{
	for (unsigned k = 0; k < v->nslots; k++)
		for (int s = 0; s < FP_STATUS_COUNT; s++)
			if (p->slot[k].status[s])
				return 1;
	return 0;
}

void top_view_tick(top_view *v)
{
	unsigned next = (v->cur + 1) % v->nslots;
	v->cur = next;
	v->oncpu[next] = v->all[next] = 0;
	size_t n = 0;
	for (size_t k = 0; k < v->nfun; k++) {
		struct fun *f = &v->fun[k];
		f->count[next] = f->count[v->nslots + next] = 0;
		if (fun_live(v, f))
			v->fun[n++] = *f;
		else
			free_fun(f);
	}
	v->nfun = n;
	if (v->fslots) /* none before the first function */
		memset(v->fslots, 0, v->nfslots * sizeof *v->fslots);
	for (size_t k = 0; k < n; k++)
		fp_slots_put(v->fslots, v->nfslots, v->fun[k].hash, k);
	n = 0;
	for (size_t k = 0; k < v->nproc; k++) {
		struct proc *p = &v->proc[k];
		memset(&p->slot[next], 0, sizeof p->slot[next]);
		if (proc_live(v, p))
			v->proc[n++] = *p;
		else
			free_proc(p);
	}
	v->nproc = n;
	if (v->pslots)
		memset(v->pslots, 0, v->npslots * sizeof *v->pslots);
	for (size_t k = 0; k < n; k++)
		fp_slots_put(v->pslots, v->npslots, v->proc[k].hash, k);
}

uint64_t top_view_oncpu(const top_view *v)
{
	uint64_t n = 0;
	for (unsigned k = 0; k < v->nslots; k++)
		n += v->oncpu[k];
	return n;
}

uint64_t top_view_samples(const top_view *v)
{
	uint64_t n = 0;
	for (unsigned k = 0; k < v->nslots; k++)
		n += v->all[k];
	return n;
}

/* qsort has no context: the key is read through this (one view sorts at a time). */
static const top_view *sorting;

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

static int cmp_fun(const void *pa, const void *pb)
{
	const struct fun *a = *(const struct fun *const *)pa, *b = *(const struct fun *const *)pb;
	int c = 0;
	if (sorting->sort_key == TOP_SORT_SELF)
		c = cmp_u64(a->self, b->self) ? cmp_u64(a->self, b->self) : cmp_u64(a->total, b->total);
	else if (sorting->sort_key == TOP_SORT_TOTAL)
		c = cmp_u64(a->total, b->total) ? cmp_u64(a->total, b->total) : cmp_u64(a->self, b->self);
	return c ? c : strcmp(a->name, b->name);
}

static int cmp_proc(const void *pa, const void *pb)
{
	const struct proc *a = *(const struct proc *const *)pa, *b = *(const struct proc *const *)pb;
	int c = 0;
	switch (sorting->sort_key) {
	case TOP_SORT_REDS:
		c = cmp_u64((uint64_t)a->reds, (uint64_t)b->reds);
		break;
	case TOP_SORT_RUN: /* the running share: a * b.samples against b * a.samples, */
		c = cmp_u64(a->running * b->samples, b->running * a->samples);
		if (c == 0) /* ... then the work done: of two always running, the busier */
			c = cmp_u64((uint64_t)a->reds, (uint64_t)b->reds);
		break;
	case TOP_SORT_MEMORY:
		c = cmp_u64((uint64_t)a->memory, (uint64_t)b->memory);
		break;
	case TOP_SORT_QUEUE:
		c = cmp_u64((uint64_t)a->queue, (uint64_t)b->queue);
		break;
	default:
		c = strcmp(a->label ? a->label : "", b->label ? b->label : "");
	}
	if (c == 0)
		c = a->number != b->number ? (a->number < b->number ? -1 : 1) : (a->serial > b->serial) - (a->serial < b->serial);
	return c;
}

/* 1234 -> "1234", 12345 -> "12.3K", and so on (at most 6 characters). */
static void human(char *out, size_t cap, double x)
{
	static const char units[] = " KMGTP";
	int u = 0;
	while (x >= 9999.5 && u < 5) {
		x /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(out, cap, "%.0f", x);
	else
		snprintf(out, cap, x < 99.95 ? "%.1f%c" : "%.0f%c", x, units[u]);
}

/* Cuts line to width columns (UTF-8 characters), ending with '+' when cut,
 * writes it and eol. @return 0, or -1 when the stream failed. */
static int put_line(FILE *f, char *line, unsigned width, const char *eol)
{
	unsigned cols = 0;
	size_t k = 0;
	for (; line[k]; k++)
		if (((unsigned char)line[k] & 0xc0) != 0x80 && ++cols > width)
			break;
	if (line[k]) {
		/* back to the start of the last whole character, then the mark */
		size_t j = k;
		do
			j--;
		while (j > 0 && ((unsigned char)line[j] & 0xc0) == 0x80);
		line[j] = '+';
		line[j + 1] = '\0';
	}
	/* trailing blanks add nothing */
	size_t n = strlen(line);
	while (n && line[n - 1] == ' ')
		line[--n] = '\0';
	return fputs(line, f) < 0 || fputs(eol, f) < 0 ? -1 : 0;
}

static int write_functions(top_view *v, FILE *f, unsigned rows, unsigned width, const char *eol)
{
	char line[2 * NAME_MAX_BYTES];
	uint64_t oncpu = top_view_oncpu(v);
	struct fun **order = malloc((v->nfun ? v->nfun : 1) * sizeof *order);
	if (!order)
		return -1;
	for (size_t k = 0; k < v->nfun; k++) {
		struct fun *fn = &v->fun[k];
		fn->self = fn->total = 0;
		for (unsigned s = 0; s < v->nslots; s++) {
			fn->self += fn->count[s];
			fn->total += fn->count[v->nslots + s];
		}
		order[k] = fn;
	}
	sorting = v;
	qsort(order, v->nfun, sizeof *order, cmp_fun);
	int lines = 0, bad = 0;
	snprintf(line, sizeof line, "  %%SELF %%TOTAL  FUNCTION");
	bad |= put_line(f, line, width, eol);
	lines++;
	for (size_t k = 0; k < v->nfun && k < rows && !bad; k++) {
		const struct fun *fn = order[k];
		snprintf(line, sizeof line, "%6.1f %6.1f  %s", oncpu ? 100.0 * (double)fn->self / (double)oncpu : 0,
			 oncpu ? 100.0 * (double)fn->total / (double)oncpu : 0, fn->name);
		bad |= put_line(f, line, width, eol);
		lines++;
	}
	free(order);
	return bad ? -1 : lines;
}

static int write_processes(top_view *v, FILE *f, unsigned rows, unsigned width, double seconds,
			   const char *eol)
{
	char line[3 * NAME_MAX_BYTES], pid[40], reds[16], mem[16], queue[16];
	struct proc **order = malloc((v->nproc ? v->nproc : 1) * sizeof *order);
	if (!order)
		return -1;
	for (size_t k = 0; k < v->nproc; k++) {
		struct proc *p = &v->proc[k];
		p->samples = p->running = 0;
		p->reds = 0;
		for (unsigned s = 0; s < v->nslots; s++) {
			for (int st = 0; st < FP_STATUS_COUNT; st++)
				p->samples += p->slot[s].status[st];
			p->running += p->slot[s].status[FP_STATUS_RUNNING] +
				      p->slot[s].status[FP_STATUS_GARBAGE_COLLECTING];
			p->reds += p->slot[s].reds;
		}
		order[k] = p;
	}
	sorting = v;
	qsort(order, v->nproc, sizeof *order, cmp_proc);
	/* the name and the current function share what the numbers leave */
	unsigned rest = width > 43 ? width - 43 : 0, wname = rest / 2 > 12 ? rest / 2 : 12;
	int lines = 0, bad = 0;
	snprintf(line, sizeof line, "%-11s %4s %4s %6s %6s %5s %-*s %s", "PID", "RUN%", "RNQ%", "REDS/S",
		 "MEMORY", "MSGQ", (int)wname, "NAME OR INITIAL CALL", "CURRENT FUNCTION");
	bad |= put_line(f, line, width, eol);
	lines++;
	for (size_t k = 0; k < v->nproc && k < rows && !bad; k++) {
		const struct proc *p = order[k];
		uint32_t runnable = 0;
		for (unsigned s = 0; s < v->nslots; s++)
			runnable += p->slot[s].status[FP_STATUS_RUNNABLE];
		snprintf(pid, sizeof pid, "<0.%u.%u>", p->number, p->serial);
		human(reds, sizeof reds, seconds > 0 ? (double)p->reds / seconds : 0);
		human(mem, sizeof mem, (double)p->memory);
		human(queue, sizeof queue, (double)p->queue);
		/* the name column is cut by hand so that the current function keeps its place */
		char label[64];
		const char *l = p->label ? p->label : "";
		size_t cut = 0, cols = 0;
		while (l[cut] && cut + 4 < sizeof label) {
			if (((unsigned char)l[cut] & 0xc0) != 0x80 && ++cols > wname)
				break;
			cut++;
		}
		memcpy(label, l, cut);
		label[cut] = '\0';
		if (l[cut] && cut) {
			size_t j = cut;
			do
				j--;
			while (j > 0 && ((unsigned char)label[j] & 0xc0) == 0x80);
			label[j] = '+';
			label[j + 1] = '\0';
			cols = wname;
		} else {
			cols = 0;
			for (size_t j = 0; label[j]; j++)
				cols += ((unsigned char)label[j] & 0xc0) != 0x80;
		}
		snprintf(line, sizeof line, "%-11s %4.0f %4.0f %6s %6s %5s %s%*s %s", pid,
			 p->samples ? 100.0 * (double)p->running / (double)p->samples : 0,
			 p->samples ? 100.0 * runnable / (double)p->samples : 0, reds, mem, queue, label,
			 (int)(wname > cols ? wname - cols : 0), "", p->current ? p->current : "");
		bad |= put_line(f, line, width, eol);
		lines++;
	}
	free(order);
	return bad ? -1 : lines;
}

int top_view_write(top_view *v, FILE *f, enum top_table t, int sort, unsigned rows, unsigned width,
		   double seconds, const char *eol)
{
	if (width < 40)
		width = 40;
	v->sort_table = t;
	v->sort_key = sort;
	return t == TOP_FUNCTIONS ? write_functions(v, f, rows, width, eol)
				  : write_processes(v, f, rows, width, seconds, eol);
}

/*
 * fuzz_format.c - libFuzzer target over the formatter: fmt_escape and
 * fmt_unescape (the escape must round-trip exactly), and fmt_event on
 * struct fp_sample records built from the fuzz bytes (any atom text, any
 * number). Checks the snprintf contract, that no line of an event holds a
 * control character, '+', "->" or ';' in a symbol, and that each event ends
 * with a blank line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../formatter/formatter.h"

struct src {
	const uint8_t *p;
	size_t n;
};

static uint64_t take_u(struct src *s, int bytes)
{
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++) {
		v = v << 8 | (s->n ? *s->p : 0);
		if (s->n) {
			s->p++;
			s->n--;
		}
	}
	return v;
}

/* A string: one length byte, then up to that many bytes (fewer at the end). */
static struct fp_str take_str(struct src *s)
{
	size_t want = (size_t)take_u(s, 1);
	if (want == 255)
		want = (size_t)take_u(s, 2) % 1100; /* past the agent's 1024-byte cut */
	struct fp_str r = { (const char *)s->p, want < s->n ? want : s->n };
	s->p += r.len;
	s->n -= r.len;
	return r;
}

static void check_escape(const char *in, size_t len)
{
	size_t n = fmt_escape(in, len, NULL, 0);
	char *esc = malloc(n + 1), *back = malloc(len + 1);
	if (!esc || !back)
		goto out;
	if (fmt_escape(in, len, esc, n + 1) != n)
		abort();
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)esc[i];
		if (c < 0x21 || c == 0x7f || c == '+' || c == ';' || c == '(' || c == ')' ||
		    (c == '>' && i > 0 && esc[i - 1] == '-'))
			abort();
	}
	long m = fmt_unescape(esc, n, back, len + 1);
	if (m != (long)len || memcmp(back, in, len) != 0)
		abort(); /* the escape is reversible */
out:
	free(esc);
	free(back);
}

static void check_event(const char *ev, size_t n)
{
	if (n < 2 || ev[n - 1] != '\n' || ev[n - 2] != '\n')
		abort();
	for (size_t i = 0; i + 1 < n; i++) {
		unsigned char c = (unsigned char)ev[i];
		if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
			abort();
		if (c == '\n' && ev[i + 1] == '\n' && i + 2 != n)
			abort(); /* a blank line only at the end */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct src s = { data, size };
	enum fmt_category cats[FMT_CAT_COUNT];
	size_t ncats = 0;
	unsigned mask = (unsigned)take_u(&s, 1);
	for (int c = 0; c < FMT_CAT_COUNT; c++)
		if (mask & (1u << c))
			cats[ncats++] = (enum fmt_category)((c + (mask >> 5)) % FMT_CAT_COUNT);
	/* categories must be distinct: drop repeats */
	size_t m = 0;
	for (size_t i = 0; i < ncats; i++) {
		int dup = 0;
		for (size_t j = 0; j < m; j++)
			dup |= cats[j] == cats[i];
		if (!dup)
			cats[m++] = cats[i];
	}
	/* short names, so fuzzed frames match them now and then */
	static const struct fp_tier_pattern tiers[] = { { "t", { "m", "_", -1 } }, { "u", { "a", "b", 1 } } };
	struct fmt_options fo = { .categories = cats, .ncategories = m, .tiers = tiers, .ntiers = 2 };
	fmt_ctx *fmt = fmt_create(&fo);
	if (!fmt)
		return 0;

	struct fp_frame frames[70];
	const struct fp_frame *fptr[70];
	char small[64];
	for (int round = 0; round < 4 && s.n > 0; round++) {
		struct fp_sample smp;
		memset(&smp, 0, sizeof smp);
		smp.time_us = (int64_t)take_u(&s, 8);
		smp.pid_number = (uint32_t)take_u(&s, 1) % 4;
		smp.pid_serial = (uint32_t)take_u(&s, 1) % 2;
		smp.status = (enum fp_status)(take_u(&s, 1) % FP_STATUS_COUNT);
		smp.nframes = (size_t)take_u(&s, 1) % 70;
		for (size_t k = 0; k < smp.nframes; k++) {
			frames[k].module = take_str(&s);
			frames[k].function = take_str(&s);
			frames[k].arity = (int)(take_u(&s, 1)) - 1;
			frames[k].file = take_str(&s);
			frames[k].line = (unsigned)take_u(&s, 4);
			fptr[k] = &frames[k];
			check_escape(frames[k].function.ptr ? frames[k].function.ptr : "", frames[k].function.len);
		}
		smp.frames = fptr;
		smp.initial_call = take_str(&s);
		smp.name = take_str(&s);
		smp.seq_label = take_str(&s);
		for (int k = 0; k < FP_METRIC_COUNT; k++)
			smp.metrics[k] = (int64_t)take_u(&s, k < 4 ? 8 : 2);
		int64_t t;
		size_t n = fmt_event(fmt, &smp, small, sizeof small, &t);
		if (n >= sizeof small) {
			char *big = malloc(n + 1);
			if (!big)
				break;
			if (fmt_event(fmt, &smp, big, n + 1, &t) != n)
				abort();
			check_event(big, n);
			free(big);
		} else {
			check_event(small, n);
		}
	}
	check_escape((const char *)data, size);
	fmt_free(fmt);
	return 0;
}

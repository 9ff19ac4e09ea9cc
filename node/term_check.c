/*
 * term_check.c - a bounded walk over one external-format term.
 *
 * ei's decoders are not told how long the buffer is, so a truncated or
 * hostile message would make them read past its end. Every message is
 * walked here first, with the length in hand and a nesting limit; only a
 * message that passes is given to ei.
 */
#include <stdint.h>
#include <string.h>
#include "term_check.h"

#define MAX_NESTING 64

struct walk {
	const unsigned char *p;
	size_t left;
};

static int take(struct walk *w, size_t n)
{
	if (w->left < n)
		return -1;
	w->p += n;
	w->left -= n;
	return 0;
}

static uint32_t be(const unsigned char *p, int n)
{
	uint32_t v = 0;
	for (int i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

/* Reads an n-byte big-endian count without consuming anything else. */
static int count(struct walk *w, int n, uint32_t *out)
{
	if (w->left < (size_t)n)
		return -1;
	*out = be(w->p, n);
	return take(w, (size_t)n);
}

static int term(struct walk *w, int depth);

static int atom(struct walk *w)
{
	uint32_t n;
	if (take(w, 1) < 0)
		return -1;
	switch (w->p[-1]) {
	case 'd': case 'v':
		return count(w, 2, &n) < 0 ? -1 : take(w, n);
	case 's': case 'w':
		return count(w, 1, &n) < 0 ? -1 : take(w, n);
	default:
		return -1;
	}
}

static int elements(struct walk *w, uint32_t n, int depth)
{
	for (uint32_t i = 0; i < n; i++)
		if (term(w, depth) < 0)
			return -1;
	return 0;
}

static int term(struct walk *w, int depth)
{
	uint32_t n;
	if (depth > MAX_NESTING || w->left == 0)
		return -1;
	switch (w->p[0]) {
	case 'a': return take(w, 2);
	case 'b': return take(w, 5);
	case 'c': return take(w, 32);
	case 'F': return take(w, 9);
	case 'j': return take(w, 1);
	case 'd': case 'v': case 's': case 'w': return atom(w);
	case 'h':
		take(w, 1);
		return count(w, 1, &n) < 0 ? -1 : elements(w, n, depth + 1);
	case 'i':
		take(w, 1);
		return count(w, 4, &n) < 0 ? -1 : elements(w, n, depth + 1);
	case 't':
		take(w, 1);
		if (count(w, 4, &n) < 0 || n > UINT32_MAX / 2)
			return -1;
		return elements(w, 2 * n, depth + 1);
	case 'k':
		take(w, 1);
		return count(w, 2, &n) < 0 ? -1 : take(w, n);
	case 'l':
		take(w, 1);
		if (count(w, 4, &n) < 0 || elements(w, n, depth + 1) < 0)
			return -1;
		return term(w, depth + 1); /* the tail */
	case 'm':
		take(w, 1);
		return count(w, 4, &n) < 0 ? -1 : take(w, n);
	case 'M':
		take(w, 1);
		return count(w, 4, &n) < 0 || take(w, 1) < 0 ? -1 : take(w, n);
	case 'n':
		take(w, 1);
		return count(w, 1, &n) < 0 ? -1 : take(w, (size_t)n + 1);
	case 'o':
		take(w, 1);
		return count(w, 4, &n) < 0 ? -1 : take(w, (size_t)n + 1);
	case 'g':
		take(w, 1);
		return atom(w) < 0 ? -1 : take(w, 9);
	case 'X':
		take(w, 1);
		return atom(w) < 0 ? -1 : take(w, 12);
	case 'f':
		take(w, 1);
		return atom(w) < 0 ? -1 : take(w, 5);
	case 'Y':
		take(w, 1);
		return atom(w) < 0 ? -1 : take(w, 8);
	case 'x':
		take(w, 1);
		return atom(w) < 0 ? -1 : take(w, 12);
	case 'e':
		take(w, 1);
		return atom(w) < 0 ? -1 : take(w, 5);
	case 'r':
	case 'Z': {
		int newer = w->p[0] == 'Z';
		take(w, 1);
		if (count(w, 2, &n) < 0 || n > 5 || atom(w) < 0)
			return -1;
		return take(w, (newer ? 4 : 1) + 4 * (size_t)n);
	}
	case 'q':
		take(w, 1);
		if (atom(w) < 0 || atom(w) < 0)
			return -1;
		return term(w, depth + 1);
	default:
		/* Funs (NEW_FUN_EXT, FUN_EXT) are refused: the agent never sends
		 * one, and a fun's declared size cannot be trusted to match the
		 * fields ei would then decode. */
		return -1;
	}
}

long node_term_size(const char *buf, size_t len)
{
	struct walk w = { (const unsigned char *)buf, len };
	if (take(&w, 1) < 0 || w.p[-1] != 131)
		return -1;
	if (term(&w, 0) < 0)
		return -1;
	return (long)(len - w.left);
}

int node_term_check(const char *buf, size_t len)
{
	return node_term_size(buf, len) == (long)len ? 0 : -1;
}

/* near.c - see near.h. */
#include <string.h>
#include "near.h"

unsigned fp_near_distance(const char *a, size_t na, const char *b, size_t nb)
{
	/* three rows of the table: the one before last, the last, this one */
	unsigned rows[3][FP_NEAR_MAX + 1];
	if (na > FP_NEAR_MAX || nb > FP_NEAR_MAX)
		return FP_NEAR_MAX + 1;
	unsigned *pp = rows[0], *p = rows[1], *c = rows[2];
	for (size_t j = 0; j <= nb; j++)
		p[j] = (unsigned)j;
	for (size_t i = 1; i <= na; i++) {
		c[0] = (unsigned)i;
		for (size_t j = 1; j <= nb; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned v = p[j] + 1;                  /* a deletion */
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;               /* an insertion */
			if (p[j - 1] + cost < v)
				v = p[j - 1] + cost;            /* a change, or none */
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;              /* two neighbours swapped */
			c[j] = v;
		}
		unsigned *t = pp;
		pp = p;
		p = c;
		c = t;
	}
	return p[nb];
}

int fp_near(const char *typed, size_t n, const char *known, size_t m)
{
	if (n >= 3 && n < m && memcmp(typed, known, n) == 0)
		return 0;
	unsigned limit = n <= 4 ? 1 : n <= 9 ? 2 : 3;
	unsigned d = fp_near_distance(typed, n, known, m);
	return d <= limit && d < m ? (int)d : -1;
}

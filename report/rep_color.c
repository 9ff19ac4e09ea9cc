/*
 * rep_color.c - HSL picked by hashing, written as hex.
 */
#include "rep_color.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint32_t fnv(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static void hsl(double h, double s, double l, char out[8])
{
	double c = (1 - (2 * l - 1 < 0 ? 1 - 2 * l : 2 * l - 1)) * s;
	double hp = h / 60, x, r = 0, g = 0, b = 0, m;
	double f = hp - 2 * (int)(hp / 2);
	x = c * (1 - (f - 1 < 0 ? 1 - f : f - 1));
	if (hp < 1) { r = c; g = x; }
	else if (hp < 2) { r = x; g = c; }
	else if (hp < 3) { g = c; b = x; }
	else if (hp < 4) { g = x; b = c; }
	else if (hp < 5) { r = x; b = c; }
	else { r = c; b = x; }
	m = l - c / 2;
	snprintf(out, 8, "#%02x%02x%02x", (unsigned)((r + m) * 255 + .5) & 0xff,
		 (unsigned)((g + m) * 255 + .5) & 0xff, (unsigned)((b + m) * 255 + .5) & 0xff);
}

void rep_color(enum rep_kind kind, const char *name, size_t len, char out[8])
{
	const char *colon = memchr(name, ':', len);
	size_t ml = colon ? (size_t)(colon - name) : len;
	uint32_t hm = fnv(name, ml), hf = fnv(name, len);
	switch (kind) {
	case REP_K_ROOT:
		snprintf(out, 8, "#c8c8c8");
		return;
	case REP_K_NEGATIVE:
		snprintf(out, 8, "#b58ee8");
		return;
	case REP_K_STATUS:
		hsl(95 + hm % 40, .45, .62, out);
		return;
	case REP_K_CATEGORY:
		hsl(185 + hm % 45, .55, .62 + (hf % 10) / 100.0, out);
		return;
	case REP_K_CODE:
		break;
	}
	hsl(hm % 55, .80, .55 + (hf % 12) / 100.0, out);
}

void rep_heat_color(int level, int levels, int negative, char out[8])
{
	double t = levels > 1 ? (double)(level - 1) / (levels - 1) : 1;
	/* light to dark: lightness 92% -> 30% */
	hsl(negative ? 215 : 8 + 30 * (1 - t), negative ? .7 : .9, .92 - .62 * t, out);
}

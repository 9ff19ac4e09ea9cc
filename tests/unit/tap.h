/*
 * tap.h - the smallest Test Anything Protocol emitter (as picohttpparser's
 * test.c does): ok(), is_int(), is_str(), subtest(), done_testing().
 * Output goes to stdout for prove(1); diagnostics to stderr as '# ' lines.
 */
#ifndef FP_TAP_H
#define FP_TAP_H

#include <stdio.h>
#include <stdarg.h>
#include <string.h>

static int tap_count, tap_failed;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) do { long long g_ = (long long)(got), w_ = (long long)(want); \
	if (!ok(g_ == w_, __VA_ARGS__)) fprintf(stderr, "#   got %lld, want %lld\n", g_, w_); } while (0)
#define is_str(got, want, ...) do { const char *g_ = (got), *w_ = (want); \
	if (!ok(g_ && w_ && strcmp(g_, w_) == 0, __VA_ARGS__)) \
		fprintf(stderr, "#   got  '%s'\n#   want '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); } while (0)

__attribute__((format(printf, 4, 5)))
static int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	tap_count++;
	printf("%sok %d - ", pass ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass) {
		tap_failed++;
		fprintf(stderr, "#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return pass;
}

static inline void subtest(const char *name, void (*fn)(void))
{
	printf("# %s\n", name);
	fn();
}

/* dir/name, in one of 8 buffers used in turn (a call may hold a few). */
static inline char *tap_path(const char *dir, const char *name)
{
	static char p[8][256];
	static int k;
	k = (k + 1) % 8;
	snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
	return p[k];
}

static inline int done_testing(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif

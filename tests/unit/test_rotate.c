/*
 * test_rotate.c - rotate/: codecs, crash safety, rotation, the 2-record
 * hold, retention, directory and disk-full errors, file names.
 *
 * Every test works in a fresh scratch directory under $TMPDIR and removes
 * it. Files are read back with the real tools (zstd -dc, gzip -dc), since
 * what matters is what they and Flamescope can read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <regex.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>

#include "tap.h"
#include "../../rotate/rotate.h"
#include "../../rotate/naming.h"
#include "../../rotate/outfile.h"

/* 2023-11-14T22:13:20.123456Z */
#define T0 INT64_C(1700000000123456)
#define SEC INT64_C(1000000)
#define HEADER "# flameprof test header\n"

/* ==== helpers ==== */

struct sb { char *p; size_t len, cap; };

static void sb_add(struct sb *s, const void *p, size_t n)
{
	if (s->len + n + 1 > s->cap) {
		s->cap = (s->len + n + 1) * 2;
		s->p = realloc(s->p, s->cap);
		if (!s->p)
			abort();
	}
	memcpy(s->p + s->len, p, n);
	s->len += n;
	s->p[s->len] = '\0';
}

static void sb_adds(struct sb *s, const char *str) { sb_add(s, str, strlen(str)); }
static void sb_free(struct sb *s) { free(s->p); memset(s, 0, sizeof *s); }

static const char *rec(int i)
{
	static char buf[128];
	snprintf(buf, sizeof buf, "running 1/%d [000] %d.000001: 1 cpu-clock:\n\tabc m:f/%d (m.erl:1)\n\n",
		 i, 1000 + i, i);
	return buf;
}

static int append(rot_t *r, int i, int64_t t)
{
	const char *s = rec(i);
	return rot_append(r, s, strlen(s), t);
}

static char scratch_dir[4096];

static const char *scratch(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(scratch_dir, sizeof scratch_dir, "%s/rot-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch_dir))
		abort();
	return scratch_dir;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	chmod(p, 0700);
	return remove(p);
}

static void rmtree(const char *dir)
{
	chmod(dir, 0700);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Runs cmd, collects stdout; returns the exit status (-1 if it died). */
static int run(const char *cmd, struct sb *out)
{
	char buf[65536];
	size_t n;
	FILE *f = popen(cmd, "r");
	if (!f)
		return -1;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sb_add(out, buf, n);
	int st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Decompresses path with the real tool for codec; exit status back. */
static int decode(const char *path, enum rot_codec codec, struct sb *out)
{
	char cmd[8192];
	const char *tool = codec == ROT_ZSTD ? "zstd -qdc" : codec == ROT_GZIP ? "gzip -dc" : "cat";
	snprintf(cmd, sizeof cmd, "%s -- '%s' 2>/dev/null", tool, path);
	return run(cmd, out);
}

/* Sorted names in dir (dot-files included), NULL-terminated; free with names_free. */
static char **names(const char *dir, int *count)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort), k = 0;
	char **v = calloc((size_t)(n > 0 ? n : 0) + 1, sizeof *v);
	for (int i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, ".."))
			v[k++] = strdup(ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	*count = k;
	return v;
}

static void names_free(char **v)
{
	for (int i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

static int count_dotfiles(const char *dir)
{
	int n, dots = 0;
	char **v = names(dir, &n);
	for (int i = 0; i < n; i++)
		dots += v[i][0] == '.';
	names_free(v);
	return dots;
}

static char *path_of(const char *dir, const char *name)
{
	static char buf[8192];
	snprintf(buf, sizeof buf, "%s/%s", dir, name);
	return buf;
}

static void touch(const char *dir, const char *name, size_t size)
{
	int fd = open(path_of(dir, name), O_WRONLY | O_CREAT | O_TRUNC, 0640);
	for (size_t i = 0; i < size; i++)
		if (write(fd, "x", 1) != 1)
			abort();
	close(fd);
}

static int exists(const char *dir, const char *name)
{
	struct stat st;
	return stat(path_of(dir, name), &st) == 0;
}

static void base_opts(struct rot_options *o, const char *dir, enum rot_codec c)
{
	memset(o, 0, sizeof *o);
	o->dir = dir;
	o->node = "app@db1";
	o->codec = c;
	o->header = HEADER;
}

static const char *codec_name(enum rot_codec c)
{
	return c == ROT_ZSTD ? "zstd" : c == ROT_GZIP ? "gzip" : "none";
}

/* ==== each codec: records, flushes, close ==== */

static void codec_roundtrip(enum rot_codec c)
{
	const char *dir = scratch();
	const char *ext = c == ROT_ZSTD ? ".zst" : c == ROT_GZIP ? ".gz" : "";
	struct rot_options o;
	struct sb want = { 0 }, got = { 0 };
	char name[256], dot[300];
	struct stat st;
	rot_t *r;

	base_opts(&o, dir, c);
	is_int(rot_open(&r, &o), ROT_OK, "%s: open", codec_name(c));
	is_str(rot_current_path(r), "", "%s: no path before the first record", codec_name(c));
	sb_adds(&want, HEADER);
	for (int i = 0; i < 5; i++) {
		is_int(append(r, i, T0 + i * 1000), ROT_OK, "%s: append %d", codec_name(c), i);
		sb_adds(&want, rec(i));
		if (i == 1)
			is_int(rot_flush(r), ROT_OK, "%s: flush", codec_name(c));
	}
	is_int(rot_flush(r), ROT_OK, "%s: second flush", codec_name(c));
	is_int(rot_flush(r), ROT_OK, "%s: flush with nothing pending", codec_name(c));
	snprintf(name, sizeof name, "flameprof_app@db1_20231114T221320.123Z.perf%s", ext);
	snprintf(dot, sizeof dot, "%s/.%s", dir, name);
	is_str(rot_current_path(r), dot, "%s: writing under the dot-name", codec_name(c));
	ok(exists(dir, dot + strlen(dir) + 1), "%s: the dot-file exists while writing", codec_name(c));
	is_int(rot_close(r), ROT_OK, "%s: close (%s)", codec_name(c), rot_error(r));

	ok(exists(dir, name), "%s: final name %s", codec_name(c), name);
	is_str(rot_current_path(r), path_of(dir, name), "%s: current path is the final path",
	       codec_name(c));
	is_int(count_dotfiles(dir), 0, "%s: no dot-file left", codec_name(c));
	ok(stat(path_of(dir, name), &st) == 0 && (st.st_mode & 07777) == 0640,
	   "%s: mode 0640 (got %o)", codec_name(c), (unsigned)(st.st_mode & 07777));
	is_int(decode(path_of(dir, name), c, &got), 0, "%s: the real tool decodes it", codec_name(c));
	ok(got.len == want.len && memcmp(got.p, want.p, want.len) == 0,
	   "%s: exactly header + records (%zu bytes, want %zu)", codec_name(c), got.len, want.len);
	is_int(rot_stats(r)->records, 5, "%s: stats.records", codec_name(c));
	is_int(rot_stats(r)->bytes_in, want.len, "%s: stats.bytes_in", codec_name(c));
	is_int(rot_stats(r)->bytes_out, st.st_size, "%s: stats.bytes_out is the file size", codec_name(c));
	is_int(rot_stats(r)->files, 1, "%s: stats.files", codec_name(c));
	rot_free(r);
	sb_free(&want);
	sb_free(&got);
	rmtree(dir);
}

static void test_codecs(void)
{
	codec_roundtrip(ROT_ZSTD);
	codec_roundtrip(ROT_GZIP);
	codec_roundtrip(ROT_NONE);
}

static void test_codec_parse(void)
{
	enum rot_codec c = ROT_NONE;
	ok(rot_codec_parse("zstd", &c) == 0 && c == ROT_ZSTD, "parse zstd");
	ok(rot_codec_parse("gzip", &c) == 0 && c == ROT_GZIP, "parse gzip");
	ok(rot_codec_parse("none", &c) == 0 && c == ROT_NONE, "parse none");
	is_int(rot_codec_parse("xz", &c), -1, "parse xz fails");
	is_int(rot_codec_parse("", &c), -1, "parse empty fails");
}

static void test_empty_run(void)
{
	const char *dir = scratch();
	struct rot_options o;
	rot_t *r;
	int n;

	base_opts(&o, dir, ROT_ZSTD);
	is_int(rot_open(&r, &o), ROT_OK, "empty run: open");
	is_int(rot_flush(r), ROT_OK, "empty run: flush");
	is_int(rot_close(r), ROT_OK, "empty run: close");
	names_free(names(dir, &n));
	is_int(n, 0, "empty run: no file at all (not even the probe)");
	is_int(rot_stats(r)->files, 0, "empty run: stats.files 0");
	rot_free(r);
	rmtree(dir);
}

/* An idle run (rot_close_idle): one file, named for the time given,
 * holding the header and the note, no record; with a record appended it
 * is a plain close (no note). */
static void test_idle_record(void)
{
	const char *dir = scratch();
	const char *note = "# idle: profiled for 3.0 s, no event: no process selected\n";
	struct rot_options o;
	struct sb got = { 0 }, want = { 0 };
	rot_t *r;
	int n;
	char **v;

	base_opts(&o, dir, ROT_ZSTD);
	is_int(rot_open(&r, &o), ROT_OK, "idle: open");
	is_int(rot_close_idle(r, note, 1700000000123000LL), ROT_OK, "idle: close with the note");
	v = names(dir, &n);
	is_int(n, 1, "idle: one file");
	is_str(n ? v[0] : "", "flameprof_app@db1_20231114T221320.123Z.perf.zst", "idle: named for the time given");
	if (n)
		decode(path_of(dir, v[0]), ROT_ZSTD, &got);
	sb_adds(&want, HEADER);
	sb_adds(&want, note);
	ok(got.len == want.len && memcmp(got.p, want.p, got.len) == 0, "idle: the header, then the note, nothing else");
	is_int(rot_stats(r)->records, 0, "idle: no record");
	names_free(v);
	rot_free(r);
	rmtree(dir);
	sb_free(&got);
	sb_free(&want);

	dir = scratch();
	base_opts(&o, dir, ROT_NONE);
	is_int(rot_open(&r, &o), ROT_OK, "one record: open");
	is_int(append(r, 1, 1700000001000000LL), ROT_OK, "one record appended");
	is_int(rot_close_idle(r, note, 1700000000123000LL), ROT_OK, "rot_close_idle with a record: a plain close");
	v = names(dir, &n);
	is_int(n, 1, "one file");
	if (n)
		decode(path_of(dir, v[0]), ROT_NONE, &got);
	ok(got.len && !memmem(got.p, got.len, "# idle:", 7), "no note in it");
	names_free(v);
	rot_free(r);
	rmtree(dir);
	sb_free(&got);
}

/* ==== crash: the dot-file decodes up to the last flush ==== */

/* Child: 2 flushes, then unflushed appends (one large enough that zstd
 * emits blocks internally), then dies without closing. */
static void crash_child(const char *dir, enum rot_codec c, int how)
{
	struct rot_options o;
	rot_t *r;
	static char big[300000];

	base_opts(&o, dir, c);
	if (rot_open(&r, &o))
		_exit(2);
	for (int i = 0; i < 6; i++) {
		if (append(r, i, T0 + i))
			_exit(3);
		if ((i == 2 || i == 5) && rot_flush(r))
			_exit(4);
	}
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (char)('a' + (i * 7919 % 26));
	if (rot_append(r, big, sizeof big, T0 + 10) || append(r, 7, T0 + 11))
		_exit(5);
	if (how == 0)
		raise(SIGKILL);
	_exit(0);
}

static void crash_case(enum rot_codec c, int how)
{
	const char *dir = scratch();
	struct sb want = { 0 }, got = { 0 };
	int st, n, dots = 0;
	char **v, dot[300] = "";
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		crash_child(dir, c, how);
	waitpid(pid, &st, 0);
	if (how == 0)
		ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "crash %s: child killed", codec_name(c));
	else
		ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "crash %s: child _exit(0)", codec_name(c));
	v = names(dir, &n);
	for (int i = 0; i < n; i++)
		if (v[i][0] == '.') {
			dots++;
			snprintf(dot, sizeof dot, "%s", v[i]);
		}
	is_int(n, 1, "crash %s: one file", codec_name(c));
	is_int(dots, 1, "crash %s: it is the dot-file", codec_name(c));
	names_free(v);
	sb_adds(&want, HEADER);
	for (int i = 0; i < 6; i++)
		sb_adds(&want, rec(i));
	is_int(decode(path_of(dir, dot), c, &got), 0, "crash %s (%s): the real tool decodes it, exit 0",
	       codec_name(c), how ? "_exit" : "SIGKILL");
	ok(got.len == want.len && memcmp(got.p, want.p, want.len) == 0,
	   "crash %s: exactly everything up to the last flush (%zu bytes, want %zu)",
	   codec_name(c), got.len, want.len);
	sb_free(&want);
	sb_free(&got);
	rmtree(dir);
}

static void test_crash(void)
{
	crash_case(ROT_ZSTD, 0);
	crash_case(ROT_ZSTD, 1);
	crash_case(ROT_GZIP, 0);
	crash_case(ROT_GZIP, 1);
	crash_case(ROT_NONE, 0);
}

/* rot_free() on an open file (an error path) leaves the dot-file as data. */
static void test_free_keeps_dotfile(void)
{
	const char *dir = scratch();
	struct rot_options o;
	struct sb got = { 0 };
	char path[8192];
	rot_t *r;

	base_opts(&o, dir, ROT_GZIP);
	o.header = NULL;
	rot_open(&r, &o);
	append(r, 1, T0);
	rot_flush(r);
	append(r, 2, T0 + 1);
	snprintf(path, sizeof path, "%s", rot_current_path(r));
	rot_free(r);
	is_int(decode(path, ROT_GZIP, &got), 0, "free: the dot-file stays and decodes");
	is_str(got.p, rec(1), "free: with what was flushed (no header when none given)");
	is_int(count_dotfiles(dir), 1, "free: nothing renamed");
	sb_free(&got);
	rmtree(dir);
}

/* ==== rotation ==== */

/* The closed files of dir in name order, decoded, into bodies[]. */
static int decode_all(const char *dir, enum rot_codec c, struct sb *bodies, int max, char ***namesp)
{
	int n;
	char **v = names(dir, &n);
	for (int i = 0; i < n && i < max; i++)
		if (decode(path_of(dir, v[i]), c, &bodies[i]) != 0)
			ok(0, "decode %s", v[i]);
	*namesp = v;
	return n;
}

static void expect_body(struct sb *got, int from, int to, const char *what)
{
	struct sb want = { 0 };
	sb_adds(&want, HEADER);
	for (int i = from; i <= to; i++)
		sb_adds(&want, rec(i));
	ok(got->len == want.len && memcmp(got->p, want.p, want.len) == 0,
	   "%s: header + records %d..%d", what, from, to);
	sb_free(&want);
}

static void test_rotate_time(void)
{
	const char *dir = scratch();
	struct rot_options o;
	struct sb b[4] = { { 0 } };
	char **v;
	int n;
	rot_t *r;
	const int64_t at[] = { 0, 1, 5, 10, 11, 12 };

	base_opts(&o, dir, ROT_ZSTD);
	o.rotate_us = 10 * SEC;
	rot_open(&r, &o);
	for (int i = 0; i < 4; i++)
		is_int(append(r, i, T0 + at[i] * SEC), ROT_OK, "time: append %d", i);
	/* record 3 is due and held: still one file, being written */
	names_free(names(dir, &n));
	is_int(n, 1, "time: record 3 held, one file so far");
	is_int(count_dotfiles(dir), 1, "time: and it is still open");
	is_int(append(r, 4, T0 + at[4] * SEC), ROT_OK, "time: append 4 cuts");
	ok(exists(dir, "flameprof_app@db1_20231114T221320.123Z.perf.zst"),
	   "time: the first file is closed and renamed at the cut");
	ok(exists(dir, ".flameprof_app@db1_20231114T221330.123Z.perf.zst"),
	   "time: the second is open under its dot-name, named by its first record");
	is_int(append(r, 5, T0 + at[5] * SEC), ROT_OK, "time: append 5");
	is_int(rot_close(r), ROT_OK, "time: close");
	n = decode_all(dir, ROT_ZSTD, b, 4, &v);
	is_int(n, 2, "time: two files");
	if (n == 2) {
		is_str(v[0], "flameprof_app@db1_20231114T221320.123Z.perf.zst", "time: first name");
		is_str(v[1], "flameprof_app@db1_20231114T221330.123Z.perf.zst", "time: second name");
		expect_body(&b[0], 0, 2, "time: first file");
		expect_body(&b[1], 3, 5, "time: second file, header again");
	}
	is_int(rot_stats(r)->files, 2, "time: stats.files");
	is_int(rot_stats(r)->records, 6, "time: stats.records");
	names_free(v);
	for (int i = 0; i < 4; i++)
		sb_free(&b[i]);
	rot_free(r);
	rmtree(dir);
}

/* rot_set_header: the files begun afterwards carry the new header, the
 * current one keeps its own. */
static void test_set_header(void)
{
	const char *dir = scratch();
	struct rot_options o;
	struct sb b[4] = { { 0 } }, want = { 0 };
	char **v;
	int n;
	rot_t *r;

	base_opts(&o, dir, ROT_ZSTD);
	o.rotate_us = 10 * SEC;
	rot_open(&r, &o);
	for (int i = 0; i < 2; i++)
		is_int(append(r, i, T0 + i * SEC), ROT_OK, "set_header: append %d", i);
	is_int(rot_set_header(r, "# second header\n"), ROT_OK, "set_header: replaced");
	for (int i = 2; i < 4; i++)
		is_int(append(r, i, T0 + (i + 9) * SEC), ROT_OK, "set_header: append %d", i);
	is_int(rot_close(r), ROT_OK, "set_header: close");
	n = decode_all(dir, ROT_ZSTD, b, 4, &v);
	is_int(n, 2, "set_header: two files");
	if (n == 2) {
		expect_body(&b[0], 0, 1, "set_header: the first file keeps the first header");
		sb_adds(&want, "# second header\n");
		sb_adds(&want, rec(2));
		sb_adds(&want, rec(3));
		ok(b[1].len == want.len && memcmp(b[1].p, want.p, want.len) == 0,
		   "set_header: the next file begins with the new one");
	}
	names_free(v);
	sb_free(&want);
	for (int i = 0; i < 4; i++)
		sb_free(&b[i]);
	rot_free(r);
	rmtree(dir);
}

/* Rotation due, then close with one held record: it lands in the old file. */
static void test_hold_rule(void)
{
	const char *dir = scratch();
	struct rot_options o;
	struct sb b[2] = { { 0 } };
	char **v;
	int n;
	rot_t *r;

	base_opts(&o, dir, ROT_GZIP);
	o.rotate_us = 10 * SEC;
	rot_open(&r, &o);
	append(r, 0, T0);
	append(r, 1, T0 + 1 * SEC);
	is_int(rot_flush(r), ROT_OK, "hold: flush");
	append(r, 2, T0 + 20 * SEC);          /* due: held */
	is_int(rot_flush(r), ROT_OK, "hold: flush with a held record");
	is_int(rot_close(r), ROT_OK, "hold: close");
	n = decode_all(dir, ROT_GZIP, b, 2, &v);
	is_int(n, 1, "hold: one file");
	if (n == 1)
		expect_body(&b[0], 0, 2, "hold: the held record is in the old file");
	names_free(v);
	sb_free(&b[0]);
	sb_free(&b[1]);
	rot_free(r);
	rmtree(dir);

	/* Due after the first record already: not before the file has 2. */
	dir = scratch();
	memset(b, 0, sizeof b);
	base_opts(&o, dir, ROT_GZIP);
	o.rotate_us = 10 * SEC;
	rot_open(&r, &o);
	append(r, 0, T0);
	append(r, 1, T0 + 20 * SEC);
	append(r, 2, T0 + 21 * SEC);
	rot_close(r);
	n = decode_all(dir, ROT_GZIP, b, 2, &v);
	is_int(n, 1, "hold: a file with one record is never rotated away");
	if (n == 1)
		expect_body(&b[0], 0, 2, "hold: all three in it");
	names_free(v);
	sb_free(&b[0]);
	rot_free(r);
	rmtree(dir);

	/* A run of one record still writes its file. */
	dir = scratch();
	memset(b, 0, sizeof b);
	base_opts(&o, dir, ROT_ZSTD);
	o.rotate_us = 1;
	rot_open(&r, &o);
	append(r, 0, T0);
	rot_close(r);
	n = decode_all(dir, ROT_ZSTD, b, 2, &v);
	is_int(n, 1, "hold: a one-record run has its file");
	if (n == 1)
		expect_body(&b[0], 0, 0, "hold: with that record");
	names_free(v);
	sb_free(&b[0]);
	rot_free(r);
	rmtree(dir);
}

static void test_rotate_size(void)
{
	const char *dir = scratch();
	struct rot_options o;
	struct sb b[8] = { { 0 } };
	char **v;
	int n;
	rot_t *r;
	size_t rl = strlen(rec(0));

	/* Plain text, flush after each record: size known exactly. */
	base_opts(&o, dir, ROT_NONE);
	o.rotate_bytes = strlen(HEADER) + 2 * rl + 1;
	rot_open(&r, &o);
	for (int i = 0; i < 10; i++) {
		append(r, i, T0 + i * 1000);
		rot_flush(r);
	}
	is_int(rot_close(r), ROT_OK, "size: close");
	n = decode_all(dir, ROT_NONE, b, 8, &v);
	is_int(n, 3, "size: three files");
	if (n == 3) {
		expect_body(&b[0], 0, 2, "size: first file");
		expect_body(&b[1], 3, 5, "size: second file");
		expect_body(&b[2], 6, 9, "size: third file takes the last held record");
		is_str(v[0], "flameprof_app@db1_20231114T221320.123Z.perf", "size: name 1");
		is_str(v[1], "flameprof_app@db1_20231114T221320.126Z.perf", "size: name 2");
		is_str(v[2], "flameprof_app@db1_20231114T221320.129Z.perf", "size: name 3");
	}
	names_free(v);
	for (int i = 0; i < 8; i++)
		sb_free(&b[i]);
	rot_free(r);
	rmtree(dir);

	/* Same again, all records in one millisecond: -1, -2 suffixes. */
	dir = scratch();
	o.dir = dir;
	rot_open(&r, &o);
	for (int i = 0; i < 10; i++) {
		append(r, i, T0);
		rot_flush(r);
	}
	rot_close(r);
	v = names(dir, &n);
	is_int(n, 3, "same ms: three files");
	if (n == 3) {
		is_str(v[0], "flameprof_app@db1_20231114T221320.123Z-1.perf", "same ms: -1");
		is_str(v[1], "flameprof_app@db1_20231114T221320.123Z-2.perf", "same ms: -2");
		is_str(v[2], "flameprof_app@db1_20231114T221320.123Z.perf", "same ms: first, no suffix");
	}
	names_free(v);
	rot_free(r);
	rmtree(dir);

	/* zstd: every file decodes, none under 2 records, together all records. */
	dir = scratch();
	base_opts(&o, dir, ROT_ZSTD);
	o.header = NULL;
	o.rotate_bytes = 400;
	rot_open(&r, &o);
	for (int i = 0; i < 60; i++) {
		append(r, i, T0 + i * SEC);
		if (i % 3 == 2)
			rot_flush(r);
	}
	rot_close(r);
	{
		struct sb all = { 0 }, want = { 0 }, one = { 0 };
		int bad = 0, few = 0;
		v = names(dir, &n);
		for (int i = 0; i < n; i++) {
			one.len = 0;
			bad += decode(path_of(dir, v[i]), ROT_ZSTD, &one) != 0;
			few += one.len < 2 * rl;
			if (one.len)
				sb_add(&all, one.p, one.len);
		}
		for (int i = 0; i < 60; i++)
			sb_adds(&want, rec(i));
		ok(n >= 3, "size zstd: rotated (%d files)", n);
		is_int(bad, 0, "size zstd: every file decodes");
		is_int(few, 0, "size zstd: no file under 2 records");
		ok(all.len == want.len && memcmp(all.p, want.p, all.len) == 0,
		   "size zstd: the files in name order hold every record in order");
		is_int(rot_stats(r)->files, n, "size zstd: stats.files");
		names_free(v);
		sb_free(&all);
		sb_free(&want);
		sb_free(&one);
	}
	rot_free(r);
	rmtree(dir);
}

/* A name taken while the file was being written is not overwritten. */
static void test_name_taken_at_close(void)
{
	const char *dir = scratch();
	const char *name = "flameprof_app@db1_20231114T221320.123Z.perf.zst";
	struct rot_options o;
	struct sb got = { 0 };
	struct stat st;
	rot_t *r;

	base_opts(&o, dir, ROT_ZSTD);
	rot_open(&r, &o);
	append(r, 0, T0);
	append(r, 1, T0 + 1);
	touch(dir, name, 3);
	is_int(rot_close(r), ROT_OK, "taken: close");
	ok(stat(path_of(dir, name), &st) == 0 && st.st_size == 3, "taken: the other file is intact");
	is_int(decode(path_of(dir, "flameprof_app@db1_20231114T221320.123Z-1.perf.zst"), ROT_ZSTD, &got),
	       0, "taken: ours went to -1");
	is_str(rot_current_path(r), path_of(dir, "flameprof_app@db1_20231114T221320.123Z-1.perf.zst"),
	       "taken: and the current path says so");
	is_int(count_dotfiles(dir), 0, "taken: no dot-file left");
	sb_free(&got);
	rot_free(r);
	rmtree(dir);
}

/* ==== retention ==== */

static void test_retention_keep(void)
{
	const char *dir = scratch();
	struct rot_options o;
	rot_t *r;
	char **v;
	int n;
	static const char *const kept_foreign[] = {
		"flameprof_a_b_20200101T000000.000Z.perf.zst",   /* node "a_b" */
		"flameprof_other@h_20200101T000000.000Z.perf.zst",
		".flameprof_a_20190101T000000.000Z.perf.zst",    /* a crashed run's data */
		"flameprof_a_20190101T000000.000Z.perf.zst.bak",
		"flameprof_a_notatime.perf",
		"notes.txt",
	};

	for (size_t i = 0; i < sizeof kept_foreign / sizeof *kept_foreign; i++)
		touch(dir, kept_foreign[i], 10);
	touch(dir, "flameprof_a_20200101T000000.000Z.perf.zst", 10);
	touch(dir, "flameprof_a_20200102T000000.000Z.perf.gz", 10);
	base_opts(&o, dir, ROT_ZSTD);
	o.node = "a";
	o.rotate_us = 10 * SEC;
	o.keep = 2;
	rot_open(&r, &o);
	for (int i = 0; i < 9; i++)
		append(r, i, T0 + i * 5 * SEC);  /* files start at +0, +10 s, +20 s, +30 s */
	is_int(rot_close(r), ROT_OK, "keep: close");
	for (size_t i = 0; i < sizeof kept_foreign / sizeof *kept_foreign; i++)
		ok(exists(dir, kept_foreign[i]), "keep: left alone: %s", kept_foreign[i]);
	ok(!exists(dir, "flameprof_a_20200101T000000.000Z.perf.zst"), "keep: oldest zst removed");
	ok(!exists(dir, "flameprof_a_20200102T000000.000Z.perf.gz"), "keep: old gz removed too");
	ok(!exists(dir, "flameprof_a_20231114T221320.123Z.perf.zst"), "keep: first of this run removed");
	ok(!exists(dir, "flameprof_a_20231114T221330.123Z.perf.zst"), "keep: second removed");
	ok(exists(dir, "flameprof_a_20231114T221340.123Z.perf.zst"), "keep: third kept");
	ok(exists(dir, "flameprof_a_20231114T221350.123Z.perf.zst"), "keep: newest kept");
	is_int(rot_stats(r)->files, 4, "keep: stats.files");
	is_int(rot_stats(r)->deleted, 4, "keep: stats.deleted");
	v = names(dir, &n);
	is_int(n, 8, "keep: nothing else changed");
	names_free(v);
	rot_free(r);
	rmtree(dir);
}

static void test_retention_bytes(void)
{
	const char *dir = scratch();
	struct rot_options o;
	rot_t *r;
	size_t fsize = strlen(HEADER) + 2 * strlen(rec(0));

	touch(dir, "flameprof_app@db1_20200101T000000.000Z.perf", 100);
	touch(dir, "flameprof_app@db1_20200102T000000.000Z.perf", 100);
	touch(dir, "flameprof_app@db1_20200103T000000.000Z.perf", 100);
	touch(dir, "flameprof_app@db1_20200103T000000.000Z-1.perf", 100);
	touch(dir, "flameprof_other_20200101T000000.000Z.perf", 1000);
	base_opts(&o, dir, ROT_NONE);
	o.keep_bytes = fsize + 250;
	rot_open(&r, &o);
	append(r, 0, T0);
	append(r, 1, T0 + 1);
	is_int(rot_close(r), ROT_OK, "keep_bytes: close");
	ok(exists(dir, "flameprof_app@db1_20231114T221320.123Z.perf"), "keep_bytes: new file kept");
	ok(exists(dir, "flameprof_app@db1_20200103T000000.000Z-1.perf"),
	   "keep_bytes: -1 is newer than its base name");
	ok(exists(dir, "flameprof_app@db1_20200103T000000.000Z.perf"), "keep_bytes: next kept");
	ok(!exists(dir, "flameprof_app@db1_20200102T000000.000Z.perf"), "keep_bytes: over the limit");
	ok(!exists(dir, "flameprof_app@db1_20200101T000000.000Z.perf"), "keep_bytes: older too");
	ok(exists(dir, "flameprof_other_20200101T000000.000Z.perf"), "keep_bytes: other node untouched");
	is_int(rot_stats(r)->deleted, 2, "keep_bytes: stats.deleted");
	rot_free(r);
	rmtree(dir);

	/* The newest file is never removed, even when alone over the limit. */
	dir = scratch();
	base_opts(&o, dir, ROT_NONE);
	o.keep_bytes = 1;
	rot_open(&r, &o);
	append(r, 0, T0);
	append(r, 1, T0 + 1);
	rot_close(r);
	ok(exists(dir, "flameprof_app@db1_20231114T221320.123Z.perf"),
	   "keep_bytes: the file just written survives a tiny limit");
	rot_free(r);
	rmtree(dir);
}

/* Files that are not ours: dated in the future, another user's, a link.
 * None is deleted, none counts as newer than the real files. */
static void test_retention_not_ours(void)
{
	const char *dir = scratch();
	struct rot_options o;
	rot_t *r;
	char target[8192];
	static const char *future = "flameprof_a_29990101T000000.000Z.perf.zst";
	static const char *theirs = "flameprof_a_20200103T000000.000Z.perf.zst";
	static const char *link = "flameprof_a_20200104T000000.000Z.perf.zst";

	touch(dir, future, 10);
	touch(dir, "flameprof_a_20200101T000000.000Z.perf.zst", 10);
	touch(dir, theirs, 10);
	snprintf(target, sizeof target, "%s/%s", dir, "flameprof_a_20200101T000000.000Z.perf.zst");
	if (symlink(target, path_of(dir, link)) != 0)
		abort();
	if (geteuid() == 0 && chown(path_of(dir, theirs), 65534, 65534) != 0)
		abort();
	base_opts(&o, dir, ROT_ZSTD);
	o.node = "a";
	o.rotate_us = 10 * SEC;
	o.keep = 2;
	rot_open(&r, &o);
	for (int i = 0; i < 7; i++)
		append(r, i, T0 + i * 5 * SEC); /* files at +0, +10 s, +20 s */
	is_int(rot_close(r), ROT_OK, "not ours: close");
	ok(exists(dir, future), "not ours: a file dated 2999 is left alone");
	ok(exists(dir, "flameprof_a_20231114T221340.123Z.perf.zst") &&
	   exists(dir, "flameprof_a_20231114T221330.123Z.perf.zst"),
	   "not ours: the two newest real files are kept (the future one did not count)");
	ok(!exists(dir, "flameprof_a_20231114T221320.123Z.perf.zst"), "not ours: the third is removed");
	ok(!exists(dir, "flameprof_a_20200101T000000.000Z.perf.zst"), "not ours: an old one of ours is removed");
	{
		struct stat st;
		ok(lstat(path_of(dir, link), &st) == 0 && S_ISLNK(st.st_mode), "not ours: a symlink is left alone");
	}
	if (geteuid() == 0)
		ok(exists(dir, theirs), "not ours: another user's file is left alone");
	else
		ok(!exists(dir, theirs), "not ours: (not root: that file was ours, and removed)");
	rot_free(r);
	rmtree(dir);
}

/* Directories others can write in, or that are not ours, are refused. */
static void test_dir_owner(void)
{
	const char *dir = scratch();
	struct rot_options o;
	char sub[8192], ln[8192];
	rot_t *r;

	base_opts(&o, dir, ROT_ZSTD);
	snprintf(sub, sizeof sub, "%s/open", dir);
	mkdir(sub, 0777);
	chmod(sub, 0777);
	o.dir = sub;
	is_int(rot_open(&r, &o), ROT_ERR_DIR, "dir: world-writable, not sticky: refused");
	ok(strstr(rot_error(r), "other users can write in it (mode 0777, not sticky: chmod go-w it)") != NULL,
	   "dir: detail: %s", rot_error(r));
	rot_free(r);
	chmod(sub, 01777);
	is_int(rot_open(&r, &o), ROT_OK, "dir: world-writable and sticky (like /tmp): accepted");
	rot_free(r);
	if (geteuid() == 0) {
		snprintf(sub, sizeof sub, "%s/theirs", dir);
		mkdir(sub, 0755);
		if (chown(sub, 65534, 65534) != 0)
			abort();
		o.dir = sub;
		is_int(rot_open(&r, &o), ROT_ERR_DIR, "dir: another user's: refused");
		ok(strstr(rot_error(r), "belongs to another user (uid 65534)") != NULL, "dir: detail: %s",
		   rot_error(r));
		rot_free(r);
		snprintf(sub, sizeof sub, "%s/mine", dir);
		mkdir(sub, 0750);
		snprintf(ln, sizeof ln, "%s/link", dir);
		if (symlink(sub, ln) != 0 || lchown(ln, 65534, 65534) != 0)
			abort();
		o.dir = ln;
		is_int(rot_open(&r, &o), ROT_ERR_DIR, "dir: a symlink of another user: refused");
		ok(strstr(rot_error(r), "symbolic link of another user") != NULL, "dir: detail: %s", rot_error(r));
		rot_free(r);
		if (lchown(ln, 0, 0) != 0)
			abort();
		is_int(rot_open(&r, &o), ROT_OK, "dir: a symlink of our own: followed");
		rot_free(r);
	}
	rmtree(dir);
}

/* ==== output files written aside (outfile.h) ==== */

static char *slurp(const char *p)
{
	static char buf[256];
	FILE *f = fopen(p, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

static void test_outfile(void)
{
	char dir[4096], target[8192], victim[8192], err[1200];
	struct rot_out o;
	struct stat st;
	char **v;
	int n;
	FILE *f;
	mode_t old = umask(022);
	snprintf(dir, sizeof dir, "%s", scratch());
	snprintf(target, sizeof target, "%s/out.json", dir);
	snprintf(victim, sizeof victim, "%s/victim", dir);
	touch(dir, "out.json", 3);
	is_int(rot_out_open(&o, target, err, sizeof err), 0, "outfile: open");
	fputs("new", o.f);
	is_str(slurp(target), "xxx", "outfile: while written, the target is as it was");
	rot_out_abort(&o);
	is_str(slurp(target), "xxx", "outfile: aborted: the target is as it was");
	v = names(dir, &n);
	is_int(n, 1, "outfile: aborted: no temporary file is left");
	names_free(v);
	rot_out_open(&o, target, err, sizeof err);
	fputs("new", o.f);
	is_int(rot_out_commit(&o, err, sizeof err), 0, "outfile: commit");
	is_str(slurp(target), "new", "outfile: committed: the target is the new file");
	ok(stat(target, &st) == 0 && (st.st_mode & 07777) == 0640, "outfile: mode 0640");
	/* a symlink at the target: replaced, its target untouched */
	touch(dir, "victim", 4);
	unlink(target);
	if (symlink(victim, target) != 0)
		abort();
	rot_out_open(&o, target, err, sizeof err);
	fputs("mine", o.f);
	is_int(rot_out_commit(&o, err, sizeof err), 0, "outfile: commit over a symlink");
	is_str(slurp(victim), "xxxx", "outfile: the link's target is untouched");
	ok(lstat(target, &st) == 0 && S_ISREG(st.st_mode), "outfile: the link was replaced by the file");
	/* a directory at the target: the rename fails, nothing is left */
	snprintf(target, sizeof target, "%s/adir", dir);
	mkdir(target, 0755);
	rot_out_open(&o, target, err, sizeof err);
	is_int(rot_out_commit(&o, err, sizeof err), -1, "outfile: a directory at the target: refused");
	ok(strstr(err, "cannot replace") != NULL, "outfile: detail: %s", err);
	v = names(dir, &n);
	is_int(n, 3, "outfile: no temporary file is left (out.json, victim, adir)");
	names_free(v);
	snprintf(target, sizeof target, "%s/no/such/x", dir);
	is_int(rot_out_open(&o, target, err, sizeof err), -1, "outfile: a missing directory: refused");
	ok(strstr(err, "cannot create") && strstr(err, "No such file"), "outfile: detail: %s", err);
	is_int(rot_out_open(&o, "-", err, sizeof err), 0, "outfile: '-' is standard output");
	ok(o.f == stdout && o.path == NULL, "outfile: streamed, nothing aside");
	rot_out_abort(&o);
	/* a character device at the target is written in place: renamed over
	 * (as root), /dev/null would become a regular file. Checked before any
	 * commit, so that a regression cannot do it here. */
	is_int(rot_out_open(&o, "/dev/null", err, sizeof err), 0, "outfile: /dev/null opens");
	ok(o.tmp == NULL, "outfile: /dev/null: nothing written aside (%s)", o.tmp ? o.tmp : "none");
	if (o.tmp) {
		rot_out_abort(&o);
	} else {
		fputs("gone", o.f);
		is_int(rot_out_commit(&o, err, sizeof err), 0, "outfile: /dev/null: committed");
	}
	ok(lstat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode), "outfile: /dev/null is still the device");
	/* appended files: a link and a FIFO are refused, a new one is 0640 */
	snprintf(target, sizeof target, "%s/link.jsonl", dir);
	if (symlink(victim, target) != 0)
		abort();
	ok(rot_append_open(target, err, sizeof err) == NULL && strstr(err, "symbolic link"),
	   "append: a symlink is refused: %s", err);
	is_str(slurp(victim), "xxxx", "append: its target is untouched");
	snprintf(target, sizeof target, "%s/fifo", dir);
	if (mkfifo(target, 0644) != 0)
		abort();
	ok(rot_append_open(target, err, sizeof err) == NULL && strstr(err, "not a regular file"),
	   "append: a FIFO is refused at once: %s", err);
	snprintf(target, sizeof target, "%s/new.jsonl", dir);
	f = rot_append_open(target, err, sizeof err);
	ok(f != NULL, "append: a new file");
	if (f) {
		fputs("a\n", f);
		fclose(f);
	}
	f = rot_append_open(target, err, sizeof err);
	if (f) {
		fputs("b\n", f);
		fclose(f);
	}
	is_str(slurp(target), "a\nb\n", "append: appended to");
	ok(stat(target, &st) == 0 && (st.st_mode & 07777) == 0640, "append: mode 0640");
	/* a second hard link, and (as root) another user's file: refused,
	 * nothing written */
	char other[8192];
	snprintf(other, sizeof other, "%s/other-name.jsonl", dir);
	if (link(target, other) != 0)
		abort();
	ok(rot_append_open(target, err, sizeof err) == NULL && strstr(err, "2 hard links"),
	   "append: a file with a second hard link is refused: %s", err);
	unlink(other);
	if (geteuid() == 0) {
		if (chown(target, 65534, 65534) != 0 || chmod(target, 0666) != 0)
			abort();
		ok(rot_append_open(target, err, sizeof err) == NULL &&
			   strstr(err, "belongs to another user (uid 65534)"),
		   "append: another user's file is refused: %s", err);
		is_str(slurp(target), "a\nb\n", "append: and left as it was");
	} /* else: another user's file needs root to make; requests_accounting.t too */
	umask(old);
	rmtree(dir);
}

/* ==== the directory ==== */

static void test_dir_errors(void)
{
	const char *dir = scratch();
	struct rot_options o;
	char sub[8192];
	struct stat st;
	rot_t *r;
	mode_t old;

	/* missing parent: not created recursively */
	snprintf(sub, sizeof sub, "%s/missing/out", dir);
	base_opts(&o, sub, ROT_ZSTD);
	is_int(rot_open(&r, &o), ROT_ERR_DIR, "dir: missing parent");
	ok(strstr(rot_error(r), sub) && strstr(rot_error(r), "No such file"),
	   "dir: detail names it: %s", rot_error(r));
	rot_free(r);

	/* a path under a regular file fails for root too */
	touch(dir, "plain", 0);
	snprintf(sub, sizeof sub, "%s/plain/sub", dir);
	o.dir = sub;
	is_int(rot_open(&r, &o), ROT_ERR_DIR, "dir: under a regular file");
	ok(strstr(rot_error(r), "Not a directory") != NULL, "dir: detail: %s", rot_error(r));
	rot_free(r);

	snprintf(sub, sizeof sub, "%s/plain", dir);
	o.dir = sub;
	is_int(rot_open(&r, &o), ROT_ERR_DIR, "dir: a regular file");
	ok(strstr(rot_error(r), "Not a directory") != NULL, "dir: detail: %s", rot_error(r));
	rot_free(r);

	/* unwritable: permissions bind only non-root */
	if (geteuid() != 0) {
		snprintf(sub, sizeof sub, "%s/ro", dir);
		mkdir(sub, 0500);
		o.dir = sub;
		is_int(rot_open(&r, &o), ROT_ERR_DIR, "dir: mode 0500");
		ok(strstr(rot_error(r), "cannot write to") != NULL, "dir: detail: %s", rot_error(r));
		rot_free(r);
	} else {
		/* root: drop to nobody in a child, for a directory it owns at 0500 */
		int p[2], st2;
		char msg[512] = "";
		pid_t pid;
		snprintf(sub, sizeof sub, "%s/ro", dir);
		chmod(dir, 0755);
		mkdir(sub, 0500);
		if (chown(sub, 65534, 65534) || pipe(p))
			abort();
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			close(p[0]);
			if (setgid(65534) || setuid(65534))
				_exit(9);
			o.dir = sub;
			int rc = rot_open(&r, &o);
			if (write(p[1], rot_error(r), strlen(rot_error(r))) < 0)
				_exit(8);
			_exit(rc == ROT_ERR_DIR ? 0 : 1);
		}
		close(p[1]);
		if (read(p[0], msg, sizeof msg - 1) < 0)
			msg[0] = '\0';
		close(p[0]);
		waitpid(pid, &st2, 0);
		ok(WIFEXITED(st2) && WEXITSTATUS(st2) == 0, "dir: mode 0500, as nobody: ROT_ERR_DIR");
		ok(strstr(msg, "cannot write to '") && strstr(msg, "Permission denied"), "dir: detail: %s", msg);
	}
	/* a directory nobody, root included, can create files in */
	if (stat("/proc/self", &st) == 0 && S_ISDIR(st.st_mode)) {
		o.dir = "/proc/self";
		is_int(rot_open(&r, &o), ROT_ERR_DIR, "dir: /proc/self is not writable");
		ok(strstr(rot_error(r), "cannot write to '/proc/self'") != NULL, "dir: detail: %s",
		   rot_error(r));
		rot_free(r);
	}

	/* created 0750 whatever the umask; files 0640 whatever the umask */
	old = umask(077);
	snprintf(sub, sizeof sub, "%s/new", dir);
	o.dir = sub;
	is_int(rot_open(&r, &o), ROT_OK, "dir: created");
	ok(stat(sub, &st) == 0 && (st.st_mode & 07777) == 0750, "dir: mode 0750 under umask 077 (%o)",
	   (unsigned)(st.st_mode & 07777));
	append(r, 0, T0);
	ok(stat(rot_current_path(r), &st) == 0 && (st.st_mode & 07777) == 0640,
	   "file: mode 0640 under umask 077");
	rot_free(r);
	umask(0);
	o.dir = sub;
	o.node = "umask0";
	rot_open(&r, &o);
	append(r, 0, T0);
	ok(stat(rot_current_path(r), &st) == 0 && (st.st_mode & 07777) == 0640,
	   "file: mode 0640 under umask 0");
	rot_free(r);
	umask(old);
	rmtree(dir);
}

/* ==== disk full ==== */

struct full_report { int rc; uint64_t good_bytes; char err[256]; int rc_retry, rc_close; };

/* Child: 3 good frames, then a limit just past them, then a frame too big
 * for it. retry: lift the limit, flush again and close. */
static void full_child(const char *dir, int wfd, int retry)
{
	struct full_report rep;
	struct rot_options o;
	struct rlimit rl;
	static char noise[20000];
	uint32_t x = 2463534242u;
	rot_t *r;

	memset(&rep, 0, sizeof rep);
	signal(SIGXFSZ, SIG_IGN);
	base_opts(&o, dir, ROT_ZSTD);
	if (rot_open(&r, &o))
		_exit(2);
	for (int i = 0; i < 6; i++) {
		append(r, i, T0 + i);
		if (i % 2 && rot_flush(r))
			_exit(3);
	}
	rep.good_bytes = rot_stats(r)->bytes_out;
	getrlimit(RLIMIT_FSIZE, &rl);
	rl.rlim_cur = rep.good_bytes + 100;
	if (setrlimit(RLIMIT_FSIZE, &rl))
		_exit(4);
	for (size_t i = 0; i < sizeof noise; i++) {  /* incompressible */
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		noise[i] = (char)(' ' + x % 90);
	}
	rot_append(r, noise, sizeof noise, T0 + 10);
	rep.rc = rot_flush(r);
	snprintf(rep.err, sizeof rep.err, "%s", rot_error(r));
	if (retry) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_FSIZE, &rl);
		rep.rc_retry = rot_flush(r);
		rep.rc_close = rot_close(r);
		rot_free(r);
	}
	if (write(wfd, &rep, sizeof rep) != sizeof rep)
		_exit(5);
	_exit(0);
}

static void full_case(int retry)
{
	const char *dir = scratch();
	struct full_report rep;
	struct sb want = { 0 }, got = { 0 };
	char **v, cmd[9000];
	int p[2], st, n;
	pid_t pid;

	if (pipe(p))
		abort();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		full_child(dir, p[1], retry);
	}
	close(p[1]);
	memset(&rep, 0, sizeof rep);
	is_int(read(p[0], &rep, sizeof rep), sizeof rep, "full: child reported");
	close(p[0]);
	waitpid(pid, &st, 0);
	is_int(rep.rc, ROT_ERR_NOSPACE, "full: flush past RLIMIT_FSIZE is ROT_ERR_NOSPACE");
	ok(strstr(rep.err, "cannot write '") && strstr(rep.err, "File too large"),
	   "full: detail: %s", rep.err);
	sb_adds(&want, HEADER);
	for (int i = 0; i < 6; i++)
		sb_adds(&want, rec(i));
	v = names(dir, &n);
	is_int(n, 1, "full: one file");
	if (!retry && n == 1) {
		snprintf(cmd, sizeof cmd, "head -c %llu '%s' | zstd -qdc 2>/dev/null",
			 (unsigned long long)rep.good_bytes, path_of(dir, v[0]));
		is_int(run(cmd, &got), 0, "full: the frames before the failure decode, exit 0");
		ok(got.len == want.len && memcmp(got.p, want.p, want.len) == 0,
		   "full: with exactly the flushed records");
		got.len = 0;
		decode(path_of(dir, v[0]), ROT_ZSTD, &got);
		ok(got.len >= want.len && memcmp(got.p, want.p, want.len) == 0,
		   "full: the whole dot-file decodes them too (then stops at the cut frame)");
	}
	if (retry && n == 1) {
		is_int(rep.rc_retry, ROT_OK, "full: flush again once there is room");
		is_int(rep.rc_close, ROT_OK, "full: close");
		ok(v[0][0] != '.', "full: renamed: %s", v[0]);
		is_int(decode(path_of(dir, v[0]), ROT_ZSTD, &got), 0, "full: the file decodes completely");
		ok(got.len == want.len + 20000 && memcmp(got.p, want.p, want.len) == 0,
		   "full: nothing lost, nothing doubled (%zu bytes)", got.len);
	}
	names_free(v);
	sb_free(&want);
	sb_free(&got);
	rmtree(dir);
}

static void test_disk_full(void)
{
	full_case(0);
	full_case(1);
}

/* Flamescope's path check (app/common/fileutil.py):
 *     invalidchars = re.compile('[^a-zA-Z0-9.,/_%+: -\\\\]')
 * The class ends in the range ' '-'\' (0x20-0x5c), so it allows every
 * printable ASCII byte except ] ^ ` { | } ~. @return 1 if path
 * passes. Output names must pass it; the code builds them with
 * rot_name_node() and only this test checks them. */
static int flamescope_path_ok(const char *path)
{
	for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
		unsigned char ch = *s;
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || (ch >= 0x20 && ch <= 0x5c) ||
		    (ch && strchr(".,/_%+:", ch)))
			continue;
		return 0;
	}
	return 1;
}

/* ==== awkward node names ==== */

static void test_node_names(void)
{
	static const struct { const char *node, *want; } cases[] = {
		{ "app@db1.example.com", "app@db1.example.com" },
		{ "a b@host", "a%20b@host" },
		{ "x/y@h", "x%2Fy@h" },
		{ "~", "%7E" },
		{ "caf\xc3\xa9@h", "caf%C3%A9@h" },
		{ "a:b|c{d}", "a%3Ab%7Cc%7Bd%7D" },
		{ "100%", "100%25" },
		{ "", "nonode" },
	};
	regex_t re;
	char f[ROT_NODE_MAX + 1], name[ROT_NAME_MAX], one[2] = "";
	int agree = 1;

	/* Flamescope's own pattern; in a POSIX bracket '\' is literal, so this is
	 * the same class as Python's [^a-zA-Z0-9.,/_%+: -\\]. */
	is_int(regcomp(&re, "[^a-zA-Z0-9.,/_%+: -\\]", REG_EXTENDED | REG_NOSUB), 0, "names: regcomp");
	for (int ch = 1; ch < 256; ch++) {
		one[0] = (char)ch;
		int bad = regexec(&re, one, 0, NULL, 0) == 0;
		if (bad == flamescope_path_ok(one)) {
			agree = 0;
			fprintf(stderr, "#   disagree on 0x%02x\n", ch);
		}
	}
	ok(agree, "names: the hand-written check agrees with the regex on every byte");
	ok(!flamescope_path_ok("~") && flamescope_path_ok("@"), "names: '~' fails, '@' passes");
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		rot_name_node(f, cases[i].node);
		is_str(f, cases[i].want, "names: node '%s'", cases[i].node);
	}
	rot_name_node(f, NULL);
	is_str(f, "nonode", "names: NULL node");

	/* Real files with awkward nodes: whole path passes, and retention finds them. */
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *dir = scratch();
		struct rot_options o;
		rot_t *r;
		char **v;
		int n;
		base_opts(&o, dir, ROT_GZIP);
		o.node = cases[i].node;
		rot_open(&r, &o);
		append(r, 0, T0);
		append(r, 1, T0 + 1);
		rot_close(r);
		v = names(dir, &n);
		ok(n == 1 && flamescope_path_ok(path_of(dir, v[0])) &&
		   regexec(&re, path_of(dir, v[0]), 0, NULL, 0) == REG_NOMATCH,
		   "names: '%s' -> %s passes Flamescope's check", cases[i].node, n == 1 ? v[0] : "?");
		names_free(v);
		rot_free(r);
		rmtree(dir);
	}
	regfree(&re);

	/* A very long node name stays within NAME_MAX and is cut between escapes. */
	{
		char longnode[300];
		memset(longnode, '~', sizeof longnode - 1);
		longnode[sizeof longnode - 1] = '\0';
		rot_name_node(f, longnode);
		ok(strlen(f) <= ROT_NODE_MAX && strlen(f) % 3 == 0, "names: long node cut at %zu", strlen(f));
		rot_name_file(name, f, T0, 999, ROT_ZSTD);
		ok(strlen(name) + 1 <= 255, "names: dot-name within NAME_MAX (%zu)", strlen(name) + 1);
	}
}

int main(void)
{
	subtest("codecs", test_codecs);
	subtest("codec_parse", test_codec_parse);
	subtest("empty_run", test_empty_run);
	subtest("idle_record", test_idle_record);
	subtest("crash", test_crash);
	subtest("free_keeps_dotfile", test_free_keeps_dotfile);
	subtest("rotate_time", test_rotate_time);
	subtest("set_header", test_set_header);
	subtest("hold_rule", test_hold_rule);
	subtest("rotate_size", test_rotate_size);
	subtest("name_taken_at_close", test_name_taken_at_close);
	subtest("retention_keep", test_retention_keep);
	subtest("retention_bytes", test_retention_bytes);
	subtest("retention_not_ours", test_retention_not_ours);
	subtest("dir_errors", test_dir_errors);
	subtest("dir_owner", test_dir_owner);
	subtest("outfile", test_outfile);
	subtest("disk_full", test_disk_full);
	subtest("node_names", test_node_names);
	return done_testing();
}

/*
 * fuzz_index.c - libFuzzer target over the report's file inputs: the
 * index reader (rep_index_read, index/index.h), and where a file has no
 * index its text (rep_input: zstd, gzip or plain; index/ix_parse.c through
 * the collector), then every writer that draws what was collected, the
 * HTML page among them: its data must hold no '<' (so that no name closes
 * its script), no raw control character, and be well-formed UTF-8.
 *
 * Input: a whole capture file as it would lie on disk. It is written into
 * one memfd per process and read back through /proc/self/fd/N, so the
 * reader does its own open, fstat and preads on a file of exactly the
 * input's size. Byte 4 (in the first text frame's header, which the reader
 * never looks at, so mutating it leaves the index alone) picks the config:
 * unweighted, or weighted by a value, a delta or a metric no file has, with
 * or without a status filter, titled or not. Every answer must be a
 * documented one: 0 has collected nothing; never corrupt (every column is
 * checked before any event goes in, and the file does not change
 * meanwhile); a read that succeeds counted every event it promised and is
 * drawn, so that what it built is proved usable. The seed corpus (corpus/index) is real
 * indexed files written through rotate/ (build/ixgen and
 * tests/unit/test_report_index.c) and two hand-built ones from that test,
 * without zstd checksums, so that mutations reach the columns; and text
 * files (corpus/index/text_*): a deep stack, a 30-day span, odd line
 * numbers, hostile names, gzip. ASan/UBSan/LeakSanitizer report anything
 * else, and a stack that recursed per frame would overflow.
 */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../common/text.h"
#include "../../report/rep_collect.h"
#include "../../report/rep_html.h"
#include "../../report/rep_index_read.h"
#include "../../report/rep_input.h"
#include "../../report/rep_order.h"
#include "../../report/rep_write.h"

static char path[64];

/* The input as a file. @return 0, or -1 (the input is then skipped). */
static int put_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	size_t done = 0;
	if (fd < 0) {
		if ((fd = memfd_create("fuzz_index", MFD_CLOEXEC)) < 0)
			return -1;
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0)
		return -1;
	while (done < size) {
		ssize_t w = pwrite(fd, data + done, size - done, (off_t)done);
		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	return 0;
}

/* The page's data script: no '<' (so nothing closes it early), no raw
 * control character, well-formed UTF-8; and the page has its two scripts
 * and no third. */
static void check_page(const char *page, size_t len)
{
	static const char open[] = "<script id=\"fp-data\" type=\"application/json\">";
	const char *d = memmem(page, len, open, sizeof open - 1), *end, *p;
	size_t scripts = 0;
	if (!d)
		abort();
	d += sizeof open - 1;
	if (!(end = memmem(d, len - (size_t)(d - page), "</script>", 9)))
		abort();
	for (p = d; p < end;) {
		size_t n = fp_utf8_seq((const unsigned char *)p, (size_t)(end - p));
		if (n == 0 || *p == '<' || (unsigned char)*p < 0x20)
			abort();
		p += n;
	}
	for (p = page; (p = memmem(p, len - (size_t)(p - page), "</script>", 9)) != NULL; p += 9)
		scripts++;
	if (scripts != 2)
		abort();
}

static void draw(rep_collect *c, const struct rep_config *cfg, rep_html *events)
{
	static FILE *null;
	struct rep_order o;
	struct rep_view v = { .cfg = cfg, .frames = rep_collect_frames(c), .trie = rep_collect_trie(c),
			      .order = &o, .st = rep_collect_stats(c), .weight_name = rep_collect_weight_name(c),
			      .weighted = rep_collect_weighted(c), .events = events };
	if (!null && !(null = fopen("/dev/null", "w")))
		return;
	rep_collect_finish(c);
	rep_collect_range(c, &v.from_us, &v.to_us);
	if (rep_order_build(&o, rep_collect_trie(c), rep_collect_frames(c)) != 0)
		return;
	rep_write_folded(null, &v);
	rep_write_speedscope(null, &v);
	rep_write_flame(null, &v);
	{
		struct rep_heat h;
		if (rep_collect_heat(c, &h) == 0)
			rep_write_heatmap(null, &v, &h);
	}
	{
		char *page = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&page, &len);
		if (m) {
			int rc = rep_write_html(m, &v);
			if (fclose(m) == 0 && rc == 0)
				check_page(page, len);
			free(page);
		}
	}
	rep_order_free(&o);
}

/* The file as text, as report reads one without an index. @return 0, or a
 * negative rep_in_err / rep_c_err. */
static int read_text(rep_collect *c)
{
	enum rep_in_err e;
	char detail[128];
	rep_input *in = rep_input_open(path, &e, detail, sizeof detail);
	const char *line;
	size_t len;
	int r;
	if (!in)
		return e;
	while ((r = rep_input_line(in, &line, &len)) == 1)
		if ((r = rep_collect_line(c, line, len)) != 0)
			break;
	if (r == 0)
		r = rep_collect_end_file(c);
	rep_input_close(in);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const weights[] = { NULL, "reductions", "memory_delta",
					       "erlang_heap_size", "nosuch" };
	unsigned pick = size > 4 ? data[4] : 0;
	const char *const inputs[] = { path };
	struct rep_config cfg = { .weight = weights[(pick & 7) % 5],
				  .status = pick & 8 ? "running,waiting" : NULL,
				  .heatmap = "heat", .width = 1200, .min_width = pick & 16 ? 0.1 : 0,
				  .inputs = inputs, .ninputs = 1, .title = pick & 64 ? "t</script><b>\xe2\x80\xa8" : NULL };
	rep_html *events;
	enum rep_c_err e;
	char detail[256];
	uint64_t n = 0;
	rep_collect *c;
	int rc;
	if (put_file(data, size) != 0 || !(c = rep_collect_create(&cfg, &e, detail, sizeof detail)))
		return 0;
	if (!(events = rep_html_create())) {
		rep_collect_free(c);
		return 0;
	}
	rep_collect_on_kept(c, rep_html_kept, events);
	rep_frames_set_elixir(rep_collect_frames(c), (pick & 32) != 0); /* Elixir's names */
	rc = rep_index_read(c, path, &n, detail, sizeof detail);
	switch (rc) {
	case 1:
		if (n != rep_collect_stats(c)->events)
			abort(); /* every event the trailer promised went in */
		draw(c, &cfg, events);
		break;
	case REP_IX_NONE:
		if (rep_collect_stats(c)->events != 0)
			abort(); /* the text could not be read instead */
		if (read_text(c) == 0 && rep_collect_stats(c)->events)
			draw(c, &cfg, events);
		break;
	case REP_IX_CORRUPT:
		abort(); /* found after events went in */
	case REP_IX_NOMEM:
	case REP_C_METRIC:
		break;
	default:
		abort(); /* not a documented answer */
	}
	rep_collect_free(c);
	rep_html_free(events);
	return 0;
}

/*
 * ixgen.c - perf-script text on stdin through flameprof's own output path
 * (rotate/ with the report index, as a capture writes it) into DIR:
 * `ixgen DIR NODE [EVENTS_PER_FLUSH [ROTATE_EVENTS]]`. For the report
 * index's tests and for bench.sh, which need big indexed files without a
 * node that can produce 35M samples. Prints the files' paths, and on
 * stderr how many bytes the index took.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../index/index.h"
#include "../../index/ix_parse.h"
#include "../../rotate/rotate.h"

static uint64_t index_bytes;
static void (*writer_take)(void *, uint64_t, int, const void **, size_t *);

/* The writer's own hook, counting what it adds. */
static void count_take(void *ctx, uint64_t offset, int last, const void **out, size_t *len)
{
	writer_take(ctx, offset, last, out, len);
	index_bytes += *len;
}

static int die(rot_t *r, const char *what)
{
	fprintf(stderr, "ixgen: %s: %s\n", what, r ? rot_error(r) : "out of memory");
	return 1;
}

int main(int argc, char **argv)
{
	long per_flush = argc > 3 ? atol(argv[3]) : 50000;
	long per_file = argc > 4 ? atol(argv[4]) : 0;
	ix_writer *w = ix_writer_create(3);
	struct rot_index ix;
	struct rot_options ro = { .dir = argc > 1 ? argv[1] : ".", .node = argc > 2 ? argv[2] : "x@y",
				  .codec = ROT_ZSTD, .index = &ix };
	char *line = NULL, *rec = NULL, hdr[1 << 16] = "";
	size_t cap = 0, rlen = 0, rcap = 0, hlen = 0;
	ssize_t n;
	long events = 0;
	int64_t t = 0;
	rot_t *r;

	if (argc < 3 || !w) {
		fprintf(stderr, "usage: ixgen DIR NODE [EVENTS_PER_FLUSH [ROTATE_EVENTS]]\n");
		return 64;
	}
	ix_writer_hook(w, &ix);
	writer_take = ix.take;
	ix.take = count_take;
	/* The leading '#' lines are the header of every file, as in a capture. */
	while ((n = getline(&line, &cap, stdin)) > 0 && line[0] == '#' &&
	       hlen + (size_t)n < sizeof hdr) {
		memcpy(hdr + hlen, line, (size_t)n);
		hlen += (size_t)n;
		hdr[hlen] = '\0';
	}
	ro.header = hdr;
	if (rot_open(&r, &ro) != 0)
		return die(r, "open");
	for (; n > 0; n = getline(&line, &cap, stdin)) {
		if (rlen + (size_t)n > rcap) {
			rcap = (rlen + (size_t)n) * 2;
			if (!(rec = realloc(rec, rcap)))
				return die(NULL, "read");
		}
		if (ix_line_kind(line, (size_t)n - (line[n - 1] == '\n')) == IX_L_EVENT) {
			struct ix_event_line ev;
			if (ix_parse_event(line, (size_t)n - 1, &ev) == 0)
				t = ev.time_us;
		}
		memcpy(rec + rlen, line, (size_t)n);
		rlen += (size_t)n;
		if (n == 1 && line[0] == '\n') { /* an event ends */
			if (rot_append(r, rec, rlen, t) != 0)
				return die(r, "append");
			rlen = 0;
			events++;
			if (per_flush > 0 && events % per_flush == 0 && rot_flush(r) != 0)
				return die(r, "flush");
			if (per_file > 0 && events % per_file == 0) {
				if (rot_close(r) != 0)
					return die(r, "close");
				printf("%s\n", rot_current_path(r));
				rot_free(r);
				if (rot_open(&r, &ro) != 0)
					return die(r, "open");
			}
		}
	}
	if (rlen && rot_append(r, rec, rlen, t) != 0)
		return die(r, "append");
	if (rot_close(r) != 0)
		return die(r, "close");
	if (rot_current_path(r)[0])
		printf("%s\n", rot_current_path(r));
	if (ix_writer_given_up(w))
		fprintf(stderr, "ixgen: the last file has no index: %s\n", ix_writer_why(w));
	fprintf(stderr, "ixgen: %ld events, %llu bytes of index\n", events,
		(unsigned long long)index_bytes);
	rot_free(r);
	ix_writer_free(w);
	free(line);
	free(rec);
	return 0;
}

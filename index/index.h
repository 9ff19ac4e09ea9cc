/*
 * index.h - the report index: what `flameprof report` needs from a file,
 * written beside its text so that a report does not re-read it. This room
 * holds the index's format (ix_fmt.h), its writer (ix_write.c with its
 * tables, ix_tables.c) and the perf-script text parser (ix_parse.h) that
 * the writer and report/ share (their hashes are common/hash.h's). The capture (cli/)
 * feeds the writer through rotate/'s byte hook; report/ reads the index
 * (report/rep_index_read.c) into its collector.
 *
 * A 1-hour capture of 100 processes at 97 Hz is ~35M events and ~50 GB of
 * perf-script text; decompressing and parsing that takes minutes. The
 * index holds the same events as columns of small numbers (time, status,
 * pid, stack id, metric values) plus tables of the distinct frames and
 * stacks, in zstd skippable frames inside the zstd file itself: zstd
 * decoders skip them, so the file still decompresses to exactly its text,
 * and a report reads only the columns it needs.
 *
 * The writer is fed the text exactly as it goes into the file. It parses
 * it with the report's own parser, and if anything is unusual (a line the
 * report would count as bad, too many distinct names, no memory) it gives
 * up on that file quietly: the file then has no trailer and the report
 * reads its text, so the index can only ever speed a report up. The
 * format is in doc/output-format.md.
 */
#ifndef IX_INDEX_H
#define IX_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct ix_writer_s ix_writer;
struct rot_index;

/* @return a writer (zstd level 0: default), or NULL when out of memory. */
ix_writer *ix_writer_create(int level);
void ix_writer_free(ix_writer *w);
/* A new file starts: forget the tables, the pending events, the blocks. */
void ix_writer_reset(ix_writer *w);
/* Text as it goes into the file (whole lines; a line may span calls). */
void ix_writer_text(ix_writer *w, const void *p, size_t n);
/*
 * At a frame boundary of the file: the bytes to write there next (skippable
 * frames), which start at file offset `offset`. With `last` the file ends
 * and the trailer comes too. *len is 0 when there is nothing to write (few
 * events pending, or the index was given up). The bytes stay valid until
 * the next call.
 */
void ix_writer_take(ix_writer *w, uint64_t offset, int last, const void **out, size_t *len);
/* Fills a rotate/ index hook that feeds this writer (rotate/rotate.h):
 * rotate/ sees only bytes in and bytes to write. */
void ix_writer_hook(ix_writer *w, struct rot_index *hook);
/* 1 when this file's index was given up (why: ix_writer_why). */
int ix_writer_given_up(const ix_writer *w);
const char *ix_writer_why(const ix_writer *w);

#endif

/*
 * rep_input.h - one input file as a stream of text lines.
 *
 * zstd (concatenated frames), gzip (concatenated members) or plain text,
 * told apart by their magic bytes, never by the file name. A file cut short
 * by a crash yields what decoded and reports itself as truncated. Nothing
 * here prints: errors go into the caller's buffer.
 */
#ifndef REP_INPUT_H
#define REP_INPUT_H

#include <stddef.h>

typedef struct rep_input_s rep_input;

/* The longest line read (perf text lines are short: a frame is at most
 * REP_MAX_FRAME_BYTES); a file with a longer one is not perf text. */
#define REP_MAX_LINE (64 << 20)

enum rep_in_err {
	REP_IN_OK = 0,
	REP_IN_OPEN = -1,    /* cannot open or read the file (errno in the detail) */
	REP_IN_CORRUPT = -2, /* the compressed data is not valid */
	REP_IN_NOMEM = -3,
};

/* @return a reader, or NULL with *err set and a sentence fragment in
 * detail ("No such file or directory"). */
rep_input *rep_input_open(const char *path, enum rep_in_err *err, char *detail, size_t cap);

/*
 * Next line, without its '\n' (a trailing '\r' is kept). The line stays
 * valid until the next call.
 * @return 1 and a line, 0 at the end, or a negative enum rep_in_err with the
 * detail in rep_input_error().
 */
int rep_input_line(rep_input *in, const char **line, size_t *len);

/* 1 when the file ended inside a compressed frame or member. */
int rep_input_truncated(const rep_input *in);
/* "zstd", "gzip" or "plain". */
const char *rep_input_codec(const rep_input *in);
const char *rep_input_error(const rep_input *in);
void rep_input_close(rep_input *in);

/*
 * Expands one command-line argument into file paths: a file stays itself, a
 * directory gives its flameprof_*.perf* regular files (no links, no FIFOs;
 * no dotfiles, which are still
 * being written) sorted by name, which sorts them by time.
 * Appends malloc'd strings to *paths (grown as needed).
 * @return the number added (0 for an empty directory), or -1 with detail.
 */
long rep_input_expand(const char *arg, char ***paths, size_t *n, size_t *cap, char *detail,
		      size_t dcap);

#endif

/*
 * text.h - text from outside (atoms, request identities, file contents)
 * made safe for JSON: the one JSON string escape, used by every writer
 * (report's speedscope, calls --json, requests --stats and --slow-file).
 * For a terminal: ctl_escape.h.
 *
 * '"' and '\' escaped, control characters (U+0000..U+001F, and DEL) as
 * \u00XX, each byte that is not part of valid UTF-8 as \ufffd, so the
 * output is always valid UTF-8 JSON.
 */
#ifndef FP_TEXT_H
#define FP_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 where s does not
 * start one (overlong, a surrogate, past U+10FFFF, U+FFFE, U+FFFF: not
 * characters XML or JSON readers accept everywhere). len > 0. */
size_t fp_utf8_seq(const unsigned char *s, size_t len);
/* Writes s as the inside of a JSON string (the quotes are the caller's). */
void fp_json_put(FILE *f, const char *s, size_t len);
/* Writes the NUL-terminated s as a JSON string, quotes included. */
void fp_json_string(FILE *f, const char *s);

#endif

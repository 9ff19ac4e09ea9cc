/*
 * ctl_escape.h - text from outside (a node, epmd) made safe for a
 * terminal: control bytes become \xNN, the characters that break or
 * reorder a line \uNNNN.
 */
#ifndef FP_CTL_ESCAPE_H
#define FP_CTL_ESCAPE_H

#include <stddef.h>

/* Copies n bytes of in to out (cap > 0 bytes, always NUL-terminated,
 * cut at a whole character), writing each C0 control byte, DEL, and each
 * C1 control character (UTF-8 C2 80..C2 9F, which some terminals obey
 * like ESC [) and each byte that is not part of well-formed UTF-8 (a lone
 * 0x9b is ESC [ to an 8-bit terminal) as \xNN; a NUL byte too. The line
 * and paragraph separators (U+2028, U+2029) and the bidirectional controls
 * (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069), which make a
 * name read as another, as \uNNNN. Other well-formed UTF-8 passes. Never
 * more than 4 bytes out for each byte in.
 * @return the length written. */
size_t fp_ctl_escape(char *out, size_t cap, const char *in, size_t n);

#endif

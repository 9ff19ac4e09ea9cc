/*
 * rep_text.h - writing names safely into XML (JSON: common/text.h).
 *
 * Atoms can hold any byte; XML 1.0 cannot carry most control characters
 * even as references. So invalid UTF-8 and control characters become
 * U+FFFD, and the markup characters are escaped.
 */
#ifndef REP_TEXT_H
#define REP_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes s as XML text or attribute value (& < > " ' escaped). */
void rep_xml_put(FILE *f, const char *s, size_t len);
/* Bytes of s that hold at most maxchars characters (whole UTF-8 sequences). */
size_t rep_utf8_prefix(const char *s, size_t len, size_t maxchars);
/* Number of characters (UTF-8 sequences, invalid bytes count one each). */
size_t rep_utf8_chars(const char *s, size_t len);
/* "12,345,678" into buf (at least 32 bytes). @return buf. */
char *rep_thousands(int64_t v, char *buf);

#endif

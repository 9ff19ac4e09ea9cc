/*
 * near.h - "did you mean ...?": which of a few known words a mistyped one
 * was meant to be (an option's name, a node's name), by the edit distance
 * git's help.autocorrect and most shells' corrections use.
 */
#ifndef FP_NEAR_H
#define FP_NEAR_H

#include <stddef.h>

/* Damerau-Levenshtein distance (optimal string alignment: an insertion,
 * a deletion, a change or two neighbours swapped cost 1 each) between
 * a[0..na) and b[0..nb); words past FP_NEAR_MAX bytes are FP_NEAR_MAX + 1
 * apart from every other. */
#define FP_NEAR_MAX 255
unsigned fp_near_distance(const char *a, size_t na, const char *b, size_t nb);

/* How near a known word must be to be offered for typed (n bytes): at
 * most 1 edit for up to 4 bytes, 2 for up to 9, 3 beyond; or typed, 3
 * bytes or more, begins it. @return the distance (0 for a beginning), or
 * -1 when it is not near. */
int fp_near(const char *typed, size_t n, const char *known, size_t m);

#endif

/*
 * fuzz_input.h - what every fuzz target does with its input first: an
 * exact-size copy, so that an over-read is caught by ASan (libFuzzer's
 * buffer may have room past its end), and a sink for what the writers
 * print.
 */
#ifndef FP_FUZZ_INPUT_H
#define FP_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* @return the copy (the caller frees it), or NULL (no memory: skip the input). */
static inline char *fuzz_copy(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (buf)
		memcpy(buf, data, size);
	return buf;
}

/* /dev/null, opened once; NULL where it cannot be. */
static inline FILE *fuzz_sink(void)
{
	static FILE *sink;
	if (!sink)
		sink = fopen("/dev/null", "w");
	return sink;
}

#endif

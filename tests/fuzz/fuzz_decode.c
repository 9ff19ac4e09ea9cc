/*
 * fuzz_decode.c - libFuzzer target over the agent message decoder
 * (dec_message, sampler/decode.h), and the formatter behind it.
 *
 * Input: a sequence of messages, each a 4-byte big-endian length and that
 * many bytes (the external term format, version byte first, as ei hands
 * them over); a trailing partial message is given as is. One decoder
 * table lives for the whole input, so later messages refer to ids defined
 * by earlier ones, as on a real connection. Every batch that decodes is
 * formatted with fmt_event, so the records the decoder builds are proved
 * usable. The seed corpus (corpus/decode) is real agent traffic recorded by
 * make_corpus.sh. ASan/UBSan/LeakSanitizer report anything else.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../sampler/decode.h"
#include "../../formatter/formatter.h"

static void format_batch(fmt_ctx *fmt, const struct sampler_batch *b, char *buf, size_t cap)
{
	for (size_t k = 0; k < b->nsamples; k++) {
		int64_t t;
		size_t n = fmt_event(fmt, &b->samples[k], buf, cap, &t);
		if (n >= cap) {
			char *big = malloc(n + 1);
			if (!big)
				continue;
			if (fmt_event(fmt, &b->samples[k], big, n + 1, &t) != n)
				abort(); /* the snprintf contract: same length when it fits */
			free(big);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum fmt_category cats[] = { FMT_CAT_QUEUE, FMT_CAT_INITIAL_CALL, FMT_CAT_NAME,
						  FMT_CAT_MEMORY, FMT_CAT_SEQ_TRACE };
	struct fmt_options fo = { .categories = cats, .ncategories = 5 };
	struct dec_tables t;
	struct dec_result res;
	char err[160], buf[512];
	fmt_ctx *fmt = fmt_create(&fo);
	if (!fmt)
		return 0;
	dec_init(&t);
	while (size > 0) {
		size_t len = size;
		if (size >= 4) {
			len = (size_t)data[0] << 24 | (size_t)data[1] << 16 | (size_t)data[2] << 8 | data[3];
			data += 4;
			size -= 4;
			if (len > size)
				len = size;
		}
		/* a copy of exactly len bytes, so ASan sees any read past it */
		char *msg = malloc(len ? len : 1);
		if (!msg)
			break;
		memcpy(msg, data, len);
		int k = dec_message(&t, msg, len, &res, err, sizeof err);
		if (k == DEC_BATCH)
			format_batch(fmt, &res.batch, buf, sizeof buf);
		if (k < 0 && strlen(err) == 0)
			abort(); /* every failure says why */
		free(msg);
		data += len;
		size -= len;
	}
	dec_free(&t);
	fmt_free(fmt);
	return 0;
}

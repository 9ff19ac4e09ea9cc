/*
 * decode.h - the agent's messages, decoded (private to sampler/; the unit
 * tests and the fuzzer use it directly, with no node).
 *
 * The agent names each distinct frame, stack and seq_trace label with a
 * small integer once per connection (one id space for all three) and each
 * sampled process with a small index; the tables here remember those
 * definitions so that a sample, which carries only integers, can be turned
 * back into a struct fp_sample. The shapes are documented in
 * sampler/flameprof_agent.erl.
 */
#ifndef FP_DECODE_H
#define FP_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <ei.h>
#include "../common/sample.h"
#include "sampler.h"

/* Ids above these are refused: the agent resets its tables long before. */
/* The agent resets at 500,000 ids and 100,000 processes; a message past
 * these bounds is refused rather than allowed to make the tables huge. */
#define DEC_MAX_ID (1u << 20)
#define DEC_MAX_PROC (1u << 18)
/* The agent cuts every text to 1,024 bytes (an atom is at most 1,020) and
 * a stack to backtrace_depth (at most 64 frames); past these a message is
 * refused. DEC_MAX_BYTES bounds what the tables hold in all, between two
 * resets (the agent's own table is bounded to 16 MiB on the node). */
#define DEC_MAX_TEXT 4096
#define DEC_MAX_FRAMES 256
#define DEC_MAX_BYTES ((size_t)512 << 20)

struct dec_entry;
struct dec_proc;

struct dec_tables {
	struct dec_entry *entries;  /* by id: frame, stack or label */
	size_t nentries;
	struct dec_proc *procs;     /* by index */
	size_t nprocs;
	struct fp_sample *samples;  /* the last batch's samples */
	size_t nsamples, capsamples;
	size_t bytes;               /* held by the definitions, at most DEC_MAX_BYTES */
	uint64_t orphans;           /* samples of undefined processes, read past (counted as dropped) */
};

enum dec_kind {
	DEC_BATCH = 1,   /* out->batch filled */
	DEC_STARTED,     /* out->old_depth, out->missing filled */
	DEC_STOPPED,     /* the agent finished */
	DEC_AGENT_ERROR, /* out->reason, out->detail: why the agent ended or could not start */
	DEC_OTHER,       /* not one of ours: ignore */
	DEC_LINK_EXIT,   /* {'EXIT', Pid, Reason} of a process linked to us: out->exit_from,
			  * out->detail the reason ("normal", "killed", a term printed) */
};

struct dec_result {
	struct sampler_batch batch;
	int old_depth;
	char missing[256];   /* DEC_STARTED: the --pid/--name texts naming no process, quoted */
	unsigned nmissing;
	char reason[64];
	char detail[128];
	erlang_pid exit_from;
};

void dec_init(struct dec_tables *t);
void dec_free(struct dec_tables *t);

/* Decodes one message (buf holds the version byte first, as ei delivers it).
 * @return an enum dec_kind, or -1 for a malformed message, -2 out of memory;
 * then err holds a short description. Samples in out->batch point into t and
 * stay valid until the next call. */
int dec_message(struct dec_tables *t, const char *buf, size_t len,
		struct dec_result *out, char *err, size_t errlen);

#endif

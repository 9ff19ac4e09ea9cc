/*
 * ix_tables.h - the index writer's per-file tables, and the byte
 * buffer the writer builds its frames in (internal to index/: used by
 * ix_write.c and ix_tables.c).
 */
#ifndef IX_TABLES_H
#define IX_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "ix_fmt.h"
#include "ix_parse.h"

struct ix_buf {
	unsigned char *d;
	size_t len, cap;
};

/* Each @return 0, or -1 when out of memory. */
int ix_buf_reserve(struct ix_buf *b, size_t more);
int ix_buf_put_bytes(struct ix_buf *b, const void *p, size_t n);
int ix_buf_put_varint(struct ix_buf *b, uint64_t v);
int ix_buf_put_str(struct ix_buf *b, const void *p, size_t n); /* length, then the bytes */

struct frame_ent {
	uint32_t off, sym_len, dso_len; /* in the pool: sym then dso */
	uint32_t hash;
	uint8_t kind;
};

struct stack_ent {
	uint32_t off, n; /* frame ids in spool */
	uint32_t hash;
};

struct pid_ent {
	uint32_t pid, tid;
	uint32_t hash;
};

/* One file's tables; *_done: how many entries earlier blocks carry. */
struct ix_tables {
	struct frame_ent *frames;
	size_t nframes, frames_cap, frames_done;
	uint32_t *frame_slots;     /* id + 1; 0 empty */
	size_t frame_nslots;
	struct ix_buf pool;        /* frame bytes */
	struct stack_ent *stacks;
	size_t nstacks, stacks_cap, stacks_done;
	uint32_t *stack_slots;
	size_t stack_nslots;
	uint32_t *spool;           /* stacks' frame ids */
	size_t splen, spcap;
	struct pid_ent *pids;
	size_t npids, pids_cap, pids_done;
	uint32_t *pid_slots;
	size_t pid_nslots;
	int64_t *prev;             /* [pid * IX_MAX_SLOTS + slot], last value in this file */
	size_t prev_cap;
	char *comms[IX_MAX_COMMS];
	size_t comm_len[IX_MAX_COMMS], ncomms, comms_done;
	struct ix_buf layouts[IX_MAX_LAYOUTS]; /* "name\0name\0..." */
	uint32_t layout_n[IX_MAX_LAYOUTS];
	size_t nlayouts, layouts_done;
	size_t names_bytes;        /* the comms' and layouts' bytes as a block encodes them, at most */
	const char *why;           /* set when a lookup failed for a reason but memory */
};

/* Ids, new or old. Each @return 0, or -1 (why set, or out of memory). */
int ix_frame_id(struct ix_tables *t, const struct ix_frame_line *fr, uint32_t *id);
int ix_stack_id(struct ix_tables *t, const uint32_t *frames, size_t n, uint32_t *id);
int ix_pid_id(struct ix_tables *t, uint32_t pid, uint32_t tid, uint32_t *id);
int ix_comm_id(struct ix_tables *t, const char *s, size_t len, uint32_t *id);
/* sig: the metric names, each ending in a NUL. */
int ix_layout_id(struct ix_tables *t, const char *sig, size_t sig_len, uint32_t nnames,
		 uint32_t *id);
/* A pid's last metric values in this file, IX_MAX_SLOTS of them. */
int64_t *ix_pid_prev(struct ix_tables *t, uint32_t id);
/* The most metrics any layout has. */
uint32_t ix_tables_max_slots(const struct ix_tables *t);
/* Memory held, for the writer's cap: never less than the entries take in
 * the blocks' table sections (IX_MAX_TABLES, which the reader holds to). */
size_t ix_tables_bytes(const struct ix_tables *t);
/* Appends the entries new since the last call (a block's table section)
 * to b. @return 0, or -1 when out of memory. */
int ix_tables_encode(struct ix_tables *t, struct ix_buf *b);
void ix_tables_reset(struct ix_tables *t);
void ix_tables_free(struct ix_tables *t);

#endif

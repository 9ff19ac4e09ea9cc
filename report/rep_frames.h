/*
 * rep_frames.h - the frame table: every distinct frame once, by small id.
 *
 * A frame is known by its kind and its symbol as written (escaped); the
 * table keeps the display name (unescaped with fmt_unescape) and the first
 * dso seen. Lookups hash the written bytes, so the hot path never unescapes
 * and never allocates for a frame it has seen.
 */
#ifndef REP_FRAMES_H
#define REP_FRAMES_H

#include <stddef.h>
#include <stdint.h>

enum rep_kind { REP_K_ROOT, REP_K_STATUS, REP_K_CODE, REP_K_CATEGORY, REP_K_NEGATIVE };

#define REP_NO_FRAME UINT32_MAX

typedef struct rep_frames_s rep_frames;

struct rep_frame_info {
	const char *name;   /* display name (unescaped, may hold any byte) */
	size_t name_len;
	const char *raw;    /* as written in the input */
	size_t raw_len;
	const char *dso;    /* first dso seen; may be empty */
	size_t dso_len;
	enum rep_kind kind;
	uint32_t mark;      /* caller's bits (filters), 0 at creation */
	const char *line;   /* as line-based outputs write it: raw, or the escaped
			     * Elixir spelling (rep_names_line_spelling) */
	size_t line_len;
};

rep_frames *rep_frames_create(void);
void rep_frames_free(rep_frames *t);
/* Frames interned from now on get Elixir's spelling as their name
 * (report/rep_names.h) when elixir is 1, Erlang's when 0: set before each
 * file's frames (the files of an Elixir node and of an Erlang node each
 * drawn in their own spelling; one frame so spelled is one entry). */
void rep_frames_set_elixir(rep_frames *t, int elixir);

/* @return the frame's id (new or old), or REP_NO_FRAME when out of memory.
 * *is_new (if not NULL) tells whether it was just added. */
uint32_t rep_frames_intern(rep_frames *t, enum rep_kind kind, const char *raw, size_t len,
			   const char *dso, size_t dso_len, int *is_new);

size_t rep_frames_count(const rep_frames *t);
/* The info of a frame; valid until the next intern. */
void rep_frames_get(const rep_frames *t, uint32_t id, struct rep_frame_info *out);
void rep_frames_set_mark(rep_frames *t, uint32_t id, uint32_t mark);
uint32_t rep_frames_mark(const rep_frames *t, uint32_t id);
enum rep_kind rep_frames_kind(const rep_frames *t, uint32_t id);

#endif

/*
 * adopt.h - the files of runs that died. A capture file is written under
 * "." + its final name and holds an flock(2) from its creation until it
 * has its final name (rotate.c); a dot-file whose lock is free lost its
 * writer (kill -9, a crash, the machine's power) and would stay hidden
 * from `report DIR` and from retention. The next run into the directory
 * gives such a file its final name; `report` reads it where it lies.
 *
 * Only regular files of our own user, not empty, named like a capture
 * (".flameprof_*.perf", ".perf.zst", ".perf.gz"), are looked at; a name
 * is never replaced (link, then unlink). Where flock is not supported no
 * file is taken for dead. Nothing here prints.
 */
#ifndef FP_ROTATE_ADOPT_H
#define FP_ROTATE_ADOPT_H

/* Is name (in dirfd) the dot-file of a run that died? @return 1 or 0. */
int rot_dead_file(int dirfd, const char *name);

/* Gives each dead run's dot-file in dir its final name; said(ctx, dot
 * name, final name, bytes) for each one renamed. @return how many, or -1
 * (the directory cannot be read: errno). */
int rot_adopt_dead(const char *dir, void (*said)(void *ctx, const char *from, const char *to, long long bytes),
		   void *ctx);

#endif

/*
 * retention.h - deleting old closed files of one node (internal to rotate/).
 */
#ifndef FP_ROTATE_RETENTION_H
#define FP_ROTATE_RETENTION_H

#include <stdint.h>

/* In the directory open as dirfd, keeps the newest `keep` closed files of
 * node `fnode` (filtered name; 0: any number) and, newest first, as many as
 * fit in keep_bytes (0: no limit), but always the newest one; removes the
 * rest. Only names rot_name_parse() accepts are considered: never a
 * dot-name, another node's file or anything else; and of those only
 * regular files of our user dated at most a day ahead (retention.c).
 *
 * Best effort: a file that cannot be removed (or vanished meanwhile) is
 * skipped, so retention never stops a capture. @return files removed. */
unsigned rot_retention(int dirfd, const char *fnode, unsigned keep, uint64_t keep_bytes);

#endif

/*
 * naming.h - the grammar of flameprof's file names: a door of rotate/.
 *
 * rotate/ writes the names (rotate.c), finds its own files by them
 * (retention.c), and whoever reads a capture's files back in order
 * (report/rep_files.c) parses them here, so the grammar has one home:
 *
 *   flameprof_<node>_<YYYYmmdd>T<HHMMSS>.<mmm>Z[-<n>].perf[.zst|.gz]
 *
 * <node> is the node name filtered by rot_name_node(); the time is the UTC
 * time of the file's first record, so names of one node sort by time;
 * -<n> only when that name was taken (two files starting in the same
 * millisecond). A file being written is named "." + that name.
 */
#ifndef FP_ROTATE_NAMING_H
#define FP_ROTATE_NAMING_H

#include <stddef.h>
#include <stdint.h>

#include "rotate.h"

/* Longest filtered node name kept in a file name: the whole name stays well
 * under NAME_MAX (255) even with the dot, time, suffix and extension. */
#define ROT_NODE_MAX 200
/* Large enough for any name built here, NUL included. */
#define ROT_NAME_MAX 256
/* "YYYYmmddTHHMMSS.mmmZ" and its NUL. */
#define ROT_STAMP_LEN 20

/* Writes the node name as it appears in file names into out (ROT_NODE_MAX + 1
 * bytes): [A-Za-z0-9._@+,-] as they are, every other byte as %XX. An empty
 * or NULL node becomes "nonode". */
void rot_name_node(char *out, const char *node);

/* Writes the final file name (no directory, no dot) into out (ROT_NAME_MAX).
 * seq 0: no suffix. */
void rot_name_file(char *out, const char *fnode, int64_t time_us, unsigned seq,
		   enum rot_codec codec);

/* The stamp of a file whose first record is at time_us (ROT_STAMP_LEN + 1
 * bytes): names compare by time as their stamps do. */
void rot_name_stamp(char *out, int64_t time_us);

/* Is `name` a closed file of node `fnode` (already filtered) in any codec?
 * On a match fills stamp (ROT_STAMP_LEN + 1 bytes) and *seq and returns 1;
 * otherwise 0. Dot-names, other nodes and anything not exactly of the form
 * above never match. */
int rot_name_parse(const char *name, const char *fnode, char *stamp, unsigned long *seq);

#endif

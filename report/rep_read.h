/*
 * rep_read.h - the report's input stage: the command line's files and
 * directories into files in time order (rep_files.h), then each file,
 * through its report index or its text, into the collector.
 */
#ifndef REP_READ_H
#define REP_READ_H

#include <stddef.h>

#include "rep_collect.h"
#include "rep_files.h"
#include "rep_pprof.h"
#include "rep_run.h"

/* Expands the inputs into files in time order (see rep_files.h), keeping
 * the nodes --node asks for; *out is the caller's to free (each path, then
 * the array), even on failure. @return 0 or a REP_E_* code. */
int rep_read_gather(struct rep_run *r, struct rep_file **out, size_t *nout);

/* Whether the frames are drawn in Elixir's spelling: as --names says, else
 * as the capture chose (the files' headers). REP_NAMES_EACH: files of
 * Elixir nodes and of Erlang nodes (a cluster's directory), each file drawn
 * in its own node's spelling. */
enum { REP_NAMES_ERLANG, REP_NAMES_ELIXIR, REP_NAMES_EACH };
int rep_read_names(const struct rep_config *cfg, const struct rep_file *files, size_t n);

/* Reads the files into c. by_node: each file's events under a frame
 * node:NAME (files of several nodes drawn together; pprof has a node label
 * instead); each_names: each file's frames in the spelling its header asks
 * for; pp (or NULL): told each file's node. *indexed counts the files read
 * through their index. @return 0 or a REP_E_* code. */
int rep_read_all(struct rep_run *r, rep_collect *c, const struct rep_file *files, size_t n,
		 rep_pprof *pp, int by_node, int each_names, size_t *indexed);

#endif

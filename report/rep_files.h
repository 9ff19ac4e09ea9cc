/*
 * rep_files.h - which input files a report reads, and in what order.
 *
 * Files are read in time order: by the time of their first event (their
 * content), else by the time in their name, flameprof_<node>_<stamp>[-k]
 * (a rotated "...Z-1" after its base name), parsed by rotate/naming.h. --node keeps the files of the
 * nodes it names (by the node in the file name); without it every node's
 * files are read. The time origin of a report is the earliest first event
 * of all the files read.
 */
#ifndef REP_FILES_H
#define REP_FILES_H

#include <stddef.h>
#include <stdint.h>

#define REP_NO_TIME INT64_MIN

struct rep_file {
	char *path;          /* owned */
	char node[256];      /* the node in its name, unescaped; "" if not flameprof's name */
	int64_t name_us;     /* the time in its name, or REP_NO_TIME */
	unsigned long seq;   /* k of "-k", 0 for the base name */
	int64_t first_us;    /* its first event's time, or REP_NO_TIME */
	int names;           /* enum fp_names its header asks for (FP_NAMES_AUTO: none) */
	char idle[256];      /* an idle record's note (its "# idle: " line, after that), else "" */
};

/* Fills node, name_us and seq from the file name of f->path. */
void rep_file_name(struct rep_file *f);

/* Reads f->path up to its first event and sets f->first_us (REP_NO_TIME
 * when there is none, or the file cannot be read: the reading proper then
 * says why), f->names (from the header's settings line) and f->idle (an
 * idle record: a node profiled that wrote no event, rot_close_idle()). */
void rep_file_first_event(struct rep_file *f);

/* Sorts files into reading order: by first event, else by name time; ties
 * by name time, then rotation number, then path. */
void rep_files_sort(struct rep_file *files, size_t n);

/* Whether a file of node `node` is wanted by --node: wanted[0..nw) are
 * node names or comma lists of them, "all" for every node; nw 0: every
 * node. */
int rep_node_wanted(const char *const *wanted, size_t nw, const char *node);

/* Keeps the files (at the front, in their order) whose node is wanted,
 * freeing the others' paths. @return how many are kept. */
size_t rep_files_keep_nodes(struct rep_file *files, size_t n, const char *const *wanted, size_t nw);

/* The first node named in wanted (not "all") that no file has, copied
 * into out (cap bytes). @return 1 when there is one, else 0. */
int rep_files_missing_node(const struct rep_file *files, size_t n, const char *const *wanted,
			   size_t nw, char *out, size_t cap);

/* How many distinct nodes the files come from; their names, quoted and
 * comma-joined (cut short), into list (cap bytes; NULL: not wanted). */
size_t rep_files_nodes(const struct rep_file *files, size_t n, char *list, size_t cap);

/* The earliest first event, or REP_NO_TIME when no file has one. */
int64_t rep_files_t0(const struct rep_file *files, size_t n);

#endif

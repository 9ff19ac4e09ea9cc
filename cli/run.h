/* run.h - one capture, from connecting to the summary. */
#ifndef FP_RUN_H
#define FP_RUN_H
#include "options.h"
/* The exit status of a run over several nodes when some failed (each said
 * in its sentence) and the others' captures ended well: their files are
 * complete. Past sysexits.h's range, so that no failure of one node reads
 * as it. */
#define FP_EX_PARTIAL 79
/* One capture over cfg's nodes. @return the exit status (sysexits.h, or
 * FP_EX_PARTIAL). */
int fp_run(const struct fp_config *cfg);
#endif

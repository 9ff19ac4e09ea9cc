/* run.h - one capture, from connecting to the summary. */
#ifndef FP_RUN_H
#define FP_RUN_H
#include "options.h"
/* @return the exit status (sysexits.h). */
int fp_run(const struct fp_config *cfg);
#endif

/*
 * calls_out.h - the rows of `flameprof calls` as people and tools read
 * them: OTP tprof's table, JSON, and folded lines for flame graph tools.
 *
 * Pure: rows in, text out through a FILE; no node, no ei. Each writer
 * returns 0, or -1 when the stream reports a write error.
 */
#ifndef FP_CALLS_OUT_H
#define FP_CALLS_OUT_H

#include <stdio.h>
#include "calls.h"

/* Orders the rows for printing: per process, the process with the largest
 * total first; in each, by the measure (calls for count) from the largest,
 * then by name. @return 0, or -1 out of memory (the order is then by
 * process only). */
int calls_sort(struct calls_result *r);

/* tprof's table: FUNCTION  CALLS  [TIME (us) | WORDS]  PER CALL  [%], a
 * total line, one table per process when rows carry pids (each under
 * "****** Process <pid>  --  P % of total ***"). top: rows per table, 0
 * for all. Expects calls_sort() order. */
int calls_write_table(FILE *f, const struct calls_result *r, size_t top);

/* {"type": ..., "duration_us": ..., "reloaded": [...], "ended_early":
 * null | {"run_queue", "limit"}, "rows": [{"mfa", "calls", "time_us" |
 * "words", "per_call", "percent", "pid"}]}: all rows. */
int calls_write_json(FILE *f, const struct calls_result *r, const char *node);

/* One line per row, "[pid;]mod:fun/arity VALUE" (VALUE: the measure, or
 * calls for count), the folded stacks flamegraph.pl and the report read. */
int calls_write_folded(FILE *f, const struct calls_result *r);

/* Every row's function, process name and reloaded module in Elixir's
 * spelling (calls_names.c, common/names.h): Shop.Tax.rate/1; folded:
 * "anonymous_fn/1_in_..." without spaces, as the report's folded stacks.
 * A name of no Elixir spelling stays. @return 0, or -1 out of memory
 * (those rows keep Erlang's spelling). */
int calls_names_elixir(struct calls_result *r, int folded);

/* "count", "time", "memory". */
const char *calls_type_name(enum calls_type t);

#endif

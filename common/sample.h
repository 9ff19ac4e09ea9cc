/*
 * sample.h - the one record that flows through flameprof.
 *
 * sampler/ fills it from the agent's batches, formatter/ turns it into
 * perf-script text. Plain C, no ei types, so formatter/ never sees ei.
 * Strings are not NUL-terminated: atoms may hold any byte (even NUL).
 * Everything a sample points to is owned by the sampler and stays valid
 * until the next call into the sampler (the formatter copies what it keeps).
 */
#ifndef FP_SAMPLE_H
#define FP_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

/* A byte string (UTF-8 from the node); len 0 means "absent". */
struct fp_str {
	const char *ptr;
	size_t len;
};

/* One stack frame, as the node reports it in current_stacktrace. */
struct fp_frame {
	struct fp_str module;   /* module atom text */
	struct fp_str function; /* function atom text */
	int arity;              /* arity, or -1 when the node gave arguments */
	struct fp_str file;     /* source file as the node has it; len 0: none */
	unsigned line;          /* source line; 0: unknown */
};

/* erlang:process_info(P, status), in the order the agent encodes it. */
enum fp_status {
	FP_STATUS_RUNNING,
	FP_STATUS_RUNNABLE,
	FP_STATUS_WAITING,
	FP_STATUS_GARBAGE_COLLECTING,
	FP_STATUS_EXITING,
	FP_STATUS_SUSPENDED,
	FP_STATUS_COUNT
};

/* The metrics carried on every event, in output order. Units are the
 * node's: memory in bytes, heap and GC sizes in words, counts as counts. */
enum fp_metric {
	FP_M_REDUCTIONS,
	FP_M_MESSAGE_QUEUE_LEN,
	FP_M_MEMORY,
	FP_M_TOTAL_HEAP_SIZE,
	FP_M_HEAP_BLOCK_SIZE,
	FP_M_OLD_HEAP_BLOCK_SIZE,
	FP_M_HEAP_SIZE,
	FP_M_OLD_HEAP_SIZE,
	FP_M_STACK_SIZE,
	FP_M_MBUF_SIZE,
	FP_M_RECENT_SIZE,
	FP_M_BIN_VHEAP_SIZE,
	FP_M_BIN_VHEAP_BLOCK_SIZE,
	FP_M_BIN_OLD_VHEAP_SIZE,
	FP_M_BIN_OLD_VHEAP_BLOCK_SIZE,
	FP_M_MINOR_GCS,
	FP_METRIC_COUNT
};

/* One process sampled once. */
struct fp_sample {
	int64_t time_us;          /* target's erlang:system_time(microsecond) when sampled */
	uint32_t pid_number;      /* <0.N.S>: N */
	uint32_t pid_serial;      /* <0.N.S>: S */
	enum fp_status status;    /* process status at the sample */
	const struct fp_frame *const *frames; /* leaf first, root last */
	size_t nframes;           /* number of frames (0 if the stack was empty) */
	/* On a CPU at the sample, but the process ran on to its receive before
	 * its stack could be read: no frames, written as [ran_to_receive]. */
	int stack_late;
	struct fp_str initial_call;  /* "M:F/A": proc_lib '$initial_call', else initial_call */
	struct fp_str name;          /* registered name or process label; len 0: none */
	struct fp_str seq_label;     /* seq_trace label, printed; len 0: no token */
	int64_t metrics[FP_METRIC_COUNT]; /* absolute values, see enum fp_metric */
};

/* Names of the statuses and metrics as they appear in the output. */
extern const char *const fp_status_names[FP_STATUS_COUNT];
extern const char *const fp_metric_names[FP_METRIC_COUNT];

#endif

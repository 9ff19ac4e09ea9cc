/* sample.c - names shared by the sampler (decoding) and the formatter (output). */
#include "sample.h"

const char *const fp_status_names[FP_STATUS_COUNT] = {
	"running", "runnable", "waiting", "garbage_collecting", "exiting", "suspended",
};

const char *const fp_metric_names[FP_METRIC_COUNT] = {
	"reductions", "message_queue_len", "memory", "total_heap_size",
	"heap_block_size", "old_heap_block_size", "heap_size", "old_heap_size",
	"stack_size", "mbuf_size", "recent_size", "bin_vheap_size",
	"bin_vheap_block_size", "bin_old_vheap_size", "bin_old_vheap_block_size",
	"minor_gcs",
};

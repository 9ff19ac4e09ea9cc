/*
 * bigen.c - a large synthetic capture for measuring `report`'s speed:
 * `bigen EVENTS [PROCS]` writes flameprof perf-script text to stdout, like
 * a top-100 capture at 97 Hz (100 processes, ~20 frames, 4 category frames,
 * 16 metrics that move like a real process's: reductions always grow,
 * sizes change now and then, each delta is the change since that process's
 * previous sample). Compress it with zstd, or write it the way a capture
 * does with ixgen.c; never commit its output.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "../unit/rnd.h"

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	return xorshift64(&rnd_state);
}

static const char *const STATUS[] = { "running", "runnable", "waiting", "garbage_collecting" };
static const char *const METRIC[] = {
	"reductions", "message_queue_len", "memory", "total_heap_size", "heap_block_size",
	"old_heap_block_size", "heap_size", "old_heap_size", "stack_size", "mbuf_size",
	"recent_size", "bin_vheap_size", "bin_vheap_block_size", "bin_old_vheap_size",
	"bin_old_vheap_block_size", "minor_gcs"
};

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, procs = argc > 2 ? atol(argv[2]) : 100;
	if (procs < 1 || procs > 1000)
		procs = 100;
	static char buf[1 << 20];
	static int64_t val[1000][16];
	static int seen[1000];
	long i;
	int64_t t0 = 1700000000250000;
	setvbuf(stdout, buf, _IOFBF, sizeof buf);
	fputs("# flameprof 0.1.0: synthetic capture (tests/report/bigen.c)\n", stdout);
	for (i = 0; i < n; i++) {
		long p = (long)(rnd() % (uint64_t)procs);
		int64_t t = t0 + i * (1000000 / 97) / procs;
		unsigned st = (unsigned)(rnd() % 4), k, depth = 12 + (unsigned)(p % 16);
		unsigned variant = (unsigned)(rnd() % 6);
		if (t % 1000000 == 0)
			t++;
		printf("%s %ld/0 [000] %lld.%06lld: 1 cpu-clock:", STATUS[st], 100 + p,
		       (long long)(t / 1000000), (long long)(t % 1000000));
		for (k = 0; k < 16; k++) {
			int64_t old = val[p][k], v = old;
			if (!seen[p])
				v = k == 1 ? 0 : (int64_t)(rnd() % 100000);
			else if (k == 0)
				v += (int64_t)(rnd() % 4000); /* reductions */
			else if (k != 1 && rnd() % 8 == 0)
				v += (int64_t)(rnd() % 2001) - 1000;
			if (v < 0)
				v = 0;
			val[p][k] = v;
			printf("\tmetric_erlang_%s: %lld, %lld", METRIC[k], (long long)v,
			       seen[p] ? (long long)(v - old) : 0LL);
		}
		seen[p] = 1;
		putchar('\n');
		for (k = 0; k < depth; k++) {
			unsigned m = (unsigned)((p * 7 + k * 13 + (k > depth - 4 ? variant : 0)) % 40);
			printf("\t0 mod_%u:fun_%u_%u/%u (mod_%u.erl:%u)\n", m, m, k, k % 4, m, 100 + k);
		}
		printf("\t0 queue:0 ([category])\n\t0 memory:4KiB-64KiB ([category])\n"
		       "\t0 name:srv_%ld ([category])\n\t0 initial_call:proc_lib:init_p/5 ([category])\n\n",
		       p);
	}
	return 0;
}

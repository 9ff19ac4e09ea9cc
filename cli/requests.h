/*
 * requests.h - `flameprof requests`: time per request kind and tier.
 */
#ifndef FP_CLI_REQUESTS_H
#define FP_CLI_REQUESTS_H

/* argv[0] is "requests". @return the exit status. */
int fp_requests_main(int argc, char **argv);

#endif

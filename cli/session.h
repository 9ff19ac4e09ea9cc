/*
 * session.h - what every command that talks to a node does the same way:
 * stop signals, the monotonic clock, the cookie, and the exit status of a
 * sampler error.
 */
#ifndef FP_CLI_SESSION_H
#define FP_CLI_SESSION_H

#include <stddef.h>

/* SIGINT, SIGTERM and SIGHUP only count (fp_stop_signals()); SIGPIPE and
 * SIGXFSZ are ignored, so a closed pipe or a full file is an error we
 * report, not a death with the last frame unwritten. */
void fp_install_stop_signals(void);
/* How many stop signals have arrived (a second one means "now"). */
int fp_stop_signals(void);
/* The monotonic clock (common/clock.h's fp_mono_ms()), in ms. */
long long fp_now_ms(void);
/* The cookie into buf: --cookie (with a warning that 'ps' shows it; argv's
 * copy is blanked), else read from cookie_file, else $RELEASE_COOKIE (as a
 * mix release takes it; blanked and unset), else ~/.erlang.cookie (a file
 * others may read, or not a regular file, is refused as erl refuses it).
 * Core dumps are turned off first. *out points at buf. @return 0, or 77
 * (EX_NOPERM) once the reason is said. */
int fp_read_cookie(const char *cookie, const char *cookie_file, char *buf, size_t cap, const char **out);
/* Wipes buf of fp_read_cookie(): called right after the handshake. */
void fp_wipe_cookie(void);
/* The documented exit status of a negative enum sampler_err. */
int fp_exit_for_sampler(int err);

#endif

/*
 * msg.h - the only voice of flameprof (curl's tool_msgs.h).
 *
 * One verbosity scale, written down once:
 *   0  -q: errors only
 *   1  default: errors, warnings, the closing summary, the status line
 *   2  -v: notes on each step (connecting, agent loaded, files rotated)
 * Each message is one line; the helpers add "flameprof: " and the newline.
 */
#ifndef FP_MSG_H
#define FP_MSG_H

extern int fp_verbosity;

void fp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fp_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A result or summary line (level 1: what a command read and wrote). */
void fp_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A usage error: the sentence, then "try '<fp_help_command>'". */
void fp_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The help a usage error points to: "flameprof --help" unless a
 * subcommand sets its own. */
extern const char *fp_help_command;

/* The status line owns the end of stderr while it is shown: messages
 * clear it first. */
void fp_status_clear(void);
/* Columns the status line may use: the terminal's width less one (at most 240), else 159. */
int fp_status_width(void);
void fp_status_show(const char *line);
extern int fp_status_active;

#endif

/*
 * capture_door.h - the front door's side of the capture (capture/capture.h):
 * its sentences said through the one voice (msg.h), its status line drawn,
 * its cookies read and wiped (session.h, cookie_files.h), the stop signals
 * counted; and what a capture's end means as an exit status. The capture
 * (options.c) and `flameprof top` (top.c) use it alike.
 */
#ifndef FP_CAPTURE_DOOR_H
#define FP_CAPTURE_DOOR_H

#include "../capture/capture.h"

/* The door for a command of cfg's settings (--progress, --cookie,
 * --cookie-file, --cluster, the test switch --fake-tty), its live status
 * line decided: a terminal in the foreground, or --progress. */
void fp_capture_door(struct cap_door *door, const struct cap_config *cfg);
/* The exit status (sysexits.h, or FP_EX_PARTIAL) of a capture's end. */
int fp_exit_for_capture(int rc);
/* The exit status of a run over several nodes when some failed (each said
 * in its sentence) and the others' captures ended well: their files are
 * complete. Past sysexits.h's range, so that no failure of one node reads
 * as it. */
#define FP_EX_PARTIAL 79

#endif

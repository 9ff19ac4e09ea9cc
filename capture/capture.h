/*
 * capture.h - the capture's door: one capture over cfg's nodes, from
 * connecting to the summary (sampler -> formatter -> rotate, the report
 * index beside). As report_run() is the report's, capture_run() is its one
 * entry; the front door (cli/) turns argv into the config and supplies the
 * door (cap_door.h): the voice, the status line, the cookies and the stop
 * signals.
 * The capture prints nothing and picks no exit status: it says each
 * sentence through door->say and returns a CAP_* code.
 */
#ifndef CAP_CAPTURE_H
#define CAP_CAPTURE_H

#include "cap_config.h"
#include "cap_door.h"

/* One capture over cfg's nodes (cfg->node, cfg->nodes, --cluster's
 * discovery), each name already checked by the front door. Every failure
 * is said through door->say first. @return CAP_OK, or the first failed
 * node's CAP_E_* when all failed, or CAP_E_PARTIAL. */
int capture_run(const struct cap_config *cfg, const struct cap_door *door);

#endif

/*
 * cap_internal.h - what the capture's files share and no other room sees.
 */
#ifndef CAP_INTERNAL_H
#define CAP_INTERNAL_H

#include "cap_door.h"

/* One sentence through door->say, formatted (cut at 4 KiB). */
void cap_say(const struct cap_door *door, enum cap_say kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif

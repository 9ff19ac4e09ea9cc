/* cap_say.c - see cap_internal.h. */
#include <stdarg.h>
#include <stdio.h>
#include "cap_internal.h"

void cap_say(const struct cap_door *door, enum cap_say kind, const char *fmt, ...)
{
	char text[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	door->say(door->arg, kind, text);
}

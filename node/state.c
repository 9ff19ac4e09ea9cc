/*
 * state.c - the handle's error sentence and what it knows of the node. Kept
 * apart from connect.c so that every file of node/ can say an error
 * without depending on connecting (no circle between the files).
 */
#include <stdarg.h>
#include <stdio.h>
#include "internal.h"

int node_errf(node_t *s, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof s->err, fmt, ap);
	va_end(ap);
	return code;
}

const char *node_error(const node_t *s)
{
	return s ? s->err : "out of memory";
}

const char *node_target(const node_t *s)
{
	return s->node;
}

int node_timeout_ms(const node_t *s)
{
	return s->opts.connect_timeout_ms;
}

const char *node_own_name(const node_t *s)
{
	return s->own_name[0] ? s->own_name : s->node;
}

const char *node_otp_release(const node_t *s)
{
	return s->otp;
}

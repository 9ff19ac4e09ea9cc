/*
 * rep_color.h - stable colours: the same name gets the same colour in
 * every picture. Code frames are warm (hue by module, so a module's
 * functions look alike), category frames cool, statuses green, the
 * negative root violet.
 */
#ifndef REP_COLOR_H
#define REP_COLOR_H

#include <stddef.h>

#include "rep_frames.h"

/* Writes "#rrggbb" into out (8 bytes). */
void rep_color(enum rep_kind kind, const char *name, size_t len, char out[8]);
/* A heat scale: level 1..levels, negative values in blue. */
void rep_heat_color(int level, int levels, int negative, char out[8]);

#endif

/*
 * rep_names.h - frames in the node's language: Erlang's spelling (as the
 * files hold them) or Elixir's (as Exception.format_mfa/3 writes them).
 *
 * The files always hold the node's own atoms (`Elixir.Shop.Pricing:handle_call/3`);
 * the capture writes `names=elixir` (or `names=erlang`) in the header's
 * settings line, and the report draws Elixir's spelling where that, or
 * `report --names elixir`, says so (doc/output-format.md, "Elixir names").
 * Pure: no I/O, no allocation.
 */
#ifndef REP_NAMES_H
#define REP_NAMES_H

#include <stddef.h>

#include "../common/names.h"

/* The Elixir spelling of a frame: fp_names_elixir() (common/names.h). */

/*
 * The names a file header line asks for: FP_NAMES_ELIXIR or FP_NAMES_ERLANG
 * for a `# settings:` line with ` names=elixir` or ` names=erlang`, else
 * FP_NAMES_AUTO (the line says nothing: an Erlang node, or an older file).
 */
enum fp_names rep_names_header(const char *line, size_t len);

/*
 * The spelling of an Elixir name in line-based outputs (folded stacks, whose
 * readers split a line on ';' and on its last space): '%', ';', spaces and
 * control bytes as %XX, bytes past ASCII by flameprof's escape
 * (formatter/escape.c: valid UTF-8 stays, except Unicode spaces), the rest
 * as it is (Enum."-map/2-lists^map/1-0-"/2, :erlang.>=/2), so fmt_unescape
 * gives the name back; and the two spaces of a leading "anonymous fn/N in "
 * as '_' ("anonymous_fn/1_in_Enum.map/2"): no other Elixir spelling starts
 * with "anonymous_fn/", so the '_' go back to spaces unambiguously.
 * @return the length of the whole spelling, as snprintf; out (cap bytes,
 * NULL when cap is 0) holds it and a '\0' when it fits, else "".
 */
size_t rep_names_line_spelling(const char *s, size_t n, char *out, size_t cap);

#endif

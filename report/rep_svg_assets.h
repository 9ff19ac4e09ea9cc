/*
 * rep_svg_assets.h - the CSS and JavaScript inlined into the SVGs, so a
 * picture is one self-contained file that needs no network.
 */
#ifndef REP_SVG_ASSETS_H
#define REP_SVG_ASSETS_H

extern const char rep_flame_css[];
extern const char rep_flame_js[];
extern const char rep_heat_css[];
extern const char rep_heat_js[];

#endif

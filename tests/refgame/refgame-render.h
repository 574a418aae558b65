/* refgame-render.h: the reference game's scene as pixels: the well the
 * crates fall into, every crate, the held crate under its rope, and the
 * score, drawn into an RGB frame; then cut to a region and scaled down.
 *
 * The projection, for a frame of W x H pixels (what the tests check):
 * one centi-unit is H/750 pixels; world x = 0 is column W/2; the view spans
 * y = -50 (the ground slab) to 700 centi-units, so world y is row
 * H - (y + 50) * H / 750 (rows grow downwards). A crate at (x, y) of width w
 * covers columns W/2 + (x - w/2) * H/750 .. W/2 + (x + w/2) * H/750 and
 * rows from y + 50 down to y; its inside (past a 2-pixel border) has the
 * colour of its kind.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "refgame-sim.h"

G_BEGIN_DECLS

#define RG_RENDER_VIEW_CENTI 750

/* The colours, R G B. */
#define RG_RGB_SKY     0x1e2230
#define RG_RGB_WELL    0x2e3448
#define RG_RGB_GROUND  0x5a4632
#define RG_RGB_WOOD    0xb07a40
#define RG_RGB_STEEL   0x8c96a5
#define RG_RGB_ICE     0x96dcf5
#define RG_RGB_ROPE    0xc8c8c8
#define RG_RGB_TEXT    0xf0f0f0
#define RG_RGB_OVER    0xc82828

/* (transfer full): W * H * 3 bytes; W and H 1..RG_PNG_MAX_SIDE. */
guint8 *rg_render_scene      (RgSim        *sim,
                              guint         width,
                              guint         height);
/* (transfer full): the region (x, y, w, h) of a frame of @width columns,
 * scaled to @out_width x @out_height by nearest neighbour. */
guint8 *rg_render_crop_scale (const guint8 *rgb,
                              guint         width,
                              guint         x,
                              guint         y,
                              guint         w,
                              guint         h,
                              guint         out_width,
                              guint         out_height);

G_END_DECLS

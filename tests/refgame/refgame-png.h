/* refgame-png.h: a small PNG writer (8-bit RGB, one IDAT, zlib) for the
 * reference game's /screenshot.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Largest side the writer accepts, so a row and the image stay far from
 * any integer limit. */
#define RG_PNG_MAX_SIDE 16384

GBytes *rg_png_encode_rgb (const guint8  *rgb,
                           guint          width,
                           guint          height,
                           GError       **error);

G_END_DECLS

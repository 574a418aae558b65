/* gabp-mod-screenshot.h: the reference mod's frames as images.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

/* The frame with the player at (@player_x, @player_y), cut to `region`
 * {x, y, width, height} of @args and fitted into its `width` x `height`
 * (never larger), as a PNG. */
GBytes *gabp_mod_screenshot_png (JsonObject *args,
                                 gint64      player_x,
                                 gint64      player_y);
/* Sets @r's `image` to {"mimeType", "data": base64 of @data}. */
void    gabp_mod_set_image      (JsonObject   *r,
                                 const char   *mime_type,
                                 const guint8 *data,
                                 gsize         length);
/* Sets @r's `image` to a broken one of @kind: truncated, not-image,
 * mismatch, bad-base64 (anything else: no data). */
void    gabp_mod_bad_image      (JsonObject *r,
                                 const char *kind,
                                 gint64      player_x,
                                 gint64      player_y);

/* refgame-screenshot.h: GET /screenshot of the reference game, gamegate's
 * extension of the contract (docs/game-bridge-extensions.md).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <libsoup/soup.h>

#include "refgame-game.h"

G_BEGIN_DECLS

#define RG_SCREENSHOT_DEFAULT_WIDTH  640
#define RG_SCREENSHOT_DEFAULT_HEIGHT 480

typedef struct {
  guint    width;        /* the native frame */
  guint    height;
  gboolean disabled;     /* 404, as a game without the endpoint */
  gboolean ignore_size;  /* serve the native frame whatever is asked */
} RgScreenshotOptions;

gboolean  rg_screenshot_parse_size (const char  *text,
                                    guint       *width,
                                    guint       *height,
                                    GError     **error);
/* The `screenshot` member of /tools, NULL when disabled. */
char     *rg_screenshot_manifest   (const RgScreenshotOptions *options);
void      rg_screenshot_respond    (const RgScreenshotOptions *options,
                                    RgGame                    *game,
                                    SoupServerMessage         *msg);

G_END_DECLS

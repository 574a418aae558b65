/* gb-screenshot-http.h: GET /screenshot of one HTTP game, the bytes read
 * within the limits and checked (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gb-connector.h"
#include "gb-image.h"

G_BEGIN_DECLS

/* What an agent asked for; 0 = not asked. */
typedef struct {
  guint    width;
  guint    height;
  gboolean has_region;
  guint    region[4];  /* x, y, w, h */
} GbScreenshotRequest;

typedef struct {
  GBytes      *bytes;   /* as the game served them */
  GbImageInfo  info;
  gint64       frame;   /* X-Frame; -1 when the game did not say */
} GbScreenshot;

void          gb_screenshot_free        (GbScreenshot *shot);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GbScreenshot, gb_screenshot_free)

char         *gb_screenshot_request_query (const GbScreenshotRequest *request);
void          gb_screenshot_http_async  (GbConnector               *connector,
                                         const GbScreenshotRequest *request,
                                         GCancellable              *cancellable,
                                         GAsyncReadyCallback        callback,
                                         gpointer                   user_data);
GbScreenshot *gb_screenshot_http_finish (GAsyncResult  *result,
                                         GError       **error);

G_END_DECLS

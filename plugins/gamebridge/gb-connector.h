/* gb-connector.h: the HTTP connector of one game port: /health, /state,
 * /tools, /command (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>
#include <libsoup/soup.h>

#include "gb-image.h"
#include "gb-manifest.h"

G_BEGIN_DECLS

#define GB_POLL_INTERVAL_MS    16

#define GB_TYPE_CONNECTOR (gb_connector_get_type ())
G_DECLARE_FINAL_TYPE (GbConnector, gb_connector, GB, CONNECTOR, GObject)

/* Signal `manifest-changed` (): the cached manifest was dropped (the frame
 * went backwards: a new process) or loaded afresh. */

GbConnector *gb_connector_new            (SoupSession *session,
                                          guint        port,
                                          guint        timeout_ms,
                                          const char  *launch_hint,
                                          GbManifest  *file_manifest);
guint        gb_connector_get_port       (GbConnector *self);
guint        gb_connector_get_timeout    (GbConnector *self);
void         gb_connector_set_launch_hint (GbConnector *self,
                                           const char  *launch_hint);
GbManifest  *gb_connector_peek_manifest  (GbConnector *self);
void         gb_connector_drop_manifest  (GbConnector *self);
/* GET @path_query -> parsed JSON, with the timeout and error classes. */
void         gb_connector_get_async      (GbConnector         *self,
                                          const char          *path_query,
                                          guint                timeout_ms,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
JsonNode    *gb_connector_get_finish     (GbConnector   *self,
                                          GAsyncResult  *result,
                                          guint         *out_status,
                                          GError       **error);
/* GET /health, checked: {"ok":true,...}, else NotAGameSurface. */
void         gb_connector_health_async   (GbConnector         *self,
                                          guint                timeout_ms,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
JsonObject  *gb_connector_health_finish  (GbConnector   *self,
                                          GAsyncResult  *result,
                                          GError       **error);
void         gb_connector_state_async    (GbConnector         *self,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
JsonNode    *gb_connector_state_finish   (GbConnector   *self,
                                          GAsyncResult  *result,
                                          GError       **error);
/* The manifest: cached; GET /tools; 404 -> the --manifest file or the fallback. */
void         gb_connector_manifest_async (GbConnector         *self,
                                          gboolean             reload,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
GbManifest  *gb_connector_manifest_finish(GbConnector   *self,
                                          GAsyncResult  *result,
                                          GError       **error);
gint64       gb_connector_get_last_frame (GbConnector *self);

/* For GET /screenshot (gb-screenshot-http.c). */
SoupSession *gb_connector_get_session    (GbConnector *self);
const char  *gb_connector_get_launch_hint (GbConnector *self);
const GbImageLimits *gb_connector_get_image_limits (GbConnector *self);
void         gb_connector_set_image_limits (GbConnector         *self,
                                            const GbImageLimits *limits);
/* Whether the game serves GET /screenshot, as far as the bridge learnt it:
 * -1 not known, 0 no, 1 yes. /health's `screenshot` sets it, and so does
 * an answer of /screenshot; a new process (the frame went back) forgets it. */
int          gb_connector_get_screenshot_support (GbConnector *self);
void         gb_connector_set_screenshot_support (GbConnector *self,
                                                  int          support);

G_END_DECLS

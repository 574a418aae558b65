/* gb-frontend.h: the `mcp` front end (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

#include "gb-mcp-server.h"
#include "gb-image.h"

G_BEGIN_DECLS

#define GB_TYPE_FRONTEND (gb_frontend_get_type ())
G_DECLARE_FINAL_TYPE (GbFrontend, gb_frontend, GB, FRONTEND, GObject)

GbFrontend *gb_frontend_new           (GgBus  *bus,
                                       guint   http_port,
                                       GArray *ports);
guint       gb_frontend_get_http_port (GbFrontend *self);
/* The daemon's Streamable HTTP limits, before it starts. */
void        gb_frontend_set_http_settings (GbFrontend              *self,
                                           const GbMcpHttpSettings *settings);
/* [gamebridge] screenshot-max-bytes and screenshot-max-side, before start. */
void        gb_frontend_set_image_limits (GbFrontend          *self,
                                          const GbImageLimits *limits);
/* [gamebridge] resource-update-interval-ms, before start. */
void        gb_frontend_set_resource_interval (GbFrontend *self,
                                               guint       interval_ms);

G_END_DECLS

/* gb-bridge.h: the bridge of `gamegate mcp` (gb-bridge.c): options, the
 * HTTP session, the launcher and the HTTP targets it put on the bus, and the
 * resolution of the instance a tool names (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>
#include <libsoup/soup.h>

#include "gb-bridge-toolset.h"
#include "gb-command-sync.h"
#include "gb-connector.h"
#include "gb-errors.h"
#include "gb-image.h"
#include "gb-launch-config.h"
#include "gb-launcher.h"
#include "gb-manifest.h"
#include "gb-options.h"
#include "gb-registry.h"
#include "gb-scan.h"
#include "gb-target.h"

G_BEGIN_DECLS

typedef struct {
  GgBus *bus;
  GbOptions options;         /* resolved */
  SoupSession *session;
  GbLauncher *launcher;
  GbManifest *file_manifest; /* --manifest */
  GHashTable *targets;       /* port -> GbHttpTarget (also on the bus) */
  gpointer server;           /* GbMcpServer, weak */
  GArray *scan_ports;        /* NULL with --no-scan */
  char *registry_dir;        /* NULL with --no-registry */
  GHashTable *eager_names;   /* flat tool name -> toolset, with --eager */
  GbImageLimits image_limits; /* [gamebridge] screenshot-max-* */
  guint resource_interval_ms; /* [gamebridge] resource-update-interval-ms */
  GHashTable *watches;       /* subscribed URI -> watch (gb-resources.c) */
  gulong target_added_handler;
  gulong target_removed_handler;
} GbBridge;

GbBridge     *gb_bridge_new            (GgBus      *bus,
                                        GbOptions  *options,
                                        GError    **error);
void          gb_bridge_free           (GbBridge *self);
GbHttpTarget *gb_bridge_ensure_target  (GbBridge *self,
                                        guint     port);
void          gb_bridge_forget_target  (GbBridge *self,
                                        guint     port);
void          gb_bridge_shutdown_async (GbBridge            *self,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data);
void          gb_bridge_shutdown_finish (GbBridge     *self,
                                         GAsyncResult *result);
guint         gb_bridge_resolve_port   (GbBridge   *self,
                                        JsonObject *args,
                                        JsonObject *inner);
GgTarget     *gb_bridge_resolve_target (GbBridge    *self,
                                        JsonObject  *args,
                                        JsonObject  *inner,
                                        GError     **error);
void          gb_bridge_forget_if_offline (GbBridge     *self,
                                           GgTarget     *target,
                                           const GError *error);
G_END_DECLS

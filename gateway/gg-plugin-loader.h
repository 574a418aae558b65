/* gg-plugin-loader.h: finds, checks and sets up plugin modules (host only).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

/* A module the loader did not take, and why. */
typedef struct {
  char *path;
  char *reason;
  gboolean disabled;  /* listed in [gateway] disabled-plugins: no warning */
  char *name;         /* plugin name when the descriptor was readable, else NULL */
} GgPluginRefusal;

#define GG_TYPE_PLUGIN_LOADER (gg_plugin_loader_get_type ())
G_DECLARE_FINAL_TYPE (GgPluginLoader, gg_plugin_loader, GG, PLUGIN_LOADER, GObject)

GgPluginLoader *gg_plugin_loader_new            (GgBus      *bus,
                                                 GgConfig   *config);
void            gg_plugin_loader_add_directory  (GgPluginLoader *self,
                                                 const char     *directory,
                                                 gboolean        warn_if_missing);
void            gg_plugin_loader_set_disabled   (GgPluginLoader     *self,
                                                 const char * const *names);
gboolean        gg_plugin_loader_load_all       (GgPluginLoader  *self,
                                                 GError         **error);
GPtrArray      *gg_plugin_loader_get_plugins    (GgPluginLoader *self);
GPtrArray      *gg_plugin_loader_get_refusals   (GgPluginLoader *self);
gboolean        gg_plugin_loader_is_disabled    (GgPluginLoader *self,
                                                 const char     *name);

G_END_DECLS

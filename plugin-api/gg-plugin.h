/* gg-plugin.h: the plugin descriptor, the ABI check and the host handle a
 * plugin registers itself through.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined (GAMEGATE_INSIDE) && !defined (GAMEGATE_COMPILATION)
#error "Only <gamegate.h> can be included directly."
#endif

#include <glib-object.h>

G_BEGIN_DECLS

/**
 * GG_ABI_MAJOR:
 *
 * The major version of the plugin ABI this header describes. The host
 * refuses a module built for another major.
 *
 * Since: 1.0
 */
#define GG_ABI_MAJOR 1

/**
 * GG_ABI_MINOR:
 *
 * The minor version of the plugin ABI this header describes. The host
 * refuses a module built for a newer minor than its own; additions to the
 * API bump it.
 *
 * Since: 1.0
 */
#define GG_ABI_MINOR 0

typedef struct _GgBus GgBus;
typedef struct _GgConfig GgConfig;
typedef struct _GgFrontend GgFrontend;

/**
 * GgPlugin:
 *
 * The host's handle for one loaded plugin module: its descriptor, its path,
 * and the bus and configuration it registers itself with from its
 * #GgPluginSetupFunc.
 *
 * Since: 1.0
 */
#define GG_TYPE_PLUGIN (gg_plugin_get_type ())
G_DECLARE_FINAL_TYPE (GgPlugin, gg_plugin, GG, PLUGIN, GObject)

/**
 * GgPluginSetupFunc:
 * @plugin: the host's handle for this plugin
 * @error: return location for a #GError
 *
 * Registers the plugin's GTypes, model factories and front ends with the
 * host. An error from the %GG_CONFIG_ERROR domain is a configuration mistake
 * and stops the host; any other error refuses just this plugin.
 *
 * Returns: %TRUE when the plugin registered everything it brings
 *
 * Since: 1.0
 */
typedef gboolean (*GgPluginSetupFunc) (GgPlugin *plugin, GError **error);

/**
 * GgPluginDescriptor:
 * @abi_major: %GG_ABI_MAJOR of the headers the module was built with; the
 *   host refuses another major
 * @abi_minor: %GG_ABI_MINOR of those headers; the host refuses a newer minor
 *   than its own
 * @name: the plugin's unique name, e.g. "model-scripted"; a second module of
 *   the same name is refused
 * @version: the plugin's version, one line of UTF-8
 * @description: one line for `gamegate plugins`
 * @license: the SPDX licence expression of the module
 * @setup: called once the module is accepted, to register what it brings
 *
 * The static description every module returns from gg_plugin_describe().
 * Declare it with GG_PLUGIN_DEFINE(); never fill it by hand.
 *
 * Since: 1.0
 */
typedef struct {
  guint32 abi_major;
  guint32 abi_minor;
  const char *name;
  const char *version;
  const char *description;
  const char *license;
  GgPluginSetupFunc setup;
  /*< private >*/
  gpointer reserved[8];
} GgPluginDescriptor;

/**
 * GG_PLUGIN_ENTRY_SYMBOL:
 *
 * The one symbol a plugin module exports, a #GgPluginDescribeFunc.
 *
 * Since: 1.0
 */
#define GG_PLUGIN_ENTRY_SYMBOL "gg_plugin_describe"

/**
 * GgPluginDescribeFunc:
 *
 * The type of gg_plugin_describe(), the entry of a module, written by
 * GG_PLUGIN_DEFINE().
 *
 * Returns: (transfer none): the module's static descriptor
 *
 * Since: 1.0
 */
typedef const GgPluginDescriptor *(*GgPluginDescribeFunc) (void);

/**
 * GG_PLUGIN_DEFINE:
 * @name: unique plugin name, e.g. "model-scripted"
 * @version: the plugin's version string
 * @description: one line for `gamegate plugins`
 * @license: SPDX licence expression
 * @setup: a #GgPluginSetupFunc
 *
 * Defines gg_plugin_describe() for a plugin module.
 *
 * Since: 1.0
 */
#define GG_PLUGIN_DEFINE(name, version, description, license, setup)       \
  G_MODULE_EXPORT const GgPluginDescriptor *gg_plugin_describe (void);     \
  G_MODULE_EXPORT const GgPluginDescriptor *                               \
  gg_plugin_describe (void)                                                \
  {                                                                        \
    static const GgPluginDescriptor descriptor = {                         \
      GG_ABI_MAJOR, GG_ABI_MINOR, name, version, description, license,     \
      setup, { NULL }                                                      \
    };                                                                     \
    return &descriptor;                                                    \
  }

gboolean gg_plugin_descriptor_check (const GgPluginDescriptor *descriptor,
                                     GError                  **error);

GgPlugin   *gg_plugin_new             (const GgPluginDescriptor *descriptor,
                                       const char               *path,
                                       GgBus                    *bus,
                                       GgConfig                 *config);
gboolean    gg_plugin_setup           (GgPlugin *self,
                                       GError  **error);
const char *gg_plugin_get_name        (GgPlugin *self);
const char *gg_plugin_get_version     (GgPlugin *self);
const char *gg_plugin_get_description (GgPlugin *self);
const char *gg_plugin_get_license     (GgPlugin *self);
const char *gg_plugin_get_path        (GgPlugin *self);
GgBus      *gg_plugin_get_bus         (GgPlugin *self);
GgConfig   *gg_plugin_get_config      (GgPlugin *self);
void        gg_plugin_add_frontend    (GgPlugin   *self,
                                       GgFrontend *frontend);

G_END_DECLS

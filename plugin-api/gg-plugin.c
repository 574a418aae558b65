/* gg-plugin.c: the descriptor check and the host's handle for one plugin.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-bus.h"
#include "gg-bus-private.h"
#include "gg-config.h"
#include "gg-plugin.h"

struct _GgPlugin {
  GObject parent_instance;

  const GgPluginDescriptor *descriptor;
  char *path;
  GgBus *bus;
  GgConfig *config;
};

G_DEFINE_FINAL_TYPE (GgPlugin, gg_plugin, G_TYPE_OBJECT)

static gboolean
is_valid_plugin_name (const char *name)
{
  if (name == NULL || *name == '\0' || strlen (name) > 64)
    return FALSE;
  for (const char *p = name; *p; p++)
    if (!g_ascii_islower (*p) && !g_ascii_isdigit (*p) && *p != '-')
      return FALSE;
  return TRUE;
}

static gboolean
is_one_line (const char *text)
{
  if (*text == '\0' || strlen (text) > 1024 || !g_utf8_validate (text, -1, NULL))
    return FALSE;
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    if (g_unichar_iscntrl (g_utf8_get_char (p)))
      return FALSE;
  return TRUE;
}

/**
 * gg_plugin_descriptor_check:
 * @descriptor: (nullable): what a module's gg_plugin_describe() returned
 * @error: return location for a #GError
 *
 * Checks that the host can use @descriptor: the ABI major must equal
 * %GG_ABI_MAJOR, the minor must not be newer than %GG_ABI_MINOR, every
 * field must be set, the name valid and the other texts one line each.
 * The error message is the reason shown to the user.
 *
 * Returns: %TRUE when the descriptor is usable
 *
 * Since: 1.0
 */
gboolean
gg_plugin_descriptor_check (const GgPluginDescriptor *descriptor,
                            GError                  **error)
{
  if (descriptor == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "gg_plugin_describe() returned no descriptor");
      return FALSE;
    }
  if (descriptor->abi_major != GG_ABI_MAJOR)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "built for plugin ABI %u.%u, this gamegate provides ABI %u.%u",
                   descriptor->abi_major, descriptor->abi_minor,
                   GG_ABI_MAJOR, GG_ABI_MINOR);
      return FALSE;
    }
  if (descriptor->abi_minor > GG_ABI_MINOR)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "needs plugin ABI %u.%u, newer than this gamegate's %u.%u",
                   descriptor->abi_major, descriptor->abi_minor,
                   GG_ABI_MAJOR, GG_ABI_MINOR);
      return FALSE;
    }

  const char *missing = NULL;
  const char *bad = NULL;
  if (descriptor->name == NULL)
    missing = "name";
  else if (descriptor->version == NULL)
    missing = "version";
  else if (descriptor->description == NULL)
    missing = "description";
  else if (descriptor->license == NULL)
    missing = "license";
  else if (descriptor->setup == NULL)
    missing = "setup";
  if (missing != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "descriptor field '%s' is missing", missing);
      return FALSE;
    }
  /* `gamegate plugins` prints these as they are: one line of text each. */
  if (!is_one_line (descriptor->version))
    bad = "version";
  else if (!is_one_line (descriptor->description))
    bad = "description";
  else if (!is_one_line (descriptor->license))
    bad = "license";
  if (bad != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "descriptor field '%s' is not one non-empty line of UTF-8 text", bad);
      return FALSE;
    }
  if (!is_valid_plugin_name (descriptor->name))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "plugin name '%s' is not 1-64 of a-z, 0-9 and '-'",
                   descriptor->name);
      return FALSE;
    }
  return TRUE;
}

static void
gg_plugin_finalize (GObject *object)
{
  GgPlugin *self = GG_PLUGIN (object);

  g_free (self->path);
  g_clear_object (&self->bus);
  g_clear_object (&self->config);

  G_OBJECT_CLASS (gg_plugin_parent_class)->finalize (object);
}

static void
gg_plugin_class_init (GgPluginClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_plugin_finalize;
}

static void
gg_plugin_init (GgPlugin *self)
{
}

/**
 * gg_plugin_new:
 * @descriptor: a descriptor that passed gg_plugin_descriptor_check(); it
 *   must outlive the plugin (it is static in a resident module)
 * @path: (nullable): the module's file, for messages
 * @bus: the process's bus
 * @config: (nullable): the gateway configuration; an empty one when %NULL
 *
 * Creates the host's handle for one plugin. Call gg_plugin_setup() next.
 *
 * Returns: (transfer full): a new #GgPlugin
 *
 * Since: 1.0
 */
GgPlugin *
gg_plugin_new (const GgPluginDescriptor *descriptor,
               const char               *path,
               GgBus                    *bus,
               GgConfig                 *config)
{
  g_return_val_if_fail (descriptor != NULL, NULL);
  g_return_val_if_fail (GG_IS_BUS (bus), NULL);
  g_return_val_if_fail (config == NULL || GG_IS_CONFIG (config), NULL);

  GgPlugin *self = g_object_new (GG_TYPE_PLUGIN, NULL);
  self->descriptor = descriptor;
  self->path = g_strdup (path);
  self->bus = g_object_ref (bus);
  self->config = config != NULL ? g_object_ref (config) : gg_config_new ();
  return self;
}

/**
 * gg_plugin_setup:
 * @self: a #GgPlugin
 * @error: return location for a #GError
 *
 * Runs the plugin's setup function, which registers what the plugin offers.
 * When it fails, the front ends and model types it registered are removed
 * from the bus again. A setup that fails without setting @error gets a
 * generic error, so the host can always name a reason.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gg_plugin_setup (GgPlugin *self,
                 GError  **error)
{
  g_autoptr(GError) local_error = NULL;
  g_auto(GStrv) types_before = NULL;
  g_auto(GStrv) types_after = NULL;
  guint frontends_before;

  g_return_val_if_fail (GG_IS_PLUGIN (self), FALSE);

  frontends_before = _gg_bus_get_n_frontends (self->bus);
  types_before = gg_bus_list_model_types (self->bus);
  if (self->descriptor->setup (self, &local_error))
    return TRUE;
  if (local_error == NULL)
    local_error = g_error_new (G_IO_ERROR, G_IO_ERROR_FAILED,
                               "setup failed without giving a reason");

  /* A refused plugin offers nothing: a front end it registered before
   * failing would otherwise still listen in daemon mode. */
  _gg_bus_truncate_frontends (self->bus, frontends_before);
  types_after = gg_bus_list_model_types (self->bus);
  for (guint i = 0; types_after[i] != NULL; i++)
    if (!g_strv_contains ((const char * const *) types_before, types_after[i]))
      _gg_bus_unregister_model_type (self->bus, types_after[i]);

  g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

/**
 * gg_plugin_get_name:
 * @self: a #GgPlugin
 *
 * Gets the name from the plugin's descriptor.
 *
 * Returns: (transfer none): the plugin's unique name
 *
 * Since: 1.0
 */
const char *
gg_plugin_get_name (GgPlugin *self)
{
  g_return_val_if_fail (GG_IS_PLUGIN (self), NULL);
  return self->descriptor->name;
}

/**
 * gg_plugin_get_version:
 * @self: a #GgPlugin
 *
 * Gets the version from the plugin's descriptor.
 *
 * Returns: (transfer none): the plugin's version
 *
 * Since: 1.0
 */
const char *
gg_plugin_get_version (GgPlugin *self)
{
  g_return_val_if_fail (GG_IS_PLUGIN (self), NULL);
  return self->descriptor->version;
}

/**
 * gg_plugin_get_description:
 * @self: a #GgPlugin
 *
 * Gets the description from the plugin's descriptor.
 *
 * Returns: (transfer none): one line about the plugin
 *
 * Since: 1.0
 */
const char *
gg_plugin_get_description (GgPlugin *self)
{
  g_return_val_if_fail (GG_IS_PLUGIN (self), NULL);
  return self->descriptor->description;
}

/**
 * gg_plugin_get_license:
 * @self: a #GgPlugin
 *
 * Gets the licence from the plugin's descriptor.
 *
 * Returns: (transfer none): the SPDX licence expression
 *
 * Since: 1.0
 */
const char *
gg_plugin_get_license (GgPlugin *self)
{
  g_return_val_if_fail (GG_IS_PLUGIN (self), NULL);
  return self->descriptor->license;
}

/**
 * gg_plugin_get_path:
 * @self: a #GgPlugin
 *
 * Gets the file the plugin was loaded from.
 *
 * Returns: (transfer none) (nullable): the module file
 *
 * Since: 1.0
 */
const char *
gg_plugin_get_path (GgPlugin *self)
{
  g_return_val_if_fail (GG_IS_PLUGIN (self), NULL);
  return self->path;
}

/**
 * gg_plugin_get_bus:
 * @self: a #GgPlugin
 *
 * Gets the bus the plugin registers its model types, front ends and targets
 * on.
 *
 * Returns: (transfer none): the process's bus
 *
 * Since: 1.0
 */
GgBus *
gg_plugin_get_bus (GgPlugin *self)
{
  g_return_val_if_fail (GG_IS_PLUGIN (self), NULL);
  return self->bus;
}

/**
 * gg_plugin_get_config:
 * @self: a #GgPlugin
 *
 * The gateway configuration; a plugin reads the group named after it.
 *
 * Returns: (transfer none): the configuration
 *
 * Since: 1.0
 */
GgConfig *
gg_plugin_get_config (GgPlugin *self)
{
  g_return_val_if_fail (GG_IS_PLUGIN (self), NULL);
  return self->config;
}

/**
 * gg_plugin_add_frontend:
 * @self: a #GgPlugin
 * @frontend: a front end this plugin provides
 *
 * Registers @frontend with the bus, so `gamegate <name>` and the daemon
 * find it. A name already taken by another front end is refused with a
 * warning.
 *
 * Since: 1.0
 */
void
gg_plugin_add_frontend (GgPlugin   *self,
                        GgFrontend *frontend)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (GG_IS_PLUGIN (self));
  g_return_if_fail (GG_IS_FRONTEND (frontend));

  if (!gg_bus_add_frontend (self->bus, frontend, &error))
    g_warning ("%s: %s", self->descriptor->name, error->message);
}

/* gg-test-plugin.c: finding and loading a plugin module from the build tree
 * (see gg-test-plugin.h). The module is made resident, as the host does, so
 * its types outlive the plugin object.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gmodule.h>

#include "gg-test-plugin.h"

char *
gg_test_find_plugin (const char *module_name)
{
  const char *path = g_getenv ("GAMEGATE_PLUGIN_PATH");
  g_auto(GStrv) dirs = g_strsplit (path != NULL ? path : "", ":", -1);
  g_autofree char *file_name = g_strconcat (module_name, ".so", NULL);

  for (guint i = 0; dirs[i] != NULL; i++)
    {
      g_autofree char *file = g_build_filename (dirs[i], file_name, NULL);

      if (g_file_test (file, G_FILE_TEST_EXISTS))
        return g_steal_pointer (&file);
    }
  return NULL;
}

const GgPluginDescriptor *
gg_test_load_plugin (GgBus      *bus,
                     const char *module_name,
                     GgConfig   *config,
                     GError    **error)
{
  g_autofree char *file = gg_test_find_plugin (module_name);
  g_autoptr(GgPlugin) plugin = NULL;
  GgPluginDescribeFunc describe = NULL;
  const GgPluginDescriptor *descriptor;
  GModule *module;

  if (file == NULL)
    g_error ("%s.so not found in GAMEGATE_PLUGIN_PATH (%s)", module_name,
             g_getenv ("GAMEGATE_PLUGIN_PATH"));
  module = g_module_open (file, G_MODULE_BIND_LOCAL);
  if (module == NULL)
    g_error ("%s: %s", file, g_module_error ());
  g_assert_true (g_module_symbol (module, GG_PLUGIN_ENTRY_SYMBOL, (gpointer *) &describe));
  g_module_make_resident (module);
  descriptor = describe ();
  g_assert_true (gg_plugin_descriptor_check (descriptor, NULL));
  g_assert_cmpstr (descriptor->name, ==, module_name);
  plugin = gg_plugin_new (descriptor, file, bus, config);
  if (!gg_plugin_setup (plugin, error))
    return NULL;
  return descriptor;
}

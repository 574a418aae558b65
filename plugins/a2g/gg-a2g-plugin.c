/* gg-a2g-plugin.c: the a2g plugin's setup: reads [a2g] (every key is in
 * data/gamegate.conf, commented) and adds the front end that runs the A2G
 * decision service (`gamegate a2g`, and the listener of `gamegate serve`).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-frontend.h"

static gboolean
a2g_setup (GgPlugin  *plugin,
           GError   **error)
{
  g_autoptr(GgA2gFrontend) frontend = NULL;
  GgA2gSettings settings;

  if (!gg_a2g_settings_load (&settings, gg_plugin_get_config (plugin), error))
    {
      gg_a2g_settings_clear (&settings);
      return FALSE;
    }
  frontend = gg_a2g_frontend_new (gg_plugin_get_bus (plugin), &settings);
  gg_plugin_add_frontend (plugin, GG_FRONTEND (frontend));
  return TRUE;
}

GG_PLUGIN_DEFINE ("a2g", PACKAGE_VERSION,
                  "A2G: the decision service games ask which legal action an entity takes",
                  "LGPL-2.1-or-later", a2g_setup)

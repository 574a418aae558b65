/* gb-plugin.c: the gamebridge plugin: the game-bridge MCP front end (`mcp`),
 * the HTTP game connector and the launcher. Config group [gamebridge]:
 * `http-port` (daemon MCP port on 127.0.0.1, default 7700).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-frontend.h"

#define DEFAULT_HTTP_PORT 7700

static gboolean
gamebridge_setup (GgPlugin *plugin,
                  GError  **error)
{
  g_autoptr(GbFrontend) frontend = NULL;
  gint64 http_port = DEFAULT_HTTP_PORT;

  if (!gg_config_get_int (gg_plugin_get_config (plugin), "gamebridge", "http-port", 0, 65535,
                          DEFAULT_HTTP_PORT, &http_port, error))
    return FALSE;
  frontend = gb_frontend_new (gg_plugin_get_bus (plugin), (guint) http_port);
  gg_plugin_add_frontend (plugin, GG_FRONTEND (frontend));
  return TRUE;
}

GG_PLUGIN_DEFINE ("gamebridge", PACKAGE_VERSION,
                  "game-bridge MCP server: launches, discovers and drives games over their localhost HTTP surface",
                  "LGPL-2.1-or-later", gamebridge_setup)

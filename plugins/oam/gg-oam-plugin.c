/* gg-oam-plugin.c: the oam plugin module: reads the [oam] group and
 * registers the front end.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"


#include "gg-oam-frontend.h"

#define GROUP "oam"

static gboolean
oam_setup (GgPlugin *plugin,
           GError  **error)
{
  GgConfig *config = gg_plugin_get_config (plugin);
  g_autoptr(GgOamFrontend) frontend = NULL;
  g_autofree char *socket_path = NULL;
  GgOamSettings settings;
  double tool_timeout;

  gg_oam_settings_init (&settings);
  if (!gg_config_get_int (config, GROUP, "max-sessions", 0, G_MAXINT32,
                          GG_OAM_DEFAULT_MAX_SESSIONS, &settings.max_sessions, error) ||
      !gg_config_get_int (config, GROUP, "max-npcs", 0, G_MAXINT32,
                          GG_OAM_DEFAULT_MAX_NPCS, &settings.max_npcs, error) ||
      !gg_config_get_int (config, GROUP, "max-worlds", 0, G_MAXINT32,
                          GG_OAM_DEFAULT_MAX_WORLDS, &settings.max_worlds, error) ||
      !gg_config_get_int (config, GROUP, "max-subscriptions", 0, G_MAXINT32,
                          GG_OAM_DEFAULT_MAX_SUBSCRIPTIONS, &settings.max_subscriptions, error) ||
      !gg_config_get_double (config, GROUP, "tool-timeout", 0.0, 86400.0,
                             GG_OAM_DEFAULT_TOOL_TIMEOUT_MS / 1000.0, &tool_timeout, error) ||
      !gg_config_get_boolean (config, GROUP, "scripted-models", TRUE,
                              &settings.scripted_models, error) ||
      !gg_config_get_int (config, GROUP, "max-message-size", 1024, G_MAXINT32,
                          GG_FRAMED_STREAM_DEFAULT_MAX_MESSAGE_SIZE,
                          &settings.max_message_size, error))
    return FALSE;
  settings.tool_timeout_ms = (gint64) (tool_timeout * 1000.0);
  socket_path = gg_config_get_string (config, GROUP, "socket", NULL);
  if (socket_path != NULL && *socket_path == '\0')
    g_clear_pointer (&socket_path, g_free);

  frontend = gg_oam_frontend_new (gg_plugin_get_bus (plugin), &settings, socket_path);
  gg_oam_settings_clear (&settings);
  gg_plugin_add_frontend (plugin, GG_FRONTEND (frontend));
  return TRUE;
}

GG_PLUGIN_DEFINE ("oam", PACKAGE_VERSION,
                  "oam bridge protocol 1.0: agent sessions, NPCs, decisions, world state",
                  "LGPL-2.1-or-later", oam_setup)

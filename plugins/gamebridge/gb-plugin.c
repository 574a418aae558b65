/* gb-plugin.c: the gamebridge plugin: the game-bridge MCP front end (`mcp`),
 * the HTTP game connector and the launcher. Config group [gamebridge]:
 * `http-port` (daemon MCP port on 127.0.0.1, default 7700, or
 * $GAME_BRIDGE_HTTP_PORT), `ports`, the Streamable HTTP limits
 * `http-max-sessions`, `sse-replay-events` and `sse-retry-ms`, the
 * screenshot limits `screenshot-max-bytes` and `screenshot-max-side`, and
 * how often a subscribed resource is looked at, `resource-update-interval-ms`.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-bridge.h"
#include "gb-frontend.h"
#include "gb-resources.h"

#define DEFAULT_HTTP_PORT 7700

static gboolean
read_http_settings (GgConfig           *config,
                    GbMcpHttpSettings  *settings,
                    GError            **error)
{
  gint64 max_sessions, replay_events, retry_ms;

  if (!gg_config_get_int (config, "gamebridge", "http-max-sessions", 1, 65536,
                          GB_MCP_HTTP_DEFAULT_MAX_SESSIONS, &max_sessions, error) ||
      !gg_config_get_int (config, "gamebridge", "sse-replay-events", 1, 65536,
                          GB_MCP_HTTP_DEFAULT_REPLAY_EVENTS, &replay_events, error) ||
      !gg_config_get_int (config, "gamebridge", "sse-retry-ms", 1, 600000,
                          GB_MCP_HTTP_DEFAULT_RETRY_MS, &retry_ms, error))
    return FALSE;
  settings->max_sessions = (guint) max_sessions;
  settings->replay_events = (guint) replay_events;
  settings->retry_ms = (guint) retry_ms;
  return TRUE;
}

static gboolean
gamebridge_setup (GgPlugin *plugin,
                  GError  **error)
{
  g_autoptr(GbFrontend) frontend = NULL;
  g_autoptr(GArray) ports = NULL;
  g_autofree char *ports_spec = NULL;
  GgConfig *config = gg_plugin_get_config (plugin);
  gint64 http_port = DEFAULT_HTTP_PORT;
  gint64 max_bytes, max_side, interval;
  GbImageLimits limits;
  const char *env_port = gg_config_get_env (config, "gamebridge", "http-port", "GAME_BRIDGE_HTTP_PORT");
  guint64 default_port = DEFAULT_HTTP_PORT;
  GbMcpHttpSettings http_settings;

  /* GAME_BRIDGE_HTTP_PORT (0 = any free port) stands in for an absent
   * `http-port`, like the other GAME_BRIDGE_* variables do for options; the
   * tests use it so parallel daemons never race for 7700. */
  if (env_port != NULL && !g_ascii_string_to_unsigned (env_port, 10, 0, 65535, &default_port, NULL))
    {
      g_warning ("Ignoring GAME_BRIDGE_HTTP_PORT=%s: not a port number", env_port);
      default_port = DEFAULT_HTTP_PORT;
    }
  if (!gg_config_get_int (config, "gamebridge", "http-port", 0, 65535, (gint64) default_port, &http_port, error))
    return FALSE;
  if (!read_http_settings (config, &http_settings, error))
    return FALSE;
  ports_spec = gg_config_get_string (config, "gamebridge", "ports", NULL);
  if (ports_spec != NULL && *ports_spec != '\0')
    {
      g_autoptr(GError) local = NULL;

      ports = gb_scan_parse_range (ports_spec, &local);
      if (ports == NULL)
        {
          gg_config_set_invalid (config, "gamebridge", "ports", error, "%s", local->message);
          return FALSE;
        }
    }
  if (!gg_config_get_int (config, "gamebridge", "screenshot-max-bytes", 1, GB_IMAGE_MAX_BYTES_LIMIT,
                          GB_IMAGE_DEFAULT_MAX_BYTES, &max_bytes, error) ||
      !gg_config_get_int (config, "gamebridge", "screenshot-max-side", 1, GB_IMAGE_MAX_SIDE_LIMIT,
                          GB_IMAGE_DEFAULT_MAX_SIDE, &max_side, error) ||
      !gg_config_get_int (config, "gamebridge", "resource-update-interval-ms", GB_RESOURCES_MIN_INTERVAL_MS,
                          GB_RESOURCES_MAX_INTERVAL_MS, GB_RESOURCES_DEFAULT_INTERVAL_MS, &interval, error))
    return FALSE;
  limits.max_bytes = (gsize) max_bytes;
  limits.max_side = (guint) max_side;
  frontend = gb_frontend_new (gg_plugin_get_bus (plugin), (guint) http_port, ports);
  gb_frontend_set_http_settings (frontend, &http_settings);
  gb_frontend_set_image_limits (frontend, &limits);
  gb_frontend_set_resource_interval (frontend, (guint) interval);
  gg_plugin_add_frontend (plugin, GG_FRONTEND (frontend));
  return TRUE;
}

GG_PLUGIN_DEFINE ("gamebridge", PACKAGE_VERSION,
                  "game-bridge MCP server: launches, discovers and drives games over their localhost HTTP surface",
                  "LGPL-2.1-or-later", gamebridge_setup)

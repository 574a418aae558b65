/* gb-options.c: `gamegate mcp` options (spec section 6) and their
 * environment fallbacks: the command line wins, then the environment, then
 * the defaults.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "gb-errors.h"
#include "gb-options.h"

void
gb_options_clear (GbOptions *options)
{
  g_clear_pointer (&options->scan_range, g_free);
  g_clear_pointer (&options->registry_dir, g_free);
  g_clear_pointer (&options->config, g_free);
  g_clear_pointer (&options->launch_hint, g_free);
  g_clear_pointer (&options->manifest, g_free);
}

/**
 * gb_options_entries:
 * @options: where parsed values go (kept alive by the caller)
 *
 * Returns: (transfer full): the option entries of `gamegate mcp`, NULL-terminated
 */
GOptionEntry *
gb_options_entries (GbOptions *options)
{
  const GOptionEntry entries[] = {
    { "port", 'p', 0, G_OPTION_ARG_INT, &options->port,
      N_("Default port for tools that name none (7777)"), N_("N") },
    { "scan-range", 0, 0, G_OPTION_ARG_STRING, &options->scan_range,
      N_("Ports list_instances sweeps (7777,7800-7810); at most 512 ports"), N_("SPEC") },
    { "no-scan", 0, 0, G_OPTION_ARG_NONE, &options->no_scan, N_("Discover only through the registry"), NULL },
    { "no-registry", 0, 0, G_OPTION_ARG_NONE, &options->no_registry, N_("Discover only by scanning"), NULL },
    { "registry-dir", 0, 0, G_OPTION_ARG_FILENAME, &options->registry_dir,
      N_("Where instance entries live (~/.game-bridge/instances)"), N_("DIR") },
    /* The spec's --config: gamegate's own --config (the gateway's key file) holds that name. */
    { "launch-config", 0, 0, G_OPTION_ARG_FILENAME, &options->config,
      N_("Launch declaration (default: nearest gamebridge.json; also GAME_BRIDGE_CONFIG)"), N_("FILE") },
    { "launch-hint", 0, 0, G_OPTION_ARG_STRING, &options->launch_hint,
      N_("Shown when a port is dead; {port} substituted"), N_("CMD") },
    { "manifest", 0, 0, G_OPTION_ARG_FILENAME, &options->manifest,
      N_("Tool manifest for games without GET /tools"), N_("FILE") },
    { "eager", 0, 0, G_OPTION_ARG_NONE, &options->eager, N_("Advertise every tool flatly"), NULL },
    { "timeout", 0, 0, G_OPTION_ARG_INT, &options->timeout_ms, N_("HTTP and command timeout (5000)"), N_("MS") },
    { NULL }
  };

  return g_memdup2 (entries, sizeof entries);
}

static const char *
env (const char *name)
{
  const char *value = g_getenv (name);

  return value != NULL && *value != '\0' ? value : NULL;
}

char *
gb_options_default_registry_dir (void)
{
  if (env ("GAME_BRIDGE_INSTANCES") != NULL)
    return g_strdup (env ("GAME_BRIDGE_INSTANCES"));
  if (env ("GAME_BRIDGE_HOME") != NULL)
    return g_build_filename (env ("GAME_BRIDGE_HOME"), "instances", NULL);
  return g_build_filename (g_get_home_dir (), ".game-bridge", "instances", NULL);
}

static void
take_env (char      **slot,
          const char *first,
          const char *second)
{
  const char *value = NULL;

  if (*slot != NULL)
    return;
  value = env (first);
  if (value == NULL && second != NULL)
    value = env (second);
  *slot = g_strdup (value);
}

/**
 * gb_options_resolve:
 * @options: parsed command-line options
 * @error: a %G_OPTION_ERROR on a bad value
 *
 * Fills in what the command line left out from the environment and the
 * defaults, and checks the values.
 */
gboolean
gb_options_resolve (GbOptions  *options,
                    GError    **error)
{
  if (options->port == 0 && env ("GAME_BRIDGE_PORT") != NULL)
    {
      guint64 port;

      if (!g_ascii_string_to_unsigned (env ("GAME_BRIDGE_PORT"), 10, 1, 65535, &port, NULL))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("GAME_BRIDGE_PORT must be a port number (1..65535)"));
          return FALSE;
        }
      options->port = (int) port;
    }
  if (options->port == 0)
    options->port = GB_DEFAULT_PORT;
  if (options->port < 1 || options->port > 65535)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("--port must be 1..65535"));
      return FALSE;
    }
  if (options->timeout_ms == 0)
    options->timeout_ms = GB_DEFAULT_TIMEOUT_MS;
  if (options->timeout_ms < 1 || options->timeout_ms > 600000)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("--timeout must be 1..600000 ms"));
      return FALSE;
    }
  take_env (&options->scan_range, "GAME_BRIDGE_SCAN_RANGE", "GAME_BRIDGE_SCAN");
  if (options->scan_range == NULL)
    options->scan_range = g_strdup (GB_DEFAULT_SCAN_RANGE);
  take_env (&options->launch_hint, "GAME_BRIDGE_LAUNCH_HINT", "GAME_BRIDGE_LAUNCH");
  take_env (&options->manifest, "GAME_BRIDGE_MANIFEST", NULL);
  take_env (&options->config, "GAME_BRIDGE_CONFIG", NULL);
  if (options->registry_dir == NULL)
    options->registry_dir = gb_options_default_registry_dir ();
  return TRUE;
}

/* gg-gabp-plugin.c: the gabp plugin's setup.
 *
 * Configuration, all in group [gabp] (the gateway gives a plugin one group):
 *   mods=rimworld;factorio     games to connect to; for each <name>:
 *     <name>.host=127.0.0.1 <name>.port=5174 <name>.token=...
 *                                            a mod started by hand, or
 *     <name>.command=/path/to/game --flag    one gamegate launches like GABS
 *                                            does (fresh port and token)
 *     <name>.restart=false                   relaunch when the game exits
 *     <name>.backoff-initial-ms=100 <name>.backoff-max-ms=5000
 *     <name>.timeout-ms=30000
 *   max-message-size=1048576
 *   server=true                 GABP mod-side server in daemon mode
 *   server-port=0               (else GABP_SERVER_PORT, else any free port)
 *   server-token=               (else GABP_TOKEN, else generated and
 *                                written to bridge-file)
 *   bridge-file=$XDG_CONFIG_HOME/gabp/bridge.json
 *   max-connections=10  rate-limit=200  rate-burst=400
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "gg-gabp-frontend.h"
#include "gg-gabp-launcher.h"
#include "gg-gabp-target.h"

#define GROUP "gabp"
#define STOP_GRACE_MS 3000

typedef struct {
  GgBus          *bus;       /* borrowed: outlives the plugin state */
  GgGabpTarget   *target;
  GgGabpLauncher *launcher;  /* nullable */
  gboolean        restart;
  GSource        *relaunch;
} Mod;

typedef struct {
  GgBus     *bus;
  GPtrArray *mods;
  gulong     shutdown_id;
  guint      stopping;
} PluginState;

static void
clear_relaunch (Mod *mod)
{
  if (mod->relaunch != NULL)
    g_source_destroy (mod->relaunch);
  g_clear_pointer (&mod->relaunch, g_source_unref);
}

static void
mod_free (Mod *mod)
{
  clear_relaunch (mod);
  if (mod->launcher != NULL)
    g_signal_handlers_disconnect_by_data (mod->launcher, mod);
  g_clear_object (&mod->launcher);
  g_clear_object (&mod->target);
  g_free (mod);
}

static void
plugin_state_free (PluginState *state)
{
  g_clear_signal_handler (&state->shutdown_id, state->bus);
  g_ptr_array_unref (state->mods);
  g_free (state);
}

static gboolean
relaunch (gpointer user_data)
{
  Mod *mod = user_data;
  g_autoptr(GError) error = NULL;
  GgGabpClient *client = gg_gabp_target_get_client (mod->target);

  g_clear_pointer (&mod->relaunch, g_source_unref);
  if (!gg_gabp_launcher_launch (mod->launcher, &error))
    {
      g_warning (_("Cannot relaunch %s: %s"), gg_target_get_id (GG_TARGET (mod->target)), error->message);
      return G_SOURCE_REMOVE;
    }
  gg_gabp_client_set_endpoint (client, "127.0.0.1", gg_gabp_launcher_get_port (mod->launcher),
                               gg_gabp_launcher_get_token (mod->launcher));
  gg_gabp_client_reconnect_now (client);
  return G_SOURCE_REMOVE;
}

static void
on_game_exited (GgGabpLauncher *launcher,
                int             status,
                Mod            *mod)
{
  if (mod->restart && !gg_bus_is_shutting_down (mod->bus) && mod->relaunch == NULL)
    {
      /* On the thread-default context, never the global default one (the
       * host's loop when gamegate is embedded: the oam C ABI). */
      mod->relaunch = g_timeout_source_new_seconds (1);
      g_source_set_callback (mod->relaunch, relaunch, mod, NULL);
      g_source_attach (mod->relaunch, g_main_context_get_thread_default ());
    }
}

static void
on_launcher_stopped (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  GgBus *bus = user_data;

  gg_gabp_launcher_stop_finish (GG_GABP_LAUNCHER (source), result, NULL);
  gg_bus_release (bus);
  g_object_unref (bus);
}

/* Closes the games gamegate launched before the process exits. */
static void
on_shutdown (GgBus       *bus,
             PluginState *state)
{
  for (guint i = 0; i < state->mods->len; i++)
    {
      Mod *mod = g_ptr_array_index (state->mods, i);

      mod->restart = FALSE;
      clear_relaunch (mod);
      gg_gabp_client_stop (gg_gabp_target_get_client (mod->target));
      if (mod->launcher != NULL && gg_gabp_launcher_is_running (mod->launcher))
        {
          gg_bus_hold (bus);
          gg_gabp_launcher_stop_async (mod->launcher, STOP_GRACE_MS, on_launcher_stopped,
                                       g_object_ref (bus));
        }
    }
}

static gboolean
get_port (GgConfig   *config,
          const char *group,
          const char *key,
          gint64      default_value,
          gint64     *out,
          GError    **error)
{
  return gg_config_get_int (config, group, key, 0, 65535, default_value, out, error);
}

static char *
mod_key (const char *name,
         const char *key)
{
  return g_strconcat (name, ".", key, NULL);
}

static Mod *
setup_mod (GgPlugin      *plugin,
           GgGabpSchemas *schemas,
           const char    *name,
           gint64         max_message_size,
           GError       **error)
{
  GgConfig *config = gg_plugin_get_config (plugin);
  g_autofree char *host_key = mod_key (name, "host");
  g_autofree char *port_key = mod_key (name, "port");
  g_autofree char *token_key = mod_key (name, "token");
  g_autofree char *command_key = mod_key (name, "command");
  g_autofree char *restart_key = mod_key (name, "restart");
  g_autofree char *initial_key = mod_key (name, "backoff-initial-ms");
  g_autofree char *max_key = mod_key (name, "backoff-max-ms");
  g_autofree char *timeout_key = mod_key (name, "timeout-ms");
  g_autofree char *host = gg_config_get_string (config, GROUP, host_key, "127.0.0.1");
  g_autofree char *token = gg_config_get_string (config, GROUP, token_key, NULL);
  g_autofree char *command = gg_config_get_string (config, GROUP, command_key, NULL);
  g_autoptr(GgGabpClient) client = NULL;
  g_auto(GStrv) argv = NULL;
  gint64 port, backoff_initial, backoff_max, timeout;
  gboolean restart;
  Mod *mod;

  for (const char *p = name; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_')
      {
        gg_config_set_invalid (config, GROUP, "mods", error, "%s",
                               "mod names may hold only letters, digits, '-' and '_'");
        return NULL;
      }
  if (!get_port (config, GROUP, port_key, 0, &port, error) ||
      !gg_config_get_int (config, GROUP, initial_key, 1, 60000, 100, &backoff_initial, error) ||
      !gg_config_get_int (config, GROUP, max_key, 1, 600000, 5000, &backoff_max, error) ||
      !gg_config_get_int (config, GROUP, timeout_key, 0, 3600000, 30000, &timeout, error) ||
      !gg_config_get_boolean (config, GROUP, restart_key, FALSE, &restart, error))
    return NULL;

  if (command != NULL && !g_shell_parse_argv (command, NULL, &argv, NULL))
    {
      gg_config_set_invalid (config, GROUP, command_key, error, "%s", "not a valid command line");
      return NULL;
    }
  if (command == NULL && (port == 0 || token == NULL))
    {
      gg_config_set_invalid (config, GROUP, "mods", error,
                             "mod %s needs either %s or both %s and %s", name,
                             command_key, port_key, token_key);
      return NULL;
    }

  mod = g_new0 (Mod, 1);
  mod->bus = gg_plugin_get_bus (plugin); /* borrowed: the bus outlives every plugin */
  mod->restart = restart;
  if (argv != NULL)
    {
      mod->launcher = gg_gabp_launcher_new (name, (const char * const *) argv, (guint16) port);
      g_signal_connect (mod->launcher, "exited", G_CALLBACK (on_game_exited), mod);
      if (!gg_gabp_launcher_launch (mod->launcher, error))
        {
          mod_free (mod);
          return NULL;
        }
      client = gg_gabp_client_new (schemas, "127.0.0.1", gg_gabp_launcher_get_port (mod->launcher),
                                   gg_gabp_launcher_get_token (mod->launcher));
    }
  else
    client = gg_gabp_client_new (schemas, host, (guint16) port, token);
  gg_gabp_client_set_backoff (client, (guint) backoff_initial, (guint) backoff_max);
  gg_gabp_client_set_timeout (client, (guint) timeout);
  gg_gabp_client_set_max_message_size (client, (gsize) max_message_size);
  mod->target = gg_gabp_target_new (name, client);
  if (!gg_bus_add_target_full (mod->bus, GG_TARGET (mod->target), "gabp", error))
    {
      mod_free (mod);
      return NULL;
    }
  gg_gabp_client_start (client);
  return mod;
}

static gboolean
gabp_setup (GgPlugin  *plugin,
            GError   **error)
{
  GgConfig *config = gg_plugin_get_config (plugin);
  GgBus *bus = gg_plugin_get_bus (plugin);
  g_autoptr(GgGabpSchemas) schemas = NULL;
  g_autoptr(GgGabpServer) server = NULL;
  g_autoptr(GgGabpFrontend) frontend = NULL;
  g_auto(GStrv) mods = NULL;
  g_autofree char *token = NULL;
  g_autofree char *bridge_file = NULL;
  g_autofree char *default_bridge_file = g_build_filename (g_get_user_config_dir (), "gabp", "bridge.json", NULL);
  const char *env_port = gg_config_get_env (config, GROUP, "server-port", "GABP_SERVER_PORT");
  gint64 max_message_size, port, max_connections, burst, env_port_value = 0;
  double rate;
  gboolean listen;
  PluginState *state;

  schemas = gg_gabp_schemas_get_default (error);
  if (schemas == NULL)
    {
      g_prefix_error (error, "cannot load the GABP schemas: ");
      return FALSE;
    }

  if (env_port != NULL && !g_ascii_string_to_signed (env_port, 10, 1, 65535, &env_port_value, NULL))
    g_warning (_("Ignoring GABP_SERVER_PORT: not a port number"));
  if (!gg_config_get_int (config, GROUP, "max-message-size", 1024, 64 * 1024 * 1024,
                          GG_GABP_DEFAULT_MAX_MESSAGE_SIZE, &max_message_size, error) ||
      !gg_config_get_boolean (config, GROUP, "server", TRUE, &listen, error) ||
      !get_port (config, GROUP, "server-port", env_port_value, &port, error) ||
      !gg_config_get_int (config, GROUP, "max-connections", 1, 1000,
                          GG_GABP_SERVER_DEFAULT_MAX_CONNECTIONS, &max_connections, error) ||
      !gg_config_get_double (config, GROUP, "rate-limit", 0, 1e6, GG_GABP_SERVER_DEFAULT_RATE, &rate, error) ||
      !gg_config_get_int (config, GROUP, "rate-burst", 1, 1000000, GG_GABP_SERVER_DEFAULT_BURST, &burst, error))
    return FALSE;
  token = gg_config_get_string (config, GROUP, "server-token",
                                gg_config_get_env (config, GROUP, "server-token", "GABP_TOKEN"));
  if (token != NULL && strlen (token) < 32)
    {
      /* Not through gg_config_set_invalid(): it would quote the secret. */
      g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_INVALID_VALUE,
                   "%s: [%s] server-token (or GABP_TOKEN): a GABP token needs at least "
                   "32 characters (128 bits as hex)", gg_config_get_origin (config), GROUP);
      memset (token, 0, strlen (token));
      return FALSE;
    }
  bridge_file = gg_config_get_string (config, GROUP, "bridge-file", default_bridge_file);

  server = gg_gabp_server_new (bus, schemas);
  gg_gabp_server_set_port (server, (guint16) port);
  gg_gabp_server_set_token (server, token);
  gg_gabp_server_set_bridge_file (server, bridge_file[0] != '\0' ? bridge_file : NULL);
  gg_gabp_server_set_limits (server, (guint) max_connections, rate, (guint) burst, (gsize) max_message_size);
  frontend = gg_gabp_frontend_new (server, listen);
  gg_plugin_add_frontend (plugin, GG_FRONTEND (frontend));

  state = g_new0 (PluginState, 1);
  state->bus = bus; /* borrowed: the bus outlives every plugin */
  state->mods = g_ptr_array_new_with_free_func ((GDestroyNotify) mod_free);
  state->shutdown_id = g_signal_connect (bus, "shutdown", G_CALLBACK (on_shutdown), state);
  g_object_set_data_full (G_OBJECT (plugin), "gg-gabp-state", state, (GDestroyNotify) plugin_state_free);

  mods = gg_config_get_string_list (config, GROUP, "mods");
  for (gsize i = 0; mods != NULL && mods[i] != NULL; i++)
    {
      Mod *mod;

      if (mods[i][0] == '\0')
        continue;
      mod = setup_mod (plugin, schemas, mods[i], max_message_size, error);
      if (mod == NULL)
        return FALSE;
      g_ptr_array_add (state->mods, mod);
    }
  return TRUE;
}

GG_PLUGIN_DEFINE ("gabp", PACKAGE_VERSION,
                  "GABP: bridge to game mods, and a GABP server for other bridges",
                  "LGPL-2.1-or-later", gabp_setup)

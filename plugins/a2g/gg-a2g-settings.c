/* gg-a2g-settings.c: reading [a2g] (every key is listed, commented, in
 * data/gamegate.conf).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-redis-store.h"
#include "gg-a2g-settings.h"
#include "gg-a2g-tls.h"

#define GROUP "a2g"

/**
 * gg_a2g_settings_set_listen:
 * @settings: settings
 * @listen: `HOST:PORT` with a loopback host (`[::1]:PORT` for IPv6)
 * @error: %G_IO_ERROR_INVALID_ARGUMENT
 *
 * Returns: whether @listen was usable
 */
gboolean
gg_a2g_settings_set_listen (GgA2gSettings *settings,
                            const char    *listen,
                            GError       **error)
{
  const char *colon = strrchr (listen, ':');
  g_autofree char *host = NULL;
  guint64 port;

  if (colon == NULL || !g_ascii_string_to_unsigned (colon + 1, 10, 0, 65535, &port, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "listen: expected HOST:PORT");
      return FALSE;
    }
  host = g_strndup (listen, colon - listen);
  if (host[0] == '[' && host[strlen (host) - 1] == ']')
    {
      char *inner = g_strndup (host + 1, strlen (host) - 2);
      g_free (host);
      host = inner;
    }
  /* With TLS of its own (server profile) the service may listen anywhere. */
  if (gg_a2g_access_get_certificate (settings->access) == NULL &&
      strcmp (host, "127.0.0.1") != 0 && strcmp (host, "::1") != 0 && strcmp (host, "localhost") != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "listen: the local profile listens on loopback only (127.0.0.1, [::1])");
      return FALSE;
    }
  g_free (settings->listen);
  g_free (settings->listen_host);
  settings->listen = g_strdup (listen);
  settings->listen_host = strcmp (host, "localhost") == 0 ? g_strdup ("127.0.0.1") : g_steal_pointer (&host);
  settings->listen_port = (guint16) port;
  return TRUE;
}

static gboolean
get_rate (GgConfig   *config,
          const char *key,
          double      default_value,
          double     *out,
          GError    **error)
{
  return gg_config_get_double (config, GROUP, key, 0, 1e9, default_value, out, error);
}

/**
 * gg_a2g_settings_load:
 * @settings: (out caller-allocates): settings to fill
 * @config: the configuration
 * @error: a config error naming the key
 *
 * Returns: whether every key was valid
 */
gboolean
gg_a2g_settings_load (GgA2gSettings *settings,
                      GgConfig      *config,
                      GError       **error)
{
  g_autofree char *listen = NULL;
  g_autofree char *model = NULL;
  g_autofree char *profile = NULL;
  g_autoptr(GError) local_error = NULL;

  memset (settings, 0, sizeof *settings);
  profile = gg_config_get_string (config, GROUP, "profile", "local");
  if (!gg_a2g_profile_parse (profile, &settings->profile))
    {
      gg_config_set_invalid (config, GROUP, "profile", error, "%s", "expected local, server or client");
      return FALSE;
    }
  settings->access = gg_a2g_access_load (config, GROUP, settings->profile, error);
  if (settings->access == NULL)
    return FALSE;
  {
    g_autofree char *key_path = gg_config_get_string (config, GROUP, "policy-signing-key", NULL);

    if (key_path != NULL)
      {
        settings->policy_signer = gg_a2g_policy_signer_load (key_path, &local_error);
        if (settings->policy_signer == NULL)
          {
            gg_config_set_invalid (config, GROUP, "policy-signing-key", error, "%s", local_error->message);
            return FALSE;
          }
      }
  }
  /* GAMEGATE_A2G_LISTEN stands in for an absent key (tests: any free port). */
  listen = gg_config_get_string (config, GROUP, "listen",
                                 g_getenv ("GAMEGATE_A2G_LISTEN") != NULL ? g_getenv ("GAMEGATE_A2G_LISTEN")
                                                                          : "127.0.0.1:8787");
  if (!gg_a2g_settings_set_listen (settings, listen, &local_error))
    {
      gg_config_set_invalid (config, GROUP, "listen", error, "%s", local_error->message);
      return FALSE;
    }
  model = gg_config_get_string (config, GROUP, "model", "system");
  g_strstrip (model);
  if (model[0] == '{')
    {
      settings->model = gg_json_parse (model, -1, GG_JSON_DEFAULT_MAX_DEPTH, &local_error);
      if (settings->model == NULL)
        {
          gg_config_set_invalid (config, GROUP, "model", error, "not a model name or JSON object: %s",
                                 local_error->message);
          return FALSE;
        }
    }
  else
    {
      settings->model = json_node_new (JSON_NODE_VALUE);
      json_node_set_string (settings->model, model);
    }
  if (!gg_config_get_int (config, GROUP, "default-deadline-ms", 1, 30000, 2000, &settings->default_deadline_ms, error) ||
      !gg_config_get_int (config, GROUP, "tls-handshake-timeout", 1, 3600, GG_A2G_DEFAULT_TLS_HANDSHAKE_TIMEOUT_S,
                          &settings->tls_handshake_timeout_s, error) ||
      !gg_config_get_int (config, GROUP, "max-sessions", 1, 10000000, 10000, &settings->max_sessions, error) ||
      !gg_config_get_int (config, GROUP, "session-ttl", 1, 86400 * 30, 3600, &settings->session_ttl_s, error) ||
      !gg_config_get_int (config, GROUP, "renew-grace", 1, 3600, 30, &settings->renew_grace_s, error) ||
      !gg_config_get_int (config, GROUP, "cache-entries", 1, 100000000, 100000, &settings->cache_entries, error) ||
      !gg_config_get_int (config, GROUP, "cache-ttl", 1, 86400 * 365, 86400, &settings->cache_ttl_s, error) ||
      !gg_config_get_int (config, GROUP, "max-tracked-entities", 1, 1000000, 4096,
                          &settings->max_tracked_entities, error) ||
      !gg_config_get_double (config, GROUP, "nearby-radius", 0, 1e12, 500, &settings->nearby_radius, error) ||
      !gg_config_get_int (config, GROUP, "session-token-budget", 0, G_MAXINT64 / 4, 200000,
                          &settings->session_token_budget, error) ||
      !gg_config_get_int (config, GROUP, "game-token-budget", 0, G_MAXINT64 / 4, 5000000,
                          &settings->game_token_budget, error) ||
      !get_rate (config, "session-rate", 20, &settings->session_rate, error) ||
      !get_rate (config, "session-burst", 40, &settings->session_burst, error) ||
      !get_rate (config, "game-rate", 200, &settings->game_rate, error) ||
      !get_rate (config, "game-burst", 400, &settings->game_burst, error) ||
      !get_rate (config, "address-rate", 5000, &settings->address_rate, error) ||
      !get_rate (config, "address-burst", 10000, &settings->address_burst, error) ||
      !get_rate (config, "session-open-rate", 20, &settings->session_open_rate, error) ||
      !get_rate (config, "session-open-burst", 100, &settings->session_open_burst, error) ||
      !get_rate (config, "sub-open-rate", 0.2, &settings->sub_open_rate, error) ||
      !get_rate (config, "sub-open-burst", 5, &settings->sub_open_burst, error) ||
      !gg_config_get_int (config, GROUP, "max-sessions-per-sub", 0, 1000000, 4, &settings->max_sessions_per_sub,
                          error) ||
      !gg_config_get_int (config, GROUP, "max-model-calls", 1, 100000, 64, &settings->max_model_calls, error) ||
      !gg_config_get_int (config, GROUP, "replay-window", 1, 3600, 60, &settings->replay_window_s, error) ||
      !gg_config_get_int (config, GROUP, "redis-timeout-ms", 1, 60000, 250, &settings->redis_timeout_ms, error))
    return FALSE;
  settings->redis = gg_config_get_string (config, GROUP, "redis", NULL);
  if (settings->redis != NULL && settings->redis[0] == '\0')
    g_clear_pointer (&settings->redis, g_free);
  if (settings->redis != NULL && !gg_a2g_redis_url_check (settings->redis, &local_error))
    {
      /* The report masks the URL's password (gg-config-report.c). */
      gg_config_set_invalid (config, GROUP, "redis", error, "%s", local_error->message);
      return FALSE;
    }
  settings->redis_prefix = gg_config_get_string (config, GROUP, "redis-prefix", "a2g:");
  if (settings->redis_prefix[0] == '\0' || strpbrk (settings->redis_prefix, "{} \t\r\n") != NULL)
    {
      gg_config_set_invalid (config, GROUP, "redis-prefix", error, "%s",
                             "must be non-empty, without braces or white space");
      return FALSE;
    }
  return TRUE;
}

/** gg_a2g_settings_clear: frees what @settings holds */
void
gg_a2g_settings_clear (GgA2gSettings *settings)
{
  g_clear_pointer (&settings->access, gg_a2g_access_free);
  g_clear_pointer (&settings->policy_signer, gg_a2g_policy_signer_free);
  g_clear_pointer (&settings->listen, g_free);
  g_clear_pointer (&settings->listen_host, g_free);
  g_clear_pointer (&settings->model, json_node_unref);
  if (settings->redis != NULL)
    memset (settings->redis, 0, strlen (settings->redis));
  g_clear_pointer (&settings->redis, g_free);
  g_clear_pointer (&settings->redis_prefix, g_free);
}

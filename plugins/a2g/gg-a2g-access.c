/* gg-a2g-access.c: who may use the A2G service outside the local profile.
 *
 * In the server profile every game is registered in [a2g]:
 *
 *   games=orbital-freight,another-game
 *   orbital-freight.api-key-sha256=<64 lowercase hex: SHA-256 of the key>
 *   orbital-freight.manifests=sha256:<64 hex>,sha256:<64 hex>
 *
 * The configuration holds only the SHA-256 of each API key, never the key:
 * a presented key is hashed and the two hashes compared in constant time.
 * Sessions are opened only for a registered game, with its own key, and a
 * manifest hash registered for it (a2g-security.md, "Registered
 * manifests").
 *
 * The transport outside the local profile is HTTPS: either the service's
 * own TLS (tls-certificate, tls-key: PEM files; glib-networking's GnuTLS
 * refuses anything older than TLS 1.2) on any address, or, on a loopback
 * listen only, a
 * TLS-terminating proxy the operator declares (behind-tls-proxy=true),
 * whose `X-Forwarded-Proto: https` every request must then carry.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-access.h"
#include "gg-a2g-manifest.h"

typedef struct {
  char *key_sha256;          /* 64 lowercase hex (server profile) */
  GHashTable *join_keys;     /* kid -> GgA2gJoinKey (client profile) */
  GHashTable *manifests;     /* "sha256:<hex>" set */
} Game;

struct _GgA2gAccess {
  gboolean local;
  gboolean client;
  char *service_id;          /* the `aud` of join tokens (client profile) */
  gboolean behind_tls_proxy;
  char *tls_certificate;
  char *tls_key;
  GTlsCertificate *certificate; /* nullable: no TLS of its own */
  GHashTable *games;         /* name -> Game */
};

static void
game_free (Game *game)
{
  g_free (game->key_sha256);
  g_hash_table_unref (game->join_keys);
  g_hash_table_unref (game->manifests);
  g_free (game);
}

static gboolean
is_lower_hex (const char *text,
              gsize       length)
{
  if (text == NULL || strlen (text) != length)
    return FALSE;
  for (gsize i = 0; i < length; i++)
    if (!g_ascii_isxdigit (text[i]) || g_ascii_isupper (text[i]))
      return FALSE;
  return TRUE;
}

static char **
split_list (const char *value)
{
  g_auto(GStrv) items = g_strsplit (value != NULL ? value : "", ",", -1);
  g_autoptr(GPtrArray) kept = g_ptr_array_new ();

  for (guint i = 0; items[i] != NULL; i++)
    {
      g_strstrip (items[i]);
      if (items[i][0] != '\0')
        g_ptr_array_add (kept, g_strdup (items[i]));
    }
  g_ptr_array_add (kept, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&kept), FALSE);
}

static void
join_key_free (GgA2gJoinKey *key)
{
  g_free (key->alg);
  g_free (key->pem);
  g_free (key);
}

/* `kid:ALG:path,…`: each key bound to its one algorithm (ES256, RS256),
 * so that a token can never pick another one for it. */
static gboolean
load_join_keys (Game        *game,
                GgConfig    *config,
                const char  *group,
                const char  *name,
                GError     **error)
{
  g_autofree char *keys_name = g_strconcat (name, ".join-keys", NULL);
  g_autofree char *value = gg_config_get_string (config, group, keys_name, NULL);
  g_auto(GStrv) items = split_list (value);

  if (items[0] == NULL)
    {
      gg_config_set_invalid (config, group, keys_name, error, "%s",
                             "expected the studio's public keys as kid:ES256|RS256:file.pem, comma-separated");
      return FALSE;
    }
  for (guint i = 0; items[i] != NULL; i++)
    {
      g_auto(GStrv) parts = g_strsplit (items[i], ":", 3);
      g_autoptr(GError) file_error = NULL;
      GgA2gJoinKey *key;
      char *pem = NULL;
      gsize length = 0;

      if (g_strv_length (parts) != 3 || parts[0][0] == '\0' ||
          (strcmp (parts[1], "ES256") != 0 && strcmp (parts[1], "RS256") != 0))
        {
          gg_config_set_invalid (config, group, keys_name, error, "not kid:ES256|RS256:file.pem: %s", items[i]);
          return FALSE;
        }
      if (!g_file_get_contents (parts[2], &pem, &length, &file_error) || strstr (pem, "PUBLIC KEY-----") == NULL ||
          strstr (pem, "PRIVATE") != NULL)
        {
          /* Never the file's content: it might be a private key. */
          gg_config_set_invalid (config, group, keys_name, error, "%s: %s", parts[2],
                                 file_error != NULL ? file_error->message : "not a PEM public key");
          if (pem != NULL)
            memset (pem, 0, length);
          g_free (pem);
          return FALSE;
        }
      key = g_new0 (GgA2gJoinKey, 1);
      key->alg = g_strdup (parts[1]);
      key->pem = pem;
      key->pem_length = length;
      g_hash_table_replace (game->join_keys, g_strdup (parts[0]), key);
    }
  return TRUE;
}

static gboolean
load_game (GgA2gAccess *access,
           GgConfig    *config,
           const char  *group,
           const char  *name,
           GError     **error)
{
  g_autofree char *key_name = g_strconcat (name, ".api-key-sha256", NULL);
  g_autofree char *manifests_name = g_strconcat (name, ".manifests", NULL);
  g_autofree char *key = NULL;
  g_autofree char *manifests = gg_config_get_string (config, group, manifests_name, NULL);
  g_auto(GStrv) hashes = NULL;
  Game *game;

  if (!gg_a2g_id_valid (name))
    {
      gg_config_set_invalid (config, group, "games", error, "not a game id: %s", name);
      return FALSE;
    }
  if (!access->client)
    key = gg_config_get_string (config, group, key_name, NULL);
  game = g_new0 (Game, 1);
  game->join_keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) join_key_free);
  game->manifests = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_replace (access->games, g_strdup (name), game);
  if (access->client)
    {
      if (!load_join_keys (game, config, group, name, error))
        return FALSE;
    }
  else if (!is_lower_hex (key, 64))
    {
      /* Not gg_config_set_invalid(): it would echo the value, which may be
       * the API key itself pasted by mistake. */
      g_autofree char *where = gg_config_get_location (config, group, key_name);

      if (key != NULL)
        memset (key, 0, strlen (key));
      g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_INVALID_VALUE,
                   "%s%s[%s] %s: expected the SHA-256 of the API key as 64 lowercase hex digits",
                   where != NULL ? where : "", where != NULL ? ": " : "", group, key_name);
      return FALSE;
    }
  game->key_sha256 = g_steal_pointer (&key);
  hashes = split_list (manifests);
  if (hashes[0] == NULL)
    {
      gg_config_set_invalid (config, group, manifests_name, error, "%s",
                             "expected the registered manifest hashes (sha256:<hex>, comma-separated)");
      return FALSE;
    }
  for (guint i = 0; hashes[i] != NULL; i++)
    {
      if (!g_str_has_prefix (hashes[i], "sha256:") || !is_lower_hex (hashes[i] + 7, 64))
        {
          gg_config_set_invalid (config, group, manifests_name, error, "not a manifest hash: %s", hashes[i]);
          return FALSE;
        }
      g_hash_table_add (game->manifests, g_strdup (hashes[i]));
    }
  return TRUE;
}

/**
 * gg_a2g_access_load:
 * @config: the configuration
 * @group: "a2g"
 * @profile: "local" or "server"
 * @error: a config error naming the key
 *
 * Returns: (transfer full) (nullable): the access rules, %NULL on a bad key
 */
GgA2gAccess *
gg_a2g_access_load (GgConfig    *config,
                    const char  *group,
                    const char  *profile,
                    GError     **error)
{
  g_autoptr(GgA2gAccess) access = g_new0 (GgA2gAccess, 1);
  g_autofree char *games = NULL;
  g_auto(GStrv) names = NULL;

  access->games = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) game_free);
  access->local = strcmp (profile, "local") == 0;
  access->client = strcmp (profile, "client") == 0;
  if (access->client)
    {
      access->service_id = gg_config_get_string (config, group, "service-id", NULL);
      if (access->service_id == NULL || access->service_id[0] == '\0')
        {
          gg_config_set_invalid (config, group, "service-id", error, "%s",
                                 "the client profile needs the service id join tokens name in `aud`");
          return NULL;
        }
    }
  if (!gg_config_get_boolean (config, group, "behind-tls-proxy", FALSE, &access->behind_tls_proxy, error))
    return NULL;
  access->tls_certificate = gg_config_get_string (config, group, "tls-certificate", NULL);
  access->tls_key = gg_config_get_string (config, group, "tls-key", NULL);
  games = gg_config_get_string (config, group, "games", NULL);
  names = split_list (games);
  for (guint i = 0; names[i] != NULL; i++)
    if (!load_game (access, config, group, names[i], error))
      return NULL;
  if (access->local)
    return g_steal_pointer (&access);
  if ((access->tls_certificate == NULL) != (access->tls_key == NULL))
    {
      gg_config_set_invalid (config, group, access->tls_key == NULL ? "tls-key" : "tls-certificate", error, "%s",
                             "tls-certificate and tls-key go together");
      return NULL;
    }
  if (access->tls_certificate != NULL)
    {
      g_autoptr(GError) tls_error = NULL;

      /* Read now, so that a bad file stops the start with a clear error
       * (the message names the file, never the key's content). */
      access->certificate = g_tls_certificate_new_from_files (access->tls_certificate, access->tls_key, &tls_error);
      if (access->certificate == NULL)
        {
          gg_config_set_invalid (config, group, "tls-certificate", error, "cannot load it with tls-key: %s",
                                 tls_error->message);
          return NULL;
        }
    }
  else if (!access->behind_tls_proxy)
    {
      gg_config_set_invalid (config, group, "profile", error, "%s",
                             "outside the local profile the service needs TLS: set tls-certificate and "
                             "tls-key, or behind-tls-proxy=true behind a TLS-terminating proxy on loopback");
      return NULL;
    }
  if (g_hash_table_size (access->games) == 0)
    {
      gg_config_set_invalid (config, group, "games", error, "%s",
                             "outside the local profile at least one registered game is needed");
      return NULL;
    }
  return g_steal_pointer (&access);
}

/** gg_a2g_access_free: @access: (transfer full) (nullable): access rules */
void
gg_a2g_access_free (GgA2gAccess *access)
{
  if (access == NULL)
    return;
  g_hash_table_unref (access->games);
  g_free (access->service_id);
  g_free (access->tls_certificate);
  g_free (access->tls_key);
  g_clear_object (&access->certificate);
  g_free (access);
}

/**
 * gg_a2g_access_get_certificate:
 * @access: access rules
 *
 * Returns: (transfer none) (nullable): the service's TLS certificate (with
 *   its key), %NULL without TLS of its own
 */
GTlsCertificate *
gg_a2g_access_get_certificate (const GgA2gAccess *access)
{
  return access != NULL && !access->local ? access->certificate : NULL;
}

/** gg_a2g_access_is_local: Returns: whether the profile is local */
gboolean
gg_a2g_access_is_local (const GgA2gAccess *access)
{
  return access == NULL || access->local;
}

/**
 * gg_a2g_access_check_transport:
 * @access: access rules
 * @msg: a request
 * @message: (out): why it is refused
 *
 * Behind a TLS-terminating proxy every request must say it came over
 * HTTPS (`X-Forwarded-Proto: https`), so no session token or key is
 * accepted over plain HTTP.
 *
 * Returns: whether the request may go on
 */
gboolean
gg_a2g_access_check_transport (const GgA2gAccess *access,
                               SoupServerMessage *msg,
                               const char       **message)
{
  const char *proto;

  if (gg_a2g_access_is_local (access) || access->certificate != NULL)
    return TRUE;
  proto = soup_message_headers_get_one (soup_server_message_get_request_headers (msg), "X-Forwarded-Proto");
  if (proto != NULL && g_ascii_strcasecmp (proto, "https") == 0)
    return TRUE;
  *message = "HTTPS is required.";
  return FALSE;
}

/**
 * gg_a2g_access_check_api_key:
 * @access: access rules
 * @msg: a POST /v1/session
 * @game: the game the session is for
 * @code: (out): 401 or 403 when refused
 * @message: (out): why, without the key
 *
 * In the server profile `Authorization: Bearer <key>` must carry the API
 * key of @game: its SHA-256 is compared with the registered one in
 * constant time.
 *
 * Returns: whether the session may be opened for @game
 */
gboolean
gg_a2g_access_check_api_key (const GgA2gAccess *access,
                             SoupServerMessage *msg,
                             const char        *game,
                             GgA2gError        *code,
                             const char       **message)
{
  const char *header = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                     "Authorization");
  g_autofree char *key = NULL;
  g_autofree char *hash = NULL;
  Game *registered;
  gboolean equal;

  if (gg_a2g_access_is_local (access) || access->client)
    return TRUE;
  if (header == NULL || g_ascii_strncasecmp (header, "Bearer ", 7) != 0)
    {
      *code = GG_A2G_ERROR_UNAUTHORIZED;
      *message = "An API key is required.";
      return FALSE;
    }
  key = g_strstrip (g_strdup (header + 7));
  if (key[0] == '\0')
    {
      *code = GG_A2G_ERROR_UNAUTHORIZED;
      *message = "An API key is required.";
      return FALSE;
    }
  hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, key, -1);
  memset (key, 0, strlen (key));
  registered = g_hash_table_lookup (access->games, game);
  if (registered == NULL)
    {
      *code = GG_A2G_ERROR_FORBIDDEN;
      *message = "Unregistered game.";
      return FALSE;
    }
  equal = gg_secure_equal (hash, registered->key_sha256);
  if (!equal)
    {
      *code = GG_A2G_ERROR_UNAUTHORIZED;
      *message = "Invalid API key.";
      return FALSE;
    }
  return TRUE;
}

/**
 * gg_a2g_access_manifest_registered:
 * @access: access rules
 * @game: a registered game
 * @manifest_hash: "sha256:<hex>"
 *
 * Returns: whether sessions may use this manifest (always in local)
 */
gboolean
gg_a2g_access_manifest_registered (const GgA2gAccess *access,
                                   const char        *game,
                                   const char        *manifest_hash)
{
  Game *registered;

  if (gg_a2g_access_is_local (access))
    return TRUE;
  registered = g_hash_table_lookup (access->games, game);
  return registered != NULL && g_hash_table_contains (registered->manifests, manifest_hash);
}

/** gg_a2g_access_is_client: Returns: whether the profile is client */
gboolean
gg_a2g_access_is_client (const GgA2gAccess *access)
{
  return access != NULL && access->client;
}

/** gg_a2g_access_get_service_id: Returns: (nullable): the client profile's `aud` */
const char *
gg_a2g_access_get_service_id (const GgA2gAccess *access)
{
  return access != NULL ? access->service_id : NULL;
}

/**
 * gg_a2g_access_find_join_key:
 * @access: access rules
 * @game: a game id
 * @kid: a key id
 *
 * Returns: (transfer none) (nullable): the studio's public key of @game
 *   named @kid
 */
const GgA2gJoinKey *
gg_a2g_access_find_join_key (const GgA2gAccess *access,
                             const char        *game,
                             const char        *kid)
{
  Game *registered = access != NULL && game != NULL ? g_hash_table_lookup (access->games, game) : NULL;

  return registered != NULL && kid != NULL ? g_hash_table_lookup (registered->join_keys, kid) : NULL;
}

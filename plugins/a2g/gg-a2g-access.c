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
 * The console (GET /, its files, /v1/console/events) and the readers
 * (/v1/usage, /v1/policy) outside the local profile: the console
 * credential, whose SHA-256 alone is in the configuration
 * (console-credential-sha256), comes as HTTP Basic (any user name: the
 * browser's own prompt, re-sent for the page, its files and the event
 * stream) or as `Bearer`; a registered game's API key (Bearer, server
 * profile) reads its own game's part (its budgets, its manifests'
 * policies). A request with an `Origin` is served only from the service's
 * own origin, `https://` and the request's Host (a proxy must pass Host
 * through). In the local profile none of this applies: loopback only,
 * no credential (the console credential is ignored there).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-access.h"
#include "gg-a2g-access-private.h"
#include "gg-a2g-manifest.h"

typedef struct {
  char *key_sha256;          /* 64 lowercase hex (server profile) */
  GHashTable *join_keys;     /* kid -> GgA2gJoinKey (client profile) */
  GHashTable *manifests;     /* "sha256:<hex>" set */
} Game;

struct _GgA2gAccess {
  GgA2gProfile profile;
  char *service_id;          /* the `aud` of join tokens (client profile) */
  gboolean behind_tls_proxy;
  char *tls_certificate;
  char *tls_key;
  GTlsCertificate *certificate; /* nullable: no TLS of its own */
  GHashTable *games;         /* name -> Game */
  char *console_sha256;      /* nullable: 64 lowercase hex of the console credential */
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

/* @value (read from @key_name, freed and cleared on refusal) must be
 * the SHA-256 of a secret as 64 lowercase hex digits. Not
 * gg_config_set_invalid(): it would echo the value, which may be the
 * secret itself pasted by mistake. */
static gboolean
check_sha256 (GgConfig    *config,
              const char  *group,
              const char  *key_name,
              char       **value,
              const char  *what,
              GError     **error)
{
  g_autofree char *where = NULL;

  if (is_lower_hex (*value, 64))
    return TRUE;
  where = gg_config_get_location (config, group, key_name);
  if (*value != NULL)
    memset (*value, 0, strlen (*value));
  g_clear_pointer (value, g_free);
  g_set_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_INVALID_VALUE,
               "%s%s[%s] %s: expected the SHA-256 of %s as 64 lowercase hex digits",
               where != NULL ? where : "", where != NULL ? ": " : "", group, key_name, what);
  return FALSE;
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
  if (access->profile != GG_A2G_PROFILE_CLIENT)
    key = gg_config_get_string (config, group, key_name, NULL);
  game = g_new0 (Game, 1);
  game->join_keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) join_key_free);
  game->manifests = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_replace (access->games, g_strdup (name), game);
  if (access->profile == GG_A2G_PROFILE_CLIENT)
    {
      if (!load_join_keys (game, config, group, name, error))
        return FALSE;
    }
  else if (!check_sha256 (config, group, key_name, &key, "the API key", error))
    return FALSE;
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

static const char *profile_names[] = { "local", "server", "client" };

/**
 * gg_a2g_profile_parse:
 * @name: `[a2g] profile`
 * @profile: (out): the profile it names
 *
 * Returns: %FALSE when @name is not a profile
 */
gboolean
gg_a2g_profile_parse (const char   *name,
                      GgA2gProfile *profile)
{
  for (guint i = 0; i < G_N_ELEMENTS (profile_names); i++)
    if (g_strcmp0 (name, profile_names[i]) == 0)
      {
        *profile = (GgA2gProfile) i;
        return TRUE;
      }
  return FALSE;
}

/** gg_a2g_profile_name: Returns: the name of @profile, as configured */
const char *
gg_a2g_profile_name (GgA2gProfile profile)
{
  return profile_names[profile];
}

/**
 * gg_a2g_access_load:
 * @config: the configuration
 * @group: "a2g"
 * @profile: the service's profile
 * @error: a config error naming the key
 *
 * Returns: (transfer full) (nullable): the access rules, %NULL on a bad key
 */
GgA2gAccess *
gg_a2g_access_load (GgConfig     *config,
                    const char   *group,
                    GgA2gProfile  profile,
                    GError      **error)
{
  g_autoptr(GgA2gAccess) access = g_new0 (GgA2gAccess, 1);
  g_autofree char *games = NULL;
  g_auto(GStrv) names = NULL;

  access->games = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) game_free);
  access->profile = profile;
  if (profile == GG_A2G_PROFILE_CLIENT)
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
  /* Checked in every profile; used outside the local one only. */
  access->console_sha256 = gg_config_get_string (config, group, "console-credential-sha256", NULL);
  if (access->console_sha256 != NULL &&
      !check_sha256 (config, group, "console-credential-sha256", &access->console_sha256, "the console credential",
                     error))
    return NULL;
  games = gg_config_get_string (config, group, "games", NULL);
  names = split_list (games);
  for (guint i = 0; names[i] != NULL; i++)
    if (!load_game (access, config, group, names[i], error))
      return NULL;
  if (profile == GG_A2G_PROFILE_LOCAL)
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
  g_free (access->console_sha256);
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
  return gg_a2g_access_get_profile (access) != GG_A2G_PROFILE_LOCAL ? access->certificate : NULL;
}

/** gg_a2g_access_get_profile: Returns: the profile of @access (%NULL: local) */
GgA2gProfile
gg_a2g_access_get_profile (const GgA2gAccess *access)
{
  return access != NULL ? access->profile : GG_A2G_PROFILE_LOCAL;
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

  if (gg_a2g_access_get_profile (access) == GG_A2G_PROFILE_LOCAL || access->certificate != NULL)
    return TRUE;
  proto = soup_message_headers_get_one (soup_server_message_get_request_headers (msg), "X-Forwarded-Proto");
  if (proto != NULL && g_ascii_strcasecmp (proto, "https") == 0)
    return TRUE;
  *message = "HTTPS is required.";
  return FALSE;
}

/* ---- credentials in requests ---------------------------------------------- */

/**
 * _gg_a2g_credential_from_header:
 * @authorization: (nullable): the Authorization header's text
 * @basic: whether `Basic` is taken too
 * @bearer: (out) (optional): whether it was `Bearer`
 *
 * The secret of `Bearer <secret>` or, with @basic, also of
 * `Basic base64(user:secret)` (any user name). NULL when absent or empty,
 * and for a Basic one that is no `user:secret` in base64 or has a NUL in
 * it. The caller clears it (hash_secret()).
 *
 * Returns: (transfer full) (nullable): the secret
 */
char *
_gg_a2g_credential_from_header (const char *authorization,
                                gboolean    basic,
                                gboolean   *bearer)
{
  const char *header = authorization;
  char *secret = NULL;

  if (bearer != NULL)
    *bearer = FALSE;
  if (header == NULL)
    return NULL;
  if (g_ascii_strncasecmp (header, "Bearer ", 7) == 0)
    {
      secret = g_strstrip (g_strdup (header + 7));
      if (bearer != NULL)
        *bearer = TRUE;
    }
  else if (basic && g_ascii_strncasecmp (header, "Basic ", 6) == 0)
    {
      g_autofree char *encoded = g_strstrip (g_strdup (header + 6));
      gsize length = 0;
      guchar *decoded = encoded[0] != '\0' ? g_base64_decode (encoded, &length) : NULL;
      const char *colon = decoded != NULL ? memchr (decoded, ':', length) : NULL;

      /* A NUL inside (or no colon) is no credential of ours. */
      if (colon != NULL && memchr (decoded, '\0', length) == NULL)
        secret = g_strndup (colon + 1, length - (gsize) (colon + 1 - (const char *) decoded));
      if (decoded != NULL)
        memset (decoded, 0, length);
      g_free (decoded);
      memset (encoded, 0, strlen (encoded));
    }
  if (secret != NULL && secret[0] == '\0')
    g_clear_pointer (&secret, g_free);
  return secret;
}

/* The secret of the request's Authorization header
 * (_gg_a2g_credential_from_header()). */
static char *
presented_credential (SoupServerMessage *msg,
                      gboolean           basic,
                      gboolean          *bearer)
{
  return _gg_a2g_credential_from_header (
    soup_message_headers_get_one (soup_server_message_get_request_headers (msg), "Authorization"),
    basic, bearer);
}

/* The scheme of the Authorization header in lowercase ("" without one). */
static const char *
authorization_scheme (SoupServerMessage *msg)
{
  const char *header = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                     "Authorization");

  if (header != NULL && g_ascii_strncasecmp (header, "Basic ", 6) == 0)
    return "basic";
  if (header != NULL && g_ascii_strncasecmp (header, "Bearer ", 7) == 0)
    return "bearer";
  return "";
}

/* The SHA-256 (lowercase hex) of *@secret, which is cleared and freed. */
static char *
hash_secret (char **secret)
{
  char *hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, *secret, -1);

  memset (*secret, 0, strlen (*secret));
  g_clear_pointer (secret, g_free);
  return hash;
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
  g_autofree char *key = NULL;
  g_autofree char *hash = NULL;
  Game *registered;

  if (gg_a2g_access_get_profile (access) == GG_A2G_PROFILE_LOCAL || access->profile == GG_A2G_PROFILE_CLIENT)
    return TRUE;
  key = presented_credential (msg, FALSE, NULL);
  if (key == NULL)
    {
      *code = GG_A2G_ERROR_UNAUTHORIZED;
      *message = "An API key is required.";
      return FALSE;
    }
  hash = hash_secret (&key);
  registered = g_hash_table_lookup (access->games, game);
  if (registered == NULL)
    {
      *code = GG_A2G_ERROR_FORBIDDEN;
      *message = "Unregistered game.";
      return FALSE;
    }
  if (!gg_secure_equal (hash, registered->key_sha256))
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

  if (gg_a2g_access_get_profile (access) == GG_A2G_PROFILE_LOCAL)
    return TRUE;
  registered = g_hash_table_lookup (access->games, game);
  return registered != NULL && g_hash_table_contains (registered->manifests, manifest_hash);
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

/* ---- the console and the readers outside the local profile -------------- */

/* "host[:port]" without the default port of https, so that `Host:
 * example.com:443` and `Origin: https://example.com` are the same. */
static char *
origin_authority (const char *text)
{
  gsize length = strlen (text);

  if (length > 4 && strcmp (text + length - 4, ":443") == 0)
    length -= 4;
  return g_ascii_strdown (text, (gssize) length);
}

/**
 * _gg_a2g_origin_matches_host:
 * @origin: the Origin header's text
 * @host: (nullable): the Host header's text
 *
 * Returns: whether @origin is `https://` and @host, case-insensitive,
 *   the default port :443 left out on both sides
 */
gboolean
_gg_a2g_origin_matches_host (const char *origin,
                             const char *host)
{
  g_autofree char *own = NULL;
  g_autofree char *theirs = NULL;

  if (host == NULL || host[0] == '\0' || g_ascii_strncasecmp (origin, "https://", 8) != 0)
    return FALSE;
  own = origin_authority (host);
  theirs = origin_authority (origin + 8);
  return strcmp (own, theirs) == 0;
}

/**
 * gg_a2g_access_check_origin:
 * @access: access rules
 * @msg: a request
 *
 * Outside the local profile a request with an `Origin` is served only
 * from the service's own origin: `https://` and the request's `Host` (its
 * default port :443 left out on both sides). Behind a proxy the proxy
 * must pass the browser's Host through. The local profile has its own
 * rule (gg-a2g-service.c).
 *
 * Returns: whether the request may go on
 */
gboolean
gg_a2g_access_check_origin (const GgA2gAccess *access,
                            SoupServerMessage *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *origin = soup_message_headers_get_one (headers, "Origin");

  if (origin == NULL)
    return TRUE;
  return _gg_a2g_origin_matches_host (origin, soup_message_headers_get_one (headers, "Host"));
}

/* The registered game whose API key hashes to @hash, or NULL. Every game
 * is compared (in constant time each), whichever matches. */
static const char *
game_of_key_hash (const GgA2gAccess *access,
                  const char        *hash)
{
  GHashTableIter iter;
  gpointer name, value;
  const char *found = NULL;

  g_hash_table_iter_init (&iter, access->games);
  while (g_hash_table_iter_next (&iter, &name, &value))
    {
      Game *game = value;

      if (game->key_sha256 != NULL && gg_secure_equal (hash, game->key_sha256) && found == NULL)
        found = name;
    }
  return found;
}

static void
refuse (GgA2gError  *code,
        const char **message,
        GgA2gError   with_code,
        const char  *with_message)
{
  *code = with_code;
  *message = with_message;
}

#define READER_GAME_DATA "gg-a2g-reader-game"

/**
 * gg_a2g_access_check_reader:
 * @access: access rules
 * @msg: a request for @reader
 * @reader: the console, /v1/usage or /v1/policy
 * @manifest_hash: (nullable): /v1/policy's `manifest_hash`
 * @code: (out): 401 or 403 when refused
 * @message: (out): why, without the credential
 *
 * Outside the local profile:
 * - the console needs the console credential (Basic or Bearer); without
 *   console-credential-sha256 configured it is not served (403);
 * - /v1/usage: the console credential, or in the server profile a
 *   registered game's API key (Bearer), which then reads its own game
 *   only (gg_a2g_access_get_reader_game());
 * - /v1/policy (server profile only): the console credential, or the API
 *   key of a game that registered @manifest_hash (another game's key:
 *   403).
 * A refused console request should ask the browser for the credential
 * (`WWW-Authenticate: Basic`): the caller adds it on 401.
 *
 * Returns: whether the request may go on
 */
gboolean
gg_a2g_access_check_reader (const GgA2gAccess *access,
                            SoupServerMessage *msg,
                            GgA2gReader        reader,
                            const char        *manifest_hash,
                            GgA2gError        *code,
                            const char       **message)
{
  gboolean keys = FALSE;
  gboolean bearer = FALSE;
  g_autofree char *secret = NULL;
  g_autofree char *hash = NULL;
  const char *game;

  if (gg_a2g_access_get_profile (access) == GG_A2G_PROFILE_LOCAL)
    return TRUE;
  if (reader == GG_A2G_READER_POLICY && access->profile == GG_A2G_PROFILE_CLIENT)
    {
      refuse (code, message, GG_A2G_ERROR_FORBIDDEN, "Not available in this profile.");
      return FALSE;
    }
  keys = reader != GG_A2G_READER_CONSOLE && access->profile != GG_A2G_PROFILE_CLIENT;
  if (!keys && access->console_sha256 == NULL)
    {
      refuse (code, message, GG_A2G_ERROR_FORBIDDEN, "Not available: no console credential is configured.");
      return FALSE;
    }
  secret = presented_credential (msg, TRUE, &bearer);
  if (secret == NULL && strcmp (authorization_scheme (msg), "basic") != 0)
    {
      refuse (code, message, GG_A2G_ERROR_UNAUTHORIZED,
              keys ? "An API key or the console credential is required." : "The console credential is required.");
      return FALSE;
    }
  /* A Basic one without user:secret in base64 is a wrong one. */
  hash = secret != NULL ? hash_secret (&secret) : NULL;
  if (hash != NULL && access->console_sha256 != NULL && gg_secure_equal (hash, access->console_sha256))
    return TRUE;
  /* An API key is a Bearer token only: a browser prompt never sends one. */
  game = hash != NULL && keys && bearer ? game_of_key_hash (access, hash) : NULL;
  if (game == NULL)
    {
      refuse (code, message, GG_A2G_ERROR_UNAUTHORIZED,
              keys ? "Invalid API key or console credential." : "Invalid console credential.");
      return FALSE;
    }
  if (reader == GG_A2G_READER_POLICY && manifest_hash != NULL &&
      !gg_a2g_access_manifest_registered (access, game, manifest_hash))
    {
      refuse (code, message, GG_A2G_ERROR_FORBIDDEN, "Not a manifest hash of this API key's game.");
      return FALSE;
    }
  g_object_set_data_full (G_OBJECT (msg), READER_GAME_DATA, g_strdup (game), g_free);
  return TRUE;
}

/**
 * gg_a2g_access_get_reader_game:
 * @msg: a request gg_a2g_access_check_reader() let through
 *
 * Returns: (nullable): the game whose API key the request carried, %NULL
 *   when it may read everything (the console credential, the local
 *   profile)
 */
const char *
gg_a2g_access_get_reader_game (SoupServerMessage *msg)
{
  return msg != NULL ? g_object_get_data (G_OBJECT (msg), READER_GAME_DATA) : NULL;
}

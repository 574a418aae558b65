/* gg-a2g-session-endpoint.c: POST /v1/session: open or renew a session.
 *
 * The manifest comes in full (checked against every rule, hashed and kept)
 * or as a manifest_hash known already. The local profile needs no
 * credential to open a session; it still issues a session token, which
 * every later request of that client_id must carry. A second call for the
 * same client_id renews: new token, the previous one accepted for the
 * grace period (30 s), context, memory and usage kept. In the client
 * profile a player (the join token's sub) has at most
 * `max-sessions-per-sub` live sessions (the store's player_claim).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-join.h"
#include "gg-a2g-endpoints.h"

typedef struct {
  GgA2gExchange *ex;
  GgA2gManifest *manifest;
  char *client_id;
  char *game;
  GgA2gJoinClaims claims;    /* client profile: the join token's */
} Open;

static void
open_free (Open *open)
{
  gg_a2g_exchange_unref (open->ex);
  g_clear_pointer (&open->manifest, gg_a2g_manifest_unref);
  g_free (open->client_id);
  g_free (open->game);
  gg_a2g_join_claims_clear (&open->claims);
  g_free (open);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Open, open_free)

/* After a store operation: FALSE, with @open freed, when the client is
 * gone or the shared store is out of reach (then 503: no session and no
 * join token is accepted without the store). */
static gboolean
open_goes_on (Open         *open,
              const GError *store_error)
{
  if (!gg_a2g_exchange_is_live (open->ex))
    {
      open_free (open);
      return FALSE;
    }
  if (store_error != NULL)
    {
      gg_a2g_exchange_reply_error (open->ex, store_error);
      open_free (open);
      return FALSE;
    }
  return TRUE;
}

static void
on_opened (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(Open) open = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GgA2gSession) session = gg_a2g_store_session_open_finish (GG_A2G_STORE (source), result, &error);
  g_autoptr(JsonObject) reply = NULL;
  JsonObject *limits;

  if (session == NULL)
    {
      gg_a2g_exchange_reply_error (open->ex, error);
      return;
    }
  reply = gg_a2g_reply_new ();
  json_object_set_boolean_member (reply, "ok", TRUE);
  json_object_set_string_member (reply, "manifest_hash", open->manifest->hash);
  json_object_set_string_member (reply, "session_token", session->token);
  json_object_set_int_member (reply, "expires_in", session->ttl_s);
  limits = json_object_new ();
  json_object_set_int_member (limits, "entities_per_request", GG_A2G_MAX_ENTITIES);
  json_object_set_int_member (limits, "max_body_bytes", GG_A2G_MAX_BODY);
  json_object_set_object_member (reply, "limits", limits);
  gg_a2g_exchange_reply (open->ex, 200, reply);
}

static void
open_session (Open *open)
{
  GgA2gService *service = open->ex->service;

  gg_a2g_store_session_open_async (service->store, open->client_id, open->game, open->manifest,
                                   service->settings.session_ttl_s, service->settings.renew_grace_s,
                                   open->ex->cancellable, on_opened, open);
}

static void
on_existing (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Open *open = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GgA2gSession) session = gg_a2g_store_session_lookup_finish (GG_A2G_STORE (source), result, &error);

  /* At the session limit only renewals are taken. */
  if (g_error_matches (error, GG_A2G_ERROR, GG_A2G_ERROR_UNKNOWN_SESSION))
    {
      gg_a2g_exchange_fail (open->ex, GG_A2G_ERROR_RATE_LIMITED, "Too many sessions.");
      open_free (open);
      return;
    }
  open_session (open);
}

static void
on_counted (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Open *open = user_data;
  GgA2gService *service = open->ex->service;
  gint64 count = gg_a2g_store_session_count_finish (GG_A2G_STORE (source), result, NULL);

  if (!gg_a2g_exchange_is_live (open->ex))
    {
      open_free (open);
      return;
    }
  if (count >= service->settings.max_sessions)
    {
      gg_a2g_store_session_lookup_async (service->store, open->client_id, NULL, open->ex->cancellable,
                                         on_existing, open);
      return;
    }
  open_session (open);
}

static void
on_jti_claimed (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Open *open = user_data;
  g_autoptr(GError) error = NULL;
  gboolean fresh = gg_a2g_store_jti_claim_finish (GG_A2G_STORE (source), result, &error);

  if (!open_goes_on (open, error))
    return;
  if (!fresh)
    {
      gg_a2g_exchange_fail (open->ex, GG_A2G_ERROR_UNAUTHORIZED, "Join token already used.");
      open_free (open);
      return;
    }
  gg_a2g_store_session_count_async (open->ex->service->store, open->ex->cancellable, on_counted, open);
}

static void
claim_jti (Open *open)
{
  if (open->claims.jti != NULL)
    {
      /* Everything else checked: the join token is spent now, once. */
      g_autofree char *jti = g_strconcat (open->game, ":", open->claims.jti, NULL);

      gg_a2g_store_jti_claim_async (open->ex->service->store, jti, open->claims.exp, open->ex->cancellable,
                                    on_jti_claimed, open);
      return;
    }
  gg_a2g_store_session_count_async (open->ex->service->store, open->ex->cancellable, on_counted, open);
}

static void
on_sub_claimed (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Open *open = user_data;
  g_autoptr(GError) store_error = NULL;
  gint64 wait_ms = gg_a2g_store_player_claim_finish (GG_A2G_STORE (source), result, &store_error);

  if (!open_goes_on (open, store_error))
    return;
  if (wait_ms == GG_A2G_PLAYER_CLAIM_OTHER_PLAYER)
    {
      gg_a2g_exchange_fail (open->ex, GG_A2G_ERROR_FORBIDDEN, "This client_id is another player's session.");
      open_free (open);
      return;
    }
  if (wait_ms != 0)
    {
      /* Until the soonest of the player's sessions could end by itself
       * (the join token is not spent: a retry may use it). */
      gg_a2g_exchange_rate_limited (open->ex, wait_ms, "Too many sessions for this player.");
      open_free (open);
      return;
    }
  claim_jti (open);
}

/* Everything about the request checked: the player's session slot (client
 * profile), then the join token's jti, then the service-wide count. A
 * refused slot leaves the join token unspent; a slot claimed for an
 * opening refused after it counts for GG_A2G_PLAYER_CLAIM_PENDING_S only. */
static void
count_sessions (Open *open)
{
  GgA2gService *service = open->ex->service;

  /* Also without a limit (0): the claim keeps each client_id one player's. */
  if (open->claims.sub != NULL)
    {
      gg_a2g_store_player_claim_async (service->store, open->game, open->claims.sub, open->client_id,
                                            service->settings.max_sessions_per_sub > 0 ?
                                            (guint) service->settings.max_sessions_per_sub : G_MAXINT,
                                            service->settings.session_ttl_s, open->ex->cancellable,
                                            on_sub_claimed, open);
      return;
    }
  claim_jti (open);
}

static void
on_manifest_kept (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  gg_a2g_store_manifest_put_finish (GG_A2G_STORE (source), result, NULL);
  count_sessions (user_data);
}

static gboolean
check_game (Open *open)
{
  if (strcmp (open->manifest->game, open->game) != 0)
    {
      gg_a2g_exchange_fail (open->ex, GG_A2G_ERROR_INVALID, "manifest.game: must equal game");
      return FALSE;
    }
  if (!gg_a2g_access_manifest_registered (open->ex->service->settings.access, open->game, open->manifest->hash))
    {
      gg_a2g_exchange_fail (open->ex, GG_A2G_ERROR_FORBIDDEN, "Unregistered manifest hash.");
      return FALSE;
    }
  if (open->claims.manifest_hash != NULL && strcmp (open->claims.manifest_hash, open->manifest->hash) != 0)
    {
      gg_a2g_exchange_fail (open->ex, GG_A2G_ERROR_FORBIDDEN, "Join token for another manifest.");
      return FALSE;
    }
  return TRUE;
}

static void
on_manifest_fetched (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Open *open = user_data;
  g_autoptr(GError) error = NULL;
  GgA2gManifest *manifest = gg_a2g_store_manifest_get_finish (GG_A2G_STORE (source), result, &error);

  open->manifest = manifest;
  if (!gg_a2g_exchange_is_live (open->ex))
    {
      open_free (open);
      return;
    }
  if (error != NULL)
    {
      gg_a2g_exchange_reply_error (open->ex, error);
      open_free (open);
      return;
    }
  if (open->manifest == NULL)
    {
      gg_a2g_exchange_fail (open->ex, GG_A2G_ERROR_FORBIDDEN, "Unknown manifest hash: send the manifest.");
      open_free (open);
      return;
    }
  if (!check_game (open))
    {
      open_free (open);
      return;
    }
  count_sessions (open);
}

static void after_credentials (Open *open);
static void on_sub_rate (GObject *source, GAsyncResult *result, gpointer user_data);

static void
on_open_rate (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Open *open = user_data;
  GgA2gExchange *ex = open->ex;
  GgA2gService *service = ex->service;
  g_autoptr(GError) store_error = NULL;
  gint64 wait_ms = gg_a2g_store_rate_take_finish (GG_A2G_STORE (source), result, &store_error);
  GgA2gError refused_code = GG_A2G_ERROR_UNAUTHORIZED;
  const char *refusal = NULL;

  if (!open_goes_on (open, store_error))
    return;
  if (wait_ms != 0)
    {
      gg_a2g_exchange_rate_limited (ex, wait_ms, "Too many session requests.");
      open_free (open);
      return;
    }
  /* The server profile's API key (gg-a2g-access.c), before any manifest work. */
  if (!gg_a2g_access_check_api_key (service->settings.access, ex->msg, open->game, &refused_code, &refusal))
    {
      gg_a2g_exchange_fail (ex, refused_code, "%s", refusal);
      open_free (open);
      return;
    }
  /* The client profile's join token (gg-a2g-join.c), likewise. */
  if (service->settings.profile == GG_A2G_PROFILE_CLIENT)
    {
      g_autofree char *token = gg_a2g_exchange_bearer (ex);
      gboolean valid = gg_a2g_join_verify (service->settings.access, token, open->game,
                                           g_get_real_time () / G_USEC_PER_SEC, &open->claims, &refusal);

      if (token != NULL)
        memset (token, 0, strlen (token));
      if (!valid)
        {
          gg_a2g_exchange_fail (ex, GG_A2G_ERROR_UNAUTHORIZED, "%s", refusal);
          open_free (open);
          return;
        }
      /* Then the rate of session openings per player (sub). */
      {
        g_autofree char *bucket = g_strconcat ("open-sub:", open->game, ":", open->claims.sub, NULL);

        gg_a2g_store_rate_take_async (service->store, bucket, service->settings.sub_open_rate,
                                      service->settings.sub_open_burst, ex->cancellable, on_sub_rate, open);
        return;
      }
    }
  after_credentials (open);
}

static void
on_sub_rate (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Open *open = user_data;
  g_autoptr(GError) store_error = NULL;
  gint64 wait_ms = gg_a2g_store_rate_take_finish (GG_A2G_STORE (source), result, &store_error);

  if (!open_goes_on (open, store_error))
    return;
  if (wait_ms != 0)
    {
      gg_a2g_exchange_rate_limited (open->ex, wait_ms, "Too many session requests for this player.");
      open_free (open);
      return;
    }
  after_credentials (open);
}

/* The manifest: in full, or by a hash known here or to the store. */
static void
after_credentials (Open *open)
{
  GgA2gExchange *ex = open->ex;
  GgA2gService *service = ex->service;
  JsonNode *manifest_node = json_object_get_member (ex->body, "manifest");
  const char *hash = gg_a2g_json_string (ex->body, "manifest_hash");
  g_autoptr(GError) error = NULL;
  GgA2gManifest *known;

  if (manifest_node != NULL && !JSON_NODE_HOLDS_NULL (manifest_node))
    {
      open->manifest = gg_a2g_manifest_parse (manifest_node, &error);
      if (open->manifest == NULL)
        {
          gg_a2g_exchange_reply_error (ex, error);
          open_free (open);
          return;
        }
      if (!check_game (open))
        {
          open_free (open);
          return;
        }
      if (hash != NULL && strcmp (hash, open->manifest->hash) != 0)
        {
          gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "manifest_hash: does not match the manifest");
          open_free (open);
          return;
        }
      known = gg_a2g_store_manifest_lookup (service->store, open->manifest->hash);
      if (known != NULL)
        {
          gg_a2g_manifest_unref (open->manifest);
          open->manifest = gg_a2g_manifest_ref (known);
          count_sessions (open);
          return;
        }
      gg_a2g_store_manifest_put_async (service->store, open->manifest, ex->cancellable, on_manifest_kept, open);
      return;
    }
  known = gg_a2g_store_manifest_lookup (service->store, hash);
  if (known != NULL)
    {
      open->manifest = gg_a2g_manifest_ref (known);
      if (!check_game (open))
        {
          open_free (open);
          return;
        }
      count_sessions (open);
      return;
    }
  gg_a2g_store_manifest_get_async (service->store, hash, ex->cancellable, on_manifest_fetched, open);
}

/**
 * gg_a2g_handle_session:
 * @ex: a POST /v1/session
 */
void
gg_a2g_handle_session (GgA2gExchange *ex)
{
  JsonNode *version = json_object_get_member (ex->body, "a2g");
  JsonNode *manifest = json_object_get_member (ex->body, "manifest");
  JsonNode *hash = json_object_get_member (ex->body, "manifest_hash");
  const char *client_id = gg_a2g_json_string (ex->body, "client_id");
  const char *game = gg_a2g_json_string (ex->body, "game");
  GSocketAddress *peer = soup_server_message_get_remote_address (ex->msg);
  g_autofree char *peer_text = NULL;
  g_autofree char *bucket = NULL;
  Open *open;

  if (version != NULL &&
      (!JSON_NODE_HOLDS_VALUE (version) || json_node_get_value_type (version) != G_TYPE_STRING ||
       !g_str_has_prefix (json_node_get_string (version), "0.")))
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "a2g: this service speaks A2G 0.x");
      return;
    }
  if (!gg_a2g_client_id_valid (client_id))
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, client_id == NULL ? "client_id: is required"
                            : "client_id: must match ^[A-Za-z0-9_-]{8,64}$");
      return;
    }
  if (!gg_a2g_id_valid (game))
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, game == NULL ? "game: is required"
                            : "game: must match ^[a-z][a-z0-9_:.-]{0,63}$");
      return;
    }
  if ((manifest == NULL || JSON_NODE_HOLDS_NULL (manifest)) && hash == NULL)
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "manifest: is required (or a known manifest_hash)");
      return;
    }
  if (hash != NULL && gg_a2g_json_string (ex->body, "manifest_hash") == NULL)
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "manifest_hash: must be a string");
      return;
    }
  open = g_new0 (Open, 1);
  open->ex = gg_a2g_exchange_ref (ex);
  open->client_id = g_strdup (client_id);
  open->game = g_strdup (game);
  if (peer != NULL && G_IS_INET_SOCKET_ADDRESS (peer))
    peer_text = g_inet_address_to_string (g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (peer)));
  bucket = g_strconcat ("open:", peer_text != NULL ? peer_text : "?", NULL);
  gg_a2g_store_rate_take_async (ex->service->store, bucket, ex->service->settings.session_open_rate,
                                ex->service->settings.session_open_burst, ex->cancellable, on_open_rate, open);
}

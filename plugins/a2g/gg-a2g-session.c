/* gg-a2g-session.c: POST /v1/session: open or renew a session.
 *
 * The manifest comes in full (checked against every rule, hashed and kept)
 * or as a manifest_hash known already. The local profile needs no
 * credential to open a session; it still issues a session token, which
 * every later request of that client_id must carry. A second call for the
 * same client_id renews: new token, the previous one accepted for the
 * grace period (30 s), context, memory and usage kept.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-service.h"

typedef struct {
  GgA2gExchange *ex;
  GgA2gManifest *manifest;
  char *client_id;
  char *game;
} Open;

static void
open_free (Open *open)
{
  gg_a2g_exchange_unref (open->ex);
  g_clear_pointer (&open->manifest, gg_a2g_manifest_unref);
  g_free (open->client_id);
  g_free (open->game);
  g_free (open);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Open, open_free)

static void
on_opened (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(Open) open = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GgA2gSession) session = gg_a2g_store_finish_pointer (GG_A2G_STORE (source), result, &error);
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

  gg_a2g_store_session_open_async (service->store, open->client_id, open->game, open->manifest->hash,
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
  g_autoptr(GgA2gSession) session = gg_a2g_store_finish_pointer (GG_A2G_STORE (source), result, &error);

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
  gssize count = gg_a2g_store_finish_int (GG_A2G_STORE (source), result, NULL);

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
count_sessions (Open *open)
{
  gg_a2g_store_session_count_async (open->ex->service->store, open->ex->cancellable, on_counted, open);
}

static void
on_manifest_kept (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  gg_a2g_store_finish_boolean (GG_A2G_STORE (source), result, NULL);
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
  return TRUE;
}

static void
on_manifest_fetched (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Open *open = user_data;
  GgA2gService *service = open->ex->service;
  g_autofree char *canonical = gg_a2g_store_finish_pointer (GG_A2G_STORE (source), result, NULL);
  g_autoptr(JsonNode) node = NULL;

  if (!gg_a2g_exchange_is_live (open->ex))
    {
      open_free (open);
      return;
    }
  if (canonical != NULL)
    node = gg_json_parse (canonical, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (node != NULL)
    open->manifest = gg_a2g_manifest_parse (node, NULL);
  if (open->manifest == NULL)
    {
      gg_a2g_exchange_fail (open->ex, GG_A2G_ERROR_FORBIDDEN, "Unknown manifest hash: send the manifest.");
      open_free (open);
      return;
    }
  g_hash_table_replace (service->manifests, open->manifest->hash, gg_a2g_manifest_ref (open->manifest));
  if (!check_game (open))
    {
      open_free (open);
      return;
    }
  count_sessions (open);
}

static void
on_open_rate (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Open *open = user_data;
  GgA2gExchange *ex = open->ex;
  GgA2gService *service = ex->service;
  gssize wait_ms = gg_a2g_store_finish_int (GG_A2G_STORE (source), result, NULL);
  JsonNode *manifest_node = json_object_get_member (ex->body, "manifest");
  const char *hash = gg_a2g_json_string (ex->body, "manifest_hash");
  g_autoptr(GError) error = NULL;
  GgA2gManifest *known;

  if (!gg_a2g_exchange_is_live (ex))
    {
      open_free (open);
      return;
    }
  if (wait_ms != 0)
    {
      g_autofree char *seconds = g_strdup_printf ("%" G_GSSIZE_FORMAT, MAX ((wait_ms + 999) / 1000, 1));

      soup_message_headers_replace (soup_server_message_get_response_headers (ex->msg), "Retry-After", seconds);
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_RATE_LIMITED, "Too many session requests.");
      open_free (open);
      return;
    }
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
      known = gg_a2g_service_lookup_manifest (service, open->manifest->hash);
      if (known != NULL)
        {
          gg_a2g_manifest_unref (open->manifest);
          open->manifest = gg_a2g_manifest_ref (known);
          count_sessions (open);
          return;
        }
      g_hash_table_replace (service->manifests, open->manifest->hash, gg_a2g_manifest_ref (open->manifest));
      gg_a2g_store_manifest_put_async (service->store, open->manifest->hash, open->manifest->canonical,
                                       ex->cancellable, on_manifest_kept, open);
      return;
    }
  known = gg_a2g_service_lookup_manifest (service, hash);
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

/* gg-a2g-policy-endpoint.c: GET /v1/policy: the game-wide cache of one
 * manifest as a decision table a game can ship, with the SHA-256 of its
 * canonical JSON and, with policy-signing-key, its Ed25519 signature as
 * "ed25519:<base64>". Who may read it outside the local profile:
 * gg_a2g_access_check_reader().
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-canonical.h"
#include "gg-a2g-endpoints.h"

static void
on_entries (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GgA2gExchange) ex = user_data;
  g_autoptr(GPtrArray) entries = gg_a2g_store_cache_list_finish (GG_A2G_STORE (source), result, NULL);
  g_autoptr(JsonObject) reply = gg_a2g_reply_new ();
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *created = g_date_time_format (now, "%Y-%m-%dT%H:%M:%SZ");
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *canonical = NULL;
  g_autofree char *hex = NULL;
  JsonArray *list = json_array_new ();

  json_object_set_string_member (reply, "manifest_hash", g_hash_table_lookup (ex->query, "manifest_hash"));
  json_object_set_string_member (reply, "created", created);
  for (guint i = 0; entries != NULL && i < entries->len; i++)
    {
      GgA2gCacheEntry *entry = g_ptr_array_index (entries, i);
      JsonObject *item = json_object_new ();

      json_object_set_string_member (item, "type", entry->type);
      json_object_set_string_member (item, "key", entry->key + strlen ("game:"));
      json_object_set_member (item, "situation", json_node_copy (entry->situation));
      json_object_set_member (item, "legal_actions", json_node_copy (entry->legal_actions));
      json_object_set_string_member (item, "action", entry->action);
      json_object_set_int_member (item, "confidence", entry->confidence);
      json_array_add_object_element (list, item);
    }
  json_object_set_array_member (reply, "entries", list);
  node = json_node_init_object (json_node_alloc (), reply);
  canonical = gg_a2g_canonical_json (node);
  hex = gg_a2g_sha256_hex (canonical, -1);
  json_object_set_string_member (reply, "sha256", hex);
  if (ex->service != NULL && ex->service->settings.policy_signer != NULL)
    {
      /* Over the same canonical text as sha256 (gg-a2g-policy-sign.c). */
      g_autofree char *value = gg_a2g_policy_signer_sign (ex->service->settings.policy_signer, canonical);
      g_autofree char *signature = g_strconcat ("ed25519:", value, NULL);

      json_object_set_string_member (reply, "signature", signature);
    }
  gg_a2g_exchange_reply (ex, 200, reply);
}

/**
 * gg_a2g_handle_policy:
 * @ex: a GET /v1/policy?manifest_hash=…
 */
void
gg_a2g_handle_policy (GgA2gExchange *ex)
{
  const char *hash = ex->query != NULL ? g_hash_table_lookup (ex->query, "manifest_hash") : NULL;

  if (hash == NULL)
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "manifest_hash: is required");
      return;
    }
  if (gg_a2g_store_manifest_lookup (ex->service->store, hash) == NULL)
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_FORBIDDEN, "Unknown manifest hash.");
      return;
    }
  gg_a2g_store_cache_list_async (ex->service->store, hash, ex->cancellable, on_entries,
                                 gg_a2g_exchange_ref (ex));
}

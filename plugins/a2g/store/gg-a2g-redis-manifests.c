/* gg-a2g-redis-manifests.c: the Redis store's manifests: the canonical
 * JSON under its hash (`SET EX`, content-addressed), kept for 7 days from
 * its last read (`GETEX`), and parsed once per replica: a manifest put
 * here or read here (by manifest_get, or with a session another replica
 * opened) is known here from then on, and manifest_lookup finds it
 * without a round trip.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gamegate.h>

#include "gg-a2g-redis-private.h"

#define MANIFEST_TTL_S (7 * 86400)

static GgA2gManifest *
manifest_lookup (GgA2gStore *store,
                 const char *hash)
{
  return g_hash_table_lookup (GG_A2G_REDIS_STORE (store)->manifests, hash);
}

/* The manifest of @canonical, known here from now on (NULL: it does not parse). */
static GgA2gManifest *
remember (GgA2gRedisStore *self,
          const char      *hash,
          const char      *canonical)
{
  GgA2gManifest *manifest = g_hash_table_lookup (self->manifests, hash);
  g_autoptr(JsonNode) node = NULL;

  if (manifest != NULL)
    return manifest;
  node = gg_json_parse (canonical, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  manifest = node != NULL ? gg_a2g_manifest_parse (node, NULL) : NULL;
  if (manifest != NULL)
    g_hash_table_insert (self->manifests, g_strdup (hash), manifest);
  return manifest;
}

/**
 * _gg_a2g_redis_manifest_get_cmd:
 * @self: the store
 * @hash: a manifest hash
 * @renew: whether the read renews the manifest's 7 days (a session's own
 *   lookup does not: its opening did)
 *
 * Returns: (transfer full): the command that reads @hash's manifest
 */
GgA2gRedisCmd *
_gg_a2g_redis_manifest_get_cmd (GgA2gRedisStore *self,
                                const char      *hash,
                                gboolean         renew)
{
  GgA2gRedisCmd *cmd = _gg_a2g_redis_cmd_new (renew ? "GETEX" : "GET");

  _gg_a2g_redis_cmd_addf (cmd, "%sm:%s", self->prefix, hash);
  if (renew)
    {
      _gg_a2g_redis_cmd_add (cmd, "EX");
      _gg_a2g_redis_cmd_addf (cmd, "%d", MANIFEST_TTL_S);
    }
  return cmd;
}

/**
 * _gg_a2g_redis_manifest_from_reply:
 * @self: the store
 * @hash: what _gg_a2g_redis_manifest_get_cmd() read
 * @reply: its reply
 *
 * Returns: (transfer none) (nullable): the manifest, known here from now on
 */
GgA2gManifest *
_gg_a2g_redis_manifest_from_reply (GgA2gRedisStore *self,
                                   const char      *hash,
                                   redisReply      *reply)
{
  g_autofree char *canonical = _gg_a2g_redis_reply_string (reply);

  return canonical != NULL ? remember (self, hash, canonical) : NULL;
}

static void
manifest_put (GgA2gStore          *store,
              GgA2gManifest       *manifest,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GgA2gRedisCmd *cmd = _gg_a2g_redis_cmd_new ("SET");

  if (!g_hash_table_contains (self->manifests, manifest->hash))
    g_hash_table_insert (self->manifests, g_strdup (manifest->hash), gg_a2g_manifest_ref (manifest));
  _gg_a2g_redis_cmd_addf (cmd, "%sm:%s", self->prefix, manifest->hash);
  _gg_a2g_redis_cmd_add (cmd, manifest->canonical);
  _gg_a2g_redis_cmd_add (cmd, "EX");
  _gg_a2g_redis_cmd_addf (cmd, "%d", MANIFEST_TTL_S);
  _gg_a2g_redis_send (self, cmd, g_task_new (store, cancellable, callback, user_data), _gg_a2g_redis_reply_stored);
}

static void
on_got (GgA2gRedisStore *self,
        redisReply      *reply,
        GTask           *task)
{
  GgA2gManifest *manifest = _gg_a2g_redis_manifest_from_reply (self, g_task_get_task_data (task), reply);

  g_task_return_pointer (task, manifest != NULL ? gg_a2g_manifest_ref (manifest) : NULL,
                         (GDestroyNotify) gg_a2g_manifest_unref);
  g_object_unref (task);
}

static void
manifest_get (GgA2gStore          *store,
              const char          *hash,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  GgA2gRedisStore *self = GG_A2G_REDIS_STORE (store);
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  GgA2gManifest *known = manifest_lookup (store, hash);

  if (known != NULL)
    {
      g_task_return_pointer (task, gg_a2g_manifest_ref (known), (GDestroyNotify) gg_a2g_manifest_unref);
      g_object_unref (task);
      return;
    }
  g_task_set_task_data (task, g_strdup (hash), g_free);
  _gg_a2g_redis_send (self, _gg_a2g_redis_manifest_get_cmd (self, hash, TRUE), task, on_got);
}

/** _gg_a2g_redis_manifests_iface_init: @iface: the store interface to fill */
void
_gg_a2g_redis_manifests_iface_init (GgA2gStoreInterface *iface)
{
  iface->manifest_lookup = manifest_lookup;
  iface->manifest_put = manifest_put;
  iface->manifest_get = manifest_get;
}

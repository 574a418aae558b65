/* gg-a2g-process-manifests.c: the process store's manifests, kept parsed
 * by hash: content-addressed, so a manifest put twice is kept once, and
 * nothing is ever read from elsewhere (manifest_get knows what
 * manifest_lookup does).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-process-private.h"

static GgA2gManifest *
manifest_lookup (GgA2gStore *store,
                 const char *hash)
{
  return g_hash_table_lookup (GG_A2G_PROCESS_STORE (store)->manifests, hash);
}

static void
manifest_put (GgA2gStore          *store,
              GgA2gManifest       *manifest,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);

  if (!g_hash_table_contains (self->manifests, manifest->hash))
    g_hash_table_insert (self->manifests, manifest->hash, gg_a2g_manifest_ref (manifest));
  RETURN_BOOLEAN (TRUE);
}

static void
manifest_get (GgA2gStore          *store,
              const char          *hash,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  GgA2gManifest *manifest = manifest_lookup (store, hash);

  RETURN_POINTER (manifest != NULL ? gg_a2g_manifest_ref (manifest) : NULL, gg_a2g_manifest_unref);
}

/** _gg_a2g_process_manifests_init: @self: the store, being made */
void
_gg_a2g_process_manifests_init (GgA2gProcessStore *self)
{
  /* Keyed by the manifest's own hash string. */
  self->manifests = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) gg_a2g_manifest_unref);
}

/** _gg_a2g_process_manifests_iface_init: @iface: the store interface to fill */
void
_gg_a2g_process_manifests_iface_init (GgA2gStoreInterface *iface)
{
  iface->manifest_lookup = manifest_lookup;
  iface->manifest_put = manifest_put;
  iface->manifest_get = manifest_get;
}

/* gg-a2g-store-data.c: the plain data that crosses the store interface
 * (gg-a2g-store-data.h): made, referenced and freed the same way whichever
 * backend made it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-store-data.h"

/**
 * gg_a2g_session_new:
 * @client_id: the client's id
 * @id: the session's random id
 * @game: its game
 * @manifest: (nullable): its manifest, when readable
 * @manifest_hash: its manifest's hash
 * @token: its current token
 * @ttl_s: its idle lifetime
 * @context: (transfer full) (nullable): its context, %NULL when none was set
 *
 * Returns: (transfer full): a snapshot of a session
 */
GgA2gSession *
gg_a2g_session_new (const char    *client_id,
                    const char    *id,
                    const char    *game,
                    GgA2gManifest *manifest,
                    const char    *manifest_hash,
                    const char    *token,
                    gint64         ttl_s,
                    GgA2gContext  *context)
{
  GgA2gSession *session = g_new0 (GgA2gSession, 1);

  g_atomic_ref_count_init (&session->ref);
  session->client_id = g_strdup (client_id);
  session->id = g_strdup (id);
  session->game = g_strdup (game);
  session->manifest = manifest != NULL ? gg_a2g_manifest_ref (manifest) : NULL;
  session->manifest_hash = g_strdup (manifest_hash);
  session->token = g_strdup (token);
  session->ttl_s = ttl_s;
  session->context = context;
  return session;
}

/** gg_a2g_session_ref: Returns: (transfer full): @session */
GgA2gSession *
gg_a2g_session_ref (GgA2gSession *session)
{
  g_atomic_ref_count_inc (&session->ref);
  return session;
}

/** gg_a2g_session_unref: @session: (transfer full): a session */
void
gg_a2g_session_unref (GgA2gSession *session)
{
  if (!g_atomic_ref_count_dec (&session->ref))
    return;
  g_free (session->client_id);
  g_free (session->id);
  g_free (session->game);
  g_free (session->manifest_hash);
  g_clear_pointer (&session->manifest, gg_a2g_manifest_unref);
  if (session->token != NULL)
    memset (session->token, 0, strlen (session->token));
  g_free (session->token);
  g_clear_pointer (&session->context, gg_a2g_context_unref);
  g_free (session);
}

/**
 * gg_a2g_session_get_context:
 * @session: a session
 *
 * A session that never set a context has the manifest's empty one, made
 * once per snapshot when first needed.
 *
 * Returns: (transfer none) (nullable): the session's context, %NULL when
 *   its manifest is not readable
 */
GgA2gContext *
gg_a2g_session_get_context (GgA2gSession *session)
{
  if (session->context == NULL && session->manifest != NULL)
    session->context = gg_a2g_context_build (session->manifest, NULL, NULL);
  return session->context;
}

/** gg_a2g_cache_entry_new: Returns: (transfer full): an empty entry */
GgA2gCacheEntry *
gg_a2g_cache_entry_new (void)
{
  GgA2gCacheEntry *entry = g_new0 (GgA2gCacheEntry, 1);

  g_atomic_ref_count_init (&entry->ref);
  return entry;
}

/** gg_a2g_cache_entry_ref: Returns: (transfer full): @entry */
GgA2gCacheEntry *
gg_a2g_cache_entry_ref (GgA2gCacheEntry *entry)
{
  g_atomic_ref_count_inc (&entry->ref);
  return entry;
}

/** gg_a2g_cache_entry_unref: @entry: (transfer full): an entry */
void
gg_a2g_cache_entry_unref (GgA2gCacheEntry *entry)
{
  if (!g_atomic_ref_count_dec (&entry->ref))
    return;
  g_free (entry->key);
  g_free (entry->manifest_hash);
  g_free (entry->type);
  g_clear_pointer (&entry->situation, json_node_unref);
  g_clear_pointer (&entry->legal_actions, json_node_unref);
  g_free (entry->action);
  g_free (entry->reason);
  g_free (entry);
}

static void
cache_hit_free (gpointer entry)
{
  if (entry != NULL)
    gg_a2g_cache_entry_unref (entry);
}

/**
 * gg_a2g_cache_hits_new:
 * @n_keys: how many keys a cache_get_many() reads
 *
 * Returns: (transfer full): @n_keys %NULL elements (misses) that free
 *   the entries put in their place
 */
GPtrArray *
gg_a2g_cache_hits_new (guint n_keys)
{
  GPtrArray *hits = g_ptr_array_new_full (n_keys, cache_hit_free);

  g_ptr_array_set_size (hits, n_keys);
  return hits;
}

/** gg_a2g_record_new: Returns: (transfer full): an empty record */
GgA2gRecord *
gg_a2g_record_new (void)
{
  GgA2gRecord *record = g_new0 (GgA2gRecord, 1);

  g_atomic_ref_count_init (&record->ref);
  return record;
}

/** gg_a2g_record_ref: Returns: (transfer full): @record */
GgA2gRecord *
gg_a2g_record_ref (GgA2gRecord *record)
{
  g_atomic_ref_count_inc (&record->ref);
  return record;
}

/** gg_a2g_record_unref: @record: (transfer full): a record */
void
gg_a2g_record_unref (GgA2gRecord *record)
{
  if (!g_atomic_ref_count_dec (&record->ref))
    return;
  g_free (record->decision_id);
  g_free (record->entity);
  g_free (record->type);
  g_free (record->action);
  g_free (record->reason);
  g_free (record->situation_key);
  g_free (record->outcome);
  g_free (record);
}

/** gg_a2g_telemetry_copy: Returns: (transfer full): a copy of @entry */
GgA2gTelemetry *
gg_a2g_telemetry_copy (const GgA2gTelemetry *entry)
{
  GgA2gTelemetry *copy = g_new0 (GgA2gTelemetry, 1);

  *copy = *entry;
  copy->entity = g_strdup (entry->entity);
  copy->type = g_strdup (entry->type);
  copy->faction = g_strdup (entry->faction);
  copy->scalars = entry->scalars != NULL ? json_object_ref (entry->scalars) : NULL;
  return copy;
}

/** gg_a2g_telemetry_free: @entry: (transfer full) (nullable): an entry */
void
gg_a2g_telemetry_free (GgA2gTelemetry *entry)
{
  if (entry == NULL)
    return;
  g_free (entry->entity);
  g_free (entry->type);
  g_free (entry->faction);
  g_clear_pointer (&entry->scalars, json_object_unref);
  g_free (entry);
}

/* gg-a2g-decide-batch.c: what one POST /v1/decide does once for all its
 * entities rather than once per entity, so that a request of 16 costs the
 * store and the main loop about what a request of one does:
 *
 * - the cache entries of every entity that has one are read in one store
 *   operation (one MGET on Redis); a client session's misses in the game
 *   cache then read their session's entries together again;
 * - one timer, at the earliest deadline of the entities not settled yet,
 *   re-armed as they settle or time out, instead of one per entity;
 * - the decision records are written in one operation when the last
 *   entity has settled, before the answer goes out (a report that follows
 *   the answer finds its record);
 * - the random part of every decision id comes from one read of the
 *   kernel's random source.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-decide-private.h"

#define DECISION_ID_HEX 16   /* 64 random bits per decision id */

/* ---- the deadline timer ------------------------------------------------------ */

static gint64
earliest_deadline (Request *request)
{
  gint64 earliest = -1;

  for (guint i = 0; i < request->entities->len; i++)
    {
      Entity *entity = g_ptr_array_index (request->entities, i);

      if (entity->answer == NULL && !entity->timed_out && entity->deadline_us > 0 &&
          (earliest < 0 || entity->deadline_us < earliest))
        earliest = entity->deadline_us;
    }
  return earliest;
}

static gboolean
on_deadline (gpointer user_data)
{
  Request *request = user_data;
  gint64 now = g_get_monotonic_time ();

  /* Settling may finish the request; it lives until this loop is done. */
  _gg_a2g_decide_request_ref (request);
  for (guint i = 0; i < request->entities->len; i++)
    {
      Entity *entity = g_ptr_array_index (request->entities, i);

      if (entity->answer == NULL && !entity->timed_out && entity->deadline_us > 0 && entity->deadline_us <= now)
        _gg_a2g_decide_timed_out (entity);
    }
  if (request->deadline != NULL)
    g_source_set_ready_time (request->deadline, earliest_deadline (request));
  _gg_a2g_decide_request_unref (request);
  return G_SOURCE_CONTINUE;
}

static gboolean
deadline_dispatch (GSource     *source,
                   GSourceFunc  callback,
                   gpointer     user_data)
{
  (void) source;
  return callback (user_data);
}

static GSourceFuncs deadline_funcs = {
  .dispatch = deadline_dispatch,
};

/* Fires at the monotonic ready time: the earliest pending deadline. */
static void
deadline_start (Request *request)
{
  gint64 earliest = earliest_deadline (request);

  if (earliest < 0)
    return;
  request->deadline = g_source_new (&deadline_funcs, sizeof (GSource));
  g_source_set_static_name (request->deadline, "a2g decide deadline");
  g_source_set_callback (request->deadline, on_deadline, request, NULL);
  g_source_set_ready_time (request->deadline, earliest);
  g_source_attach (request->deadline, NULL);
}

/** _gg_a2g_decide_deadline_stop: @request: a request that is done */
void
_gg_a2g_decide_deadline_stop (Request *request)
{
  if (request->deadline == NULL)
    return;
  g_source_destroy (request->deadline);
  g_clear_pointer (&request->deadline, g_source_unref);
}

/* ---- the cache ----------------------------------------------------------------- */

typedef struct {
  Request *request;
  GPtrArray *entities;   /* Entity, borrowed from the request */
} CacheRead;

static void cache_read (Request *request, GPtrArray *entities);

static void
cache_read_free (CacheRead *read)
{
  g_ptr_array_unref (read->entities);
  _gg_a2g_decide_request_unref (read->request);
  g_free (read);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CacheRead, cache_read_free)

static char *
cache_key (Entity *entity)
{
  GgA2gEntry *entry = entity->entry;

  return gg_a2g_entry_cache_key (entry, entry->type->cache == GG_A2G_CACHE_SESSION || entity->own_cache_read ?
                                 entity->request->ex->session->id : NULL);
}

/* Every entity gets its answer; those that read their session's own entry
 * next do so together again. */
static void
cache_answers (CacheRead *read,
               GPtrArray *hits)
{
  g_autoptr(GPtrArray) again = g_ptr_array_new ();

  for (guint i = 0; i < read->entities->len; i++)
    {
      Entity *entity = g_ptr_array_index (read->entities, i);

      if (_gg_a2g_decide_cached (entity, hits != NULL && i < hits->len ? g_ptr_array_index (hits, i) : NULL))
        g_ptr_array_add (again, entity);
    }
  if (again->len > 0)
    cache_read (read->request, again);
}

static void
on_cache_one (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(CacheRead) read = user_data;
  g_autoptr(GPtrArray) hits = gg_a2g_cache_hits_new (1);

  g_ptr_array_index (hits, 0) = gg_a2g_store_finish_pointer (GG_A2G_STORE (source), result, NULL);
  cache_answers (read, hits);
}

static void
on_cache_many (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(CacheRead) read = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) hits = gg_a2g_store_finish_pointer (GG_A2G_STORE (source), result, &error);

  if (error != NULL && read->entities->len > 1 && read->request->ex->service != NULL)
    {
      /* A store that cannot read these keys at once (Redis Cluster, keys
       * in several slots) may still read each: one at a time then. */
      for (guint i = 0; i < read->entities->len; i++)
        {
          Entity *entity = g_ptr_array_index (read->entities, i);
          g_autofree char *key = cache_key (entity);
          CacheRead *one = g_new0 (CacheRead, 1);

          one->request = _gg_a2g_decide_request_ref (read->request);
          one->entities = g_ptr_array_new ();
          g_ptr_array_add (one->entities, entity);
          gg_a2g_store_cache_get_async (read->request->ex->service->store, key, NULL, on_cache_one, one);
        }
      return;
    }
  cache_answers (read, hits);
}

/* One store operation for the cache entries of @entities. */
static void
cache_read (Request   *request,
            GPtrArray *entities)
{
  GgA2gService *service = request->ex->service;
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  CacheRead *read = g_new0 (CacheRead, 1);

  read->request = _gg_a2g_decide_request_ref (request);
  read->entities = g_ptr_array_ref (entities);
  for (guint i = 0; i < entities->len; i++)
    g_ptr_array_add (keys, cache_key (g_ptr_array_index (entities, i)));
  gg_a2g_store_cache_get_many_async (service->store, (const char * const *) keys->pdata, keys->len, NULL,
                                     on_cache_many, read);
}

/* ---- the records and the decision ids ---------------------------------------- */

static void
on_records_written (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  gg_a2g_store_finish_boolean (GG_A2G_STORE (source), result, NULL);
  _gg_a2g_decide_write_done (user_data);
}

/** _gg_a2g_decide_records_write: @request: a request whose entities have all settled */
void
_gg_a2g_decide_records_write (Request *request)
{
  GgA2gService *service = request->ex->service;

  if (service == NULL || request->records->len == 0)
    return;
  request->writes++;
  gg_a2g_store_record_put_many_async (service->store, request->ex->session->client_id, request->records,
                                      NULL, on_records_written, _gg_a2g_decide_request_ref (request));
}

/**
 * _gg_a2g_decide_new_decision_id:
 * @request: a request
 *
 * Returns: (transfer full): "d_" and 64 random bits in hex, the bits of
 *   every decision of @request read at once
 */
char *
_gg_a2g_decide_new_decision_id (Request *request)
{
  const char *random;

  if (request->random_hex == NULL || request->ids_used >= request->entities->len)
    {
      g_free (request->random_hex);
      request->random_hex = gg_secure_token_hex (DECISION_ID_HEX / 2 * MAX (request->entities->len, 1), NULL);
      request->ids_used = 0;
    }
  if (request->random_hex == NULL)
    return g_strdup ("d_");
  random = request->random_hex + DECISION_ID_HEX * request->ids_used++;
  return g_strdup_printf ("d_%.*s", DECISION_ID_HEX, random);
}

/* ---- running the request ------------------------------------------------------ */

static void
on_request_cancelled (GCancellable *cancellable,
                      gpointer      user_data)
{
  Request *request = user_data;

  (void) cancellable;
  /* The client went away or the service stops: model calls end now. */
  for (guint i = 0; i < request->entities->len; i++)
    {
      Entity *entity = g_ptr_array_index (request->entities, i);

      if (entity->cancellable != NULL)
        g_cancellable_cancel (entity->cancellable);
    }
}

/** _gg_a2g_decide_request_run: @request: a request with its entities parsed */
void
_gg_a2g_decide_request_run (Request *request)
{
  GgA2gExchange *ex = request->ex;
  guint n = request->entities->len;
  g_autoptr(GPtrArray) cached = g_ptr_array_new ();

  if (n == 0)
    {
      _gg_a2g_decide_request_finish (request);
      return;
    }
  request->pending = n;
  request->cancel_id = g_cancellable_connect (ex->cancellable, G_CALLBACK (on_request_cancelled), request, NULL);
  /* A forced entity may settle at once; the count keeps the request alive. */
  request->pending++;
  for (guint i = 0; i < n; i++)
    {
      Entity *entity = g_ptr_array_index (request->entities, i);

      if (_gg_a2g_decide_entity_start (entity))
        g_ptr_array_add (cached, entity);
    }
  if (cached->len > 0)
    cache_read (request, cached);
  if (request->pending > 1)
    deadline_start (request);
  if (--request->pending == 0)
    _gg_a2g_decide_request_finish (request);
}

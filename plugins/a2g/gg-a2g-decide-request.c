/* gg-a2g-decide-request.c: one POST /v1/decide, from its entities
 * checked to its answer, doing once for all its entities what each would
 * otherwise do alone, so that a request of 16 costs the store and the
 * main loop about what a request of one does:
 *
 * - a request_id is claimed first, so a retry within the replay window
 *   gets the same answer without new model calls (and waits for it while
 *   the first is decided);
 * - the cache entries of every entity that has one are read in one store
 *   operation (one MGET on Redis); a client session's misses in the game
 *   cache then read their session's entries together again;
 * - one timer, at the earliest deadline of the entities not settled yet,
 *   re-armed as they settle or time out, instead of one per entity;
 * - the decision records are written in one operation when the last
 *   entity has settled, and the answer goes out once the store has them
 *   and the cache entries the decisions made (a report or a decision that
 *   follows the answer, on any replica, finds them);
 * - the random part of every decision id comes from one read of the
 *   kernel's random source.
 *
 * The answer goes out when every entity has settled, in request order.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-decide-entity.h"
#include "gg-a2g-decide-request.h"

#define DECISION_ID_HEX 16   /* 64 random bits per decision id */

static void deadline_stop (GgA2gDecideRequest *request);

/**
 * gg_a2g_decide_request_new:
 * @ex: an authenticated POST /v1/decide, its body checked
 * @manifest: the session's manifest
 * @context: the session's context
 * @epoch: (nullable): the body's `epoch`, echoed
 * @request_id: (nullable): the body's `request_id`
 *
 * The caller adds the entities (gg_a2g_decide_entity_new()) to
 * `entities`, then starts the request.
 *
 * Returns: (transfer full): a request, not started
 */
GgA2gDecideRequest *
gg_a2g_decide_request_new (GgA2gExchange *ex,
                           GgA2gManifest *manifest,
                           GgA2gContext  *context,
                           JsonNode      *epoch,
                           const char    *request_id)
{
  GgA2gDecideRequest *request = g_new0 (GgA2gDecideRequest, 1);

  request->refs = 1;
  request->ex = gg_a2g_exchange_ref (ex);
  request->manifest = gg_a2g_manifest_ref (manifest);
  request->context = gg_a2g_context_ref (context);
  request->entities = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_decide_entity_free);
  request->records = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_record_unref);
  request->epoch = epoch != NULL ? json_node_copy (epoch) : NULL;
  request->request_id = g_strdup (request_id);
  return request;
}

static void
request_free (GgA2gDecideRequest *request)
{
  if (request->cancel_id != 0)
    g_cancellable_disconnect (request->ex->cancellable, request->cancel_id);
  deadline_stop (request);
  g_ptr_array_unref (request->entities);
  g_ptr_array_unref (request->records);
  g_free (request->random_hex);
  gg_a2g_exchange_unref (request->ex);
  gg_a2g_manifest_unref (request->manifest);
  gg_a2g_context_unref (request->context);
  g_clear_pointer (&request->epoch, json_node_unref);
  g_free (request->request_id);
  g_free (request);
}

/** gg_a2g_decide_request_ref: Returns: @request, held by one more call in flight */
GgA2gDecideRequest *
gg_a2g_decide_request_ref (GgA2gDecideRequest *request)
{
  request->refs++;
  return request;
}

/** gg_a2g_decide_request_unref: @request: a request whose call came back */
void
gg_a2g_decide_request_unref (GgA2gDecideRequest *request)
{
  if (--request->refs == 0)
    request_free (request);
}

/* ---- the deadline timer ------------------------------------------------------ */

static gint64
earliest_deadline (GgA2gDecideRequest *request)
{
  gint64 earliest = -1;

  for (guint i = 0; i < request->entities->len; i++)
    {
      GgA2gDecideEntity *entity = g_ptr_array_index (request->entities, i);

      if (gg_a2g_decide_entity_waits (entity) && (earliest < 0 || entity->deadline_us < earliest))
        earliest = entity->deadline_us;
    }
  return earliest;
}

static gboolean
on_deadline (gpointer user_data)
{
  GgA2gDecideRequest *request = user_data;
  gint64 now = g_get_monotonic_time ();

  /* Settling may finish the request; it lives until this loop is done. */
  gg_a2g_decide_request_ref (request);
  for (guint i = 0; i < request->entities->len; i++)
    {
      GgA2gDecideEntity *entity = g_ptr_array_index (request->entities, i);

      if (gg_a2g_decide_entity_waits (entity) && entity->deadline_us <= now)
        gg_a2g_decide_entity_time_out (entity);
    }
  if (request->deadline != NULL)
    g_source_set_ready_time (request->deadline, earliest_deadline (request));
  gg_a2g_decide_request_unref (request);
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
deadline_start (GgA2gDecideRequest *request)
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

static void
deadline_stop (GgA2gDecideRequest *request)
{
  if (request->deadline == NULL)
    return;
  g_source_destroy (request->deadline);
  g_clear_pointer (&request->deadline, g_source_unref);
}

/* ---- the cache ----------------------------------------------------------------- */

typedef struct {
  GgA2gDecideRequest *request;
  GPtrArray *entities;   /* GgA2gDecideEntity, borrowed from the request */
} CacheRead;

static void cache_read (GgA2gDecideRequest *request,
                        GPtrArray          *entities);

static void
cache_read_free (CacheRead *read)
{
  g_ptr_array_unref (read->entities);
  gg_a2g_decide_request_unref (read->request);
  g_free (read);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CacheRead, cache_read_free)

/* Every entity gets its answer; those that read their session's own entry
 * next do so together again. */
static void
cache_answers (CacheRead *read,
               GPtrArray *hits)
{
  g_autoptr(GPtrArray) again = g_ptr_array_new ();

  for (guint i = 0; i < read->entities->len; i++)
    {
      GgA2gDecideEntity *entity = g_ptr_array_index (read->entities, i);

      if (gg_a2g_decide_entity_cached (entity, hits != NULL && i < hits->len ? g_ptr_array_index (hits, i) : NULL))
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

  g_ptr_array_index (hits, 0) = gg_a2g_store_cache_get_finish (GG_A2G_STORE (source), result, NULL);
  cache_answers (read, hits);
}

static void
on_cache_many (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(CacheRead) read = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) hits = gg_a2g_store_cache_get_many_finish (GG_A2G_STORE (source), result, &error);

  if (error != NULL && read->entities->len > 1 && read->request->ex->service != NULL)
    {
      /* A store that cannot read these keys at once (Redis Cluster, keys
       * in several slots) may still read each: one at a time then. */
      for (guint i = 0; i < read->entities->len; i++)
        {
          GgA2gDecideEntity *entity = g_ptr_array_index (read->entities, i);
          g_autofree char *key = gg_a2g_decide_entity_cache_key (entity);
          CacheRead *one = g_new0 (CacheRead, 1);

          one->request = gg_a2g_decide_request_ref (read->request);
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
cache_read (GgA2gDecideRequest *request,
            GPtrArray          *entities)
{
  GgA2gService *service = request->ex->service;
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  CacheRead *read = g_new0 (CacheRead, 1);

  read->request = gg_a2g_decide_request_ref (request);
  read->entities = g_ptr_array_ref (entities);
  for (guint i = 0; i < entities->len; i++)
    g_ptr_array_add (keys, gg_a2g_decide_entity_cache_key (g_ptr_array_index (entities, i)));
  gg_a2g_store_cache_get_many_async (service->store, (const char * const *) keys->pdata, keys->len, NULL,
                                     on_cache_many, read);
}

/* ---- the records and the decision ids ---------------------------------------- */

/** gg_a2g_decide_request_add_record: keeps @record (transfer full), a decision of one of @request's entities */
void
gg_a2g_decide_request_add_record (GgA2gDecideRequest *request,
                                  GgA2gRecord        *record)
{
  g_ptr_array_add (request->records, record);
}

static void
on_records_written (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  gg_a2g_store_record_put_many_finish (GG_A2G_STORE (source), result, NULL);
  gg_a2g_decide_request_write_done (user_data);
}

static void
records_write (GgA2gDecideRequest *request)
{
  GgA2gService *service = request->ex->service;

  if (service == NULL || request->records->len == 0)
    return;
  gg_a2g_store_record_put_many_async (service->store, request->ex->session->client_id, request->records,
                                      NULL, on_records_written, gg_a2g_decide_request_write_begin (request));
}

/**
 * gg_a2g_decide_request_new_decision_id:
 * @request: a request
 *
 * Returns: (transfer full): "d_" and 64 random bits in hex, the bits of
 *   every decision of @request read at once
 */
char *
gg_a2g_decide_request_new_decision_id (GgA2gDecideRequest *request)
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

/* ---- the answer ---------------------------------------------------------------- */

static void
on_replay_stored (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  gg_a2g_store_replay_finish_finish (GG_A2G_STORE (source), result, NULL);
}

/* Every entity settled and the store took their writes: the answer, its replay. */
static void
request_answer (GgA2gDecideRequest *request)
{
  GgA2gExchange *ex = request->ex;
  GgA2gService *service = ex->service;
  /* Sized once: an entry of the answer is rarely longer than this. */
  GString *text = g_string_sized_new (64 + 256 * request->entities->len);
  g_autoptr(GBytes) bytes = NULL;
  gboolean answered = !g_cancellable_is_cancelled (ex->cancellable) && service != NULL;

  request->answered = TRUE;
  /* As gg_a2g_reply_new() and gg_json_object_to_string() would write it. */
  g_string_append (text, "{\"a2g\":\"" GG_A2G_VERSION "\"");
  if (request->epoch != NULL)
    g_string_append_printf (text, ",\"epoch\":%" G_GINT64_FORMAT, json_node_get_int (request->epoch));
  g_string_append (text, ",\"decisions\":[");
  for (guint i = 0; i < request->entities->len; i++)
    {
      if (i > 0)
        g_string_append_c (text, ',');
      gg_a2g_decide_entity_append_answer (g_ptr_array_index (request->entities, i), text);
    }
  g_string_append (text, "]}");
  bytes = g_string_free_to_bytes (text);
  if (request->request_id != NULL && service != NULL)
    /* A cut-off answer is not one to replay. */
    gg_a2g_store_replay_finish_async (service->store, ex->session->client_id, request->request_id,
                                      answered ? bytes : NULL, NULL, on_replay_stored, NULL);
  if (answered)
    gg_a2g_exchange_reply_bytes (ex, 200, bytes);
  else if (service != NULL && service->closing)
    gg_a2g_exchange_fail (ex, GG_A2G_ERROR_UNAVAILABLE, "The service is shutting down.");
  gg_a2g_decide_request_unref (request);
}

/**
 * gg_a2g_decide_request_write_begin:
 * @request: a request that writes one of its decisions to the store
 *
 * Returns: (transfer full): @request, for the write's callback to give
 *   gg_a2g_decide_request_write_done(); the answer waits for it
 */
GgA2gDecideRequest *
gg_a2g_decide_request_write_begin (GgA2gDecideRequest *request)
{
  request->writes++;
  return gg_a2g_decide_request_ref (request);
}

/**
 * gg_a2g_decide_request_write_done:
 * @request: (transfer full): the request a store write was for
 *
 * One write of the request's decisions came back (stored or not).
 */
void
gg_a2g_decide_request_write_done (GgA2gDecideRequest *request)
{
  if (request->writes > 0)
    request->writes--;
  if (request->finishing && request->writes == 0 && !request->answered)
    request_answer (request);
  gg_a2g_decide_request_unref (request);
}

/* Every entity settled: their records written, then the answer. */
static void
request_finish (GgA2gDecideRequest *request)
{
  deadline_stop (request);
  request->finishing = TRUE;
  /* Before the answer, so that a report that follows, on any replica,
   * finds its record, and the same situation there the cache entry. */
  records_write (request);
  if (request->writes == 0)
    request_answer (request);
}

/** gg_a2g_decide_request_settled: @request: a request one of whose entities settled */
void
gg_a2g_decide_request_settled (GgA2gDecideRequest *request)
{
  if (--request->pending == 0)
    request_finish (request);
}

/* ---- running the request ------------------------------------------------------ */

static void
on_request_cancelled (GCancellable *cancellable,
                      gpointer      user_data)
{
  GgA2gDecideRequest *request = user_data;

  (void) cancellable;
  /* The client went away or the service stops: model calls end now. */
  for (guint i = 0; i < request->entities->len; i++)
    gg_a2g_decide_entity_cancel (g_ptr_array_index (request->entities, i));
}

static void
request_run (GgA2gDecideRequest *request)
{
  GgA2gExchange *ex = request->ex;
  guint n = request->entities->len;
  g_autoptr(GPtrArray) cached = g_ptr_array_new ();

  if (n == 0)
    {
      request_finish (request);
      return;
    }
  request->pending = n;
  request->cancel_id = g_cancellable_connect (ex->cancellable, G_CALLBACK (on_request_cancelled), request, NULL);
  /* A forced entity may settle at once; the count keeps the request alive. */
  request->pending++;
  for (guint i = 0; i < n; i++)
    {
      GgA2gDecideEntity *entity = g_ptr_array_index (request->entities, i);

      if (gg_a2g_decide_entity_start (entity))
        g_ptr_array_add (cached, entity);
    }
  if (cached->len > 0)
    cache_read (request, cached);
  if (request->pending > 1)
    deadline_start (request);
  gg_a2g_decide_request_settled (request);
}

static void
on_replay_claimed (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GgA2gDecideRequest *request = user_data;
  g_autoptr(GBytes) answer = gg_a2g_store_replay_claim_finish (GG_A2G_STORE (source), result, NULL);

  if (answer != NULL)
    {
      gg_a2g_exchange_reply_bytes (request->ex, 200, answer);
      g_clear_pointer (&request->request_id, g_free);
      gg_a2g_decide_request_unref (request);
      return;
    }
  if (!gg_a2g_exchange_is_live (request->ex))
    {
      gg_a2g_store_replay_finish_async (GG_A2G_STORE (source), request->ex->session->client_id,
                                        request->request_id, NULL, NULL, on_replay_stored, NULL);
      gg_a2g_decide_request_unref (request);
      return;
    }
  request_run (request);
}

/**
 * gg_a2g_decide_request_start:
 * @request: (transfer full): a request with its entities
 *
 * Claims its request_id, if it has one, and decides its entities (or
 * answers the request_id's stored answer); answers when done.
 */
void
gg_a2g_decide_request_start (GgA2gDecideRequest *request)
{
  GgA2gExchange *ex = request->ex;

  if (request->request_id != NULL)
    {
      gg_a2g_store_replay_claim_async (ex->service->store, ex->session->client_id, request->request_id,
                                       ex->service->settings.replay_window_s, NULL, on_replay_claimed, request);
      return;
    }
  request_run (request);
}

/* gg-a2g-decide.c: POST /v1/decide, the decision pipeline of spec section
 * 5 for up to 16 entities at once, each with its own deadline:
 *
 *   validate -> forced -> cache -> memory -> limits and budgets -> model
 *   -> record
 *
 * Every entity settles into one entry of the answer: a decision (source
 * forced, cache, memory or model) or a FALLBACK with its code; the answer
 * goes out when all are settled. A request_id is claimed in the store
 * first, so a retry within the replay window gets the same answer without
 * new model calls. The deadline, the client going away and shutdown
 * cancel the entity's model call. What the request does once for all its
 * entities (one cache read, one deadline timer, one write of the records)
 * is in gg-a2g-decide-batch.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-context.h"
#include "gg-a2g-decide-private.h"

#define MAX_REQUEST_ID 64

static void entity_limits (Entity *entity);

static const GgDecisionFormat a2g_format = {
  .reason_key = "reason",
  .option_key = "action",
  .reason_max_length = 280,
  .schema_retries = 1,
};

static void
entity_free (Entity *entity)
{
  gg_a2g_entry_free (entity->entry);
  g_free (entity->invalid);
  g_clear_pointer (&entity->answer, json_object_unref);
  g_clear_object (&entity->cancellable);
  g_clear_object (&entity->decision);
  g_clear_pointer (&entity->memory, g_ptr_array_unref);
  g_clear_pointer (&entity->situation, json_object_unref);
  g_free (entity);
}

static void
request_free (Request *request)
{
  if (request->cancel_id != 0)
    g_cancellable_disconnect (request->ex->cancellable, request->cancel_id);
  _gg_a2g_decide_deadline_stop (request);
  g_ptr_array_unref (request->entities);
  g_ptr_array_unref (request->records);
  g_free (request->random_hex);
  gg_a2g_exchange_unref (request->ex);
  g_clear_pointer (&request->manifest, gg_a2g_manifest_unref);
  g_clear_pointer (&request->context, gg_a2g_context_unref);
  g_clear_pointer (&request->epoch, json_node_unref);
  g_free (request->request_id);
  g_free (request);
}

static Request *
request_ref (Request *request)
{
  request->refs++;
  return request;
}

static void
request_unref (Request *request)
{
  if (--request->refs == 0)
    request_free (request);
}

Request *
_gg_a2g_decide_request_ref (Request *request)
{
  return request_ref (request);
}

void
_gg_a2g_decide_request_unref (Request *request)
{
  request_unref (request);
}

/* Held by each callback of an entity's call: entities live as long as their
 * request, and the request until its last call has come back. */
typedef Request RequestHold;
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RequestHold, request_unref)

static GgA2gService *
service_of (Entity *entity)
{
  return entity->request->ex->service;
}

/* ---- settling --------------------------------------------------------------- */

static void
console_event (Entity *entity)
{
  GgA2gService *service = service_of (entity);

  if (service != NULL)
    gg_a2g_console_report (service->console, entity->request->ex->session,
                           gg_a2g_json_string (entity->object, "type"), entity->answer, entity->started_us);
}

static void
release_slot (Entity *entity)
{
  GgA2gService *service = service_of (entity);

  if (!entity->holds_slot)
    return;
  entity->holds_slot = FALSE;
  if (service != NULL)
    service->model_calls--;
}

static void
entity_settled (Entity *entity)
{
  Request *request = entity->request;

  if (!entity->in_model)
    release_slot (entity);
  if (request->ex->service != NULL)
    console_event (entity);
  if (--request->pending == 0)
    _gg_a2g_decide_request_finish (request);
}

static void
settle_fallback (Entity        *entity,
                 GgA2gFallback  code,
                 const char    *message)
{
  JsonObject *answer = json_object_new ();
  GgA2gService *service = service_of (entity);

  if (entity->answer != NULL)
    return;
  json_object_set_string_member (answer, "entity", gg_a2g_json_string (entity->object, "entity"));
  json_object_set_string_member (answer, "action", "FALLBACK");
  json_object_set_string_member (answer, "code", gg_a2g_fallback_name (code));
  if (message != NULL)
    json_object_set_string_member (answer, "message", message);
  entity->answer = answer;
  if (service != NULL)
    gg_a2g_stats_fallback (service->stats, code);
  entity_settled (entity);
}

static void
on_cache_written (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  gg_a2g_store_finish_boolean (GG_A2G_STORE (source), result, NULL);
  _gg_a2g_decide_write_done (user_data);
}

static void
settle_decision (Entity      *entity,
                 GgA2gSource  source,
                 const char  *action,
                 gint64       confidence,
                 const char  *reason)
{
  GgA2gService *service = service_of (entity);
  GgA2gRecord *record;
  JsonObject *answer;

  if (entity->answer != NULL)
    return;
  record = gg_a2g_record_new ();
  answer = json_object_new ();
  record->decision_id = _gg_a2g_decide_new_decision_id (entity->request);
  record->entity = g_strdup (entity->entry->entity);
  record->type = g_strdup (entity->entry->type->id);
  record->action = g_strdup (action);
  record->confidence = confidence;
  record->reason = g_strdup (reason);
  record->situation_key = g_strdup (entity->entry->situation_key);
  json_object_set_string_member (answer, "entity", entity->entry->entity);
  json_object_set_string_member (answer, "decision_id", record->decision_id);
  json_object_set_string_member (answer, "action", action);
  json_object_set_string_member (answer, "source", gg_a2g_source_name (source));
  json_object_set_int_member (answer, "confidence", confidence);
  json_object_set_int_member (answer, "ttl_ms", entity->entry->type->ttl_ms);
  if (reason != NULL && *reason != '\0')
    json_object_set_string_member (answer, "reason", reason);
  entity->answer = answer;
  /* The records of the request are written together, before its answer. */
  g_ptr_array_add (entity->request->records, record);
  if (service != NULL)
    gg_a2g_stats_decision (service->stats, source);
  entity_settled (entity);
}

/* Past the deadline, or nobody to answer: stop here. */
static gboolean
entity_goes_on (Entity *entity)
{
  if (entity->answer != NULL)
    return FALSE;
  if (entity->timed_out || service_of (entity) == NULL ||
      g_cancellable_is_cancelled (entity->request->ex->cancellable))
    {
      settle_fallback (entity, GG_A2G_FALLBACK_TIMEOUT, "The deadline passed.");
      return FALSE;
    }
  return TRUE;
}

/* The request's deadline timer found @entity's deadline passed. */
void
_gg_a2g_decide_timed_out (Entity *entity)
{
  entity->timed_out = TRUE;
  if (entity->cancellable != NULL)
    g_cancellable_cancel (entity->cancellable);
  /* Not in a model call: settle now, the pending store answer is ignored. */
  if (!entity->in_model)
    settle_fallback (entity, GG_A2G_FALLBACK_TIMEOUT, "The deadline passed.");
}

/* ---- budgets ---------------------------------------------------------------- */

static void
on_settled (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  gg_a2g_store_finish_boolean (GG_A2G_STORE (source), result, NULL);
}

static void
settle_budget (Entity *entity,
               gint64  used)
{
  GgA2gService *service = service_of (entity);

  if (entity->reservation <= 0 || service == NULL)
    return;
  gg_a2g_store_budget_settle_async (service->store, entity->reservation, used, NULL, on_settled, NULL);
  entity->reservation = 0;
}

/* ---- the model call --------------------------------------------------------- */

static gint64
usage_member (JsonObject *usage,
              const char *name)
{
  return usage != NULL && json_object_has_member (usage, name) ? json_object_get_int_member (usage, name) : 0;
}

static void
on_decided (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Entity *entity = user_data;
  g_autoptr(RequestHold) hold = entity->request;
  GgA2gService *service = service_of (entity);
  g_autoptr(GError) error = NULL;
  g_autoptr(GgDecisionResult) decided = gg_decision_run_finish (GG_DECISION (source), result, &error);
  GgA2gEntry *entry = entity->entry;
  gint64 input = 0, output = 0;

  entity->in_model = FALSE;
  release_slot (entity);
  if (decided != NULL)
    {
      input = usage_member (decided->usage, "inputTokens");
      output = usage_member (decided->usage, "outputTokens");
      if (service != NULL)
        gg_a2g_stats_tokens (service->stats, input, output);
    }
  settle_budget (entity, input + output);
  if (entity->answer != NULL)
    return;
  if (decided == NULL)
    {
      if (entity->timed_out || g_cancellable_is_cancelled (entity->cancellable))
        settle_fallback (entity, GG_A2G_FALLBACK_TIMEOUT, "The deadline passed.");
      else if (g_error_matches (error, GG_MODEL_ERROR, GG_MODEL_ERROR_MODEL_UNAVAILABLE))
        settle_fallback (entity, GG_A2G_FALLBACK_UNAVAILABLE, "No model is available.");
      else if (g_error_matches (error, GG_MODEL_ERROR, GG_MODEL_ERROR_RATE_LIMITED) ||
               g_error_matches (error, GG_MODEL_ERROR, GG_MODEL_ERROR_BUSY))
        settle_fallback (entity, GG_A2G_FALLBACK_BUSY, "The model is busy.");
      else
        settle_fallback (entity, GG_A2G_FALLBACK_ERROR, NULL);
      return;
    }
  if (decided->confidence < entry->type->min_confidence)
    {
      g_autofree char *message = g_strdup_printf ("Confidence %" G_GINT64_FORMAT " is below %" G_GINT64_FORMAT ".",
                                                  decided->confidence, entry->type->min_confidence);
      settle_fallback (entity, GG_A2G_FALLBACK_LOW_CONFIDENCE, message);
      return;
    }
  if (service != NULL && entry->type->cache != GG_A2G_CACHE_OFF)
    {
      g_autoptr(GgA2gCacheEntry) cached = gg_a2g_cache_entry_new ();

      /* Client-profile sessions never write the game-wide cache
       * (a2g-security.md, "Shared-cache safety"): their own entries only. */
      cached->key = gg_a2g_entry_cache_key (entry, entry->type->cache == GG_A2G_CACHE_SESSION ||
                                            gg_a2g_access_is_client (service->settings.access) ?
                                            entity->request->ex->session->id : NULL);
      cached->manifest_hash = g_strdup (entity->request->manifest->hash);
      cached->type = g_strdup (entry->type->id);
      cached->situation = json_node_init_object (json_node_alloc (), entry->quantised);
      cached->legal_actions = json_node_init_array (json_node_alloc (), entry->sorted_actions);
      cached->action = g_strdup (decided->option);
      cached->confidence = decided->confidence;
      cached->reason = g_strdup (decided->reason);
      entity->request->writes++;
      gg_a2g_store_cache_put_async (service->store, cached, NULL, on_cache_written,
                                    _gg_a2g_decide_request_ref (entity->request));
    }
  settle_decision (entity, GG_A2G_SOURCE_MODEL, decided->option, decided->confidence, decided->reason);
}

static void
on_situation (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Entity *entity = user_data;
  g_autoptr(RequestHold) hold = entity->request;
  GgA2gService *service;
  g_autofree char *prompt = NULL;
  GgAgentPolicy policy;
  gint64 tokens;

  entity->situation = gg_a2g_store_finish_pointer (GG_A2G_STORE (source), result, NULL);
  if (!entity_goes_on (entity))
    {
      settle_budget (entity, 0);
      return;
    }
  service = service_of (entity);
  prompt = gg_a2g_entry_prompt (entity->entry, entity->request->manifest, entity->request->context,
                                entity->situation, entity->memory, &tokens);
  if (prompt == NULL)
    {
      settle_budget (entity, 0);
      settle_fallback (entity, GG_A2G_FALLBACK_BUDGET, "The decision does not fit the type's token_budget.");
      return;
    }
  entity->decision = gg_decision_new (service->model, gg_a2g_instructions (), prompt,
                                      entity->entry->legal_actions, &a2g_format);
  /* No tools; model errors are not retried (the deadline is short). */
  gg_agent_policy_init (&policy);
  policy.tool_choice = GG_TOOL_CHOICE_NONE;
  policy.max_tool_rounds = 0;
  policy.max_attempts = 1;
  gg_decision_set_tools (entity->decision, NULL, &policy);
  gg_agent_policy_clear (&policy);
  /* Only a model call has something to cancel (the deadline, the client
   * gone, shutdown): the cancellable is made for it. */
  entity->cancellable = g_cancellable_new ();
  gg_bus_copy_correlation (entity->request->ex->cancellable, entity->cancellable);
  entity->in_model = TRUE;
  gg_decision_run_async (entity->decision, entity->cancellable, on_decided, (request_ref (entity->request), entity));
}

static void
on_reserved (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Entity *entity = user_data;
  g_autoptr(RequestHold) hold = entity->request;
  g_autoptr(GError) error = NULL;
  gssize reservation = gg_a2g_store_finish_int (GG_A2G_STORE (source), result, &error);
  GgA2gService *service = service_of (entity);

  entity->reservation = MAX (reservation, 0);
  if (!entity_goes_on (entity))
    {
      settle_budget (entity, 0);
      return;
    }
  if (error != NULL)
    {
      settle_fallback (entity, GG_A2G_FALLBACK_BUSY, "The shared store is unreachable.");
      return;
    }
  if (reservation <= 0)
    {
      settle_fallback (entity, GG_A2G_FALLBACK_BUDGET, "A token budget is spent.");
      return;
    }
  gg_a2g_store_situation_async (service->store, entity->request->ex->session->client_id, entity->entry->entity,
                                service->settings.nearby_radius, NULL, on_situation, (request_ref (entity->request), entity));
}

static void
reserve (Entity *entity)
{
  GgA2gService *service = service_of (entity);
  GgA2gSession *session = entity->request->ex->session;
  g_autofree char *session_scope = g_strconcat ("session:", session->client_id, NULL);
  g_autofree char *game_scope = g_strconcat ("game:", session->game, NULL);
  GgA2gBudgetLimit limits[] = {
    { session_scope, service->settings.session_token_budget, 3600, "hour" },
    { game_scope, service->settings.game_token_budget, 86400, "day" },
  };

  if (service->model_calls >= service->settings.max_model_calls)
    {
      settle_fallback (entity, GG_A2G_FALLBACK_BUSY, "Too many model calls at once.");
      return;
    }
  /* The slot is taken now, so that entities checking at once see it. */
  service->model_calls++;
  entity->holds_slot = TRUE;
  gg_a2g_store_budget_reserve_async (service->store, limits, G_N_ELEMENTS (limits),
                                     entity->entry->type->token_budget, NULL, on_reserved, (request_ref (entity->request), entity));
}

static void
on_game_rate (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Entity *entity = user_data;
  g_autoptr(RequestHold) hold = entity->request;
  gssize wait_ms = gg_a2g_store_finish_int (GG_A2G_STORE (source), result, NULL);

  if (!entity_goes_on (entity))
    return;
  if (wait_ms != 0)
    {
      settle_fallback (entity, GG_A2G_FALLBACK_BUSY, "Over the game's decision rate.");
      return;
    }
  reserve (entity);
}

static void
on_session_rate (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Entity *entity = user_data;
  g_autoptr(RequestHold) hold = entity->request;
  GgA2gService *service = service_of (entity);
  g_autoptr(GError) error = NULL;
  gssize wait_ms = gg_a2g_store_finish_int (GG_A2G_STORE (source), result, &error);
  g_autofree char *bucket = NULL;

  if (!entity_goes_on (entity))
    return;
  if (error != NULL)
    {
      settle_fallback (entity, GG_A2G_FALLBACK_BUSY, "The shared store is unreachable.");
      return;
    }
  if (wait_ms != 0)
    {
      settle_fallback (entity, GG_A2G_FALLBACK_BUSY, "Over the session's decision rate.");
      return;
    }
  bucket = g_strconcat ("decide:game:", entity->request->ex->session->game, NULL);
  gg_a2g_store_rate_take_async (service->store, bucket, service->settings.game_rate, service->settings.game_burst,
                                NULL, on_game_rate, (request_ref (entity->request), entity));
}

static void
entity_limits (Entity *entity)
{
  GgA2gService *service = service_of (entity);
  g_autofree char *bucket = NULL;

  if (service->model == NULL)
    {
      settle_fallback (entity, GG_A2G_FALLBACK_UNAVAILABLE, "No model is available.");
      return;
    }
  bucket = g_strconcat ("decide:session:", entity->request->ex->session->client_id, NULL);
  gg_a2g_store_rate_take_async (service->store, bucket, service->settings.session_rate,
                                service->settings.session_burst, NULL, on_session_rate, (request_ref (entity->request), entity));
}

/* ---- cache and memory ------------------------------------------------------- */

static void
on_recent (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Entity *entity = user_data;
  g_autoptr(RequestHold) hold = entity->request;
  GgA2gEntry *entry = entity->entry;

  entity->memory = gg_a2g_store_finish_pointer (GG_A2G_STORE (source), result, NULL);
  if (!entity_goes_on (entity))
    return;
  if (entry->type->cache == GG_A2G_CACHE_OFF && entity->memory != NULL)
    for (guint i = 0; i < entity->memory->len; i++)
      {
        GgA2gRecord *record = g_ptr_array_index (entity->memory, i);

        /* The entity's own recent decision for this very situation. */
        if (g_strcmp0 (record->situation_key, entry->situation_key) == 0)
          {
            settle_decision (entity, GG_A2G_SOURCE_MEMORY, record->action, record->confidence, record->reason);
            return;
          }
      }
  entity_limits (entity);
}

static void
after_cache (Entity *entity)
{
  GgA2gService *service = service_of (entity);

  if (entity->entry->type->memory > 0)
    {
      gg_a2g_store_record_recent_async (service->store, entity->request->ex->session->client_id,
                                        entity->entry->entity, 16, NULL, on_recent, (request_ref (entity->request), entity));
      return;
    }
  entity_limits (entity);
}

/**
 * _gg_a2g_decide_cached:
 * @entity: an entity whose cache entry was read
 * @hit: (nullable): the entry, NULL for a miss
 *
 * Returns: TRUE when @entity (a client session's, game cache) needs its
 *   session's own entry read too
 */
gboolean
_gg_a2g_decide_cached (Entity          *entity,
                       GgA2gCacheEntry *hit)
{
  GgA2gService *service;

  if (!entity_goes_on (entity))
    return FALSE;
  service = service_of (entity);
  if (hit != NULL)
    {
      gg_a2g_stats_cache (service->stats, TRUE);
      settle_decision (entity, GG_A2G_SOURCE_CACHE, hit->action, hit->confidence, hit->reason);
      return FALSE;
    }
  if (!entity->own_cache_read && entity->entry->type->cache == GG_A2G_CACHE_GAME &&
      gg_a2g_access_is_client (service->settings.access))
    {
      /* A client session read the game-wide entry; now its own. */
      entity->own_cache_read = TRUE;
      return TRUE;
    }
  gg_a2g_stats_cache (service->stats, FALSE);
  after_cache (entity);
  return FALSE;
}

/* Settles what needs no store (invalid, forced); else sets the deadline.
 * Returns: TRUE when @entity's cache entry is to be read. */
gboolean
_gg_a2g_decide_entity_start (Entity *entity)
{
  GgA2gEntry *entry = entity->entry;

  entity->started_us = g_get_monotonic_time ();
  if (entry == NULL)
    {
      settle_fallback (entity, GG_A2G_FALLBACK_INVALID, entity->invalid);
      return FALSE;
    }
  if (json_array_get_length (entry->legal_actions) == 1)
    {
      settle_decision (entity, GG_A2G_SOURCE_FORCED, json_array_get_string_element (entry->legal_actions, 0),
                       100, NULL);
      return FALSE;
    }
  entity->deadline_us = entity->started_us + entry->deadline_ms * 1000;
  if (entry->type->cache == GG_A2G_CACHE_OFF)
    {
      after_cache (entity);
      return FALSE;
    }
  return TRUE;
}

/* ---- the request -------------------------------------------------------------- */

static void
on_replay_stored (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  gg_a2g_store_finish_boolean (GG_A2G_STORE (source), result, NULL);
}

/* Once every entity settled and the store took their writes. */
static void
request_answer (Request *request)
{
  GgA2gExchange *ex = request->ex;
  GgA2gService *service = ex->service;
  g_autoptr(JsonObject) reply = gg_a2g_reply_new ();
  JsonArray *decisions = json_array_new ();
  g_autoptr(GBytes) bytes = NULL;
  gboolean answered = !g_cancellable_is_cancelled (ex->cancellable) && service != NULL;
  char *text;

  request->answered = TRUE;
  if (request->epoch != NULL)
    json_object_set_member (reply, "epoch", json_node_copy (request->epoch));
  for (guint i = 0; i < request->entities->len; i++)
    json_array_add_object_element (decisions,
                                   json_object_ref (((Entity *) g_ptr_array_index (request->entities, i))->answer));
  json_object_set_array_member (reply, "decisions", decisions);
  text = gg_json_object_to_string (reply);
  bytes = g_bytes_new_take (text, strlen (text));
  if (request->request_id != NULL && service != NULL)
    /* A cut-off answer is not one to replay. */
    gg_a2g_store_replay_finish_async (service->store, ex->session->client_id, request->request_id,
                                      answered ? bytes : NULL, NULL, on_replay_stored, NULL);
  if (answered)
    gg_a2g_exchange_reply_bytes (ex, 200, bytes);
  else if (service != NULL && service->closing)
    gg_a2g_exchange_fail (ex, GG_A2G_ERROR_UNAVAILABLE, "The service is shutting down.");
  request_unref (request);
}

/**
 * _gg_a2g_decide_write_done:
 * @request: (transfer full): the request a store write was for
 *
 * One write of the request's decisions came back (stored or not).
 */
void
_gg_a2g_decide_write_done (Request *request)
{
  if (request->writes > 0)
    request->writes--;
  if (request->finishing && request->writes == 0 && !request->answered)
    request_answer (request);
  request_unref (request);
}

void
_gg_a2g_decide_request_finish (Request *request)
{
  _gg_a2g_decide_deadline_stop (request);
  request->finishing = TRUE;
  /* Before the answer, so that a report that follows, on any replica,
   * finds its record, and the same situation there the cache entry. */
  _gg_a2g_decide_records_write (request);
  if (request->writes == 0)
    request_answer (request);
}

static void
on_replay_claimed (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Request *request = user_data;
  g_autoptr(GBytes) answer = gg_a2g_store_finish_pointer (GG_A2G_STORE (source), result, NULL);

  if (answer != NULL)
    {
      gg_a2g_exchange_reply_bytes (request->ex, 200, answer);
      g_clear_pointer (&request->request_id, g_free);
      request_unref (request);
      return;
    }
  if (!gg_a2g_exchange_is_live (request->ex))
    {
      gg_a2g_store_replay_finish_async (GG_A2G_STORE (source), request->ex->session->client_id,
                                        request->request_id, NULL, NULL, on_replay_stored, NULL);
      request_unref (request);
      return;
    }
  _gg_a2g_decide_request_run (request);
}

/**
 * gg_a2g_handle_decide:
 * @ex: an authenticated POST /v1/decide
 */
void
gg_a2g_handle_decide (GgA2gExchange *ex)
{
  GgA2gService *service = ex->service;
  GgA2gManifest *manifest = gg_a2g_service_lookup_manifest (service, ex->session->manifest_hash);
  JsonNode *epoch = json_object_get_member (ex->body, "epoch");
  JsonNode *request_id = json_object_get_member (ex->body, "request_id");
  JsonNode *entities = json_object_get_member (ex->body, "entities");
  g_autoptr(GgA2gContext) empty = NULL;
  GgA2gContext *context = ex->session->context;
  JsonArray *array;
  Request *request;

  if (manifest == NULL)
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_UNAVAILABLE, "The session's manifest is not loaded.");
      return;
    }
  if (epoch != NULL && !(JSON_NODE_HOLDS_VALUE (epoch) && json_node_get_value_type (epoch) == G_TYPE_INT64))
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "epoch: must be an integer");
      return;
    }
  if (request_id != NULL &&
      !(JSON_NODE_HOLDS_VALUE (request_id) && json_node_get_value_type (request_id) == G_TYPE_STRING &&
        strlen (json_node_get_string (request_id)) >= 1 && strlen (json_node_get_string (request_id)) <= MAX_REQUEST_ID))
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "request_id: must be a string of 1 to 64 characters");
      return;
    }
  if (entities == NULL || !JSON_NODE_HOLDS_ARRAY (entities))
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "entities: must be an array");
      return;
    }
  array = json_node_get_array (entities);
  if (json_array_get_length (array) > GG_A2G_MAX_ENTITIES)
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "entities: at most 16 entities per request");
      return;
    }
  if (context == NULL)
    {
      empty = gg_a2g_context_build (manifest, NULL, NULL);
      context = empty;
    }
  /* Structural errors refuse the request; an entity's own data only its entry. */
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      const char *id, *type;

      if (!JSON_NODE_HOLDS_OBJECT (item))
        {
          gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "entities[%u]: must be an object", i);
          return;
        }
      id = gg_a2g_json_string (json_node_get_object (item), "entity");
      type = gg_a2g_json_string (json_node_get_object (item), "type");
      if (!gg_a2g_id_valid (id))
        {
          gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "entities[%u].entity: must match ^[a-z][a-z0-9_:.-]{0,63}$", i);
          return;
        }
      if (gg_a2g_manifest_get_type (manifest, type) == NULL)
        {
          gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "entities[%u].type: not an entity type of the manifest", i);
          return;
        }
    }

  request = g_new0 (Request, 1);
  request->refs = 1;
  request->ex = gg_a2g_exchange_ref (ex);
  request->manifest = gg_a2g_manifest_ref (manifest);
  request->context = gg_a2g_context_ref (context);
  request->entities = g_ptr_array_new_with_free_func ((GDestroyNotify) entity_free);
  request->records = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_record_unref);
  if (epoch != NULL)
    request->epoch = json_node_copy (epoch);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      g_autoptr(GError) error = NULL;
      Entity *entity = g_new0 (Entity, 1);

      entity->request = request;
      entity->index = i;
      entity->object = json_array_get_object_element (array, i); /* borrowed: from ex->body, which request->ex keeps */
      entity->entry = gg_a2g_entry_parse (manifest, context, entity->object, service->settings.default_deadline_ms,
                                          &error);
      if (entity->entry == NULL)
        entity->invalid = g_strdup (error->message);
      g_ptr_array_add (request->entities, entity);
    }
  if (request_id != NULL)
    {
      request->request_id = g_strdup (json_node_get_string (request_id));
      gg_a2g_store_replay_claim_async (service->store, ex->session->client_id, request->request_id,
                                       service->settings.replay_window_s, NULL, on_replay_claimed, request);
      return;
    }
  _gg_a2g_decide_request_run (request);
}

/* gg-a2g-decide-entity.c: one entity of a POST /v1/decide, through the
 * decision pipeline of spec section 5, with its own deadline:
 *
 *   validate -> forced -> cache -> memory -> limits and budgets -> model
 *   -> record
 *
 * Every entity settles into one entry of the answer: a decision (source
 * forced, cache, memory or model) or a FALLBACK with its code. The cache
 * entries of all the request's entities are read together by the request
 * (gg-a2g-decide-request.c), which hands each its hit; the rest of the
 * pipeline is each entity's own: its memory, the session's and the game's
 * decision rates, the model calls in flight, the token budgets, its
 * situation context, the model call, and the cache entry the decision
 * makes. The deadline, the client going away and shutdown cancel its
 * model call.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-console.h"
#include "gg-a2g-decide-entity.h"
#include "gg-a2g-decide-request.h"
#include "gg-a2g-prompt.h"

static void entity_limits (GgA2gDecideEntity *entity);

static const GgDecisionFormat a2g_format = {
  .reason_key = "reason",
  .option_key = "action",
  .reason_max_length = 280,
  .schema_retries = 1,
};

/**
 * gg_a2g_decide_entity_new:
 * @request: the request the entity is one of
 * @object: its `entities[i]` (borrowed from the request's body)
 * @default_deadline_ms: [a2g] default-deadline-ms
 *
 * Checks the entry against the request's manifest and context; an entry
 * that fails the check is the entity's FALLBACK invalid once it starts.
 *
 * Returns: (transfer full): the entity
 */
GgA2gDecideEntity *
gg_a2g_decide_entity_new (GgA2gDecideRequest *request,
                          JsonObject         *object,
                          gint64              default_deadline_ms)
{
  GgA2gDecideEntity *entity = g_new0 (GgA2gDecideEntity, 1);
  g_autoptr(GError) error = NULL;

  entity->request = request;
  entity->object = object;
  entity->entry = gg_a2g_entry_parse (request->manifest, request->context, object, default_deadline_ms, &error);
  if (entity->entry == NULL)
    entity->invalid = g_strdup (error->message);
  return entity;
}

/** gg_a2g_decide_entity_free: @entity: (transfer full): an entity */
void
gg_a2g_decide_entity_free (GgA2gDecideEntity *entity)
{
  gg_a2g_entry_free (entity->entry);
  g_free (entity->invalid);
  g_free (entity->message);
  g_clear_object (&entity->cancellable);
  g_clear_object (&entity->decision);
  g_clear_pointer (&entity->memory, g_ptr_array_unref);
  g_clear_pointer (&entity->situation_context, json_object_unref);
  g_free (entity);
}

/* @entity as the user_data of a call: its request is held until the
 * callback (g_autoptr(GgA2gDecideRequest) hold) lets it go. */
static GgA2gDecideEntity *
held (GgA2gDecideEntity *entity)
{
  gg_a2g_decide_request_ref (entity->request);
  return entity;
}

static GgA2gService *
service_of (GgA2gDecideEntity *entity)
{
  return entity->request->ex->service;
}

/* ---- settling --------------------------------------------------------------- */

/* Nobody receives the answer of a request whose client went away (or that
 * the service's shutdown cut off): its entities still settle, so that the
 * request finishes, but a fallback of theirs is counted nowhere (neither
 * in /v1/usage nor on the console), never as a deadline a model missed. */
static gboolean
request_abandoned (GgA2gDecideEntity *entity)
{
  return service_of (entity) == NULL || g_cancellable_is_cancelled (entity->request->ex->cancellable);
}

static void
console_event (GgA2gDecideEntity *entity)
{
  GgA2gService *service = service_of (entity);
  GgA2gRecord *record = entity->record;
  GgA2gConsoleDecision decision = {
    .entity = gg_a2g_json_string (entity->object, "entity"),
    .type = gg_a2g_json_string (entity->object, "type"),
    .action = record != NULL ? record->action : "FALLBACK",
    .source = record != NULL ? gg_a2g_source_name (entity->source) : NULL,
    .code = record == NULL ? gg_a2g_fallback_name (entity->code) : NULL,
    .message = entity->message,
    .confidence = record != NULL ? record->confidence : 0,
    .reason = record != NULL ? record->reason : NULL,
  };

  if (service != NULL)
    gg_a2g_console_report (service->console, entity->request->ex->session, &decision, entity->started_us);
}

static void
append_member (GString    *out,
               const char *name,
               const char *text)
{
  g_autofree char *valid = NULL;

  if (G_UNLIKELY (!g_utf8_validate (text, -1, NULL)))
    text = valid = g_utf8_make_valid (text, -1);
  g_string_append (out, ",\"");
  g_string_append (out, name);
  g_string_append (out, "\":");
  gg_json_canonical_append_string (out, text);
}

/**
 * gg_a2g_decide_entity_append_answer:
 * @entity: a settled entity
 * @out: where its entry of the decide answer is written, as compact JSON
 *
 * A decision: `entity`, `decision_id`, `action`, `source`, `confidence`,
 * `ttl_ms` and a non-empty `reason`; a fallback: `entity`, `action`
 * FALLBACK, `code` and its `message`, if any. Written straight into the
 * answer, never built as a tree.
 */
void
gg_a2g_decide_entity_append_answer (GgA2gDecideEntity *entity,
                                    GString           *out)
{
  GgA2gRecord *record = entity->record;

  g_string_append (out, "{\"entity\":");
  gg_json_canonical_append_string (out, gg_a2g_json_string (entity->object, "entity"));
  if (record == NULL)
    {
      g_string_append (out, ",\"action\":\"FALLBACK\"");
      append_member (out, "code", gg_a2g_fallback_name (entity->code));
      if (entity->message != NULL)
        append_member (out, "message", entity->message);
      g_string_append_c (out, '}');
      return;
    }
  append_member (out, "decision_id", record->decision_id);
  append_member (out, "action", record->action);
  append_member (out, "source", gg_a2g_source_name (entity->source));
  g_string_append_printf (out, ",\"confidence\":%" G_GINT64_FORMAT ",\"ttl_ms\":%" G_GINT64_FORMAT,
                          record->confidence, entity->entry->type->ttl_ms);
  if (record->reason != NULL && *record->reason != '\0')
    append_member (out, "reason", record->reason);
  g_string_append_c (out, '}');
}

static void
release_slot (GgA2gDecideEntity *entity)
{
  GgA2gService *service = service_of (entity);

  if (!entity->holds_slot)
    return;
  entity->holds_slot = FALSE;
  if (service != NULL)
    service->model_calls--;
}

static void
entity_settled (GgA2gDecideEntity *entity)
{
  GgA2gDecideRequest *request = entity->request;

  if (!entity->in_model)
    release_slot (entity);
  if (!request_abandoned (entity) || entity->record != NULL)
    console_event (entity);
  gg_a2g_decide_request_settled (request);
}

static void
settle_fallback (GgA2gDecideEntity *entity,
                 GgA2gFallback      code,
                 const char        *message)
{
  GgA2gService *service = service_of (entity);

  if (entity->settled)
    return;
  entity->settled = TRUE;
  entity->code = code;
  entity->message = g_strdup (message);
  if (!request_abandoned (entity))
    gg_a2g_stats_fallback (service->stats, code);
  entity_settled (entity);
}

static void
on_cache_written (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  gg_a2g_store_cache_put_finish (GG_A2G_STORE (source), result, NULL);
  gg_a2g_decide_request_write_done (user_data);
}

static void
settle_decision (GgA2gDecideEntity *entity,
                 GgA2gSource        source,
                 const char        *action,
                 gint64             confidence,
                 const char        *reason)
{
  GgA2gService *service = service_of (entity);
  GgA2gRecord *record;

  if (entity->settled)
    return;
  record = gg_a2g_record_new ();
  record->decision_id = gg_a2g_decide_request_new_decision_id (entity->request);
  record->entity = g_strdup (entity->entry->entity);
  record->type = g_strdup (entity->entry->type->id);
  record->action = g_strdup (action);
  record->confidence = confidence;
  record->reason = g_strdup (reason);
  record->situation_key = g_strdup (entity->entry->situation_key);
  entity->settled = TRUE;
  entity->source = source;
  /* The records of the request are written together, before its answer. */
  gg_a2g_decide_request_add_record (entity->request, record);
  entity->record = record;   /* borrowed: the request's records hold it as long as the entity lives */
  if (service != NULL)
    gg_a2g_stats_decision (service->stats, source);
  entity_settled (entity);
}

/* Past the deadline, or nobody to answer: stop here. */
static gboolean
entity_goes_on (GgA2gDecideEntity *entity)
{
  if (entity->settled)
    return FALSE;
  if (entity->timed_out || service_of (entity) == NULL ||
      g_cancellable_is_cancelled (entity->request->ex->cancellable))
    {
      settle_fallback (entity, GG_A2G_FALLBACK_TIMEOUT, "The deadline passed.");
      return FALSE;
    }
  return TRUE;
}

/** gg_a2g_decide_entity_waits: Returns: whether @entity is unsettled with a deadline to come */
gboolean
gg_a2g_decide_entity_waits (GgA2gDecideEntity *entity)
{
  return !entity->settled && !entity->timed_out && entity->deadline_us > 0;
}

/** gg_a2g_decide_entity_cancel: @entity: an entity whose request is cancelled: its model call ends */
void
gg_a2g_decide_entity_cancel (GgA2gDecideEntity *entity)
{
  if (entity->cancellable != NULL)
    g_cancellable_cancel (entity->cancellable);
}

/** gg_a2g_decide_entity_time_out: @entity: an entity whose deadline passed (the request's timer) */
void
gg_a2g_decide_entity_time_out (GgA2gDecideEntity *entity)
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
  gg_a2g_store_budget_settle_finish (GG_A2G_STORE (source), result, NULL);
}

static void
settle_budget (GgA2gDecideEntity *entity,
               gint64             used)
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
  GgA2gDecideEntity *entity = user_data;
  g_autoptr(GgA2gDecideRequest) hold = entity->request;
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
  if (entity->settled)
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
                                            service->settings.profile == GG_A2G_PROFILE_CLIENT ?
                                            entity->request->ex->session->id : NULL);
      cached->manifest_hash = g_strdup (entity->request->manifest->hash);
      cached->type = g_strdup (entry->type->id);
      cached->situation = json_node_init_object (json_node_alloc (), gg_a2g_entry_get_quantised (entry));
      cached->legal_actions = json_node_init_array (json_node_alloc (), gg_a2g_entry_get_sorted_actions (entry));
      cached->action = g_strdup (decided->option);
      cached->confidence = decided->confidence;
      cached->reason = g_strdup (decided->reason);
      /* The answer waits for it (gg_a2g_decide_request_write_begin()). */
      gg_a2g_store_cache_put_async (service->store, cached, NULL, on_cache_written,
                                    gg_a2g_decide_request_write_begin (entity->request));
    }
  settle_decision (entity, GG_A2G_SOURCE_MODEL, decided->option, decided->confidence, decided->reason);
}

static void
on_situation (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  GgA2gDecideEntity *entity = user_data;
  g_autoptr(GgA2gDecideRequest) hold = entity->request;
  GgA2gService *service;
  g_autofree char *prompt = NULL;
  GgAgentPolicy policy;
  gint64 tokens;

  entity->situation_context = gg_a2g_store_telemetry_situation_finish (GG_A2G_STORE (source), result, NULL);
  if (!entity_goes_on (entity))
    {
      settle_budget (entity, 0);
      return;
    }
  service = service_of (entity);
  prompt = gg_a2g_prompt_new (entity->entry, entity->request->manifest, entity->request->context,
                                entity->situation_context, entity->memory, &tokens);
  if (prompt == NULL)
    {
      settle_budget (entity, 0);
      settle_fallback (entity, GG_A2G_FALLBACK_BUDGET, "The decision does not fit the type's token_budget.");
      return;
    }
  entity->decision = gg_decision_new (service->model, gg_a2g_prompt_instructions (), prompt,
                                      gg_a2g_entry_get_legal_actions (entity->entry), &a2g_format);
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
  gg_decision_run_async (entity->decision, entity->cancellable, on_decided, held (entity));
}

static void
on_reserved (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  GgA2gDecideEntity *entity = user_data;
  g_autoptr(GgA2gDecideRequest) hold = entity->request;
  g_autoptr(GError) error = NULL;
  gint64 reservation = gg_a2g_store_budget_reserve_finish (GG_A2G_STORE (source), result, &error);
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
  gg_a2g_store_telemetry_situation_async (service->store, entity->request->ex->session->client_id,
                                          entity->entry->entity, service->settings.nearby_radius, NULL,
                                          on_situation, held (entity));
}

static void
reserve (GgA2gDecideEntity *entity)
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
                                     entity->entry->type->token_budget, NULL, on_reserved, held (entity));
}

static void
on_game_rate (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  GgA2gDecideEntity *entity = user_data;
  g_autoptr(GgA2gDecideRequest) hold = entity->request;
  gint64 wait_ms = gg_a2g_store_rate_take_finish (GG_A2G_STORE (source), result, NULL);

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
  GgA2gDecideEntity *entity = user_data;
  g_autoptr(GgA2gDecideRequest) hold = entity->request;
  GgA2gService *service = service_of (entity);
  g_autoptr(GError) error = NULL;
  gint64 wait_ms = gg_a2g_store_rate_take_finish (GG_A2G_STORE (source), result, &error);
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
                                NULL, on_game_rate, held (entity));
}

static void
entity_limits (GgA2gDecideEntity *entity)
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
                                service->settings.session_burst, NULL, on_session_rate, held (entity));
}

/* ---- cache and memory ------------------------------------------------------- */

static void
on_recent (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  GgA2gDecideEntity *entity = user_data;
  g_autoptr(GgA2gDecideRequest) hold = entity->request;
  GgA2gEntry *entry = entity->entry;

  entity->memory = gg_a2g_store_record_recent_finish (GG_A2G_STORE (source), result, NULL);
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
after_cache (GgA2gDecideEntity *entity)
{
  GgA2gService *service = service_of (entity);

  if (entity->entry->type->memory > 0)
    {
      gg_a2g_store_record_recent_async (service->store, entity->request->ex->session->client_id,
                                        entity->entry->entity, GG_A2G_STORE_RECENT_PER_ENTITY, NULL, on_recent,
                                        held (entity));
      return;
    }
  entity_limits (entity);
}

/**
 * gg_a2g_decide_entity_cache_key:
 * @entity: an entity whose cache entry is read
 *
 * Returns: (transfer full): the key of the game-wide entry, or of the
 *   session's own (a session-cached type, or a client session's second read)
 */
char *
gg_a2g_decide_entity_cache_key (GgA2gDecideEntity *entity)
{
  GgA2gEntry *entry = entity->entry;

  return gg_a2g_entry_cache_key (entry, entry->type->cache == GG_A2G_CACHE_SESSION || entity->own_cache_read ?
                                 entity->request->ex->session->id : NULL);
}

/**
 * gg_a2g_decide_entity_cached:
 * @entity: an entity whose cache entry was read
 * @hit: (nullable): the entry, NULL for a miss
 *
 * Returns: TRUE when @entity (a client session's, game cache) needs its
 *   session's own entry read too
 */
gboolean
gg_a2g_decide_entity_cached (GgA2gDecideEntity *entity,
                             GgA2gCacheEntry   *hit)
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
      service->settings.profile == GG_A2G_PROFILE_CLIENT)
    {
      /* A client session read the game-wide entry; now its own. */
      entity->own_cache_read = TRUE;
      return TRUE;
    }
  gg_a2g_stats_cache (service->stats, FALSE);
  after_cache (entity);
  return FALSE;
}

/**
 * gg_a2g_decide_entity_start:
 * @entity: an entity of a request that runs
 *
 * Settles what needs no store (invalid, forced); else sets the deadline.
 *
 * Returns: TRUE when @entity's cache entry is to be read (by the request)
 */
gboolean
gg_a2g_decide_entity_start (GgA2gDecideEntity *entity)
{
  GgA2gEntry *entry = entity->entry;

  entity->started_us = g_get_monotonic_time ();
  if (entry == NULL)
    {
      settle_fallback (entity, GG_A2G_FALLBACK_INVALID, entity->invalid);
      return FALSE;
    }
  if (entry->actions->len == 1)
    {
      settle_decision (entity, GG_A2G_SOURCE_FORCED, ((GgA2gAction *) g_ptr_array_index (entry->actions, 0))->id,
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


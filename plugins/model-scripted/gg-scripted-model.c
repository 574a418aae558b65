/* gg-scripted-model.c: a GgModel that plays a script, one step per
 * inference (oam spec section 10).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-scripted.h"

struct _GgScriptedModel {
  GObject parent_instance;

  GPtrArray *steps;          /* GgScriptedStep */
  GgScriptedStep *fallback;
  guint next;                /* the step the next inference plays */
  GHashTable *entry_bytes;   /* JsonObject (ref) -> EntryBytes, see input_tokens() */
  guint64 pass;              /* counts input_tokens() rounds */
};

static void gg_scripted_model_iface_init (GgModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GgScriptedModel, gg_scripted_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_MODEL, gg_scripted_model_iface_init))

/* One inference in progress. */
typedef struct {
  GgScriptedModel *model;    /* unowned: the task holds it */
  const GgScriptedStep *step;
  GgModelRequest *request;
  GgModelDeltaFunc on_delta;
  gpointer delta_data;
  GCancellable *cancellable;
  GSource *cancel_source;
  GSource *source;           /* the delay timer or the next chunk's idle */
  GPtrArray *pieces;         /* the text still to stream */
  guint piece;
  char *text;                /* the answer of a text or template step */
} StepRun;

static void
clear_source (GSource **source)
{
  if (*source == NULL)
    return;
  g_source_destroy (*source);
  g_clear_pointer (source, g_source_unref);
}

/* Sources run where the task returns: the caller's thread-default context. */
static GSource *
attach (GTask       *task,
        GSource     *source,
        GSourceFunc  func)
{
  g_source_set_callback (source, func, g_object_ref (task), g_object_unref);
  g_source_attach (source, g_task_get_context (task));
  return source;
}

static void
step_run_free (StepRun *run)
{
  clear_source (&run->source);
  clear_source (&run->cancel_source);
  g_clear_object (&run->cancellable);
  g_clear_pointer (&run->request, gg_model_request_unref);
  g_clear_pointer (&run->pieces, g_ptr_array_unref);
  g_free (run->text);
  g_free (run);
}

/* ---- token estimate ---------------------------------------------------- */

static gsize
json_bytes (JsonNode *node)
{
  g_autofree char *text = gg_json_to_string (node);

  return strlen (text);
}

static gsize
string_member_bytes (JsonObject *entry,
                     const char *name)
{
  JsonNode *node = json_object_get_member (entry, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return 0;
  return strlen (json_node_get_string (node));
}

typedef struct {
  gsize bytes;
  guint64 seen;    /* the last round that counted the entry */
} EntryBytes;

static gsize
entry_bytes (JsonObject *entry)
{
  JsonNode *calls = json_object_get_member (entry, "toolCalls");
  gsize bytes = string_member_bytes (entry, "text") + string_member_bytes (entry, "output");

  if (calls != NULL)
    bytes += json_bytes (calls);
  return bytes;
}

static gboolean
entry_not_seen (gpointer key,
                gpointer value,
                gpointer user_data)
{
  return ((EntryBytes *) value)->seen != *(guint64 *) user_data;
}

/* What the model reads: instructions, the texts of the transcript and the
 * tool calls in it; counted as (bytes + 3) / 4 tokens.
 *
 * A session's transcript grows by a few entries per step and shares its
 * entry objects with the previous step's, so each entry's figure is
 * remembered rather than measured (tool calls serialised) on every step.
 * Entries are referenced while remembered, so their addresses cannot be
 * reused by other objects. */
static gint64
input_tokens (GgScriptedModel *self,
              GgModelRequest  *request)
{
  gsize bytes = request->instructions != NULL ? strlen (request->instructions) : 0;
  guint n = request->transcript != NULL ? json_array_get_length (request->transcript) : 0;
  guint live = 0;

  if (n == 0)
    return (gint64) ((bytes + 3) / 4);
  if (self->entry_bytes == NULL)
    self->entry_bytes = g_hash_table_new_full (g_direct_hash, g_direct_equal,
                                               (GDestroyNotify) json_object_unref, g_free);
  self->pass++;
  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (request->transcript, i);
      JsonObject *entry;
      EntryBytes *known;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      entry = json_node_get_object (node);
      known = g_hash_table_lookup (self->entry_bytes, entry);
      if (known == NULL)
        {
          known = g_new (EntryBytes, 1);
          known->bytes = entry_bytes (entry);
          known->seen = 0;
          g_hash_table_insert (self->entry_bytes, json_object_ref (entry), known);
        }
      if (known->seen != self->pass)
        {
          known->seen = self->pass;
          live++;
        }
      bytes += known->bytes;
    }
  /* Entries the latest request did not show go once they are as many as
   * the live ones: memory stays within about twice the latest transcript,
   * and the sweep costs O(1) per entry amortised. */
  if (g_hash_table_size (self->entry_bytes) > 2 * live + 64)
    g_hash_table_foreach_remove (self->entry_bytes, entry_not_seen, &self->pass);
  return (gint64) ((bytes + 3) / 4);
}

/* ---- playing a step ---------------------------------------------------- */

static void
finish_run (GTask        *task,
            GgModelReply *reply)
{
  StepRun *run = g_task_get_task_data (task);

  /* No source may fire after the answer. */
  clear_source (&run->source);
  clear_source (&run->cancel_source);
  reply->usage.input_tokens = input_tokens (run->model, run->request);
  g_task_return_pointer (task, reply, (GDestroyNotify) gg_model_reply_free);
}

static void
finish_text (GTask *task)
{
  StepRun *run = g_task_get_task_data (task);
  GgModelReply *reply = gg_model_reply_new ();

  reply->text = g_steal_pointer (&run->text);
  reply->usage.output_tokens = (gint64) ((strlen (reply->text) + 3) / 4);
  finish_run (task, reply);
}

static gboolean
on_chunk (gpointer user_data)
{
  GTask *task = user_data;
  StepRun *run = g_task_get_task_data (task);
  const char *piece = g_ptr_array_index (run->pieces, run->piece);

  clear_source (&run->source);
  run->piece++;
  run->on_delta (piece, FALSE, run->delta_data);
  if (run->piece < run->pieces->len)
    run->source = attach (task, g_idle_source_new (), on_chunk);
  else
    finish_text (task);
  return G_SOURCE_REMOVE;
}

/* Plays the step once its delay is over. */
static void
play (GTask *task)
{
  StepRun *run = g_task_get_task_data (task);
  const GgScriptedStep *step = run->step;
  GgModelReply *reply;

  switch (step->kind)
    {
    case GG_SCRIPTED_STEP_TEXT:
    case GG_SCRIPTED_STEP_TEMPLATE:
      run->text = step->kind == GG_SCRIPTED_STEP_TEXT
                    ? g_strdup (step->text)
                    : gg_scripted_expand_template (step->text, run->request);
      if (run->request->stream && run->on_delta != NULL && *run->text != '\0')
        {
          /* Deltas come from idles: always after step_async() returned,
           * always before the step completes. */
          run->pieces = gg_scripted_split_text (run->text, step->chunks);
          run->piece = 0;
          run->source = attach (task, g_idle_source_new (), on_chunk);
          return;
        }
      finish_text (task);
      return;

    case GG_SCRIPTED_STEP_TOOL_CALLS:
      {
        g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), step->tool_calls);

        reply = gg_model_reply_new ();
        /* A fresh array: the caller may keep it, the script stays intact. */
        reply->tool_calls = json_array_new ();
        for (guint i = 0; i < json_array_get_length (step->tool_calls); i++)
          {
            JsonObject *src = json_array_get_object_element (step->tool_calls, i);
            JsonObject *call = json_object_new ();
            JsonNode *arguments = json_object_get_member (src, "arguments");

            if (json_object_has_member (src, "id"))
              json_object_set_string_member (call, "id", json_object_get_string_member (src, "id"));
            json_object_set_string_member (call, "name", json_object_get_string_member (src, "name"));
            if (arguments != NULL)
              json_object_set_member (call, "arguments", json_node_copy (arguments));
            json_array_add_object_element (reply->tool_calls, call);
          }
        reply->usage.output_tokens = (gint64) ((json_bytes (node) + 3) / 4);
        finish_run (task, reply);
        return;
      }

    case GG_SCRIPTED_STEP_JSON:
      reply = gg_model_reply_new ();
      reply->json = json_node_copy (step->json);
      reply->usage.output_tokens = (gint64) ((json_bytes (reply->json) + 3) / 4);
      finish_run (task, reply);
      return;

    case GG_SCRIPTED_STEP_ERROR:
    default:
      clear_source (&run->source);
      clear_source (&run->cancel_source);
      if (step->message != NULL)
        g_task_return_error (task, gg_model_error_new (step->error, NULL, "%s", step->message));
      else
        g_task_return_error (task, gg_model_error_new (step->error, NULL, "The script failed with %s",
                                                       gg_model_error_to_name (step->error)));
      return;
    }
}

static gboolean
on_delay_over (gpointer user_data)
{
  GTask *task = user_data;
  StepRun *run = g_task_get_task_data (task);

  clear_source (&run->source);
  play (task);
  return G_SOURCE_REMOVE;
}

static gboolean
on_cancelled (GCancellable *cancellable,
              gpointer      user_data)
{
  GTask *task = user_data;
  StepRun *run = g_task_get_task_data (task);

  clear_source (&run->source);
  /* Destroying the source we are dispatched from is allowed. */
  clear_source (&run->cancel_source);
  g_task_return_error (task, gg_model_error_new (GG_MODEL_ERROR_CANCELLED, NULL, "The step was cancelled"));
  return G_SOURCE_REMOVE;
}

static void
gg_scripted_model_step_async (GgModel             *model,
                              GgModelRequest      *request,
                              GgModelDeltaFunc     on_delta,
                              gpointer             delta_data,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GgScriptedModel *self = GG_SCRIPTED_MODEL (model);
  g_autoptr(GTask) task = g_task_new (self, NULL, callback, user_data);
  StepRun *run;

  g_task_set_source_tag (task, gg_scripted_model_step_async);
  if (g_cancellable_is_cancelled (cancellable))
    {
      g_task_return_error (task, gg_model_error_new (GG_MODEL_ERROR_CANCELLED, NULL, "The step was cancelled"));
      return;
    }

  run = g_new0 (StepRun, 1);
  run->model = self;
  run->step = self->next < self->steps->len ? g_ptr_array_index (self->steps, self->next) : self->fallback;
  if (self->next < self->steps->len)
    self->next++;
  run->request = gg_model_request_ref (request);
  run->on_delta = on_delta;
  run->delta_data = delta_data;
  run->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  g_task_set_task_data (task, run, (GDestroyNotify) step_run_free);

  /* Only waits need a way out; an answer returns from an idle anyway. */
  if (cancellable != NULL && (run->step->delay_ms > 0 || request->stream))
    {
      run->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (run->cancel_source, (GSourceFunc) (void (*) (void)) on_cancelled,
                             g_object_ref (task), g_object_unref);
      g_source_attach (run->cancel_source, g_task_get_context (task));
    }

  if (run->step->delay_ms > 0)
    run->source = attach (task, g_timeout_source_new (run->step->delay_ms), on_delay_over);
  else
    play (task);
}

static GgModelReply *
gg_scripted_model_step_finish (GgModel       *model,
                               GAsyncResult  *result,
                               GError       **error)
{
  StepRun *run;
  g_autoptr(GgModelReply) reply = NULL;

  g_return_val_if_fail (g_task_is_valid (result, model), NULL);
  run = g_task_get_task_data (G_TASK (result));
  reply = g_task_propagate_pointer (G_TASK (result), error);
  /* An answer returns from an idle; cancelled before that, the step is
   * cancelled like any other (GIO's rule, in the model's vocabulary). */
  if (reply != NULL && run != NULL && g_cancellable_is_cancelled (run->cancellable))
    {
      g_set_error_literal (error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED, "The step was cancelled");
      return NULL;
    }
  return g_steal_pointer (&reply);
}

static const char *
gg_scripted_model_get_name (GgModel *model)
{
  return "scripted";
}

static void
gg_scripted_model_iface_init (GgModelInterface *iface)
{
  iface->get_name = gg_scripted_model_get_name;
  iface->step_async = gg_scripted_model_step_async;
  iface->step_finish = gg_scripted_model_step_finish;
}

static void
gg_scripted_model_finalize (GObject *object)
{
  GgScriptedModel *self = GG_SCRIPTED_MODEL (object);

  g_ptr_array_unref (self->steps);
  gg_scripted_step_free (self->fallback);
  g_clear_pointer (&self->entry_bytes, g_hash_table_unref);
  G_OBJECT_CLASS (gg_scripted_model_parent_class)->finalize (object);
}

static void
gg_scripted_model_class_init (GgScriptedModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_scripted_model_finalize;
}

static void
gg_scripted_model_init (GgScriptedModel *self)
{
  self->steps = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_scripted_step_free);
}

/**
 * gg_scripted_model_new:
 * @spec: `{"type":"scripted","steps"?:[…],"fallback"?:step}`; other
 *   members are ignored
 * @error: return location for a %G_IO_ERROR_INVALID_ARGUMENT naming the bad
 *   member ("model.steps[2]: unknown step kind")
 *
 * Returns: (transfer full) (nullable): a new scripted model
 */
GgModel *
gg_scripted_model_new (JsonObject  *spec,
                       GError     **error)
{
  g_autoptr(GgScriptedModel) self = g_object_new (GG_TYPE_SCRIPTED_MODEL, NULL);
  JsonNode *steps = spec != NULL ? json_object_get_member (spec, "steps") : NULL;
  JsonNode *fallback = spec != NULL ? json_object_get_member (spec, "fallback") : NULL;

  if (steps != NULL && !JSON_NODE_HOLDS_NULL (steps))
    {
      JsonArray *array;

      if (!JSON_NODE_HOLDS_ARRAY (steps))
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                               "model.steps: must be an array");
          return NULL;
        }
      array = json_node_get_array (steps);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          g_autofree char *where = g_strdup_printf ("model.steps[%u]", i);
          GgScriptedStep *step = gg_scripted_step_parse (json_array_get_element (array, i), where, error);

          if (step == NULL)
            return NULL;
          g_ptr_array_add (self->steps, step);
        }
    }

  if (fallback != NULL && !JSON_NODE_HOLDS_NULL (fallback))
    {
      self->fallback = gg_scripted_step_parse (fallback, "model.fallback", error);
      if (self->fallback == NULL)
        return NULL;
    }
  else
    {
      self->fallback = g_new0 (GgScriptedStep, 1);
      self->fallback->kind = GG_SCRIPTED_STEP_TEXT;
      self->fallback->text = g_strdup ("(script exhausted)");
      self->fallback->chunks = 1;
    }
  return GG_MODEL (g_steal_pointer (&self));
}

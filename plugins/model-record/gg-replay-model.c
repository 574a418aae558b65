/* gg-replay-model.c: the "replay" model: plays a cassette back.
 *
 *   {"type": "replay", "cassette": "npc.jsonl", "mode"?: "digest" | "sequential"}
 *
 * In the default `digest` mode each step is matched by the digest of what
 * it was asked, so sessions that interleaved while recording replay in any
 * order; a step the cassette does not hold fails loudly with the first
 * difference from the cassette's next unplayed step, never with another
 * answer. `sequential` plays the steps in file order whatever they are
 * asked, like a scripted model. Answers come back as recorded: the same
 * text, stream chunks (without their original pauses), tool calls, JSON,
 * usage or error; the model's name and context size are the recorded
 * model's, so results are byte-identical to the recorded run's.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-record.h"

struct _GgReplayModel {
  GObject parent_instance;

  char *cassette;
  GPtrArray *entries;        /* JsonObject, file order */
  gboolean *played;          /* per entry */
  gboolean sequential;
  guint steps;               /* steps asked of this model */
  char *name;
  gint64 context_size;
};

static void gg_replay_model_iface_init (GgModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GgReplayModel, gg_replay_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_MODEL, gg_replay_model_iface_init))

typedef struct {
  JsonObject *entry;
  JsonArray *chunks;         /* nullable */
  guint next_chunk;
  GgModelDeltaFunc on_delta;
  gpointer delta_data;
  GSource *source;
  gboolean stream;
} Playback;

static void
playback_free (Playback *playback)
{
  if (playback->source != NULL)
    {
      g_source_destroy (playback->source);
      g_source_unref (playback->source);
    }
  json_object_unref (playback->entry);
  g_free (playback);
}

/* Finds the step to play: by digest, or the next one in file order. */
static gint
find_entry (GgReplayModel *self,
            const char    *digest)
{
  for (guint i = 0; i < self->entries->len; i++)
    {
      JsonObject *entry = g_ptr_array_index (self->entries, i);

      if (self->played[i])
        continue;
      if (self->sequential || g_str_equal (json_object_get_string_member (entry, "digest"), digest))
        return (gint) i;
    }
  return -1;
}

static GError *
mismatch (GgReplayModel *self,
          JsonObject    *asked)
{
  for (guint i = 0; i < self->entries->len; i++)
    if (!self->played[i])
      {
        JsonObject *entry = g_ptr_array_index (self->entries, i);
        g_autofree char *difference =
          gg_record_first_difference (asked, json_object_get_object_member (entry, "asked"));

        return gg_model_error_new (GG_MODEL_ERROR_INVALID_REQUEST, NULL, "replay: step %u %s (%s, line %u)",
                                   self->steps, difference, self->cassette, i + 1);
      }
  return gg_model_error_new (GG_MODEL_ERROR_INVALID_REQUEST, NULL,
                             "replay: step %u was asked, but %s has no step left to play (it holds %u)",
                             self->steps, self->cassette, self->entries->len);
}

static void
finish (GTask *task)
{
  Playback *playback = g_task_get_task_data (task);
  JsonObject *entry = playback->entry;
  g_autoptr(GError) error = NULL;
  GgModelReply *reply;

  if (playback->source != NULL)
    {
      g_source_destroy (playback->source);
      g_clear_pointer (&playback->source, g_source_unref);
    }
  if (g_task_return_error_if_cancelled (task))
    return;
  if (json_object_has_member (entry, "error"))
    {
      g_task_return_error (task, gg_record_error_from_json (json_object_get_object_member (entry, "error")));
      return;
    }
  /* Checked when the cassette was read. */
  reply = gg_record_reply_from_json (json_object_get_object_member (entry, "reply"), &error);
  if (reply == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, reply, (GDestroyNotify) gg_model_reply_free);
}

static gboolean
on_play (gpointer user_data)
{
  GTask *task = user_data;
  Playback *playback = g_task_get_task_data (task);

  if (!g_cancellable_is_cancelled (g_task_get_cancellable (task)) && playback->stream &&
      playback->chunks != NULL && playback->next_chunk < json_array_get_length (playback->chunks))
    {
      JsonObject *chunk = json_array_get_object_element (playback->chunks, playback->next_chunk++);

      playback->on_delta (json_object_get_string_member (chunk, "delta"),
                          json_object_get_boolean_member_with_default (chunk, "reset", FALSE),
                          playback->delta_data);
      return G_SOURCE_CONTINUE;
    }
  finish (task);
  return G_SOURCE_REMOVE;
}

static void
gg_replay_model_step_async (GgModel             *model,
                            GgModelRequest      *request,
                            GgModelDeltaFunc     on_delta,
                            gpointer             delta_data,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  GgReplayModel *self = GG_REPLAY_MODEL (model);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(JsonObject) asked = gg_record_asked_from_request (request);
  g_autofree char *digest = gg_record_digest (asked);
  Playback *playback;
  JsonNode *chunks;
  gint index;

  g_task_set_source_tag (task, gg_replay_model_step_async);
  self->steps++;
  index = find_entry (self, digest);
  if (index < 0)
    {
      g_task_return_error (task, mismatch (self, asked));
      return;
    }
  self->played[index] = TRUE;

  playback = g_new0 (Playback, 1);
  playback->entry = json_object_ref (g_ptr_array_index (self->entries, index));
  chunks = json_object_get_member (playback->entry, "chunks");
  playback->chunks = chunks != NULL ? json_node_get_array (chunks) : NULL;
  playback->on_delta = on_delta;
  playback->delta_data = delta_data;
  playback->stream = request->stream && on_delta != NULL;
  g_task_set_task_data (task, playback, (GDestroyNotify) playback_free);
  /* Chunks and the answer come from idles: always after step_async()
   * returned, as from a real model. */
  playback->source = g_idle_source_new ();
  g_source_set_callback (playback->source, on_play, g_object_ref (task), g_object_unref);
  g_source_attach (playback->source, g_task_get_context (task));
}

static GgModelReply *
gg_replay_model_step_finish (GgModel       *model,
                             GAsyncResult  *result,
                             GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static const char *
gg_replay_model_get_name (GgModel *model)
{
  return GG_REPLAY_MODEL (model)->name;
}

static gint64
gg_replay_model_get_context_size (GgModel *model)
{
  return GG_REPLAY_MODEL (model)->context_size;
}

static void
gg_replay_model_iface_init (GgModelInterface *iface)
{
  iface->get_name = gg_replay_model_get_name;
  iface->get_context_size = gg_replay_model_get_context_size;
  iface->step_async = gg_replay_model_step_async;
  iface->step_finish = gg_replay_model_step_finish;
}

static void
gg_replay_model_finalize (GObject *object)
{
  GgReplayModel *self = GG_REPLAY_MODEL (object);

  g_clear_pointer (&self->entries, g_ptr_array_unref);
  g_free (self->played);
  g_free (self->cassette);
  g_free (self->name);
  G_OBJECT_CLASS (gg_replay_model_parent_class)->finalize (object);
}

static void
gg_replay_model_class_init (GgReplayModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_replay_model_finalize;
}

static void
gg_replay_model_init (GgReplayModel *self)
{
}

/**
 * gg_replay_model_new:
 * @spec: `{"type": "replay", "cassette": PATH, "mode"?: "digest" | "sequential"}`
 * @error: a spec error, or `PATH:LINE: what is wrong` with the cassette
 *
 * Returns: (transfer full) (nullable): the replaying model
 */
GgModel *
gg_replay_model_new (JsonObject  *spec,
                     GError     **error)
{
  g_autoptr(GgReplayModel) self = NULL;
  g_autoptr(GError) local = NULL;
  JsonNode *cassette = json_object_get_member (spec, "cassette");
  JsonNode *mode = json_object_get_member (spec, "mode");

  if (cassette == NULL || json_node_get_value_type (cassette) != G_TYPE_STRING ||
      *json_node_get_string (cassette) == '\0')
    {
      g_set_error_literal (error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_REQUEST,
                           "replay: 'cassette' must be the path of a recorded cassette");
      return NULL;
    }
  if (mode != NULL && (json_node_get_value_type (mode) != G_TYPE_STRING ||
                       (!g_str_equal (json_node_get_string (mode), "digest") &&
                        !g_str_equal (json_node_get_string (mode), "sequential"))))
    {
      g_set_error_literal (error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_REQUEST,
                           "replay: 'mode' must be \"digest\" or \"sequential\"");
      return NULL;
    }

  self = g_object_new (GG_TYPE_REPLAY_MODEL, NULL);
  self->cassette = g_strdup (json_node_get_string (cassette));
  self->sequential = mode != NULL && g_str_equal (json_node_get_string (mode), "sequential");
  self->entries = gg_record_cassette_load (self->cassette, &local);
  if (self->entries == NULL)
    {
      g_set_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_MODEL_UNAVAILABLE, "replay: %s", local->message);
      return NULL;
    }
  self->played = g_new0 (gboolean, MAX (self->entries->len, 1));
  if (self->entries->len > 0)
    {
      JsonObject *first = g_ptr_array_index (self->entries, 0);

      self->name = g_strdup (json_object_get_string_member_with_default (first, "model", "replay"));
      self->context_size = json_object_get_int_member_with_default (first, "contextSize", 0);
    }
  else
    self->name = g_strdup ("replay");
  return GG_MODEL (g_steal_pointer (&self));
}

/* gg-record-model.c: the "record" model: runs a real model and appends
 * every step to a cassette.
 *
 *   {"type": "record", "model": {...the real model...}, "cassette": "npc.jsonl"}
 *
 * The wrapped model answers as it always does (deltas pass straight
 * through); what it was asked, what it answered or how it failed, and the
 * stream's chunks with their times go to the cassette as one line once the
 * step is over. A cancelled step is not the model's answer and is not
 * recorded. Lines are appended with one write each, so several sessions
 * recording into one cassette never interleave within a line.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "gg-record.h"

struct _GgRecordModel {
  GObject parent_instance;

  GgModel *inner;
  char *cassette;
  int fd;                    /* the cassette, opened for appending */
  guint steps;               /* steps recorded by this model */
};

static void gg_record_model_iface_init (GgModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GgRecordModel, gg_record_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_MODEL, gg_record_model_iface_init))

typedef struct {
  GgRecordModel *model;      /* strong */
  JsonObject *asked;
  JsonArray *chunks;
  gint64 started_us;
  GgModelDeltaFunc on_delta;
  gpointer delta_data;
} Recording;

static void
recording_free (Recording *recording)
{
  g_object_unref (recording->model);
  json_object_unref (recording->asked);
  json_array_unref (recording->chunks);
  g_free (recording);
}

static void
on_inner_delta (const char *delta,
                gboolean    is_reset,
                gpointer    user_data)
{
  Recording *recording = user_data;
  JsonObject *chunk = json_object_new ();

  json_object_set_int_member (chunk, "ms", (g_get_monotonic_time () - recording->started_us) / 1000);
  json_object_set_string_member (chunk, "delta", delta);
  if (is_reset)
    json_object_set_boolean_member (chunk, "reset", TRUE);
  json_array_add_object_element (recording->chunks, chunk);
  if (recording->on_delta != NULL)
    recording->on_delta (delta, is_reset, recording->delta_data);
}

static void
append_line (GgRecordModel *self,
             JsonObject    *entry)
{
  g_autofree char *text = gg_json_object_to_string (entry);
  g_autofree char *line = g_strconcat (text, "\n", NULL);
  gsize length = strlen (line);
  gssize written;

  do
    written = write (self->fd, line, length);
  while (written < 0 && errno == EINTR);
  /* A cassette that cannot be written loses this step, not the turn. */
  if (written != (gssize) length)
    g_warning (_("Could not append a step to the cassette %s: %s"), self->cassette,
               written < 0 ? g_strerror (errno) : _("short write"));
}

static gboolean
is_cancellation (const GError *error)
{
  return g_error_matches (error, GG_MODEL_ERROR, GG_MODEL_ERROR_CANCELLED) ||
         g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
on_inner_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Recording *recording = g_task_get_task_data (task);
  GgRecordModel *self = recording->model;
  g_autoptr(GError) error = NULL;
  GgModelReply *reply = gg_model_step_finish (GG_MODEL (source), result, &error);
  g_autoptr(JsonObject) entry = NULL;
  g_autofree char *digest = NULL;

  recording->on_delta = NULL;
  if (reply == NULL && is_cancellation (error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  entry = json_object_new ();
  digest = gg_record_digest (recording->asked);
  json_object_set_int_member (entry, "step", ++self->steps);
  json_object_set_string_member (entry, "model", gg_model_get_name (self->inner));
  json_object_set_int_member (entry, "contextSize", gg_model_get_context_size (self->inner));
  json_object_set_string_member (entry, "digest", digest);
  json_object_set_object_member (entry, "asked", json_object_ref (recording->asked));
  if (reply != NULL)
    json_object_set_object_member (entry, "reply", gg_record_reply_to_json (reply));
  else
    json_object_set_object_member (entry, "error", gg_record_error_to_json (error));
  if (json_array_get_length (recording->chunks) > 0)
    json_object_set_array_member (entry, "chunks", json_array_ref (recording->chunks));
  append_line (self, entry);

  if (reply != NULL)
    g_task_return_pointer (task, reply, (GDestroyNotify) gg_model_reply_free);
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

static void
gg_record_model_step_async (GgModel             *model,
                            GgModelRequest      *request,
                            GgModelDeltaFunc     on_delta,
                            gpointer             delta_data,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  GgRecordModel *self = GG_RECORD_MODEL (model);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Recording *recording = g_new0 (Recording, 1);

  g_task_set_source_tag (task, gg_record_model_step_async);
  recording->model = g_object_ref (self);
  recording->asked = gg_record_asked_from_request (request);
  recording->chunks = json_array_new ();
  recording->started_us = g_get_monotonic_time ();
  recording->on_delta = on_delta;
  recording->delta_data = delta_data;
  g_task_set_task_data (task, recording, (GDestroyNotify) recording_free);
  gg_model_step_async (self->inner, request, on_inner_delta, recording, cancellable, on_inner_done, task);
}

static GgModelReply *
gg_record_model_step_finish (GgModel       *model,
                             GAsyncResult  *result,
                             GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
on_inner_availability (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  JsonObject *answer = gg_model_availability_finish (GG_MODEL (source), result, &error);

  if (answer == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, answer, (GDestroyNotify) json_object_unref);
}

static void
gg_record_model_availability_async (GgModel             *model,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GgRecordModel *self = GG_RECORD_MODEL (model);

  gg_model_availability_async (self->inner, cancellable, on_inner_availability,
                               g_task_new (self, cancellable, callback, user_data));
}

static JsonObject *
gg_record_model_availability_finish (GgModel       *model,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static const char *
gg_record_model_get_name (GgModel *model)
{
  return gg_model_get_name (GG_RECORD_MODEL (model)->inner);
}

static gint64
gg_record_model_get_context_size (GgModel *model)
{
  return gg_model_get_context_size (GG_RECORD_MODEL (model)->inner);
}

static void
gg_record_model_iface_init (GgModelInterface *iface)
{
  iface->get_name = gg_record_model_get_name;
  iface->get_context_size = gg_record_model_get_context_size;
  iface->step_async = gg_record_model_step_async;
  iface->step_finish = gg_record_model_step_finish;
  iface->availability_async = gg_record_model_availability_async;
  iface->availability_finish = gg_record_model_availability_finish;
}

static void
gg_record_model_finalize (GObject *object)
{
  GgRecordModel *self = GG_RECORD_MODEL (object);

  g_clear_object (&self->inner);
  if (self->fd >= 0)
    close (self->fd);
  g_free (self->cassette);
  G_OBJECT_CLASS (gg_record_model_parent_class)->finalize (object);
}

static void
gg_record_model_class_init (GgRecordModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_record_model_finalize;
}

static void
gg_record_model_init (GgRecordModel *self)
{
  self->fd = -1;
}

/**
 * gg_record_model_new:
 * @bus: the bus, which makes the recorded model
 * @spec: `{"type": "record", "model": <any model spec>, "cassette": PATH}`
 * @error: a spec error, the recorded model's, or why the cassette cannot
 *   be opened
 *
 * Returns: (transfer full) (nullable): the recording model
 */
GgModel *
gg_record_model_new (GgBus       *bus,
                     JsonObject  *spec,
                     GError     **error)
{
  g_autoptr(GgRecordModel) self = NULL;
  JsonNode *inner = json_object_get_member (spec, "model");
  JsonNode *cassette = json_object_get_member (spec, "cassette");

  if (inner == NULL || (!JSON_NODE_HOLDS_OBJECT (inner) && json_node_get_value_type (inner) != G_TYPE_STRING))
    {
      g_set_error_literal (error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_REQUEST,
                           "record: 'model' must name the model to record (a model spec)");
      return NULL;
    }
  if (cassette == NULL || json_node_get_value_type (cassette) != G_TYPE_STRING ||
      *json_node_get_string (cassette) == '\0')
    {
      g_set_error_literal (error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_REQUEST,
                           "record: 'cassette' must be the path of the file to record into");
      return NULL;
    }
  if (JSON_NODE_HOLDS_OBJECT (inner) &&
      g_strcmp0 (json_object_get_string_member_with_default (json_node_get_object (inner), "type", NULL),
                 "record") == 0)
    {
      g_set_error_literal (error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_REQUEST,
                           "record: the recorded model cannot itself be a recording");
      return NULL;
    }

  self = g_object_new (GG_TYPE_RECORD_MODEL, NULL);
  self->cassette = g_strdup (json_node_get_string (cassette));
  self->inner = gg_bus_create_model (bus, inner, error);
  if (self->inner == NULL)
    return NULL;
  self->fd = open (self->cassette, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (self->fd < 0)
    {
      int saved = errno;

      g_set_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_MODEL_UNAVAILABLE,
                   "record: cannot open the cassette %s: %s", self->cassette, g_strerror (saved));
      return NULL;
    }
  return GG_MODEL (g_steal_pointer (&self));
}

/* gg-test-model.c: the fake GgModel of gg-test-model.h. It answers at once
 * (or, for "hang", when cancelled), so a test or a benchmark sees only the
 * agent loop's own work.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-test-model.h"

static void
fake_usage (JsonObject *action, GgModelReply *reply)
{
  JsonArray *usage;

  if (!json_object_has_member (action, "usage"))
    return;
  usage = json_object_get_array_member (action, "usage");
  reply->usage.input_tokens = json_array_get_int_element (usage, 0);
  reply->usage.cached_input_tokens = json_array_get_int_element (usage, 1);
  reply->usage.output_tokens = json_array_get_int_element (usage, 2);
}

static gboolean
fake_on_cancelled (GCancellable *cancellable, gpointer user_data)
{
  GTask *task = user_data;

  g_task_return_error (task, gg_model_error_new (GG_MODEL_ERROR_CANCELLED, NULL, "cancelled"));
  return G_SOURCE_REMOVE;
}

static void
fake_step_async (GgModel *model, GgModelRequest *request, GgModelDeltaFunc on_delta,
                 gpointer delta_data, GCancellable *cancellable, GAsyncReadyCallback callback,
                 gpointer user_data)
{
  GgTestFakeModel *self = GG_TEST_FAKE_MODEL (model);
  g_autoptr(GTask) task = g_task_new (model, NULL, callback, user_data);
  JsonObject *action;
  GgModelReply *reply;

  g_ptr_array_add (self->requests, gg_model_request_ref (request));
  if (self->next >= json_array_get_length (self->actions))
    {
      reply = gg_model_reply_new ();
      reply->text = g_strdup ("(fake exhausted)");
      g_task_return_pointer (task, reply, (GDestroyNotify) gg_model_reply_free);
      return;
    }
  action = json_array_get_object_element (self->actions, self->next++);

  if (json_object_has_member (action, "hang"))
    {
      GSource *source;

      g_assert_nonnull (cancellable);
      source = g_cancellable_source_new (cancellable);
      g_source_set_callback (source, (GSourceFunc) (void (*) (void)) fake_on_cancelled,
                             g_object_ref (task), g_object_unref);
      g_source_attach (source, NULL);
      g_source_unref (source);
      return;
    }
  if (json_object_has_member (action, "deltas") && on_delta != NULL)
    {
      JsonArray *deltas = json_object_get_array_member (action, "deltas");
      for (guint i = 0; i < json_array_get_length (deltas); i++)
        on_delta (json_array_get_string_element (deltas, i), FALSE, delta_data);
    }
  if (json_object_has_member (action, "error"))
    {
      GgModelError code;
      g_assert_true (gg_model_error_from_name (json_object_get_string_member (action, "error"), &code));
      g_task_return_error (task, gg_model_error_new (code, NULL, "fake %s",
                                                     json_object_get_string_member (action, "error")));
      return;
    }

  reply = gg_model_reply_new ();
  fake_usage (action, reply);
  if (json_object_has_member (action, "toolCalls"))
    reply->tool_calls = json_array_ref (json_object_get_array_member (action, "toolCalls"));
  else if (json_object_has_member (action, "json"))
    reply->json = json_node_copy (json_object_get_member (action, "json"));
  else
    {
      reply->text = g_strdup (json_object_get_string_member (action, "text"));
    }
  g_task_return_pointer (task, reply, (GDestroyNotify) gg_model_reply_free);
}

static GgModelReply *
fake_step_finish (GgModel *model, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static gint64
fake_get_context_size (GgModel *model)
{
  return GG_TEST_FAKE_MODEL (model)->context_size;
}

static void
fake_iface_init (GgModelInterface *iface)
{
  iface->step_async = fake_step_async;
  iface->step_finish = fake_step_finish;
  iface->get_context_size = fake_get_context_size;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (GgTestFakeModel, gg_test_fake_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_MODEL, fake_iface_init))

static void
gg_test_fake_model_finalize (GObject *object)
{
  GgTestFakeModel *self = GG_TEST_FAKE_MODEL (object);

  json_array_unref (self->actions);
  g_ptr_array_unref (self->requests);
  G_OBJECT_CLASS (gg_test_fake_model_parent_class)->finalize (object);
}

static void
gg_test_fake_model_class_init (GgTestFakeModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_test_fake_model_finalize;
}

static void
gg_test_fake_model_init (GgTestFakeModel *self)
{
  self->requests = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_model_request_unref);
  self->context_size = 8192;
}

GgTestFakeModel *
gg_test_fake_model_new (const char *actions)
{
  GgTestFakeModel *self = g_object_new (GG_TEST_TYPE_FAKE_MODEL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_from_string (actions, &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  self->actions = json_node_dup_array (node);
  return self;
}

GgModelRequest *
gg_test_fake_model_get_request (GgTestFakeModel *model,
                                guint            i)
{
  g_assert_cmpuint (i, <, model->requests->len);
  return g_ptr_array_index (model->requests, i);
}

/* gg-model-unavailable.c: the stand-in for a model that cannot run.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-model-unavailable-private.h"

struct _GgUnavailableModel {
  GObject parent_instance;

  char *name;
  char *reason;
};

static void gg_unavailable_model_iface_init (GgModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GgUnavailableModel, gg_unavailable_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_MODEL, gg_unavailable_model_iface_init))

static const char *
unavailable_get_name (GgModel *model)
{
  return GG_UNAVAILABLE_MODEL (model)->name;
}

static void
unavailable_step_async (GgModel             *model,
                        GgModelRequest      *request,
                        GgModelDeltaFunc     on_delta,
                        gpointer             delta_data,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  GgUnavailableModel *self = GG_UNAVAILABLE_MODEL (model);
  /* No cancellable on the task: it would turn a cancellation into
   * G_IO_ERROR_CANCELLED, and models speak the oam vocabulary. */
  g_autoptr(GTask) task = g_task_new (self, NULL, callback, user_data);

  g_task_set_source_tag (task, unavailable_step_async);
  if (g_cancellable_is_cancelled (cancellable))
    g_task_return_error (task, gg_model_error_new (GG_MODEL_ERROR_CANCELLED, NULL,
                                                   "The step was cancelled"));
  else
    g_task_return_error (task, gg_model_error_new (GG_MODEL_ERROR_MODEL_UNAVAILABLE, NULL,
                                                   "%s", self->reason));
}

static GgModelReply *
unavailable_step_finish (GgModel       *model,
                         GAsyncResult  *result,
                         GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
unavailable_availability_async (GgModel             *model,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  GgUnavailableModel *self = GG_UNAVAILABLE_MODEL (model);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  JsonObject *availability = json_object_new ();

  json_object_set_boolean_member (availability, "available", FALSE);
  json_object_set_string_member (availability, "reason", "unknown");
  json_object_set_string_member (availability, "message", self->reason);
  g_task_return_pointer (task, availability, (GDestroyNotify) json_object_unref);
}

static JsonObject *
unavailable_availability_finish (GgModel       *model,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
gg_unavailable_model_iface_init (GgModelInterface *iface)
{
  iface->get_name = unavailable_get_name;
  iface->step_async = unavailable_step_async;
  iface->step_finish = unavailable_step_finish;
  iface->availability_async = unavailable_availability_async;
  iface->availability_finish = unavailable_availability_finish;
}

static void
gg_unavailable_model_finalize (GObject *object)
{
  GgUnavailableModel *self = GG_UNAVAILABLE_MODEL (object);

  g_free (self->name);
  g_free (self->reason);
  G_OBJECT_CLASS (gg_unavailable_model_parent_class)->finalize (object);
}

static void
gg_unavailable_model_class_init (GgUnavailableModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_unavailable_model_finalize;
}

static void
gg_unavailable_model_init (GgUnavailableModel *self)
{
}

GgModel *
gg_unavailable_model_new (const char *name,
                          const char *reason)
{
  GgUnavailableModel *self = g_object_new (GG_TYPE_UNAVAILABLE_MODEL, NULL);

  self->name = g_strdup (name);
  self->reason = g_strdup (reason);
  return GG_MODEL (self);
}

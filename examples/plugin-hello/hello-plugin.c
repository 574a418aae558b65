/* hello-plugin.c: the smallest useful gamegate plugin, built out of tree.
 *
 * It registers the model type "hello": a model that answers every turn with
 * "Hello, <the last thing the user said>!" (or the spec's "greeting"
 * instead of "Hello"). Any front end can use it, e.g. an oam session created
 * with {"model": {"type": "hello", "greeting": "Howdy"}}.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gamegate.h>

#define HELLO_TYPE_MODEL (hello_model_get_type ())
G_DECLARE_FINAL_TYPE (HelloModel, hello_model, HELLO, MODEL, GObject)

struct _HelloModel {
  GObject parent_instance;
  char *greeting;
};

static void hello_model_iface_init (GgModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (HelloModel, hello_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_MODEL, hello_model_iface_init))

/* The text of the newest user entry of the transcript, or "world". */
static const char *
last_user_text (GgModelRequest *request)
{
  guint n = request->transcript != NULL ? json_array_get_length (request->transcript) : 0;

  for (guint i = n; i > 0; i--)
    {
      JsonObject *entry = json_array_get_object_element (request->transcript, i - 1);

      if (entry != NULL &&
          g_strcmp0 (json_object_get_string_member_with_default (entry, "role", NULL), "user") == 0 &&
          json_object_has_member (entry, "text"))
        return json_object_get_string_member_with_default (entry, "text", "world");
    }
  return "world";
}

static void
hello_model_step_async (GgModel             *model,
                        GgModelRequest      *request,
                        GgModelDeltaFunc     on_delta,
                        gpointer             delta_data,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  HelloModel *self = HELLO_MODEL (model);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  GgModelReply *reply;

  g_task_set_source_tag (task, hello_model_step_async);
  if (request->output_schema != NULL)
    {
      g_task_return_error (task, gg_model_error_new (GG_MODEL_ERROR_INVALID_SCHEMA, NULL,
                                                     "the hello model answers in text only"));
      return;
    }
  reply = gg_model_reply_new ();
  reply->text = g_strdup_printf ("%s, %s!", self->greeting, last_user_text (request));
  if (request->stream && on_delta != NULL)
    on_delta (reply->text, FALSE, delta_data);
  g_task_return_pointer (task, reply, (GDestroyNotify) gg_model_reply_free);
}

static GgModelReply *
hello_model_step_finish (GgModel       *model G_GNUC_UNUSED,
                         GAsyncResult  *result,
                         GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static const char *
hello_model_get_name (GgModel *model G_GNUC_UNUSED)
{
  return "hello";
}

static void
hello_model_iface_init (GgModelInterface *iface)
{
  iface->get_name = hello_model_get_name;
  iface->step_async = hello_model_step_async;
  iface->step_finish = hello_model_step_finish;
}

static void
hello_model_finalize (GObject *object)
{
  g_free (HELLO_MODEL (object)->greeting);
  G_OBJECT_CLASS (hello_model_parent_class)->finalize (object);
}

static void
hello_model_class_init (HelloModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = hello_model_finalize;
}

static void
hello_model_init (HelloModel *self G_GNUC_UNUSED)
{
}

/* {"type": "hello", "greeting"?: "..."}: a bad member is named. */
static GgModel *
hello_model_new (JsonObject *spec,
                 gpointer    user_data,
                 GError    **error)
{
  const char *default_greeting = user_data;
  JsonNode *greeting = json_object_get_member (spec, "greeting");
  HelloModel *self;

  if (greeting != NULL && (!JSON_NODE_HOLDS_VALUE (greeting) ||
                           json_node_get_value_type (greeting) != G_TYPE_STRING))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "model.greeting: must be a string");
      return NULL;
    }
  self = g_object_new (HELLO_TYPE_MODEL, NULL);
  self->greeting = g_strdup (greeting != NULL ? json_node_get_string (greeting) : default_greeting);
  return GG_MODEL (self);
}

/* [hello] greeting=Hello: the default greeting. */
static gboolean
hello_setup (GgPlugin *plugin,
             GError  **error)
{
  char *greeting = gg_config_get_string (gg_plugin_get_config (plugin), "hello", "greeting", "Hello");

  return gg_bus_register_model_type (gg_plugin_get_bus (plugin), "hello", hello_model_new,
                                     greeting, g_free, error);
}

GG_PLUGIN_DEFINE ("hello", "1.0.0", "Example out-of-tree plugin: the \"hello\" model type",
                  "LGPL-2.1-or-later", hello_setup)

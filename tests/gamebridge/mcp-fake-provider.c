/* mcp-fake-provider.c: a GbMcpToolsProvider for the MCP tests.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "mcp-fake-provider.h"

static const char * const fixed[FAKE_PROVIDER_FIXED_TOOLS] = { "echo", "fail", "progress", "hang" };

static JsonObject *
tool (const char *name)
{
  g_autoptr(JsonNode) schema = json_from_string ("{\"type\":\"object\"}", NULL);
  JsonObject *obj = json_object_new ();

  json_object_set_string_member (obj, "name", name);
  json_object_set_string_member (obj, "description", "A test tool");
  json_object_set_member (obj, "inputSchema", g_steal_pointer (&schema));
  return obj;
}

static JsonArray *
fake_list_tools (gpointer provider)
{
  FakeProvider *fake = provider;
  JsonArray *tools = json_array_new ();

  for (guint i = 0; i < fake->n_tools; i++)
    {
      g_autofree char *name = NULL;
      if (i < FAKE_PROVIDER_FIXED_TOOLS)
        name = g_strdup (fixed[i]);
      else
        name = g_strdup_printf ("filler-%03u", i);
      json_array_add_object_element (tools, tool (name));
    }
  return tools;
}

static JsonObject *
text_result (JsonObject *arguments)
{
  JsonObject *result = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonObject *item = json_object_new ();
  g_autofree char *text = gg_json_object_to_string (arguments);

  json_object_set_string_member (item, "type", "text");
  json_object_set_string_member (item, "text", text);
  json_array_add_object_element (content, item);
  json_object_set_array_member (result, "content", content);
  json_object_set_object_member (result, "structuredContent", json_object_ref (arguments));
  return result;
}

typedef struct {
  GbMcpCall  *call;
  JsonObject *arguments;
  guint       step;
  guint       source_id;
  FakeProvider *fake;
} Work;

static void
work_free (gpointer data)
{
  Work *work = data;

  json_object_unref (work->arguments);
  g_free (work);
}

static gboolean
progress_step (gpointer user_data)
{
  GTask *task = user_data;
  Work *work = g_task_get_task_data (task);
  static const char * const levels[] = { "debug", "info", "warning" };

  if (work->step < 3)
    {
      g_autofree char *text = g_strdup_printf ("step %u", work->step + 1);
      gb_mcp_call_report_progress (work->call, work->step + 1, 3, text);
      gb_mcp_call_log (work->call, levels[work->step], text);
      work->step++;
      return G_SOURCE_CONTINUE;
    }
  work->source_id = 0;
  g_task_return_pointer (task, text_result (work->arguments), (GDestroyNotify) json_object_unref);
  return G_SOURCE_REMOVE;
}

static void
hang_cancelled (GCancellable *cancellable,
                gpointer      user_data)
{
  GTask *task = user_data;
  Work *work = g_task_get_task_data (task);

  work->fake->n_cancelled++;
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
}

static gboolean
hang_source_cb (GCancellable *cancellable,
                gpointer      user_data)
{
  hang_cancelled (cancellable, user_data);
  return G_SOURCE_REMOVE;
}

static gboolean
gate_cancelled_cb (GCancellable *cancellable,
                   gpointer      user_data)
{
  GTask *task = user_data;
  FakeProvider *fake = ((Work *) g_task_get_task_data (task))->fake;

  ((Work *) g_task_get_task_data (task))->source_id = 0;
  fake->n_cancelled++;
  if (fake->gates != NULL)
    g_ptr_array_remove (fake->gates, task);
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
  return G_SOURCE_REMOVE;
}

static void
fake_call_tool_async (gpointer             provider,
                      const char          *name,
                      JsonObject          *arguments,
                      GbMcpCall           *call,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  FakeProvider *fake = provider;
  g_autoptr(GTask) task = g_task_new (NULL, NULL, callback, user_data);
  Work *work = g_new0 (Work, 1);

  fake->n_calls++;
  work->call = call;
  work->arguments = json_object_ref (arguments);
  work->fake = fake;
  g_task_set_task_data (task, work, work_free);

  if (strcmp (name, "echo") == 0 || g_str_has_prefix (name, "filler-"))
    g_task_return_pointer (task, text_result (arguments), (GDestroyNotify) json_object_unref);
  else if (strcmp (name, "fail") == 0)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "the tool failed on purpose");
  else if (strcmp (name, "progress") == 0)
    work->source_id = g_timeout_add_full (G_PRIORITY_DEFAULT, 5, progress_step,
                                          g_object_ref (task), g_object_unref);
  else if (strcmp (name, "hang") == 0)
    {
      /* Returns once cancelled, from an idle so the callback never runs
       * inside g_cancellable_cancel(). */
      GSource *source = g_cancellable_source_new (cancellable);
      g_source_set_callback (source, G_SOURCE_FUNC (hang_source_cb), g_object_ref (task), g_object_unref);
      g_source_attach (source, NULL);
      g_source_unref (source);
    }
  else if (strcmp (name, "gate") == 0)
    {
      gint64 reports = json_object_has_member (arguments, "reports") ?
                       json_object_get_int_member (arguments, "reports") : 1;
      GSource *source = g_cancellable_source_new (cancellable);

      for (gint64 i = 1; i <= reports; i++)
        gb_mcp_call_report_progress (call, (double) i, 0, NULL);
      if (fake->gates == NULL)
        fake->gates = g_ptr_array_new_with_free_func (g_object_unref);
      g_ptr_array_add (fake->gates, g_object_ref (task));
      g_source_set_callback (source, G_SOURCE_FUNC (gate_cancelled_cb), g_object_ref (task), g_object_unref);
      g_source_attach (source, NULL);
      work->source_id = g_source_get_id (source);
      g_source_unref (source);
    }
  else
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "Unknown tool: %s", name);
}

guint
fake_provider_open_gates (FakeProvider *fake)
{
  guint n = 0;

  while (fake->gates != NULL && fake->gates->len > 0)
    {
      g_autoptr(GTask) task = g_ptr_array_steal_index (fake->gates, 0);
      Work *work = g_task_get_task_data (task);

      g_clear_handle_id (&work->source_id, g_source_remove);
      g_task_return_pointer (task, text_result (work->arguments), (GDestroyNotify) json_object_unref);
      n++;
    }
  return n;
}

void
fake_provider_clear (FakeProvider *fake)
{
  g_clear_pointer (&fake->gates, g_ptr_array_unref);
}

static JsonObject *
fake_call_tool_finish (gpointer       provider,
                       GAsyncResult  *result,
                       GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

const GbMcpToolsProvider fake_provider_vtable = {
  fake_list_tools,
  fake_call_tool_async,
  fake_call_tool_finish,
};

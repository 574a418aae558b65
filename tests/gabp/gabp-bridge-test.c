/* gabp-bridge-test.c: the helpers of gabp-bridge-test.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gabp-bridge-test.h"

void
on_target_event (GgTarget   *target,
                 const char *channel,
                 guint64     seq,
                 JsonNode   *payload,
                 Fixture    *f)
{
  g_ptr_array_add (f->events, g_strdup_printf ("%s#%" G_GUINT64_FORMAT, channel, seq));
}

gboolean
target_ready (gpointer data)
{
  return gg_gabp_target_is_ready (data);
}

void
fixture_connect (Fixture    *f,
                 guint16     port,
                 const char *token)
{
  f->schemas = test_schemas ();
  f->bus = gg_bus_new ();
  f->events = g_ptr_array_new_with_free_func (g_free);
  f->client = gg_gabp_client_new (f->schemas, "127.0.0.1", port, token);
  gg_gabp_client_set_backoff (f->client, 20, 200);
  gg_gabp_client_set_timeout (f->client, 5000);
  f->target = gg_gabp_target_new ("ref", f->client);
  g_signal_connect (f->target, "event", G_CALLBACK (on_target_event), f);
  g_assert_true (gg_bus_add_target (f->bus, GG_TARGET (f->target), NULL));
  gg_gabp_client_start (f->client);
}

void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->mod = test_mod_start (0, TEST_TOKEN);
  fixture_connect (f, f->mod->port, TEST_TOKEN);
  g_assert_true (gg_test_wait_for (target_ready, f->target, 5000));
}

void
fixture_teardown (Fixture *f, gconstpointer data)
{
  gg_bus_remove_target (f->bus, GG_TARGET (f->target));
  g_signal_handlers_disconnect_by_data (f->target, f);
  g_clear_object (&f->target);
  g_clear_object (&f->client);
  g_clear_object (&f->bus);
  g_clear_object (&f->schemas);
  g_clear_pointer (&f->events, g_ptr_array_unref);
  if (f->mod != NULL)
    gg_test_server_free (f->mod);
  /* Let cancelled operations finish. */
  gg_test_spin (20);
}

void
on_called (GObject *source, GAsyncResult *result, gpointer data)
{
  Call *call = data;
  call->result = gg_target_call_tool_finish (GG_TARGET (source), result, &call->error);
  call->done = TRUE;
}

gboolean
call_done (gpointer data)
{
  return ((Call *) data)->done;
}

JsonNode *
call_tool (GgGabpTarget *target,
           const char   *name,
           const char   *args,
           GError      **error)
{
  Call call = { 0 };
  g_autoptr(JsonNode) node = args != NULL ? json_from_string (args, NULL) : NULL;

  gg_target_call_tool_async (GG_TARGET (target), name, node != NULL ? json_node_get_object (node) : NULL,
                             NULL, on_called, &call);
  g_assert_true (gg_test_wait_for (call_done, &call, 10000));
  if (call.error != NULL)
    g_propagate_error (error, call.error);
  return call.result;
}

char *
node_string (JsonNode *node)
{
  return gg_json_to_string (node);
}

/* Handshake and tools ------------------------------------------------------ */

void
on_listed (GObject *source, GAsyncResult *result, gpointer data)
{
  Call *call = data;
  JsonArray *tools = gg_target_list_tools_finish (GG_TARGET (source), result, &call->error);
  if (tools != NULL)
    call->result = json_node_init_array (json_node_alloc (), tools), json_array_unref (tools);
  call->done = TRUE;
}

/* test-gabp-bridge.c: gamegate as a GABP bridge, against the reference mod
 * running as its own process: tools as a bus target, out-of-order answers,
 * event order and gaps, the attention gate, resources and state, a mod that
 * crashes and comes back.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gabp-bridge-test.h"

static void
test_tools (Fixture *f, gconstpointer data)
{
  Call call = { 0 };
  g_autoptr(JsonObject) info = gg_target_get_info (GG_TARGET (f->target));
  g_autofree char *text = NULL;
  JsonArray *tools;
  gboolean saw_move = FALSE, saw_events = FALSE, saw_ack = FALSE;

  g_assert_cmpstr (gg_target_get_id (GG_TARGET (f->target)), ==, "gabp:ref");
  g_assert_cmpstr (json_object_get_string_member (info, "status"), ==, "ready");
  g_assert_cmpstr (json_object_get_string_member (info, "agentId"), ==, "gabp-mod");
  g_assert_true (gg_gabp_client_supports (f->client, "attention/ack"));
  g_assert_false (gg_gabp_client_supports (f->client, "bogus/method"));

  gg_target_list_tools_async (GG_TARGET (f->target), NULL, on_listed, &call);
  g_assert_true (gg_test_wait_for (call_done, &call, 5000));
  g_assert_no_error (call.error);
  tools = json_node_get_array (call.result);
  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonObject *tool = json_array_get_object_element (tools, i);
      const char *name = json_object_get_string_member (tool, "name");

      if (g_str_equal (name, "player/move"))
        {
          /* Schemas and tags survive the trip. */
          text = node_string (json_object_get_member (tool, "parameters"));
          g_assert_cmpstr (text, ==, "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\"},"
                                     "\"y\":{\"type\":\"integer\"}},\"required\":[\"x\",\"y\"],\"additionalProperties\":false}");
          g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (tool, "tags"), 0), ==, "action");
          g_assert_true (json_object_has_member (tool, "outputSchema"));
          saw_move = TRUE;
        }
      saw_events |= g_str_equal (name, "gamegate/events");
      saw_ack |= g_str_equal (name, "gamegate/attention_ack");
    }
  g_assert_true (saw_move && saw_events && saw_ack);
  json_node_unref (call.result);
}

static void
test_call (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) moved = call_tool (f->target, "player/move", "{\"x\":3,\"y\":4}", &error);
  g_autofree char *text = NULL;
  JsonNode *r;

  g_assert_no_error (error);
  text = node_string (moved);
  g_assert_cmpstr (text, ==, "{\"position\":{\"x\":3,\"y\":4}}");

  r = call_tool (f->target, "no/such_tool", NULL, &error);
  g_assert_null (r);
  g_assert_error (error, GG_TARGET_ERROR, GG_TARGET_ERROR_TOOL_NOT_FOUND);
  g_clear_error (&error);
  r = call_tool (f->target, "player/move", "{\"x\":\"a\"}", &error);
  g_assert_error (error, GG_TARGET_ERROR, GG_TARGET_ERROR_INVALID_ARGUMENTS);
  g_clear_error (&error);
  r = call_tool (f->target, "game/fail", NULL, &error);
  g_assert_error (error, GG_TARGET_ERROR, GG_TARGET_ERROR_TOOL_FAILED);
  g_assert_nonnull (strstr (error->message, "-31003"));
  g_clear_error (&error);
  /* A name GABP cannot carry never leaves gamegate: it is no tool of the mod. */
  r = call_tool (f->target, "Bad.Name", NULL, &error);
  g_assert_error (error, GG_TARGET_ERROR, GG_TARGET_ERROR_TOOL_NOT_FOUND);
  g_assert_cmpstr (error->message, ==, "gabp:ref has no tool 'Bad.Name'");
  g_clear_error (&error);
}

typedef struct {
  Fixture *f;
  guint    order[10];
  guint    n;
  Call     calls[10];
} OutOfOrder;

typedef struct {
  OutOfOrder *o;
  guint       index;
} Slot;

static void
on_slow_done (GObject *source, GAsyncResult *result, gpointer data)
{
  Slot *slot = data;
  Call *call = &slot->o->calls[slot->index];

  call->result = gg_target_call_tool_finish (GG_TARGET (source), result, &call->error);
  call->done = TRUE;
  slot->o->order[slot->o->n++] = slot->index;
}

static gboolean
all_done (gpointer data)
{
  return ((OutOfOrder *) data)->n == 10;
}

static void
test_out_of_order (Fixture *f, gconstpointer data)
{
  OutOfOrder o = { .f = f };
  Slot slots[10];
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) released = NULL;

  /* Ten requests outstanding at once; the mod holds them and answers the
   * last first when released. */
  for (guint i = 0; i < 10; i++)
    {
      g_autofree char *args = g_strdup_printf ("{\"value\":%u}", i);
      g_autoptr(JsonNode) node = json_from_string (args, NULL);

      slots[i].o = &o;
      slots[i].index = i;
      gg_target_call_tool_async (GG_TARGET (f->target), "game/hold", json_node_get_object (node),
                                 NULL, on_slow_done, &slots[i]);
    }
  gg_test_spin (20);
  g_assert_cmpuint (o.n, ==, 0);
  released = call_tool (f->target, "game/release", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (released), "released"), ==, 10);
  g_assert_true (gg_test_wait_for (all_done, &o, 10000));
  for (guint i = 0; i < 10; i++)
    {
      g_assert_no_error (o.calls[i].error);
      g_assert_cmpint (json_object_get_int_member (json_node_get_object (o.calls[i].result), "value"), ==, i);
      json_node_unref (o.calls[i].result);
      g_assert_cmpuint (o.order[i], ==, 9 - i);
    }
}

/* Events ------------------------------------------------------------------ */

static gboolean
have_events (gpointer data)
{
  Fixture *f = ((gpointer *) data)[0];
  guint want = GPOINTER_TO_UINT (((gpointer *) data)[1]);
  return f->events->len >= want;
}

static void
wait_events (Fixture *f, guint n)
{
  gpointer data[2] = { f, GUINT_TO_POINTER (n) };
  g_assert_true (gg_test_wait_for (have_events, data, 5000));
}

static void
test_event_order (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) r = call_tool (f->target, "world/emit_ticks", "{\"count\":50}", &error);
  g_autoptr(JsonNode) recent = NULL;
  g_autoptr(JsonNode) tail = NULL;
  JsonArray *events;

  g_assert_no_error (error);
  wait_events (f, 50);
  for (guint i = 0; i < 50; i++)
    {
      g_autofree char *want = g_strdup_printf ("world/tick#%u", i);
      g_assert_cmpstr (g_ptr_array_index (f->events, i), ==, want);
    }

  /* The same events through the bridge tool, from a cursor. */
  recent = call_tool (f->target, "gamegate/events", "{\"since\":45,\"channel\":\"world/tick\"}", &error);
  g_assert_no_error (error);
  events = json_object_get_array_member (json_node_get_object (recent), "events");
  g_assert_cmpuint (json_array_get_length (events), ==, 5);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (events, 0), "seq"), ==, 45);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (recent), "next"), ==, 50);
  tail = call_tool (f->target, "gamegate/events", "{\"since\":50}", &error);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (tail), "events")), ==, 0);
  g_assert_null (call_tool (f->target, "gamegate/events", "{\"since\":-1}", &error));
  g_assert_error (error, GG_TARGET_ERROR, GG_TARGET_ERROR_INVALID_ARGUMENTS);
}

static void
test_event_gap (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) a = call_tool (f->target, "world/emit_ticks", "{\"count\":2}", &error);
  g_autoptr(JsonNode) b = call_tool (f->target, "world/emit_ticks", "{\"count\":1,\"skip\":3}", &error);

  g_assert_no_error (error);
  wait_events (f, 4);
  g_assert_cmpstr (g_ptr_array_index (f->events, 0), ==, "world/tick#0");
  g_assert_cmpstr (g_ptr_array_index (f->events, 1), ==, "world/tick#1");
  /* Sequence numbers 2..4 never came: reported before #5. */
  g_assert_cmpstr (g_ptr_array_index (f->events, 2), ==, "gamegate/gap#0");
  g_assert_cmpstr (g_ptr_array_index (f->events, 3), ==, "world/tick#5");
}

/* Attention ----------------------------------------------------------------- */

static void
test_attention_gate (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) raised = call_tool (f->target, "attention/raise", "{\"blocking\":true,\"summary\":\"A raid.\"}", &error);
  g_autoptr(JsonNode) time = NULL;
  g_autoptr(JsonNode) current = NULL;
  g_autoptr(JsonNode) acked = NULL;
  g_autoptr(JsonNode) moved = NULL;
  g_autofree char *ack_args = NULL;
  const char *id;

  g_assert_no_error (error);
  id = json_object_get_string_member (json_node_get_object (raised), "attentionId");
  wait_events (f, 1);
  g_assert_cmpstr (g_ptr_array_index (f->events, 0), ==, "attention/opened#0");
  g_assert_true (gg_gabp_attention_is_blocking (gg_gabp_target_get_attention (f->target)));

  /* Ordinary tools are refused; read-only ones pass. */
  g_assert_null (call_tool (f->target, "player/move", "{\"x\":1,\"y\":1}", &error));
  g_assert_error (error, GG_TARGET_ERROR, GG_TARGET_ERROR_BLOCKED);
  g_assert_nonnull (strstr (error->message, "A raid."));
  g_clear_error (&error);
  time = call_tool (f->target, "world/get_time", NULL, &error);
  g_assert_no_error (error);
  current = call_tool (f->target, "gamegate/attention_current", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json_node_get_object (current), "attention"), "attentionId"), ==, id);

  ack_args = g_strdup_printf ("{\"attentionId\":\"%s\"}", id);
  acked = call_tool (f->target, "gamegate/attention_ack", ack_args, &error);
  g_assert_no_error (error);
  g_assert_true (json_object_get_boolean_member (json_node_get_object (acked), "acknowledged"));
  g_assert_false (gg_gabp_attention_is_blocking (gg_gabp_target_get_attention (f->target)));
  moved = call_tool (f->target, "player/move", "{\"x\":1,\"y\":1}", &error);
  g_assert_no_error (error);
}

static void
test_attention_unit (void)
{
  g_autoptr(GgGabpAttention) gate = gg_gabp_attention_new ();
  g_autoptr(JsonNode) item = json_from_string ("{\"attentionId\":\"a1\",\"state\":\"open\",\"blocking\":true,\"summary\":\"x\"}", NULL);
  g_autoptr(JsonNode) other = json_from_string ("{\"attentionId\":\"zz\",\"state\":\"cleared\"}", NULL);
  g_autoptr(JsonNode) cleared = json_from_string ("{\"attentionId\":\"a1\",\"state\":\"cleared\"}", NULL);
  g_autoptr(JsonNode) tags = json_from_string ("[\"status\"]", NULL);
  g_autoptr(JsonNode) weird = json_from_string ("[1,null,\"action\"]", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (gg_gabp_attention_check (gate, "t", NULL, &error));
  gg_gabp_attention_handle_event (gate, "attention/opened", item);
  g_assert_false (gg_gabp_attention_check (gate, "t", json_node_get_array (weird), &error));
  g_assert_error (error, GG_TARGET_ERROR, GG_TARGET_ERROR_BLOCKED);
  g_assert_true (gg_gabp_attention_check (gate, "t", json_node_get_array (tags), NULL));
  /* Clearing another item does not open the gate. */
  gg_gabp_attention_handle_event (gate, "attention/cleared", other);
  g_assert_true (gg_gabp_attention_is_blocking (gate));
  gg_gabp_attention_handle_event (gate, "attention/cleared", cleared);
  g_assert_false (gg_gabp_attention_is_blocking (gate));
  /* Hostile payloads are ignored. */
  gg_gabp_attention_handle_event (gate, "attention/opened", weird);
  g_assert_null (gg_gabp_attention_get_current (gate));
}

/* Resources and state ----------------------------------------------------------- */

static void
on_state (GObject *source, GAsyncResult *result, gpointer data)
{
  Call *call = data;
  call->result = gg_target_get_state_finish (GG_TARGET (source), result, &call->error);
  call->done = TRUE;
}

static void
test_resources_state (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) list = call_tool (f->target, "gamegate/resources_list", NULL, &error);
  g_autoptr(JsonNode) read = NULL;
  g_autoptr(JsonNode) set = NULL;
  g_autofree char *text = NULL;
  Call call = { 0 };

  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (json_node_get_object (list), "resources"), 0), "uri"), ==, "gabp://game/world");
  read = call_tool (f->target, "gamegate/resources_read", "{\"uri\":\"gabp://game/world\"}", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (read), "encoding"), ==, "utf-8");
  g_assert_null (call_tool (f->target, "gamegate/resources_read", "{\"uri\":\"gabp://nope\"}", &error));
  g_assert_error (error, GG_TARGET_ERROR, GG_TARGET_ERROR_TOOL_NOT_FOUND);
  g_clear_error (&error);
  set = call_tool (f->target, "gamegate/state_set", "{\"updates\":{\"x\":7,\"y\":8}}", &error);
  g_assert_no_error (error);

  gg_target_get_state_async (GG_TARGET (f->target), NULL, on_state, &call);
  g_assert_true (gg_test_wait_for (call_done, &call, 5000));
  g_assert_no_error (call.error);
  text = node_string (call.result);
  g_assert_cmpstr (text, ==, "{\"tick\":0,\"position\":{\"x\":7,\"y\":8}}");
  json_node_unref (call.result);
}

static gboolean
sessions_at_least_2 (gpointer data)
{
  return gg_gabp_client_get_session_count (data) >= 2 && target_ready (
           g_object_get_data (G_OBJECT (data), "target"));
}

static void
test_crash_and_back (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  Call slow = { 0 };
  g_autoptr(JsonNode) args = json_from_string ("{\"ms\":5000,\"value\":1}", NULL);
  guint16 port = f->mod->port;
  g_autoptr(JsonNode) moved = NULL;
  Call crash = { 0 };

  gg_target_call_tool_async (GG_TARGET (f->target), "game/slow", json_node_get_object (args), NULL, on_called, &slow);
  gg_test_spin (50);
  gg_target_call_tool_async (GG_TARGET (f->target), "game/crash", NULL, NULL, on_called, &crash);
  g_assert_true (gg_test_wait_for (call_done, &slow, 5000));
  /* The call in flight fails with a clear error, not a hang. */
  g_assert_error (slow.error, GG_TARGET_ERROR, GG_TARGET_ERROR_UNREACHABLE);
  g_assert_nonnull (strstr (slow.error->message, "connection to the mod was lost"));
  g_clear_error (&slow.error);
  g_assert_true (gg_test_wait_for (call_done, &crash, 5000));
  g_clear_error (&crash.error);
  g_assert_cmpstr (gg_gabp_target_get_status (f->target), ==, "disconnected");
  g_assert_null (call_tool (f->target, "player/move", "{\"x\":1,\"y\":1}", &error));
  g_assert_error (error, GG_TARGET_ERROR, GG_TARGET_ERROR_UNREACHABLE);
  g_clear_error (&error);

  /* The game comes back on the same port: the bridge reconnects by itself. */
  g_subprocess_wait (f->mod->process, NULL, NULL);
  g_clear_object (&f->mod->process);
  gg_test_server_free (f->mod);
  f->mod = test_mod_start (port, TEST_TOKEN);
  g_object_set_data (G_OBJECT (f->client), "target", f->target);
  g_assert_true (gg_test_wait_for (sessions_at_least_2, f->client, 5000));
  moved = call_tool (f->target, "player/move", "{\"x\":5,\"y\":6}", &error);
  g_assert_no_error (error);
  /* Event numbering starts afresh with the new session. */
  g_ptr_array_set_size (f->events, 0);
  json_node_unref (call_tool (f->target, "world/emit_ticks", "{\"count\":1}", &error));
  wait_events (f, 1);
  g_assert_cmpstr (g_ptr_array_index (f->events, 0), ==, "world/tick#0");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/gabp/bridge/tools", test_tools);
  ADD ("/gabp/bridge/call", test_call);
  ADD ("/gabp/bridge/out-of-order", test_out_of_order);
  ADD ("/gabp/bridge/event-order", test_event_order);
  ADD ("/gabp/bridge/event-gap", test_event_gap);
  ADD ("/gabp/bridge/attention-gate", test_attention_gate);
  ADD ("/gabp/bridge/resources-state", test_resources_state);
  ADD ("/gabp/bridge/crash-and-back", test_crash_and_back);
#undef ADD
  g_test_add_func ("/gabp/bridge/attention-unit", test_attention_unit);
  return g_test_run ();
}

/* test-gabp-bridge.c: gamegate as a GABP bridge, against the reference mod
 * running as its own process: handshake, capability negotiation, tools as a
 * bus target, out-of-order answers, event order and gaps, the attention
 * gate, resources and state, a mod that crashes and comes back, the
 * launcher's environment and backoff.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gabp-test-util.h"
#include "gg-gabp-launcher.h"
#include "gg-gabp-target.h"

typedef struct {
  TestMod       *mod;
  GgGabpSchemas *schemas;
  GgGabpClient  *client;
  GgGabpTarget  *target;
  GgBus         *bus;
  GPtrArray     *events;   /* "channel#seq" in arrival order */
} Fixture;

static void
on_target_event (GgTarget   *target,
                 const char *channel,
                 guint64     seq,
                 JsonNode   *payload,
                 Fixture    *f)
{
  g_ptr_array_add (f->events, g_strdup_printf ("%s#%" G_GUINT64_FORMAT, channel, seq));
}

static gboolean
target_ready (gpointer data)
{
  return gg_gabp_target_is_ready (data);
}

static void
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

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->mod = test_mod_start (0, TEST_TOKEN);
  fixture_connect (f, f->mod->port, TEST_TOKEN);
  g_assert_true (gg_test_wait_for (target_ready, f->target, 5000));
}

static void
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
    test_mod_free (f->mod);
  /* Let cancelled operations finish. */
  gg_test_spin (20);
}

typedef struct {
  gboolean  done;
  JsonNode *result;
  GError   *error;
} Call;

static void
on_called (GObject *source, GAsyncResult *result, gpointer data)
{
  Call *call = data;
  call->result = gg_target_call_tool_finish (GG_TARGET (source), result, &call->error);
  call->done = TRUE;
}

static gboolean
call_done (gpointer data)
{
  return ((Call *) data)->done;
}

static JsonNode *
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

static char *
node_string (JsonNode *node)
{
  return gg_json_to_string (node);
}

/* Handshake and tools ------------------------------------------------------ */

static void
on_listed (GObject *source, GAsyncResult *result, gpointer data)
{
  Call *call = data;
  JsonArray *tools = gg_target_list_tools_finish (GG_TARGET (source), result, &call->error);
  if (tools != NULL)
    call->result = json_node_init_array (json_node_alloc (), tools), json_array_unref (tools);
  call->done = TRUE;
}

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

/* Failures -------------------------------------------------------------- */

typedef struct {
  gboolean done;
  GError  *error;
} Failed;

static void
on_handshake_failed (GgGabpClient *client, GError *error, Failed *failed)
{
  if (!failed->done)
    failed->error = g_error_copy (error);
  failed->done = TRUE;
}

static gboolean
failed_done (gpointer data)
{
  return ((Failed *) data)->done;
}

static void
test_wrong_token (void)
{
  TestMod *mod = test_mod_start (0, TEST_TOKEN);
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();
  g_autoptr(GgGabpClient) client = gg_gabp_client_new (schemas, "127.0.0.1", mod->port, TEST_TOKEN2);
  Failed failed = { 0 };

  g_signal_connect (client, "handshake-failed", G_CALLBACK (on_handshake_failed), &failed);
  gg_gabp_client_start (client);
  g_assert_true (gg_test_wait_for (failed_done, &failed, 5000));
  g_assert_error (failed.error, GG_GABP_ERROR, GG_GABP_ERROR_AUTH_FAILED);
  g_assert_cmpint (gg_gabp_client_get_state (client), !=, GG_GABP_CLIENT_READY);
  /* The token never appears in what the bridge reports. */
  g_assert_null (strstr (failed.error->message, TEST_TOKEN2));
  g_error_free (failed.error);
  gg_gabp_client_stop (client);
  test_mod_free (mod);
}

static void
test_short_token (void)
{
  TestMod *mod = test_mod_start (0, TEST_TOKEN);
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();
  g_autoptr(GgGabpClient) client = gg_gabp_client_new (schemas, "127.0.0.1", mod->port, "abc123");
  Failed failed = { 0 };

  /* session/hello demands 32 characters: the bridge does not even send it. */
  g_signal_connect (client, "handshake-failed", G_CALLBACK (on_handshake_failed), &failed);
  gg_gabp_client_start (client);
  g_assert_true (gg_test_wait_for (failed_done, &failed, 5000));
  g_assert_error (failed.error, GG_SCHEMA_ERROR, GG_SCHEMA_ERROR_INVALID);
  g_error_free (failed.error);
  gg_gabp_client_stop (client);
  test_mod_free (mod);
}

static void
test_mod_method_before_hello (void)
{
  TestMod *mod = test_mod_start (0, TEST_TOKEN);
  TestPeer *peer = test_peer_connect (mod->port);
  g_autofree char *id = test_peer_request (peer, "tools/list", NULL);
  g_autoptr(JsonObject) response = test_peer_wait_response (peer, id);
  g_autoptr(JsonObject) refused = test_peer_hello (peer, TEST_TOKEN2);
  g_autoptr(JsonObject) welcome = test_peer_hello (peer, TEST_TOKEN);

  /* The reference mod behaves like Lib.GAB. */
  g_assert_cmpint (test_response_error_code (response), ==, -31001);
  g_assert_cmpint (test_response_error_code (refused), ==, -31000);
  g_assert_cmpint (test_response_error_code (welcome), ==, 0);
  test_peer_free (peer);
  test_mod_free (mod);
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
  test_mod_free (f->mod);
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

static void
test_backoff_until_mod_starts (void)
{
  Fixture f = { 0 };
  g_autoptr(GError) error = NULL;
  guint16 port = gg_loopback_port_pick_free (&error);

  g_assert_no_error (error);
  fixture_connect (&f, port, TEST_TOKEN);
  gg_test_spin (300);
  g_assert_cmpint (gg_gabp_client_get_state (f.client), ==, GG_GABP_CLIENT_CONNECTING);
  f.mod = test_mod_start (port, TEST_TOKEN);
  g_assert_true (gg_test_wait_for (target_ready, f.target, 5000));
  fixture_teardown (&f, NULL);
}

/* A hostile mod, in process ---------------------------------------------- */

typedef struct {
  GSocketService *service;
  guint16         port;
  GPtrArray      *peers;   /* TestPeer, one per accepted connection */
} FakeMod;

static gboolean
on_fake_incoming (GSocketService *service, GSocketConnection *connection, GObject *source, FakeMod *mod)
{
  g_ptr_array_add (mod->peers, test_peer_new_for_connection (connection));
  return TRUE;
}

static FakeMod *
fake_mod_new (void)
{
  FakeMod *mod = g_new0 (FakeMod, 1);
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (lo, 0);
  g_autoptr(GSocketAddress) effective = NULL;
  g_autoptr(GError) error = NULL;

  mod->service = g_socket_service_new ();
  mod->peers = g_ptr_array_new_with_free_func ((GDestroyNotify) test_peer_free);
  g_socket_listener_add_address (G_SOCKET_LISTENER (mod->service), address, G_SOCKET_TYPE_STREAM,
                                 G_SOCKET_PROTOCOL_TCP, NULL, &effective, &error);
  g_assert_no_error (error);
  mod->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective));
  g_signal_connect (mod->service, "incoming", G_CALLBACK (on_fake_incoming), mod);
  g_socket_service_start (mod->service);
  return mod;
}

static void
fake_mod_free (FakeMod *mod)
{
  g_socket_service_stop (mod->service);
  g_socket_listener_close (G_SOCKET_LISTENER (mod->service));
  g_object_unref (mod->service);
  g_ptr_array_unref (mod->peers);
  g_free (mod);
}

static gboolean
has_peer (gpointer data)
{
  return ((FakeMod *) data)->peers->len > 0;
}

/* Waits for the bridge's hello on the newest connection; returns its id. */
static char *
fake_mod_wait_hello (FakeMod *mod)
{
  TestPeer *peer;
  g_autoptr(JsonNode) hello = NULL;
  JsonObject *o;

  g_assert_true (gg_test_wait_for (has_peer, mod, 5000));
  peer = g_ptr_array_index (mod->peers, mod->peers->len - 1);
  hello = test_peer_next (peer, 5000);
  g_assert_nonnull (hello);
  o = json_node_get_object (hello);
  g_assert_cmpstr (json_object_get_string_member (o, "method"), ==, "session/hello");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (o, "params"), "platform"), ==, "linux");
  return g_strdup (json_object_get_string_member (o, "id"));
}

static void
fake_send (FakeMod *mod, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
fake_send (FakeMod *mod, const char *format, ...)
{
  va_list args;
  g_autofree char *json = NULL;

  va_start (args, format);
  json = g_strdup_vprintf (format, args);
  va_end (args);
  test_peer_send (g_ptr_array_index (mod->peers, mod->peers->len - 1), json);
}

#define WELCOME "{\"v\":\"gabp/1\",\"id\":\"%s\",\"type\":\"response\",\"result\":{\"agentId\":\"fake\"," \
                "\"app\":{\"name\":\"Fake\",\"version\":\"1\"},\"capabilities\":{\"methods\":[\"tools/list\",\"tools/call\"]}," \
                "\"schemaVersion\":\"1.0\"}}"

static gboolean
client_is_ready (gpointer data)
{
  return gg_gabp_client_get_state (data) == GG_GABP_CLIENT_READY;
}

static void
test_hostile_welcome (void)
{
  FakeMod *mod = fake_mod_new ();
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();
  g_autoptr(GgGabpClient) client = gg_gabp_client_new (schemas, "127.0.0.1", mod->port, TEST_TOKEN);
  Failed failed = { 0 };
  g_autofree char *id = NULL;

  g_signal_connect (client, "handshake-failed", G_CALLBACK (on_handshake_failed), &failed);
  gg_gabp_client_set_backoff (client, 5000, 5000);
  gg_gabp_client_start (client);
  id = fake_mod_wait_hello (mod);
  /* A welcome without agentId breaks its schema. */
  fake_send (mod, "{\"v\":\"gabp/1\",\"id\":\"%s\",\"type\":\"response\",\"result\":{\"app\":{}}}", id);
  g_assert_true (gg_test_wait_for (failed_done, &failed, 5000));
  g_assert_error (failed.error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_error_free (failed.error);
  gg_gabp_client_stop (client);
  fake_mod_free (mod);
}

static void
test_hostile_silent (void)
{
  FakeMod *mod = fake_mod_new ();
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();
  g_autoptr(GgGabpClient) client = gg_gabp_client_new (schemas, "127.0.0.1", mod->port, TEST_TOKEN);
  Failed failed = { 0 };
  g_autofree char *id = NULL;

  g_signal_connect (client, "handshake-failed", G_CALLBACK (on_handshake_failed), &failed);
  gg_gabp_client_set_backoff (client, 5000, 5000);
  gg_gabp_client_set_timeout (client, 100);
  gg_gabp_client_start (client);
  id = fake_mod_wait_hello (mod);
  /* Never answered: the hello times out (after at least a second). */
  g_assert_true (gg_test_wait_for (failed_done, &failed, 5000));
  g_assert_error (failed.error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  g_error_free (failed.error);
  gg_gabp_client_stop (client);
  fake_mod_free (mod);
}

static void
on_client_call (GObject *source, GAsyncResult *result, gpointer data)
{
  Call *call = data;
  call->result = gg_gabp_client_call_finish (GG_GABP_CLIENT (source), result, &call->error);
  call->done = TRUE;
}

static gboolean
two_peers (gpointer data)
{
  return ((FakeMod *) data)->peers->len >= 2;
}

static void
test_hostile_session (void)
{
  FakeMod *mod = fake_mod_new ();
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();
  g_autoptr(GgGabpClient) client = gg_gabp_client_new (schemas, "127.0.0.1", mod->port, TEST_TOKEN);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *id = NULL;
  Call call = { 0 }, late = { 0 }, cancelled = { 0 }, broken = { 0 };
  TestPeer *peer;
  JsonObject *request;

  gg_gabp_client_set_backoff (client, 20, 50);
  gg_gabp_client_set_timeout (client, 200);
  gg_gabp_client_start (client);
  id = fake_mod_wait_hello (mod);
  fake_send (mod, WELCOME, id);
  g_assert_true (gg_test_wait_for (client_is_ready, client, 5000));
  peer = g_ptr_array_index (mod->peers, 0);

  /* A request from the mod is answered -32601; a malformed event and a
   * response nobody asked for are dropped; the session survives. */
  fake_send (mod, "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440099\",\"type\":\"request\",\"method\":\"tools/list\"}");
  node = test_peer_next (peer, 2000);
  g_assert_nonnull (node);
  g_assert_cmpint (test_response_error_code (json_node_get_object (node)), ==, -32601);
  fake_send (mod, "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440098\",\"type\":\"event\",\"channel\":\"a\",\"seq\":\"1\",\"payload\":{}}");
  fake_send (mod, "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440097\",\"type\":\"response\",\"result\":{}}");
  gg_test_spin (50);
  g_assert_cmpint (gg_gabp_client_get_state (client), ==, GG_GABP_CLIENT_READY);

  /* Unanswered: times out; the late answer is ignored. */
  gg_gabp_client_call_async (client, "tools/list", NULL, NULL, on_client_call, &late);
  g_assert_true (gg_test_wait_for (call_done, &late, 5000));
  g_assert_error (late.error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  g_clear_error (&late.error);
  g_clear_pointer (&node, json_node_unref);
  node = test_peer_next (peer, 2000);
  request = json_node_get_object (node);
  fake_send (mod, "{\"v\":\"gabp/1\",\"id\":\"%s\",\"type\":\"response\",\"result\":{\"tools\":[]}}",
             json_object_get_string_member (request, "id"));

  /* Cancelled while waiting. */
  gg_gabp_client_set_timeout (client, 5000);
  gg_gabp_client_call_async (client, "tools/list", NULL, cancellable, on_client_call, &cancelled);
  gg_test_spin (20);
  g_cancellable_cancel (cancellable);
  g_assert_true (gg_test_wait_for (call_done, &cancelled, 5000));
  g_assert_error (cancelled.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&cancelled.error);
  g_clear_pointer (&node, json_node_unref);
  node = test_peer_next (peer, 2000);

  /* An answer that breaks its method's schema fails that call. */
  gg_gabp_client_call_async (client, "tools/list", NULL, NULL, on_client_call, &broken);
  g_clear_pointer (&node, json_node_unref);
  node = test_peer_next (peer, 2000);
  request = json_node_get_object (node);
  fake_send (mod, "{\"v\":\"gabp/1\",\"id\":\"%s\",\"type\":\"response\",\"result\":{\"tools\":[{\"name\":\"x\"}]}}",
             json_object_get_string_member (request, "id"));
  g_assert_true (gg_test_wait_for (call_done, &broken, 5000));
  g_assert_error (broken.error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&broken.error);

  /* Framing garbage ends the connection; calls in flight fail; the bridge
   * connects again. */
  gg_gabp_client_call_async (client, "tools/list", NULL, NULL, on_client_call, &call);
  test_peer_send_raw (peer, "Content-Length: nope\r\n\r\n", 23);
  g_assert_true (gg_test_wait_for (call_done, &call, 5000));
  g_assert_error (call.error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED);
  g_clear_error (&call.error);
  g_assert_true (gg_test_wait_for (two_peers, mod, 5000));
  g_free (id);
  id = fake_mod_wait_hello (mod);
  fake_send (mod, WELCOME, id);
  g_assert_true (gg_test_wait_for (client_is_ready, client, 5000));
  g_assert_cmpuint (gg_gabp_client_get_session_count (client), ==, 2);

  gg_gabp_client_stop (client);
  fake_mod_free (mod);
}

/* Launcher ----------------------------------------------------------------- */

static void
test_launcher_environ (void)
{
  const char *base[] = { "PATH=/usr/bin", "GABP_TOKEN=stale", "GABS_PROFILE=x", "GABP_SERVER_PORT=1", "HOME=/h", NULL };
  g_auto(GStrv) env = gg_gabp_launcher_build_environ (base, 4242, TEST_TOKEN, "ref");

  g_assert_cmpstr (g_environ_getenv (env, "PATH"), ==, "/usr/bin");
  g_assert_cmpstr (g_environ_getenv (env, "HOME"), ==, "/h");
  g_assert_null (g_environ_getenv (env, "GABS_PROFILE"));
  g_assert_cmpstr (g_environ_getenv (env, "GABP_TOKEN"), ==, TEST_TOKEN);
  g_assert_cmpstr (g_environ_getenv (env, "GABP_SERVER_PORT"), ==, "4242");
  g_assert_cmpstr (g_environ_getenv (env, "GABS_GAME_ID"), ==, "ref");
  g_assert_cmpuint (g_strv_length (env), ==, 5);
}

static void
on_stopped (GObject *source, GAsyncResult *result, gpointer data)
{
  g_assert_true (gg_gabp_launcher_stop_finish (GG_GABP_LAUNCHER (source), result, NULL));
  *(gboolean *) data = TRUE;
}

static gboolean
flag_set (gpointer data)
{
  return *(gboolean *) data;
}

static void
test_launcher_launch (void)
{
  g_autofree char *exe = g_build_filename (GG_TOP_BUILDDIR, "tests", "gabp-mod", "gabp-mod", NULL);
  const char *argv[] = { exe, NULL };
  g_autoptr(GgGabpLauncher) launcher = gg_gabp_launcher_new ("ref", argv, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();
  g_autoptr(GgGabpClient) client = NULL;
  g_autoptr(GgGabpTarget) target = NULL;
  g_autofree char *first = NULL;
  gboolean stopped = FALSE;

  g_setenv ("GABP_TOKEN", "stale-token-from-the-parent-environment-000000", TRUE);
  g_assert_true (gg_gabp_launcher_launch (launcher, &error));
  g_assert_no_error (error);
  g_assert_false (gg_gabp_launcher_launch (launcher, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BUSY);
  g_clear_error (&error);
  first = g_strdup (gg_gabp_launcher_get_token (launcher));
  g_assert_cmpuint (strlen (first), ==, 64);

  client = gg_gabp_client_new (schemas, "127.0.0.1", gg_gabp_launcher_get_port (launcher), first);
  gg_gabp_client_set_backoff (client, 20, 100);
  target = gg_gabp_target_new ("launched", client);
  gg_gabp_client_start (client);
  g_assert_true (gg_test_wait_for (target_ready, target, 5000));

  gg_gabp_launcher_stop_async (launcher, 2000, on_stopped, &stopped);
  g_assert_true (gg_test_wait_for (flag_set, &stopped, 5000));
  g_assert_false (gg_gabp_launcher_is_running (launcher));

  /* A new launch gets a new token; the old one is stale. */
  g_assert_true (gg_gabp_launcher_launch (launcher, &error));
  g_assert_cmpstr (gg_gabp_launcher_get_token (launcher), !=, first);
  gg_gabp_client_stop (client);
  stopped = FALSE;
  gg_gabp_launcher_stop_async (launcher, 2000, on_stopped, &stopped);
  g_assert_true (gg_test_wait_for (flag_set, &stopped, 5000));
  g_unsetenv ("GABP_TOKEN");
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
  g_test_add_func ("/gabp/bridge/handshake/wrong-token", test_wrong_token);
  g_test_add_func ("/gabp/bridge/handshake/short-token", test_short_token);
  g_test_add_func ("/gabp/bridge/handshake/mod-method-before-hello", test_mod_method_before_hello);
  g_test_add_func ("/gabp/bridge/backoff", test_backoff_until_mod_starts);
  g_test_add_func ("/gabp/bridge/hostile/welcome", test_hostile_welcome);
  g_test_add_func ("/gabp/bridge/hostile/silent", test_hostile_silent);
  g_test_add_func ("/gabp/bridge/hostile/session", test_hostile_session);
  g_test_add_func ("/gabp/bridge/launcher/environ", test_launcher_environ);
  g_test_add_func ("/gabp/bridge/launcher/launch", test_launcher_launch);
  return g_test_run ();
}

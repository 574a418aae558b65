/* test-bus-observer.c: the bus tap's core in plugin-api: observers, the
 * records of tool calls, model steps and target events, correlation ids
 * carried by cancellables through an agent turn, secrets masked, payloads
 * cut, and the zero-cost path (nothing wrapped with nobody listening).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-test-model.h"
#include "gg-test-util.h"

/* ---- an in-process target: "echo" answers its arguments, "fail" fails ---- */

#define TEST_TYPE_ECHO_TARGET (test_echo_target_get_type ())
G_DECLARE_FINAL_TYPE (TestEchoTarget, test_echo_target, TEST, ECHO_TARGET, GObject)

struct _TestEchoTarget {
  GObject parent_instance;
  GAsyncReadyCallback last_callback;   /* what the last call was given */
};

static const char *
echo_get_id (GgTarget *target)
{
  return "test:echo";
}

static void
echo_call_tool_async (GgTarget            *target,
                      const char          *name,
                      JsonObject          *arguments,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (target, cancellable, callback, user_data);

  TEST_ECHO_TARGET (target)->last_callback = callback;
  if (g_str_equal (name, "fail"))
    g_task_return_new_error (task, GG_TARGET_ERROR, GG_TARGET_ERROR_TOOL_FAILED, "the tool failed");
  else
    {
      JsonNode *node = json_node_new (JSON_NODE_OBJECT);

      if (arguments != NULL)
        json_node_set_object (node, arguments);
      else
        json_node_take_object (node, json_object_new ());
      g_task_return_pointer (task, node, (GDestroyNotify) json_node_unref);
    }
}

static JsonNode *
echo_call_tool_finish (GgTarget      *target,
                       GAsyncResult  *result,
                       GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
echo_iface_init (GgTargetInterface *iface)
{
  iface->get_id = echo_get_id;
  iface->call_tool_async = echo_call_tool_async;
  iface->call_tool_finish = echo_call_tool_finish;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestEchoTarget, test_echo_target, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_TARGET, echo_iface_init))

static void test_echo_target_class_init (TestEchoTargetClass *klass) { }
static void test_echo_target_init (TestEchoTarget *self) { }

/* ---- what an observer saw ---------------------------------------------- */

typedef struct {
  GPtrArray *lines;    /* char *: normalised records */
  guint destroyed;
  guint remove_after;  /* remove itself after this many records, 0: never */
  guint id;
} Seen;

static char *
normalise (JsonObject *record)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  JsonObject *copy;

  json_node_set_object (node, record);
  g_autoptr(JsonNode) dup = gg_json_copy (node);
  copy = json_node_get_object (dup);
  /* Timestamps and durations vary: they must be there, and are dropped. */
  g_assert_true (json_object_get_int_member (copy, "mono") > 0);
  {
    g_autoptr(GDateTime) time = g_date_time_new_from_iso8601 (json_object_get_string_member (copy, "time"), NULL);
    g_assert_nonnull (time);
  }
  json_object_remove_member (copy, "mono");
  json_object_remove_member (copy, "time");
  if (json_object_has_member (copy, "durationUs"))
    {
      g_assert_cmpint (json_object_get_int_member (copy, "durationUs"), >=, 0);
      json_object_set_string_member (copy, "durationUs", "D");
    }
  return json_to_string (dup, FALSE);
}

static void
observe (GgBus      *bus,
         JsonObject *record,
         gpointer    user_data)
{
  Seen *seen = user_data;

  g_ptr_array_add (seen->lines, normalise (record));
  if (seen->remove_after != 0 && seen->lines->len == seen->remove_after)
    gg_bus_remove_observer (bus, seen->id);
}

static void
seen_destroy (gpointer data)
{
  ((Seen *) data)->destroyed++;
}

static void
seen_init (Seen *seen)
{
  memset (seen, 0, sizeof *seen);
  seen->lines = g_ptr_array_new_with_free_func (g_free);
}

static char *
joined (Seen *seen)
{
  g_ptr_array_add (seen->lines, NULL);
  g_autofree char *text = g_strjoinv ("\n", (char **) seen->lines->pdata);
  g_ptr_array_remove_index (seen->lines, seen->lines->len - 1);
  return g_steal_pointer (&text);
}

/* ---- a tool call ------------------------------------------------------- */

static JsonNode *last_output;
static GError *last_error;
static gboolean call_done;

static void
on_called (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_clear_pointer (&last_output, json_node_unref);
  g_clear_error (&last_error);
  last_output = gg_target_call_tool_finish (GG_TARGET (source), result, &last_error);
  call_done = TRUE;
}

static void
call (GgTarget     *target,
      const char   *tool,
      const char   *arguments,
      GCancellable *cancellable)
{
  g_autoptr(JsonNode) node = gg_json_parse (arguments, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);

  call_done = FALSE;
  gg_target_call_tool_async (target, tool, json_node_get_object (node), cancellable, on_called, NULL);
  g_assert_true (gg_test_wait_until (&call_done, 5000));
}

static void
test_zero_cost (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgTarget) target = g_object_new (TEST_TYPE_ECHO_TARGET, NULL);
  Seen seen;
  guint id;

  g_assert_true (gg_bus_add_target (bus, target, NULL));
  g_assert_false (gg_bus_is_observed (bus));
  /* Nobody listens: the call goes through untouched, its callback not wrapped. */
  call (target, "echo", "{\"a\":1}", NULL);
  g_assert_true (TEST_ECHO_TARGET (target)->last_callback == on_called);
  g_assert_nonnull (last_output);

  seen_init (&seen);
  id = gg_bus_add_observer (bus, observe, &seen, seen_destroy);
  g_assert_cmpuint (id, >, 0);
  g_assert_true (gg_bus_is_observed (bus));
  call (target, "echo", "{\"a\":1}", NULL);
  g_assert_true (TEST_ECHO_TARGET (target)->last_callback != on_called);
  g_assert_cmpuint (seen.lines->len, ==, 2);

  gg_bus_remove_observer (bus, id);
  g_assert_cmpuint (seen.destroyed, ==, 1);
  g_assert_false (gg_bus_is_observed (bus));
  call (target, "echo", "{\"a\":1}", NULL);
  g_assert_true (TEST_ECHO_TARGET (target)->last_callback == on_called);
  g_assert_cmpuint (seen.lines->len, ==, 2);
  /* Removing twice, or an unknown id, does nothing. */
  gg_bus_remove_observer (bus, id);
  gg_bus_remove_observer (bus, 999);
  g_assert_cmpuint (seen.destroyed, ==, 1);
  g_ptr_array_unref (seen.lines);
  g_clear_pointer (&last_output, json_node_unref);
}

static void
test_tool_records (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgTarget) target = g_object_new (TEST_TYPE_ECHO_TARGET, NULL);
  g_autoptr(GgTarget) stray = g_object_new (TEST_TYPE_ECHO_TARGET, NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *id = NULL;
  g_autofree char *text = NULL;
  const char *plugin = NULL, *session = NULL;
  Seen seen;

  seen_init (&seen);
  g_assert_true (gg_bus_add_target (bus, target, NULL));
  gg_bus_add_observer (bus, observe, &seen, NULL);

  id = gg_bus_new_correlation (bus, "mcp");
  g_assert_cmpstr (id, ==, "mcp-1");
  gg_bus_set_correlation (cancellable, "mcp", NULL, id);
  g_assert_cmpstr (gg_bus_get_correlation (cancellable, &plugin, &session), ==, "mcp-1");
  g_assert_cmpstr (plugin, ==, "mcp");
  g_assert_null (session);
  g_assert_null (gg_bus_get_correlation (NULL, &plugin, &session));
  g_assert_null (plugin);
  g_assert_null (session);

  /* Secrets are masked in what the observer sees, not in the call. */
  call (target, "echo", "{\"token\":\"hunter2\",\"n\":1}", cancellable);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (last_output), "token"), ==, "hunter2");
  call (target, "fail", "{}", NULL);
  g_assert_error (last_error, GG_TARGET_ERROR, GG_TARGET_ERROR_TOOL_FAILED);
  /* A target that is not on the bus reports nothing. */
  call (stray, "echo", "{}", NULL);
  text = joined (&seen);
  g_assert_cmpstr (text, ==,
    "{\"kind\":\"tool-call\",\"plugin\":\"mcp\",\"target\":\"test:echo\",\"name\":\"echo\",\"correlation\":\"mcp-1\",\"ok\":true,\"payload\":{\"token\":\"***\",\"n\":1}}\n"
    "{\"kind\":\"tool-result\",\"plugin\":\"mcp\",\"target\":\"test:echo\",\"name\":\"echo\",\"correlation\":\"mcp-1\",\"durationUs\":\"D\",\"ok\":true,\"payload\":{\"token\":\"***\",\"n\":1}}\n"
    "{\"kind\":\"tool-call\",\"target\":\"test:echo\",\"name\":\"fail\",\"ok\":true,\"payload\":{}}\n"
    "{\"kind\":\"tool-result\",\"target\":\"test:echo\",\"name\":\"fail\",\"durationUs\":\"D\",\"ok\":false,\"error\":\"the tool failed\"}");
  g_clear_pointer (&last_output, json_node_unref);
  g_clear_error (&last_error);

  /* Removed from the bus: no more records. */
  gg_bus_remove_target (bus, target);
  call (target, "echo", "{}", NULL);
  g_assert_cmpuint (seen.lines->len, ==, 4);
  g_clear_pointer (&last_output, json_node_unref);
  g_ptr_array_unref (seen.lines);
}

static void
test_report_and_remove (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autofree char *big = g_strnfill (3000, 'x');
  g_autofree char *json = g_strdup_printf ("{\"text\":\"%s\"}", big);
  g_autoptr(JsonNode) payload = gg_json_parse (json, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "went wrong");
  GgBusRecord record = { .kind = "lifecycle", .plugin = "oam", .session = "s1", .name = "session/created",
                         .duration_us = -1, .payload = payload };
  Seen first, second;

  /* Nobody listening: nothing happens. */
  gg_bus_report (bus, &record);

  seen_init (&first);
  seen_init (&second);
  first.remove_after = 1;
  first.id = gg_bus_add_observer (bus, observe, &first, seen_destroy);
  second.id = gg_bus_add_observer (bus, observe, &second, seen_destroy);
  g_assert_cmpuint (second.id, !=, first.id);
  gg_bus_report (bus, &record);
  /* The first removed itself while receiving; the second goes on. */
  g_assert_cmpuint (first.destroyed, ==, 1);
  record.payload = NULL;
  record.error = error;
  record.duration_us = 1500;
  gg_bus_report (bus, &record);
  g_assert_cmpuint (first.lines->len, ==, 1);
  g_assert_cmpuint (second.lines->len, ==, 2);
  {
    const char *line = g_ptr_array_index (first.lines, 0);
    g_autoptr(JsonNode) node = gg_json_parse (line, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
    JsonObject *object = json_node_get_object (node);

    /* The payload is cut to its first GG_BUS_RECORD_PAYLOAD_MAX bytes of JSON. */
    g_assert_true (json_object_get_boolean_member (object, "truncated"));
    g_assert_cmpuint (strlen (json_object_get_string_member (object, "payload")), ==, GG_BUS_RECORD_PAYLOAD_MAX);
    g_assert_true (g_str_has_prefix (json_object_get_string_member (object, "payload"), "{\"text\":\"xxx"));
  }
  g_assert_cmpstr (g_ptr_array_index (second.lines, 1), ==,
                   "{\"kind\":\"lifecycle\",\"plugin\":\"oam\",\"session\":\"s1\",\"name\":\"session/created\","
                   "\"durationUs\":\"D\",\"ok\":false,\"error\":\"went wrong\"}");
  g_clear_object (&bus);
  /* Observers still attached are freed with the bus. */
  g_assert_cmpuint (second.destroyed, ==, 1);
  g_ptr_array_unref (first.lines);
  g_ptr_array_unref (second.lines);
}

/* ---- an agent turn: the model steps and the tool call it caused --------- */

static GgModel *
fake_factory (JsonObject  *spec,
              gpointer     user_data,
              GError     **error)
{
  return GG_MODEL (gg_test_fake_model_new (json_object_get_string_member (spec, "actions")));
}

static void
run_on_bus (GgToolInvocation *invocation,
            gpointer          user_data)
{
  gg_bus_run_tool_invocation (user_data, invocation);
}

static gboolean turn_done;

static void
on_turn_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = gg_agent_turn_run_finish (GG_AGENT_TURN (source), result, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (answer, "text"), ==, "It is noon.");
  turn_done = TRUE;
}

static void
test_agent_turn (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgTarget) target = g_object_new (TEST_TYPE_ECHO_TARGET, NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(JsonNode) spec = gg_json_parse (
    "{\"type\":\"fake\",\"actions\":\"[{\\\"toolCalls\\\":[{\\\"id\\\":\\\"c1\\\",\\\"name\\\":\\\"clock\\\","
    "\\\"arguments\\\":{\\\"zone\\\":\\\"utc\\\"}}],\\\"usage\\\":[10,0,2]},{\\\"text\\\":\\\"It is noon.\\\"}]\"}",
    -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  g_autoptr(JsonNode) tools = gg_json_parse (
    "[{\"name\":\"clock\",\"description\":\"The time\",\"parameters\":{\"type\":\"object\"},"
    "\"execution\":\"target\",\"target\":\"test:echo\",\"tool\":\"echo\"}]", -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
  g_autoptr(GgModel) model = NULL;
  g_autoptr(GgAgentTurn) turn = NULL;
  g_autofree char *id = NULL;
  g_autofree char *text = NULL;
  Seen seen;

  g_assert_true (gg_bus_register_model_type (bus, "fake", fake_factory, NULL, NULL, NULL));
  /* Its events name the plugin that put it on the bus. */
  g_assert_true (gg_bus_add_target_full (bus, target, "echo", NULL));
  model = gg_bus_create_model (bus, spec, NULL);
  g_assert_nonnull (model);
  seen_init (&seen);
  gg_bus_add_observer (bus, observe, &seen, NULL);

  id = gg_bus_new_correlation (bus, "oam");
  gg_bus_set_correlation (cancellable, "oam", "npc-gorm", id);
  turn = gg_agent_turn_new (model, NULL, NULL, json_node_get_array (tools), "What time is it?", NULL, NULL);
  gg_agent_turn_set_executor (turn, run_on_bus, bus, NULL);
  turn_done = FALSE;
  gg_agent_turn_run_async (turn, cancellable, on_turn_done, NULL);
  g_assert_true (gg_test_wait_until (&turn_done, 5000));

  /* A target event is reported where the bus re-emits it. */
  {
    g_autoptr(JsonNode) event = gg_json_parse ("{\"door\":\"open\"}", -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);
    gg_target_emit_event (target, "world", 7, event);
    /* Put back by no plugin in particular: its owner is forgotten. */
    gg_bus_remove_target (bus, target);
    g_assert_true (gg_bus_add_target (bus, target, NULL));
    gg_target_emit_event (target, "world", 8, event);
  }

  text = joined (&seen);
  g_assert_cmpstr (text, ==,
    "{\"kind\":\"model-step\",\"plugin\":\"oam\",\"session\":\"npc-gorm\",\"name\":\"GgTestFakeModel\",\"correlation\":\"oam-1\",\"ok\":true,"
      "\"payload\":{\"transcript\":1,\"tools\":1,\"last\":\"What time is it?\"}}\n"
    "{\"kind\":\"model-result\",\"plugin\":\"oam\",\"session\":\"npc-gorm\",\"name\":\"GgTestFakeModel\",\"correlation\":\"oam-1\",\"durationUs\":\"D\",\"ok\":true,"
      "\"payload\":{\"toolCalls\":[\"clock\"],\"usage\":{\"inputTokens\":10,\"outputTokens\":2}}}\n"
    "{\"kind\":\"tool-call\",\"plugin\":\"oam\",\"target\":\"test:echo\",\"session\":\"npc-gorm\",\"name\":\"echo\",\"correlation\":\"oam-1\",\"ok\":true,"
      "\"payload\":{\"zone\":\"utc\"}}\n"
    "{\"kind\":\"tool-result\",\"plugin\":\"oam\",\"target\":\"test:echo\",\"session\":\"npc-gorm\",\"name\":\"echo\",\"correlation\":\"oam-1\",\"durationUs\":\"D\",\"ok\":true,"
      "\"payload\":{\"zone\":\"utc\"}}\n"
    "{\"kind\":\"model-step\",\"plugin\":\"oam\",\"session\":\"npc-gorm\",\"name\":\"GgTestFakeModel\",\"correlation\":\"oam-1\",\"ok\":true,"
      "\"payload\":{\"transcript\":3,\"tools\":1}}\n"
    "{\"kind\":\"model-result\",\"plugin\":\"oam\",\"session\":\"npc-gorm\",\"name\":\"GgTestFakeModel\",\"correlation\":\"oam-1\",\"durationUs\":\"D\",\"ok\":true,"
      "\"payload\":{\"text\":\"It is noon.\",\"usage\":{\"inputTokens\":0,\"outputTokens\":0}}}\n"
    "{\"kind\":\"target-event\",\"plugin\":\"echo\",\"target\":\"test:echo\",\"name\":\"world\",\"ok\":true,\"payload\":{\"seq\":7,\"event\":{\"door\":\"open\"}}}\n"
    "{\"kind\":\"target-event\",\"target\":\"test:echo\",\"name\":\"world\",\"ok\":true,\"payload\":{\"seq\":8,\"event\":{\"door\":\"open\"}}}");
  g_ptr_array_unref (seen.lines);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bus-observer/zero-cost", test_zero_cost);
  g_test_add_func ("/bus-observer/tool-records", test_tool_records);
  g_test_add_func ("/bus-observer/report-and-remove", test_report_and_remove);
  g_test_add_func ("/bus-observer/agent-turn", test_agent_turn);
  return g_test_run ();
}

/* test-composite-tool.c: composite tools on the bus: registration rules,
 * listing, the `only` filter, and an asynchronous call bound to a target.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-test-util.h"

static guint destroyed;

static void
count_destroy (gpointer data)
{
  destroyed++;
}

static void
echo_func (GgTarget     *target,
           JsonObject   *arguments,
           GCancellable *cancellable,
           GTask        *task,
           gpointer      user_data)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "tag", user_data);
  json_object_set_int_member (o, "n", json_object_get_int_member_with_default (arguments, "n", -1));
  g_task_return_pointer (task, json_node_init_object (json_node_alloc (), o), (GDestroyNotify) json_node_unref);
  json_object_unref (o);
}

static void
fail_func (GgTarget     *target,
           JsonObject   *arguments,
           GCancellable *cancellable,
           GTask        *task,
           gpointer      user_data)
{
  g_task_return_new_error (task, GG_TARGET_ERROR, GG_TARGET_ERROR_TOOL_FAILED, "nothing moved");
}

static void
test_register (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) schema = gg_json_parse ("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}", -1, 8, NULL);
  const char *only[] = { "Crate Stacker", NULL };
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GgCompositeTool) tool = NULL;

  destroyed = 0;
  g_assert_true (gg_bus_add_composite_tool (bus, "zeta", "Z", NULL, NULL, echo_func, (gpointer) "z", count_destroy, &error));
  g_assert_no_error (error);
  g_assert_true (gg_bus_add_composite_tool (bus, "drop_and_settle", "Drop, then wait until nothing moves",
                                            json_node_get_object (schema), only, echo_func, (gpointer) "d", count_destroy,
                                            &error));
  g_assert_false (gg_bus_add_composite_tool (bus, "zeta", "again", NULL, NULL, echo_func, NULL, count_destroy, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_cmpuint (destroyed, ==, 1);
  g_assert_false (gg_bus_add_composite_tool (bus, "bad name!", "x", NULL, NULL, echo_func, NULL, count_destroy, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (gg_bus_add_composite_tool (bus, "", "x", NULL, NULL, echo_func, NULL, NULL, &error));
  g_clear_error (&error);
  g_assert_cmpuint (destroyed, ==, 2);

  list = gg_bus_list_composite_tools (bus);
  g_assert_cmpuint (list->len, ==, 2);
  g_assert_cmpstr (gg_composite_tool_get_name (g_ptr_array_index (list, 0)), ==, "drop_and_settle");
  g_assert_cmpstr (gg_composite_tool_get_name (g_ptr_array_index (list, 1)), ==, "zeta");

  tool = gg_bus_lookup_composite_tool (bus, "drop_and_settle");
  g_assert_nonnull (tool);
  g_assert_cmpstr (gg_composite_tool_get_description (tool), ==, "Drop, then wait until nothing moves");
  g_assert_true (json_object_has_member (gg_composite_tool_get_input_schema (tool), "properties"));
  g_assert_cmpstr (gg_composite_tool_get_only (tool)[0], ==, "Crate Stacker");
  g_assert_true (gg_composite_tool_applies_to (tool, "Crate Stacker"));
  g_assert_false (gg_composite_tool_applies_to (tool, "Flight Simulator"));
  g_assert_false (gg_composite_tool_applies_to (tool, NULL));
  g_assert_true (gg_composite_tool_applies_to (g_ptr_array_index (list, 1), NULL));
  g_assert_null (gg_bus_lookup_composite_tool (bus, "nope"));
  g_assert_null (gg_bus_lookup_composite_tool (bus, NULL));

  g_assert_true (gg_bus_remove_composite_tool (bus, "zeta"));
  g_assert_false (gg_bus_remove_composite_tool (bus, "zeta"));
  /* Still listed by the earlier reference: freed only with it. */
  g_assert_cmpuint (destroyed, ==, 2);
  g_clear_pointer (&list, g_ptr_array_unref);
  g_assert_cmpuint (destroyed, ==, 3);
  g_clear_pointer (&tool, gg_composite_tool_unref);
  g_clear_object (&bus);
  g_assert_cmpuint (destroyed, ==, 4);
}

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static void
test_call (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgCompositeTool) echo = NULL;
  g_autoptr(GgCompositeTool) fail = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) failed = NULL;
  g_autoptr(JsonNode) args = gg_json_parse ("{\"n\":7}", -1, 8, NULL);
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  /* Any object stands in for the target: composites get it untouched. */
  g_autoptr(GObject) target = g_object_new (G_TYPE_OBJECT, NULL);

  g_assert_true (gg_bus_add_composite_tool (bus, "echo", "", NULL, NULL, echo_func, (gpointer) "e", NULL, NULL));
  g_assert_true (gg_bus_add_composite_tool (bus, "fail", "", NULL, NULL, fail_func, NULL, NULL, NULL));
  echo = gg_bus_lookup_composite_tool (bus, "echo");
  fail = gg_bus_lookup_composite_tool (bus, "fail");
  gg_composite_tool_call_async (echo, (GgTarget *) target, json_node_get_object (args), NULL, on_done, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  node = gg_composite_tool_call_finish (echo, result, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "tag"), ==, "e");
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (node), "n"), ==, 7);

  gg_composite_tool_call_async (fail, (GgTarget *) target, NULL, NULL, on_done, &failed);
  while (failed == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_null (gg_composite_tool_call_finish (fail, failed, &error));
  g_assert_error (error, GG_TARGET_ERROR, GG_TARGET_ERROR_TOOL_FAILED);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/composite-tool/register", test_register);
  g_test_add_func ("/composite-tool/call", test_call);
  return g_test_run ();
}

/* test-gb-tools.c: the tools provider in-process, on a bus shared with other
 * plugins: composite tools resolved first (with their `only` filter), a
 * target another plugin added (a GABP mod) listed and callable by its
 * `instance` id, and --eager's flat tools.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-tools.h"
#include "refgame-driver.h"

/* ---- a target of another plugin ------------------------------------------ */

#define FAKE_TYPE_TARGET (fake_target_get_type ())
G_DECLARE_FINAL_TYPE (FakeTarget, fake_target, FAKE, TARGET, GObject)
struct _FakeTarget { GObject parent_instance; };
static void fake_target_iface_init (GgTargetInterface *iface);
G_DEFINE_FINAL_TYPE_WITH_CODE (FakeTarget, fake_target, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_TARGET, fake_target_iface_init))
static void fake_target_class_init (FakeTargetClass *klass) { }
static void fake_target_init (FakeTarget *self) { }

static const char *
fake_get_id (GgTarget *target)
{
  return "gabp:fake";
}

static JsonObject *
fake_get_info (GgTarget *target)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "id", "gabp:fake");
  json_object_set_string_member (o, "kind", "gabp");
  json_object_set_string_member (o, "name", "Fake Mod");
  json_object_set_string_member (o, "status", "live");
  return o;
}

static void
fake_list_tools_async (GgTarget *target, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = g_task_new (target, cancellable, callback, user_data);
  g_autoptr(JsonNode) tools = gg_json_parse ("[{\"name\":\"poke\",\"description\":\"Poke it\","
                                             "\"parameters\":{\"type\":\"object\"},\"tags\":[\"mod\"]}]", -1, 8, NULL);

  g_task_return_pointer (task, json_array_ref (json_node_get_array (tools)), (GDestroyNotify) json_array_unref);
}

static JsonArray *
fake_list_tools_finish (GgTarget *target, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
fake_call_tool_async (GgTarget *target, const char *name, JsonObject *arguments, GCancellable *cancellable,
                      GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = g_task_new (target, cancellable, callback, user_data);
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "echo", name);
  g_task_return_pointer (task, json_node_init_object (json_node_alloc (), o), (GDestroyNotify) json_node_unref);
  json_object_unref (o);
}

static JsonNode *
fake_call_tool_finish (GgTarget *target, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
fake_target_iface_init (GgTargetInterface *iface)
{
  iface->get_id = fake_get_id;
  iface->get_info = fake_get_info;
  iface->list_tools_async = fake_list_tools_async;
  iface->list_tools_finish = fake_list_tools_finish;
  iface->call_tool_async = fake_call_tool_async;
  iface->call_tool_finish = fake_call_tool_finish;
}

/* ---- a composite: drop, then read the score ------------------------------- */

static void
on_composite_drop (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  g_autoptr(JsonNode) drop = gg_target_call_tool_finish (GG_TARGET (source), result, &error);
  JsonObject *o;

  if (drop == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  o = json_object_new ();
  json_object_set_boolean_member (o, "settled", TRUE);
  json_object_set_member (o, "dropped", gg_json_copy (gg_json_path_get (drop, "game.dropped", NULL)));
  g_task_return_pointer (task, json_node_init_object (json_node_alloc (), o), (GDestroyNotify) json_node_unref);
  json_object_unref (o);
}

static void
drop_and_settle (GgTarget     *target,
                 JsonObject   *arguments,
                 GCancellable *cancellable,
                 GTask        *task,
                 gpointer      user_data)
{
  g_autoptr(JsonObject) args = json_object_new ();

  json_object_set_boolean_member (args, "settle", TRUE);
  gg_target_call_tool_async (target, "drop", args, cancellable, on_composite_drop, g_object_ref (task));
}

static void
never_called (GgTarget *target, JsonObject *arguments, GCancellable *cancellable, GTask *task, gpointer user_data)
{
  g_assert_not_reached ();
}

/* ---- calling the provider ------------------------------------------------------------ */

typedef struct {
  GgBus *bus;
  GbBridge *bridge;
  Game *game;
  GgTarget *fake;
} Fixture;

static void
on_call (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static JsonObject *
call (Fixture    *f,
      const char *tool,
      const char *args_json,
      char      **out_error)
{
  g_autoptr(JsonNode) args = gg_json_parse (args_json, -1, 16, NULL);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) r = NULL;

  gb_tools_provider ()->call_tool_async (f->bridge, tool, json_node_get_object (args), NULL, NULL, on_call, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  r = gb_tools_provider ()->call_tool_finish (f->bridge, result, &error);
  if (out_error != NULL)
    {
      g_assert_null (r);
      *out_error = g_strdup (error->message);
      return NULL;
    }
  g_assert_no_error (error);
  return json_object_ref (json_object_get_object_member (r, "structuredContent"));
}

static JsonObject *
call_ok (Fixture    *f,
         const char *tool,
         const char *fmt,
         ...) G_GNUC_PRINTF (3, 4);

static JsonObject *
call_ok (Fixture    *f,
         const char *tool,
         const char *fmt,
         ...)
{
  g_autofree char *args = NULL;
  va_list ap;

  va_start (ap, fmt);
  args = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  return call (f, tool, args, NULL);
}

static void
setup (Fixture       *f,
       gconstpointer  data)
{
  GbOptions options = { 0 };
  g_autoptr(GError) error = NULL;
  const char *only_crates[] = { "Crate Stacker", NULL };
  const char *only_other[] = { "Flight Simulator", NULL };

  f->game = game_spawn ("--no-registry", NULL);
  f->bus = gg_bus_new ();
  options.port = (int) f->game->port;
  options.no_registry = TRUE;
  options.scan_range = g_strdup_printf ("%u", f->game->port);
  options.eager = GPOINTER_TO_INT (data);
  g_assert_true (gb_options_resolve (&options, &error));
  f->bridge = gb_bridge_new (f->bus, &options, &error);
  g_assert_no_error (error);
  gb_options_clear (&options);
  f->fake = g_object_new (FAKE_TYPE_TARGET, NULL);
  g_assert_true (gg_bus_add_target (f->bus, f->fake, NULL));
  g_assert_true (gg_bus_add_composite_tool (f->bus, "drop_and_settle", "Drop, then wait until nothing moves", NULL,
                                            only_crates, drop_and_settle, NULL, NULL, NULL));
  /* Shadows the game's spawn, but only for another game. */
  g_assert_true (gg_bus_add_composite_tool (f->bus, "spawn", "Not for crates", NULL, only_other, never_called,
                                            NULL, NULL, NULL));
}

static void
teardown (Fixture       *f,
          gconstpointer  data)
{
  gg_bus_remove_target (f->bus, f->fake);
  g_object_unref (f->fake);
  gb_bridge_free (f->bridge);
  g_object_unref (f->bus);
  game_free (f->game);
}

static void
test_composites (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(JsonObject) spawn = call_ok (f, "call_tool", "{\"name\":\"spawn\"}");
  g_autoptr(JsonObject) composite = call_ok (f, "call_tool", "{\"name\":\"drop_and_settle\"}");
  g_autoptr(JsonObject) sets = call_ok (f, "list_toolsets", "{}");
  g_autoptr(JsonObject) described = call_ok (f, "describe_toolset", "{\"name\":\"composite\"}");
  JsonArray *list = json_object_get_array_member (sets, "toolsets");
  JsonObject *comp = json_array_get_object_element (list, 2);

  g_assert_cmpstr (json_object_get_string_member (spawn, "via"), ==, "manifest");
  g_assert_cmpstr (json_object_get_string_member (composite, "via"), ==, "composite");
  g_assert_cmpint (json_object_get_int_member (composite, "port"), ==, f->game->port);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (composite, "result"), "dropped"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (comp, "name"), ==, "composite");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (comp, "tools")), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (comp, "tools"), 0), ==, "drop_and_settle");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (described, "tools")), ==, 1);
}

static void
test_bus_target (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(JsonObject) listed = call_ok (f, "list_instances", "{}");
  g_autoptr(JsonObject) poked = call_ok (f, "call_tool", "{\"name\":\"poke\",\"instance\":\"gabp:fake\"}");
  g_autoptr(JsonObject) sets = call_ok (f, "list_toolsets", "{\"instance\":\"gabp:fake\"}");
  g_autoptr(JsonObject) by_id = call_ok (f, "call_tool", "{\"name\":\"health\",\"instance\":\"http:%u\"}", f->game->port);
  JsonArray *live = json_object_get_array_member (listed, "live");
  gboolean found_fake = FALSE, found_game = FALSE;
  g_autofree char *missing = NULL;
  g_autoptr(JsonObject) none = call (f, "call_tool", "{\"name\":\"poke\",\"instance\":\"gabp:gone\"}", &missing);

  for (guint i = 0; i < json_array_get_length (live); i++)
    {
      JsonObject *e = json_array_get_object_element (live, i);

      if (json_object_has_member (e, "instance") &&
          g_str_equal (json_object_get_string_member (e, "instance"), "gabp:fake"))
        {
          g_assert_cmpstr (json_object_get_string_member (e, "discovery"), ==, "bus");
          g_assert_cmpstr (json_object_get_string_member (e, "name"), ==, "Fake Mod");
          found_fake = TRUE;
        }
      else if (json_object_get_int_member (e, "port") == f->game->port)
        found_game = TRUE;
    }
  g_assert_true (found_fake && found_game);
  g_assert_cmpstr (json_object_get_string_member (poked, "instance"), ==, "gabp:fake");
  g_assert_cmpstr (json_object_get_string_member (poked, "via"), ==, "target");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (poked, "result"), "echo"), ==, "poke");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (sets, "toolsets"), 0),
                                                  "name"), ==, "mod");
  g_assert_true (json_object_get_boolean_member (by_id, "ok"));
  g_assert_true (g_str_has_prefix (missing, "BridgeUsageError: No instance 'gabp:gone'"));
  /* The game is a target on the bus, too. */
  g_assert_nonnull (gg_bus_lookup_target (f->bus, (missing = (g_free (missing), g_strdup_printf ("http:%u", f->game->port)))));
}

static void
test_eager (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(JsonObject) sets = call_ok (f, "list_toolsets", "{}");
  g_autoptr(JsonArray) tools = gb_tools_provider ()->list_tools (f->bridge);
  g_autoptr(JsonObject) flat = NULL;
  gboolean has_drop = FALSE;

  for (guint i = 0; i < json_array_get_length (tools); i++)
    has_drop |= g_str_equal (json_object_get_string_member (json_array_get_object_element (tools, i), "name"), "drop");
  g_assert_true (has_drop);
  g_assert_cmpuint (json_array_get_length (tools), ==, 7 + 8);
  flat = call_ok (f, "set_score", "{\"score\":9,\"port\":%u}", f->game->port);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (flat, "game"), "score"), ==, 9);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/gamebridge/tools/composites", Fixture, GINT_TO_POINTER (FALSE), setup, test_composites, teardown);
  g_test_add ("/gamebridge/tools/bus-target", Fixture, GINT_TO_POINTER (FALSE), setup, test_bus_target, teardown);
  g_test_add ("/gamebridge/tools/eager", Fixture, GINT_TO_POINTER (TRUE), setup, test_eager, teardown);
  return g_test_run ();
}

/* test-gabp-server.c: gamegate's GABP mod-side server, driven by a raw GABP
 * client: handshake failures, the tool name mapping over a fake target,
 * events, limits, framing abuse, the bridge file, and the whole chain
 * reference mod -> gamegate bridge -> bus target -> mod-side server ->
 * client.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "gabp-test-util.h"
#include "gg-gabp-frontend.h"
#include "gg-gabp-names.h"
#include "gg-gabp-server.h"
#include "gg-gabp-target.h"

/* A fake game ---------------------------------------------------------------- */

#define FAKE_TYPE_TARGET (fake_target_get_type ())
G_DECLARE_FINAL_TYPE (FakeTarget, fake_target, FAKE, TARGET, GObject)

struct _FakeTarget
{
  GObject parent_instance;
  char   *id;
};

static void fake_target_iface_init (GgTargetInterface *iface);
G_DEFINE_FINAL_TYPE_WITH_CODE (FakeTarget, fake_target, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_TARGET, fake_target_iface_init))

static void
fake_target_finalize (GObject *object)
{
  g_free (FAKE_TARGET (object)->id);
  G_OBJECT_CLASS (fake_target_parent_class)->finalize (object);
}

static void
fake_target_class_init (FakeTargetClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = fake_target_finalize;
}

static void
fake_target_init (FakeTarget *self)
{
}

static const char *fake_get_id (GgTarget *t) { return FAKE_TARGET (t)->id; }

static JsonObject *
fake_get_info (GgTarget *t)
{
  JsonObject *info = json_object_new ();
  json_object_set_string_member (info, "id", FAKE_TARGET (t)->id);
  return info;
}

static void
fake_list_tools_async (GgTarget *t, GCancellable *c, GAsyncReadyCallback cb, gpointer data)
{
  g_autoptr(GTask) task = g_task_new (t, c, cb, data);
  g_autoptr(JsonNode) tools = json_from_string (
    "[{\"name\":\"look.around\",\"description\":\"Look.\",\"parameters\":{\"type\":\"object\"},\"tags\":[\"read-only\",\"read-only\"]},"
    " {\"name\":\"Say/Hello\",\"description\":\"\",\"parameters\":{\"type\":\"object\",\"properties\":{\"who\":{\"type\":\"string\"}}}},"
    " {\"name\":\"say_hello\"},{\"name\":\"say:hello\"},"
    " {\"name\":\"fail\",\"description\":\"Fails.\"},"
    " {\"name\":\"\"},{\"nope\":1}]", NULL);

  g_task_return_pointer (task, json_array_ref (json_node_get_array (tools)), (GDestroyNotify) json_array_unref);
}

static JsonArray *
fake_list_tools_finish (GgTarget *t, GAsyncResult *r, GError **e)
{
  return g_task_propagate_pointer (G_TASK (r), e);
}

static void
fake_call_tool_async (GgTarget *t, const char *name, JsonObject *args, GCancellable *c,
                      GAsyncReadyCallback cb, gpointer data)
{
  g_autoptr(GTask) task = g_task_new (t, c, cb, data);
  JsonObject *out;

  if (g_str_equal (name, "fail"))
    {
      g_task_return_new_error (task, GG_TARGET_ERROR, GG_TARGET_ERROR_TOOL_FAILED, "it broke");
      return;
    }
  if (g_str_equal (name, "Say/Hello") && args != NULL && json_object_has_member (args, "who") &&
      json_node_get_value_type (json_object_get_member (args, "who")) != G_TYPE_STRING)
    {
      g_task_return_new_error (task, GG_TARGET_ERROR, GG_TARGET_ERROR_INVALID_ARGUMENTS, "who must be a string");
      return;
    }
  out = json_object_new ();
  json_object_set_string_member (out, "tool", name);
  json_object_set_object_member (out, "args", args != NULL ? json_object_ref (args) : json_object_new ());
  g_task_return_pointer (task, json_node_init_object (json_node_alloc (), out), (GDestroyNotify) json_node_unref);
  json_object_unref (out);
}

static JsonNode *
fake_call_tool_finish (GgTarget *t, GAsyncResult *r, GError **e)
{
  return g_task_propagate_pointer (G_TASK (r), e);
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

static FakeTarget *
fake_target_new (const char *id)
{
  FakeTarget *self = g_object_new (FAKE_TYPE_TARGET, NULL);
  self->id = g_strdup (id);
  return self;
}

/* Fixture -------------------------------------------------------------------- */

typedef struct {
  GgBus         *bus;
  GgGabpSchemas *schemas;
  GgGabpServer  *server;
  FakeTarget    *fake;
  TestPeer      *peer;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;

  f->bus = gg_bus_new ();
  f->schemas = test_schemas ();
  f->fake = fake_target_new ("fake:one");
  g_assert_true (gg_bus_add_target (f->bus, GG_TARGET (f->fake), NULL));
  f->server = gg_gabp_server_new (f->bus, f->schemas);
  gg_gabp_server_set_token (f->server, TEST_TOKEN);
  if (data != NULL)
    gg_gabp_server_set_limits (f->server, 10, 0.1, 5, GG_GABP_DEFAULT_MAX_MESSAGE_SIZE);
  g_assert_true (gg_gabp_server_start (f->server, &error));
  g_assert_no_error (error);
  f->peer = test_peer_connect (gg_gabp_server_get_port (f->server));
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  test_peer_free (f->peer);
  gg_gabp_server_stop (f->server);
  g_clear_object (&f->server);
  g_clear_object (&f->fake);
  g_clear_object (&f->bus);
  g_clear_object (&f->schemas);
  gg_test_spin (10);
}

static JsonObject *
request (TestPeer *peer, const char *method, const char *params)
{
  g_autofree char *id = test_peer_request (peer, method, params);
  return test_peer_wait_response (peer, id);
}

static void
test_welcome (Fixture *f, gconstpointer data)
{
  g_autoptr(JsonObject) welcome = test_peer_hello (f->peer, TEST_TOKEN);
  JsonObject *result = json_object_get_object_member (welcome, "result");

  g_assert_cmpstr (json_object_get_string_member (result, "agentId"), ==, "gamegate");
  g_assert_cmpstr (json_object_get_string_member (result, "schemaVersion"), ==, "1.0");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (json_object_get_object_member (result, "capabilities"), "limits"), "maxMessageSize"), ==, 1024 * 1024);
}

static void
test_method_before_hello (Fixture *f, gconstpointer data)
{
  g_autoptr(JsonObject) list = request (f->peer, "tools/list", NULL);
  g_autoptr(JsonObject) call = request (f->peer, "tools/call", "{\"name\":\"a/b\"}");
  g_autoptr(JsonObject) welcome = NULL;

  g_assert_cmpint (test_response_error_code (list), ==, -31001);
  g_assert_cmpint (test_response_error_code (call), ==, -31001);
  welcome = test_peer_hello (f->peer, TEST_TOKEN);
  g_assert_cmpint (test_response_error_code (welcome), ==, 0);
}

static void
test_wrong_token (Fixture *f, gconstpointer data)
{
  g_autoptr(JsonObject) first = test_peer_hello (f->peer, TEST_TOKEN2);
  g_autoptr(JsonObject) list = request (f->peer, "tools/list", NULL);
  g_autoptr(JsonObject) second = test_peer_hello (f->peer, TEST_TOKEN "0");
  g_autoptr(JsonObject) third = test_peer_hello (f->peer, TEST_TOKEN2);
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) node = NULL;

  g_assert_cmpint (test_response_error_code (first), ==, -31000);
  g_assert_cmpint (test_response_error_code (list), ==, -31001);
  g_assert_cmpint (test_response_error_code (second), ==, -31000);
  g_assert_cmpint (test_response_error_code (third), ==, -31000);
  /* Neither token is ever echoed. */
  node = json_node_init_object (json_node_alloc (), first);
  text = json_to_string (node, FALSE);
  g_assert_null (strstr (text, TEST_TOKEN2));
  /* Three strikes and the connection is closed. */
  g_assert_true (test_peer_wait_closed (f->peer, 2000));
}

static void
test_short_token (Fixture *f, gconstpointer data)
{
  g_autoptr(JsonObject) r = request (f->peer, "session/hello",
    "{\"token\":\"0123456789abcdef\",\"bridgeVersion\":\"1\",\"platform\":\"linux\",\"launchId\":\"550e8400-e29b-41d4-a716-446655440001\"}");

  /* Refused by the hello schema (at least 32 characters) before any compare. */
  g_assert_cmpint (test_response_error_code (r), ==, -32602);
}

static void
test_stale_token (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();
  g_autoptr(GgGabpServer) first = gg_gabp_server_new (bus, schemas);
  g_autoptr(GgGabpServer) second = gg_gabp_server_new (bus, schemas);
  g_autofree char *old = NULL;
  g_autoptr(GError) error = NULL;
  TestPeer *peer;
  g_autoptr(JsonObject) r = NULL;

  /* A generated token is new for every start. */
  g_assert_true (gg_gabp_server_start (first, &error));
  old = g_strdup (gg_gabp_server_get_token (first));
  g_assert_cmpuint (strlen (old), ==, 64);
  gg_gabp_server_stop (first);
  g_assert_true (gg_gabp_server_start (second, &error));
  g_assert_cmpstr (gg_gabp_server_get_token (second), !=, old);
  peer = test_peer_connect (gg_gabp_server_get_port (second));
  r = test_peer_hello (peer, old);
  g_assert_cmpint (test_response_error_code (r), ==, -31000);
  test_peer_free (peer);
  gg_gabp_server_stop (second);
}

static JsonArray *
list_tools (Fixture *f, const char *params)
{
  g_autoptr(JsonObject) r = request (f->peer, "tools/list", params);
  g_assert_cmpint (test_response_error_code (r), ==, 0);
  return json_array_ref (json_object_get_array_member (json_object_get_object_member (r, "result"), "tools"));
}

static void
test_tools_mapping (Fixture *f, gconstpointer data)
{
  g_autoptr(JsonObject) welcome = test_peer_hello (f->peer, TEST_TOKEN);
  g_autoptr(JsonArray) tools = list_tools (f, NULL);
  g_autoptr(JsonArray) filtered = list_tools (f, "{\"filter\":{\"tags\":[\"read-only\"]}}");
  g_autoptr(JsonArray) pattern = list_tools (f, "{\"filter\":{\"namePattern\":\"fake-one/say*\"}}");
  const char *want[] = { "fake-one/look_around", "fake-one/say/hello", "fake-one/say_hello",
                         "fake-one/say-hello", "fake-one/fail" };
  JsonObject *first;

  g_assert_cmpuint (json_array_get_length (tools), ==, G_N_ELEMENTS (want));
  for (gsize i = 0; i < G_N_ELEMENTS (want); i++)
    {
      JsonObject *tool = json_array_get_object_element (tools, (guint) i);
      g_assert_cmpstr (json_object_get_string_member (tool, "name"), ==, want[i]);
      g_assert_true (gg_gabp_name_is_valid (want[i]));
      g_assert_true (json_object_has_member (tool, "inputSchema"));
      g_assert_true (json_object_has_member (tool, "outputSchema"));
      g_assert_cmpuint (strlen (json_object_get_string_member (tool, "description")), >, 0);
    }
  first = json_array_get_object_element (tools, 0);
  /* Tags keep their meaning and lose duplicates. */
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (first, "tags")), ==, 1);
  g_assert_cmpuint (json_array_get_length (filtered), ==, 1);
  g_assert_cmpuint (json_array_get_length (pattern), ==, 3);
}

static void
test_names (void)
{
  g_autofree char *a = gg_gabp_name_for_tool ("http:7820", "inventory.get");
  g_autofree char *b = gg_gabp_name_for_tool ("gabp:rimworld", "Colony//Pawns/List Ä");
  g_autofree char *c = gg_gabp_name_for_tool ("9lives", "/");
  g_autofree char *d = gg_gabp_name_for_tool ("x", "4th/step");

  g_assert_cmpstr (a, ==, "http-7820/inventory_get");
  g_assert_cmpstr (b, ==, "gabp-rimworld/colony/pawns/list___");
  g_assert_cmpstr (c, ==, "t9lives/tool");
  g_assert_cmpstr (d, ==, "x/t4th/step");
  g_assert_true (gg_gabp_name_is_valid (a) && gg_gabp_name_is_valid (b) &&
                 gg_gabp_name_is_valid (c) && gg_gabp_name_is_valid (d));
}

static void
test_tools_call (Fixture *f, gconstpointer data)
{
  g_autoptr(JsonObject) welcome = test_peer_hello (f->peer, TEST_TOKEN);
  /* Called without listing first: the map is built on demand. */
  g_autoptr(JsonObject) ok = request (f->peer, "tools/call", "{\"name\":\"fake-one/say/hello\",\"arguments\":{\"who\":\"Ann\"}}");
  g_autoptr(JsonObject) old = request (f->peer, "tools/call", "{\"name\":\"fake-one/look_around\",\"parameters\":{\"r\":1}}");
  g_autoptr(JsonObject) missing = request (f->peer, "tools/call", "{\"name\":\"fake-one/nope\"}");
  g_autoptr(JsonObject) failed = request (f->peer, "tools/call", "{\"name\":\"fake-one/fail\"}");
  g_autoptr(JsonObject) bad_args = request (f->peer, "tools/call", "{\"name\":\"fake-one/say/hello\",\"arguments\":{\"who\":1}}");
  g_autoptr(JsonObject) bad_name = request (f->peer, "tools/call", "{\"name\":\"inventory.get\"}");
  g_autoptr(JsonObject) unknown = request (f->peer, "mystery/method", NULL);
  JsonObject *result;

  g_assert_cmpint (test_response_error_code (ok), ==, 0);
  result = json_object_get_object_member (ok, "result");
  g_assert_cmpstr (json_object_get_string_member (result, "tool"), ==, "Say/Hello");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "args"), "who"), ==, "Ann");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (json_object_get_object_member (old, "result"), "args"), "r"), ==, 1);
  g_assert_cmpint (test_response_error_code (missing), ==, -31002);
  g_assert_cmpint (test_response_error_code (failed), ==, -31003);
  g_assert_cmpint (test_response_error_code (bad_args), ==, -32602);
  g_assert_cmpint (test_response_error_code (bad_name), ==, -32602);
  g_assert_cmpint (test_response_error_code (unknown), ==, -32601);
}

static void
test_invalid_requests (Fixture *f, gconstpointer data)
{
  g_autoptr(JsonObject) pattern = NULL;
  g_autoptr(JsonObject) welcome = NULL;
  JsonNode *node;

  /* Not JSON, not an object, no id: nothing to answer, the session lives on
   * (the first of them is a warning, the others go to the debug log). */
  g_test_expect_message ("gamegate-gabp", G_LOG_LEVEL_WARNING, "GABP server: a bridge sent a message that is not JSON*");
  test_peer_send (f->peer, "{oops");
  test_peer_send (f->peer, "[]");
  test_peer_send (f->peer, "{\"v\":\"gabp/1\",\"type\":\"request\",\"method\":\"tools/list\"}");
  test_peer_send (f->peer, "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440009\",\"type\":\"request\",\"method\":\"Bad_Method\"}");
  node = test_peer_next (f->peer, 2000);
  g_assert_nonnull (node);
  pattern = json_object_ref (json_node_get_object (node));
  json_node_unref (node);
  g_assert_cmpstr (json_object_get_string_member (pattern, "id"), ==, "550e8400-e29b-41d4-a716-446655440009");
  g_assert_cmpint (test_response_error_code (pattern), ==, -32600);
  g_test_assert_expected_messages ();
  welcome = test_peer_hello (f->peer, TEST_TOKEN);
  g_assert_cmpint (test_response_error_code (welcome), ==, 0);
  /* Responses and events from a bridge are ignored. */
  test_peer_send (f->peer, "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440010\",\"type\":\"response\",\"result\":{}}");
  test_peer_send (f->peer, "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440011\",\"type\":\"event\",\"channel\":\"x\",\"seq\":0,\"payload\":null}");
  gg_test_spin (50);
  g_assert_true (g_queue_is_empty (&f->peer->messages));
  g_assert_false (f->peer->closed);
}

static void
test_events (Fixture *f, gconstpointer data)
{
  g_autoptr(JsonObject) welcome = test_peer_hello (f->peer, TEST_TOKEN);
  g_autoptr(JsonObject) sub = request (f->peer, "events/subscribe", "{\"channels\":[\"fake-one/news\"]}");
  g_autoptr(JsonObject) unsub = NULL;
  g_autoptr(JsonNode) payload = json_from_string ("{\"n\":1}", NULL);

  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (json_object_get_object_member (sub, "result"), "subscribed"), 0), ==, "fake-one/news");
  /* The target's own numbers (7, 9, 12) become this session's 0, 1, 2. */
  gg_target_emit_event (GG_TARGET (f->fake), "news", 7, payload);
  gg_target_emit_event (GG_TARGET (f->fake), "other", 8, payload);
  gg_target_emit_event (GG_TARGET (f->fake), "news", 9, payload);
  gg_target_emit_event (GG_TARGET (f->fake), "news", 12, payload);
  for (int i = 0; i < 3; i++)
    {
      g_autoptr(JsonNode) node = test_peer_next (f->peer, 2000);
      JsonObject *event;

      g_assert_nonnull (node);
      event = json_node_get_object (node);
      g_assert_cmpstr (json_object_get_string_member (event, "type"), ==, "event");
      g_assert_cmpstr (json_object_get_string_member (event, "channel"), ==, "fake-one/news");
      g_assert_cmpint (json_object_get_int_member (event, "seq"), ==, i);
    }
  unsub = request (f->peer, "events/unsubscribe", "{\"channels\":[\"fake-one/news\"]}");
  g_assert_cmpint (test_response_error_code (unsub), ==, 0);
  gg_target_emit_event (GG_TARGET (f->fake), "news", 13, payload);
  gg_test_spin (50);
  g_assert_true (g_queue_is_empty (&f->peer->messages));
}

static void
test_rate_limit (Fixture *f, gconstpointer data)
{
  g_autoptr(JsonObject) welcome = test_peer_hello (f->peer, TEST_TOKEN);
  int limited = 0;

  /* Burst 5 at one per ten seconds: the hello took one; some of the next ten are refused. */
  for (int i = 0; i < 10; i++)
    {
      g_autoptr(JsonObject) r = request (f->peer, "tools/list", NULL);
      if (test_response_error_code (r) == -31005)
        limited++;
    }
  g_assert_cmpint (limited, >=, 4);
  g_assert_false (f->peer->closed);
}

static void
test_ten_connections (Fixture *f, gconstpointer data)
{
  TestPeer *peers[10];
  TestPeer *extra;

  peers[0] = f->peer;
  for (int i = 1; i < 10; i++)
    peers[i] = test_peer_connect (gg_gabp_server_get_port (f->server));
  gg_test_spin (50);
  for (int i = 0; i < 10; i++)
    {
      g_autoptr(JsonObject) welcome = test_peer_hello (peers[i], TEST_TOKEN);
      g_assert_cmpint (test_response_error_code (welcome), ==, 0);
    }
  g_assert_cmpuint (gg_gabp_server_get_session_count (f->server), ==, 10);
  extra = test_peer_connect (gg_gabp_server_get_port (f->server));
  g_assert_true (test_peer_wait_closed (extra, 2000));
  test_peer_free (extra);
  for (int i = 1; i < 10; i++)
    test_peer_free (peers[i]);
  gg_test_spin (50);
  g_assert_cmpuint (gg_gabp_server_get_session_count (f->server), ==, 1);
}

static void
test_framing_abuse (Fixture *f, gconstpointer data)
{
  g_autoptr(JsonObject) welcome = test_peer_hello (f->peer, TEST_TOKEN);
  const char *bad = "Content-Lenght: 2\r\n\r\n{}";

  test_peer_send_raw (f->peer, bad, strlen (bad));
  g_assert_true (test_peer_wait_closed (f->peer, 2000));
  gg_test_spin (20);
  g_assert_cmpuint (gg_gabp_server_get_session_count (f->server), ==, 0);
}

static void
test_bridge_file (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();
  g_autoptr(GgGabpServer) server = gg_gabp_server_new (bus, schemas);
  g_autofree char *dir = g_dir_make_tmp ("gabp-bridge-XXXXXX", NULL);
  g_autofree char *sub = g_build_filename (dir, "gabp", NULL);
  g_autofree char *path = g_build_filename (sub, "bridge.json", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  JsonObject *o;
  GStatBuf st;

  gg_gabp_server_set_bridge_file (server, path);
  g_assert_true (gg_gabp_server_start (server, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  node = json_from_string (contents, NULL);
  o = json_node_get_object (node);
  g_assert_cmpstr (json_object_get_string_member (o, "token"), ==, gg_gabp_server_get_token (server));
  g_assert_cmpint (atoi (json_object_get_string_member (json_object_get_object_member (o, "transport"), "address")), ==,
                   gg_gabp_server_get_port (server));
  g_assert_true (json_object_has_member (json_object_get_object_member (o, "metadata"), "launchId"));
  gg_gabp_server_stop (server);
  g_remove (path);
  g_rmdir (sub);
  g_rmdir (dir);
}

/* stdio transport through the front end. */
static void
on_stdio_done (GObject *source, GAsyncResult *result, gpointer data)
{
  g_assert_true (gg_frontend_run_stdio_finish (GG_FRONTEND (source), result, NULL));
  *(gboolean *) data = TRUE;
}

static gboolean
flag_set (gpointer data)
{
  return *(gboolean *) data;
}

static void
test_stdio_frontend (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();
  g_autoptr(GgGabpServer) server = gg_gabp_server_new (bus, schemas);
  g_autoptr(GgGabpFrontend) frontend = gg_gabp_frontend_new (server, FALSE);
  g_autoptr(GSocketConnection) ours = NULL;
  g_autoptr(GSocketConnection) theirs = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  GSocket *pair[2];
  int fds[2];
  gboolean done = FALSE;
  TestPeer *peer;

  g_assert_cmpstr (gg_frontend_get_name (GG_FRONTEND (frontend)), ==, "gabp");
  g_assert_true (gg_frontend_start_daemon (GG_FRONTEND (frontend), &error));
  g_assert_false (gg_gabp_server_is_listening (server));
  gg_gabp_server_set_token (server, TEST_TOKEN);
  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM, 0, fds), ==, 0);
  for (int i = 0; i < 2; i++)
    pair[i] = g_socket_new_from_fd (fds[i], &error);
  ours = g_socket_connection_factory_create_connection (pair[0]);
  theirs = g_socket_connection_factory_create_connection (pair[1]);
  g_object_unref (pair[0]);
  g_object_unref (pair[1]);
  gg_frontend_run_stdio_async (GG_FRONTEND (frontend), G_IO_STREAM (theirs), cancellable, on_stdio_done, &done);

  peer = g_new0 (TestPeer, 1);
  peer->connection = g_object_ref (ours);
  peer->stream = gg_framed_stream_new_for_io_stream (G_IO_STREAM (ours), GG_FRAMING_CONTENT_LENGTH);
  g_queue_init (&peer->messages);
  test_peer_attach (peer);
  {
    g_autoptr(JsonObject) welcome = test_peer_hello (peer, TEST_TOKEN);
    g_assert_cmpint (test_response_error_code (welcome), ==, 0);
  }
  g_cancellable_cancel (cancellable);
  g_assert_true (gg_test_wait_for (flag_set, &done, 2000));
  test_peer_free (peer);
}

/* The whole chain --------------------------------------------------------- */

static gboolean
target_ready (gpointer data)
{
  return gg_gabp_target_is_ready (data);
}

static void
test_chain (void)
{
  GgTestServer *mod = test_mod_start (0, TEST_TOKEN);
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgGabpSchemas) schemas = test_schemas ();
  g_autoptr(GgGabpClient) client = gg_gabp_client_new (schemas, "127.0.0.1", mod->port, TEST_TOKEN);
  g_autoptr(GgGabpTarget) target = gg_gabp_target_new ("ref", client);
  g_autoptr(GgGabpServer) server = gg_gabp_server_new (bus, schemas);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) welcome = NULL;
  g_autoptr(JsonObject) list = NULL;
  g_autoptr(JsonObject) moved = NULL;
  g_autoptr(JsonObject) sub = NULL;
  g_autoptr(JsonObject) ticks = NULL;
  g_autoptr(JsonObject) blocked = NULL;
  g_autofree char *text = NULL;
  JsonArray *tools;
  gboolean found = FALSE;
  TestPeer *peer;

  g_assert_true (gg_bus_add_target (bus, GG_TARGET (target), NULL));
  gg_gabp_client_start (client);
  g_assert_true (gg_test_wait_for (target_ready, target, 5000));
  gg_gabp_server_set_token (server, TEST_TOKEN2);
  g_assert_true (gg_gabp_server_start (server, &error));

  /* A GABP bridge (this test) -> gamegate's server -> bus -> gamegate's
   * bridge -> the reference mod. */
  peer = test_peer_connect (gg_gabp_server_get_port (server));
  welcome = test_peer_hello (peer, TEST_TOKEN2);
  g_assert_cmpint (test_response_error_code (welcome), ==, 0);
  list = request (peer, "tools/list", NULL);
  tools = json_object_get_array_member (json_object_get_object_member (list, "result"), "tools");
  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonObject *tool = json_array_get_object_element (tools, i);
      if (g_str_equal (json_object_get_string_member (tool, "name"), "gabp-ref/player/move"))
        {
          found = TRUE;
          g_assert_cmpstr (json_object_get_string_member (tool, "title"), ==, "Move player");
        }
    }
  g_assert_true (found);
  moved = request (peer, "tools/call", "{\"name\":\"gabp-ref/player/move\",\"arguments\":{\"x\":9,\"y\":10}}");
  text = json_to_string (json_object_get_member (moved, "result"), FALSE);
  g_assert_cmpstr (text, ==, "{\"position\":{\"x\":9,\"y\":10}}");

  sub = request (peer, "events/subscribe", "{\"channels\":[\"gabp-ref/world/tick\"]}");
  g_assert_cmpint (test_response_error_code (sub), ==, 0);
  ticks = request (peer, "tools/call", "{\"name\":\"gabp-ref/world/emit_ticks\",\"arguments\":{\"count\":3}}");
  g_assert_cmpint (test_response_error_code (ticks), ==, 0);
  for (int i = 0; i < 3; i++)
    {
      g_autoptr(JsonNode) node = test_peer_next (peer, 2000);
      g_assert_nonnull (node);
      g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "channel"), ==, "gabp-ref/world/tick");
      g_assert_cmpint (json_object_get_int_member (json_node_get_object (node), "seq"), ==, i);
      g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (json_node_get_object (node), "payload"), "tick"), ==, i + 1);
    }
  /* The attention gate holds for bridges behind gamegate too. */
  json_object_unref (request (peer, "tools/call", "{\"name\":\"gabp-ref/attention/raise\",\"arguments\":{}}"));
  gg_test_spin (50);
  blocked = request (peer, "tools/call", "{\"name\":\"gabp-ref/player/move\",\"arguments\":{\"x\":1,\"y\":1}}");
  g_assert_cmpint (test_response_error_code (blocked), ==, -31003);

  test_peer_free (peer);
  gg_gabp_server_stop (server);
  gg_gabp_client_stop (client);
  gg_test_server_free (mod);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/gabp/server/welcome", test_welcome);
  ADD ("/gabp/server/handshake/method-before-hello", test_method_before_hello);
  ADD ("/gabp/server/handshake/wrong-token", test_wrong_token);
  ADD ("/gabp/server/handshake/short-token", test_short_token);
  ADD ("/gabp/server/tools-mapping", test_tools_mapping);
  ADD ("/gabp/server/tools-call", test_tools_call);
  ADD ("/gabp/server/invalid-requests", test_invalid_requests);
  ADD ("/gabp/server/events", test_events);
  ADD ("/gabp/server/ten-connections", test_ten_connections);
  ADD ("/gabp/server/framing-abuse", test_framing_abuse);
  g_test_add ("/gabp/server/rate-limit", Fixture, "limited", fixture_setup, test_rate_limit, fixture_teardown);
#undef ADD
  g_test_add_func ("/gabp/server/handshake/stale-token", test_stale_token);
  g_test_add_func ("/gabp/server/names", test_names);
  g_test_add_func ("/gabp/server/bridge-file", test_bridge_file);
  g_test_add_func ("/gabp/server/stdio-frontend", test_stdio_frontend);
  g_test_add_func ("/gabp/server/chain", test_chain);
  return g_test_run ();
}

/* test-gabp-bridge-handshake.c: the GABP bridge's handshake refused (wrong or short
 * token, a mod method before hello) and hostile mods (a bad welcome, silence,
 * a session that misbehaves), the last two against a fake mod in process.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gabp-bridge-test.h"

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
  GgTestServer *mod = test_mod_start (0, TEST_TOKEN);
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
  gg_test_server_free (mod);
}

static void
test_short_token (void)
{
  GgTestServer *mod = test_mod_start (0, TEST_TOKEN);
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
  gg_test_server_free (mod);
}

static void
test_mod_method_before_hello (void)
{
  GgTestServer *mod = test_mod_start (0, TEST_TOKEN);
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
  gg_test_server_free (mod);
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gabp/bridge/handshake/wrong-token", test_wrong_token);
  g_test_add_func ("/gabp/bridge/handshake/short-token", test_short_token);
  g_test_add_func ("/gabp/bridge/handshake/mod-method-before-hello", test_mod_method_before_hello);
  g_test_add_func ("/gabp/bridge/hostile/welcome", test_hostile_welcome);
  g_test_add_func ("/gabp/bridge/hostile/silent", test_hostile_silent);
  g_test_add_func ("/gabp/bridge/hostile/session", test_hostile_session);
  return g_test_run ();
}

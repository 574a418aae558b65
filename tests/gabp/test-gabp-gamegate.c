/* test-gabp-gamegate.c: the real `gamegate` with the gabp plugin: it
 * launches the reference mod from its configuration (GABP_SERVER_PORT,
 * GABP_TOKEN, GABS_GAME_ID), bridges it onto the bus, and offers it on its
 * own GABP server, where this test connects like any GABP bridge; SIGTERM
 * closes the launched game. A broken mod entry stops gamegate with a
 * configuration error.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "gabp-test-util.h"
#include "gg-gabp-launcher.h"
#include "gg-test-util.h"

#define MOD_EXE GG_TOP_BUILDDIR "/tests/gabp-mod/gabp-mod"

static char *
write_config (const char *dir,
              const char *text)
{
  char *path = g_build_filename (dir, "gamegate.conf", NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
  return path;
}

static JsonObject *
request (TestPeer *peer, const char *method, const char *params)
{
  g_autofree char *id = test_peer_request (peer, method, params);
  return test_peer_wait_response (peer, id);
}

static gboolean
has_tool (JsonObject *response,
          const char *name)
{
  JsonArray *tools;

  if (response == NULL || !json_object_has_member (response, "result"))
    return FALSE;
  tools = json_object_get_array_member (json_object_get_object_member (response, "result"), "tools");
  for (guint i = 0; i < json_array_get_length (tools); i++)
    if (g_str_equal (json_object_get_string_member (json_array_get_object_element (tools, i), "name"), name))
      return TRUE;
  return FALSE;
}

static void
test_daemon (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gg-gabp-XXXXXX", NULL);
  g_autoptr(GError) error = NULL;
  guint16 port = gg_loopback_port_pick_free (&error);
  g_autofree char *text = g_strdup_printf ("[gabp]\nmods=ref\nserver-port=%u\nserver-token=%s\nbridge-file=\n"
                                           "ref.command=%s\nref.backoff-initial-ms=20\nref.backoff-max-ms=200\n",
                                           port, TEST_TOKEN2, MOD_EXE);
  g_autofree char *conf = write_config (dir, text);
  const char *args[] = { "--config", conf, "serve", NULL };
  const char *env[] = { "GABP_TOKEN=inherited-stale-token-must-not-reach-the-mod", NULL };
  g_autoptr(GgTestProcess) process = NULL;
  g_autoptr(JsonObject) welcome = NULL;
  g_autoptr(JsonObject) moved = NULL;
  g_autoptr(JsonObject) sub = NULL;
  g_autoptr(JsonObject) ticks = NULL;
  g_autofree char *result = NULL;
  gboolean listed = FALSE;
  gint64 deadline;
  TestPeer *peer;
  int status = -1;

  process = gg_test_process_spawn (args, env, &error);
  g_assert_no_error (error);
  peer = test_peer_connect_with_retry (port, gg_test_timeout_ms (10000));
  g_assert_nonnull (peer);
  welcome = test_peer_hello (peer, TEST_TOKEN2);
  g_assert_cmpint (test_response_error_code (welcome), ==, 0);

  /* The game starts and connects in the background: ask until it is there. */
  deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (10000) * 1000;
  while (!listed && g_get_monotonic_time () < deadline)
    {
      g_autoptr(JsonObject) list = request (peer, "tools/list", NULL);
      listed = has_tool (list, "gabp-ref/player/move");
      if (!listed)
        gg_test_spin (50);
    }
  g_assert_true (listed);

  moved = request (peer, "tools/call", "{\"name\":\"gabp-ref/player/move\",\"arguments\":{\"x\":2,\"y\":3}}");
  result = json_to_string (json_object_get_member (moved, "result"), FALSE);
  g_assert_cmpstr (result, ==, "{\"position\":{\"x\":2,\"y\":3}}");

  sub = request (peer, "events/subscribe", "{\"channels\":[\"gabp-ref/world/tick\"]}");
  g_assert_cmpint (test_response_error_code (sub), ==, 0);
  ticks = request (peer, "tools/call", "{\"name\":\"gabp-ref/world/emit_ticks\",\"arguments\":{\"count\":2}}");
  g_assert_cmpint (test_response_error_code (ticks), ==, 0);
  for (int i = 0; i < 2; i++)
    {
      g_autoptr(JsonNode) event = test_peer_next (peer, gg_test_timeout_ms (2000));
      g_assert_nonnull (event);
      g_assert_cmpint (json_object_get_int_member (json_node_get_object (event), "seq"), ==, i);
    }
  test_peer_free (peer);

  /* SIGTERM: orderly shutdown, and the game gamegate launched goes too. */
  gg_test_process_send_signal (process, SIGTERM);
  g_assert_true (gg_test_process_wait (process, gg_test_timeout_ms (10000), &status));
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpuint (gg_test_process_count_in_stderr (process, "game ref exited"), ==, 1);
  g_assert_cmpuint (gg_test_process_count_in_stderr (process, "-WARNING **"), ==, 0);
  /* The token never reaches the log. */
  g_assert_cmpuint (gg_test_process_count_in_stderr (process, TEST_TOKEN2), ==, 0);

  g_remove (conf);
  g_rmdir (dir);
}

/* Port and token from the environment, as when a GABP bridge launched
 * gamegate; the launched game crashes and gamegate starts it again with a
 * fresh token. */
static void
test_env_and_relaunch (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gg-gabp-XXXXXX", NULL);
  g_autoptr(GError) error = NULL;
  guint16 port = gg_loopback_port_pick_free (&error);
  g_autofree char *port_env = g_strdup_printf ("GABP_SERVER_PORT=%u", port);
  g_autofree char *text = g_strdup_printf ("[gabp]\nmods=ref\nbridge-file=\nref.command=%s\nref.restart=true\n"
                                           "ref.backoff-initial-ms=20\nref.backoff-max-ms=100\n", MOD_EXE);
  g_autofree char *conf = write_config (dir, text);
  const char *args[] = { "--config", conf, "serve", NULL };
  const char *env[] = { port_env, "GABP_TOKEN=" TEST_TOKEN2, NULL };
  g_autoptr(GgTestProcess) process = NULL;
  g_autoptr(JsonObject) welcome = NULL;
  g_autoptr(JsonObject) crashed = NULL;
  g_autoptr(JsonObject) moved = NULL;
  gint64 deadline;
  gboolean back = FALSE;
  TestPeer *peer;
  int status = -1;

  process = gg_test_process_spawn (args, env, &error);
  g_assert_no_error (error);
  peer = test_peer_connect_with_retry (port, gg_test_timeout_ms (10000));
  g_assert_nonnull (peer);
  welcome = test_peer_hello (peer, TEST_TOKEN2);
  g_assert_cmpint (test_response_error_code (welcome), ==, 0);

  deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (10000) * 1000;
  while (g_get_monotonic_time () < deadline)
    {
      g_autoptr(JsonObject) list = request (peer, "tools/list", NULL);
      if (has_tool (list, "gabp-ref/game/crash"))
        break;
      gg_test_spin (50);
    }
  crashed = request (peer, "tools/call", "{\"name\":\"gabp-ref/game/crash\",\"arguments\":{}}");
  /* The call in flight fails with a clear error. */
  g_assert_cmpint (test_response_error_code (crashed), ==, -31003);

  /* Relaunched (new token, new port) and reconnected. */
  deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (15000) * 1000;
  while (!back && g_get_monotonic_time () < deadline)
    {
      g_autoptr(JsonObject) r = request (peer, "tools/call", "{\"name\":\"gabp-ref/world/get_time\",\"arguments\":{}}");
      back = test_response_error_code (r) == 0;
      if (!back)
        gg_test_spin (100);
    }
  g_assert_true (back);
  g_assert_cmpuint (gg_test_process_count_in_stderr (process, "launched game ref"), ==, 2);
  moved = request (peer, "tools/call", "{\"name\":\"gabp-ref/player/move\",\"arguments\":{\"x\":1,\"y\":1}}");
  g_assert_cmpint (test_response_error_code (moved), ==, 0);
  test_peer_free (peer);

  gg_test_process_send_signal (process, SIGTERM);
  g_assert_true (gg_test_process_wait (process, gg_test_timeout_ms (10000), &status));
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpuint (gg_test_process_count_in_stderr (process, TEST_TOKEN2), ==, 0);
  g_remove (conf);
  g_rmdir (dir);
}

/* Splits Content-Length framed output into its JSON bodies. */
static GPtrArray *
split_frames (const char *text)
{
  GPtrArray *bodies = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  const char *p = text;

  while ((p = strstr (p, "Content-Length: ")) != NULL)
    {
      guint64 length = g_ascii_strtoull (p + 16, NULL, 10);
      const char *body = strstr (p, "\r\n\r\n");
      g_autofree char *json = NULL;

      g_assert_nonnull (body);
      body += 4;
      json = g_strndup (body, length);
      g_ptr_array_add (bodies, json_from_string (json, NULL));
      p = body + length;
    }
  return bodies;
}

/* `gamegate gabp`: one GABP bridge on stdin/stdout; every request read
 * before the end of input is answered before gamegate exits. */
static void
test_stdio (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gg-gabp-XXXXXX", NULL);
  g_autofree char *conf = write_config (dir, "[gabp]\nserver-token=" TEST_TOKEN2 "\nbridge-file=\n");
  const char *args[] = { "--config", conf, "gabp", NULL };
  const char *requests[] = {
    "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440001\",\"type\":\"request\",\"method\":\"tools/list\"}",
    "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440002\",\"type\":\"request\",\"method\":\"session/hello\","
      "\"params\":{\"token\":\"" TEST_TOKEN2 "\",\"bridgeVersion\":\"1\",\"platform\":\"darwin\",\"launchId\":\"550e8400-e29b-41d4-a716-446655440000\"}}",
    "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440003\",\"type\":\"request\",\"method\":\"tools/list\"}",
  };
  g_autoptr(GgTestProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) bodies = NULL;
  g_autofree char *out = NULL;
  int status = -1;

  process = gg_test_process_spawn (args, NULL, &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < G_N_ELEMENTS (requests); i++)
    {
      g_autofree char *frame = g_strdup_printf ("Content-Length: %zu\r\n\r\n%s", strlen (requests[i]), requests[i]);
      g_assert_true (gg_test_process_write_line (process, frame, &error));
    }
  gg_test_process_close_stdin (process);
  out = gg_test_process_read_stdout (process, gg_test_timeout_ms (10000));
  g_assert_true (gg_test_process_wait (process, gg_test_timeout_ms (10000), &status));
  g_assert_cmpint (status, ==, 0);

  bodies = split_frames (out);
  g_assert_cmpuint (bodies->len, ==, 3);
  g_assert_cmpint (test_response_error_code (json_node_get_object (g_ptr_array_index (bodies, 0))), ==, -31001);
  /* GABS's platform "darwin" is forgiven. */
  g_assert_cmpint (test_response_error_code (json_node_get_object (g_ptr_array_index (bodies, 1))), ==, 0);
  g_assert_cmpint (test_response_error_code (json_node_get_object (g_ptr_array_index (bodies, 2))), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (g_ptr_array_index (bodies, 2)), "id"), ==,
                   "550e8400-e29b-41d4-a716-446655440003");
  g_remove (conf);
  g_rmdir (dir);
}

static void
test_bad_mod_config (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gg-gabp-XXXXXX", NULL);
  g_autofree char *conf = write_config (dir, "[gabp]\nmods=broken\nserver=false\nbroken.host=127.0.0.1\n");
  const char *args[] = { "--config", conf, "serve", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = gg_test_run (args, NULL, NULL, &out, &err);

  g_assert_cmpint (status, ==, 2);
  g_assert_nonnull (strstr (err, "gamegate.conf"));
  g_assert_nonnull (strstr (err, "broken.port"));
  g_remove (conf);
  g_rmdir (dir);
}

static void
test_short_server_token (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gg-gabp-XXXXXX", NULL);
  g_autofree char *conf = write_config (dir, "[gabp]\nserver-token=tooshort\n");
  const char *args[] = { "--config", conf, "serve", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = gg_test_run (args, NULL, NULL, &out, &err);

  g_assert_cmpint (status, ==, 2);
  g_assert_nonnull (strstr (err, "server-token"));
  g_assert_null (strstr (err, "tooshort"));
  g_remove (conf);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gabp/gamegate/daemon", test_daemon);
  g_test_add_func ("/gabp/gamegate/env-and-relaunch", test_env_and_relaunch);
  g_test_add_func ("/gabp/gamegate/stdio", test_stdio);
  g_test_add_func ("/gabp/gamegate/bad-mod-config", test_bad_mod_config);
  g_test_add_func ("/gabp/gamegate/short-server-token", test_short_server_token);
  return g_test_run ();
}

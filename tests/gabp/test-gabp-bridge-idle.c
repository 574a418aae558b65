/* test-gabp-bridge-idle.c: a session with the reference mod survives
 * silence. GABP has no heartbeat, so a mod that says nothing for a while
 * (nobody asked it anything, or it takes long over one answer) is no reason
 * to drop the connection. The bridge once kept its 5 s connect timeout as
 * the socket's I/O timeout: after 5 s of silence the pending read failed
 * ("Socket I/O timed out"), the session was dropped and re-made, and a call
 * in flight then failed with "the connection to the mod was lost".
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gabp-bridge-test.h"

/* Longer than the connect timeout (5 s) in real time, whatever the
 * machine's speed: the timeout that broke sessions did not scale either. */
#define SILENCE_MS 6500

static void
on_disconnected (GgGabpClient *client,
                 GError       *why,
                 guint        *count)
{
  g_test_message ("disconnected: %s", why != NULL ? why->message : "closed");
  (*count)++;
}

/* Nothing on the connection for a while, then a call. */
static void
test_silence (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) moved = NULL;
  g_autofree char *text = NULL;
  guint drops = 0;

  g_signal_connect (f->client, "disconnected", G_CALLBACK (on_disconnected), &drops);
  gg_test_spin (SILENCE_MS);
  g_assert_cmpuint (drops, ==, 0);
  g_assert_cmpstr (gg_gabp_target_get_status (f->target), ==, "ready");
  moved = call_tool (f->target, "player/move", "{\"x\":2,\"y\":3}", &error);
  g_assert_no_error (error);
  text = node_string (moved);
  g_assert_cmpstr (text, ==, "{\"position\":{\"x\":2,\"y\":3}}");
  g_assert_cmpuint (gg_gabp_client_get_session_count (f->client), ==, 1);
  g_signal_handlers_disconnect_by_data (f->client, &drops);
}

/* One answer that takes longer than the connect timeout (but well within
 * the call's own timeout-ms) arrives on the same session. */
static void
test_slow_answer (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *args_text = g_strdup_printf ("{\"ms\":%u,\"value\":7}", SILENCE_MS);
  g_autoptr(JsonNode) args = json_from_string (args_text, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) moved = NULL;
  g_autofree char *text = NULL;
  Call slow = { 0 };
  guint drops = 0;

  g_signal_connect (f->client, "disconnected", G_CALLBACK (on_disconnected), &drops);
  gg_gabp_client_set_timeout (f->client, 30000);
  gg_target_call_tool_async (GG_TARGET (f->target), "game/slow", json_node_get_object (args), NULL,
                             on_called, &slow);
  g_assert_true (gg_test_wait_for (call_done, &slow, SILENCE_MS + gg_test_timeout_ms (10000)));
  g_assert_no_error (slow.error);
  text = node_string (slow.result);
  g_assert_cmpstr (text, ==, "{\"value\":7}");
  json_node_unref (slow.result);
  g_assert_cmpuint (drops, ==, 0);
  g_assert_cmpuint (gg_gabp_client_get_session_count (f->client), ==, 1);

  /* And the session goes on. */
  moved = call_tool (f->target, "player/move", "{\"x\":1,\"y\":1}", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gg_gabp_client_get_session_count (f->client), ==, 1);
  g_signal_handlers_disconnect_by_data (f->client, &drops);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/gabp/bridge/idle/silence", Fixture, NULL, fixture_setup, test_silence, fixture_teardown);
  g_test_add ("/gabp/bridge/idle/slow-answer", Fixture, NULL, fixture_setup, test_slow_answer,
              fixture_teardown);
  return g_test_run ();
}

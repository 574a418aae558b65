/* test-gb-huge-numbers.c: a game's numbers beyond gint64 through the real
 * `gamegate mcp`. A game answering a command with "commandId": 1e300 and
 * confirming it in /state with "completedCommandId": 1e300 had those
 * doubles cast to gint64, which is undefined (found by
 * tests/fuzz/fuzz-gb-connector; on x86 the cast gave G_MININT64). Each now
 * counts as the largest gint64: the command is confirmed and reported
 * with that id. A game without completedCommandId whose frame stays at
 * 2^63-1 made `base_frame + 2` overflow, so its command passed for applied
 * ("frames-advanced") at once; it now times out like any frozen game.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <libsoup/soup.h>
#include <string.h>

#include "gb-mcp-client.h"

static void
on_request (SoupServer        *server,
            SoupServerMessage *msg,
            const char        *path,
            GHashTable        *query,
            gpointer           user_data)
{
  gboolean frozen_at_max = GPOINTER_TO_INT (user_data);
  const char *body = NULL;

  if (g_str_equal (path, "/health"))
    body = "{\"ok\":true,\"frame\":0}";
  else if (g_str_equal (path, "/state"))
    body = frozen_at_max ? "{\"frame\":9223372036854775807,\"events\":[],\"ui\":{},\"game\":{}}"
                         : "{\"frame\":1e300,\"completedCommandId\":1e300,\"events\":[],\"ui\":{},\"game\":{}}";
  else if (g_str_equal (path, "/command"))
    body = frozen_at_max ? "{\"accepted\":true,\"frame\":9223372036854775807}"
                         : "{\"accepted\":true,\"commandId\":1e300,\"frame\":-1e300}";
  if (body == NULL)
    {
      soup_server_message_set_status (msg, 404, NULL);
      soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_STATIC, "no", 2);
      return;
    }
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, body, strlen (body));
}

static void
test_command_ids (void)
{
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  guint port = free_port ();
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, port);
  const char *args[] = { "--no-scan", "--no-registry", NULL };
  g_autoptr(Mcp) mcp = mcp_start (args, NULL);
  g_autofree char *call = g_strdup_printf ("{\"name\":\"spawn\",\"port\":%u}", port);
  g_autoptr(JsonObject) result = NULL;

  soup_server_add_handler (server, NULL, on_request, GINT_TO_POINTER (FALSE), NULL);
  g_assert_true (soup_server_listen (server, address, 0, &error));
  g_assert_no_error (error);
  result = mcp_call_ok (mcp, "call_tool", call);
  g_assert_true (json_object_get_boolean_member (result, "applied"));
  g_assert_cmpint (json_object_get_int_member (result, "commandId"), ==, G_MAXINT64);
  g_assert_cmpstr (json_object_get_string_member (result, "confirmation"), ==, "completedCommandId");
}

static void
test_frame_at_max (void)
{
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  guint port = free_port ();
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, port);
  guint timeout = gg_test_timeout_ms (300);
  g_autofree char *timeout_s = g_strdup_printf ("%u", timeout);
  const char *args[] = { "--no-scan", "--no-registry", "--timeout", timeout_s, NULL };
  g_autoptr(Mcp) mcp = mcp_start (args, NULL);
  g_autofree char *call = g_strdup_printf ("{\"name\":\"spawn\",\"port\":%u}", port);
  g_autofree char *text = NULL;
  g_autofree char *expected = NULL;

  soup_server_add_handler (server, NULL, on_request, GINT_TO_POINTER (TRUE), NULL);
  g_assert_true (soup_server_listen (server, address, 0, &error));
  g_assert_no_error (error);
  text = mcp_call_error (mcp, "call_tool", call);
  expected = g_strdup_printf ("CommandTimeout: Command 'spawn' was queued on port %u but was not applied\n"
                              "within %ums. The game accepted it, so it is probably blocked, frozen, or on a\n"
                              "screen that ignores this command.", port, timeout);
  g_assert_cmpstr (text, ==, expected);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gamebridge/huge-numbers/command-ids", test_command_ids);
  g_test_add_func ("/gamebridge/huge-numbers/frame-at-max", test_frame_at_max);
  return g_test_run ();
}

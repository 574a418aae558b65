/* gb-mcp-client.c: a spawned `gamegate mcp` and an MCP client over its pipes.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "gb-mcp-client.h"

#define READ_MS 30000

static void
rm_rf (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

Mcp *
mcp_start (const char * const *extra_args,
           const char * const *extra_env)
{
  Mcp *mcp = g_new0 (Mcp, 1);
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GPtrArray) env = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) init = NULL;

  mcp->registry_dir = g_dir_make_tmp ("gb-registry-XXXXXX", &error);
  g_assert_no_error (error);
  g_ptr_array_add (args, (gpointer) "mcp");
  for (guint i = 0; extra_args != NULL && extra_args[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) extra_args[i]);
  g_ptr_array_add (args, NULL);
  g_ptr_array_add (env, g_strdup_printf ("GAME_BRIDGE_INSTANCES=%s", mcp->registry_dir));
  g_ptr_array_add (env, g_strdup ("GAME_BRIDGE_PORT"));
  g_ptr_array_add (env, g_strdup ("GAME_BRIDGE_HOME"));
  for (guint i = 0; extra_env != NULL && extra_env[i] != NULL; i++)
    g_ptr_array_add (env, g_strdup (extra_env[i]));
  g_ptr_array_add (env, NULL);
  mcp->process = gg_test_process_spawn ((const char * const *) args->pdata, (const char * const *) env->pdata,
                                        &error);
  g_assert_no_error (error);
  mcp->next_id = 1;
  init = mcp_request (mcp, "initialize",
                      "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                      "\"clientInfo\":{\"name\":\"gb-test\",\"version\":\"1\"}}");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (init, "result"), "protocolVersion"),
                   ==, "2025-11-25");
  g_assert_true (gg_test_process_write_line (mcp->process, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                                             NULL));
  return mcp;
}

void
mcp_free (Mcp *mcp)
{
  int status;

  gg_test_process_close_stdin (mcp->process);
  if (!gg_test_process_wait (mcp->process, gg_test_timeout_ms (20000), &status))
    {
      gg_test_process_send_signal (mcp->process, SIGKILL);
      gg_test_process_wait (mcp->process, 5000, &status);
      g_error ("gamegate mcp did not exit after stdin closed");
    }
  /* A leak or an error report (sanitizers, valgrind) shows in the status. */
  if (status != 0)
    g_error ("gamegate mcp exited with %d:\n%s", status, gg_test_process_get_stderr (mcp->process));
  gg_test_process_free (mcp->process);
  g_queue_clear_full (&mcp->logs, (GDestroyNotify) json_object_unref);
  rm_rf (mcp->registry_dir);
  g_free (mcp->registry_dir);
  g_free (mcp);
}

static void
queue_notification (Mcp        *mcp,
                    JsonObject *o)
{
  const char *method = json_object_get_string_member_with_default (o, "method", "");

  if (g_str_equal (method, "notifications/progress"))
    mcp->progress_seen++;
  else if (g_str_equal (method, "notifications/message") && json_object_has_member (o, "params"))
    g_queue_push_tail (&mcp->logs, json_object_ref (json_object_get_object_member (o, "params")));
}

JsonObject *
mcp_next_log (Mcp   *mcp,
              guint  timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (timeout_ms) * 1000;

  while (g_queue_is_empty (&mcp->logs))
    {
      gint64 left = (deadline - g_get_monotonic_time ()) / 1000;
      g_autoptr(GError) error = NULL;
      g_autofree char *line = NULL;
      g_autoptr(JsonNode) root = NULL;

      if (left <= 0)
        return NULL;
      line = gg_test_process_read_line (mcp->process, (guint) left, &error);
      if (line == NULL)
        return NULL;
      root = gg_json_parse (line, -1, 256, &error);
      g_assert_no_error (error);
      if (json_object_has_member (json_node_get_object (root), "id"))
        g_error ("a response nobody waits for: %s", line);
      queue_notification (mcp, json_node_get_object (root));
    }
  return g_queue_pop_head (&mcp->logs);
}

JsonObject *
mcp_request (Mcp        *mcp,
             const char *method,
             const char *params_json)
{
  gint64 id = mcp->next_id++;
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"%s\"%s%s}",
                                           id, method, params_json != NULL ? ",\"params\":" : "",
                                           params_json != NULL ? params_json : "");
  g_autoptr(GError) error = NULL;

  g_assert_true (gg_test_process_write_line (mcp->process, line, &error));
  g_assert_no_error (error);
  for (;;)
    {
      g_autofree char *reply = gg_test_process_read_line (mcp->process, gg_test_timeout_ms (READ_MS), &error);
      g_autoptr(JsonNode) root = NULL;
      JsonObject *o;

      if (reply == NULL)
        g_error ("no answer to %s: %s\nstderr:\n%s", method, error != NULL ? error->message : "EOF",
                 gg_test_process_get_stderr (mcp->process));
      root = gg_json_parse (reply, -1, 256, &error);
      g_assert_no_error (error);
      o = json_node_get_object (root);
      if (!json_object_has_member (o, "id"))
        {
          queue_notification (mcp, o);
          continue;
        }
      if (json_object_get_int_member (o, "id") != id)
        g_error ("unexpected reply to %s: %s", method, reply);
      return json_object_ref (o);
    }
}

JsonObject *
mcp_call (Mcp        *mcp,
          const char *tool,
          const char *arguments_json)
{
  g_autofree char *params = g_strdup_printf ("{\"name\":\"%s\",\"arguments\":%s}", tool,
                                             arguments_json != NULL ? arguments_json : "{}");
  g_autoptr(JsonObject) response = mcp_request (mcp, "tools/call", params);

  if (!json_object_has_member (response, "result"))
    {
      g_autofree char *text = gg_json_object_to_string (response);

      g_error ("tools/call %s: %s", tool, text);
    }
  return json_object_ref (json_object_get_object_member (response, "result"));
}

JsonObject *
mcp_call_ok (Mcp        *mcp,
             const char *tool,
             const char *arguments_json)
{
  g_autoptr(JsonObject) result = mcp_call (mcp, tool, arguments_json);

  if (json_object_get_boolean_member_with_default (result, "isError", FALSE))
    {
      g_autofree char *text = gg_json_object_to_string (result);

      g_error ("%s(%s) failed: %s", tool, arguments_json, text);
    }
  return json_object_ref (json_object_get_object_member (result, "structuredContent"));
}

char *
mcp_call_error (Mcp        *mcp,
                const char *tool,
                const char *arguments_json)
{
  g_autoptr(JsonObject) result = mcp_call (mcp, tool, arguments_json);
  JsonArray *content;

  if (!json_object_get_boolean_member_with_default (result, "isError", FALSE))
    {
      g_autofree char *text = gg_json_object_to_string (result);

      g_error ("%s(%s) should have failed: %s", tool, arguments_json, text);
    }
  content = json_object_get_array_member (result, "content");
  return g_strdup (json_object_get_string_member (json_array_get_object_element (content, 0), "text"));
}

gboolean
pid_alive (gint64 pid)
{
  return kill ((pid_t) pid, 0) == 0 || errno != ESRCH;
}

/* A port nothing listens on (bound, then released). */
guint
free_port (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  g_assert_true (g_socket_bind (socket, address, FALSE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

/**
 * http_mcp:
 * @session: a libsoup session
 * @port: the daemon's Streamable HTTP port
 * @session_id: (inout): the MCP session id, set from the first answer
 * @body: one JSON-RPC message
 *
 * POSTs @body to `/mcp` of `gamegate serve`.
 *
 * Returns: (transfer full): the response (JSON, or the last data line of
 *   an event stream)
 */
JsonObject *
http_mcp (SoupSession *session,
          guint        port,
          char       **session_id,
          const char  *body)
{
  g_autofree char *uri = g_strdup_printf ("http://127.0.0.1:%u/mcp", port);
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", uri);
  g_autoptr(GBytes) request = g_bytes_new (body, strlen (body));
  g_autoptr(GBytes) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  const char *text, *data;
  gsize len;

  soup_message_set_request_body_from_bytes (msg, "application/json", request);
  soup_message_headers_replace (soup_message_get_request_headers (msg), "Accept", "application/json, text/event-stream");
  soup_message_headers_replace (soup_message_get_request_headers (msg), "MCP-Protocol-Version", "2025-11-25");
  if (*session_id != NULL)
    soup_message_headers_replace (soup_message_get_request_headers (msg), "Mcp-Session-Id", *session_id);
  reply = soup_session_send_and_read (session, msg, NULL, &error);
  g_assert_no_error (error);
  if (*session_id == NULL)
    *session_id = g_strdup (soup_message_headers_get_one (soup_message_get_response_headers (msg), "Mcp-Session-Id"));
  if (soup_message_get_status (msg) == 202)
    return NULL;
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  text = g_bytes_get_data (reply, &len);
  /* JSON, or an event stream whose last data line is the response. */
  data = g_strrstr_len (text, len, "data: ");
  if (data != NULL)
    {
      g_autofree char *line = g_strndup (data + 6, strcspn (data + 6, "\r\n"));

      root = gg_json_parse (line, -1, 256, &error);
    }
  else
    root = gg_json_parse (text, (gssize) len, 256, &error);
  g_assert_no_error (error);
  return json_object_ref (json_node_get_object (root));
}

/**
 * mcp_daemon_start:
 * @gamebridge_keys: (nullable): lines of its `[gamebridge]` group
 * @extra_env: (nullable): more environment for it
 *
 * Starts `gamegate serve` (no GABP server), its games registering in a
 * private directory, and waits until its MCP endpoint listens.
 *
 * Returns: (transfer full): the daemon
 */
McpDaemon *
mcp_daemon_start (const char         *gamebridge_keys,
                  const char * const *extra_env)
{
  McpDaemon *daemon = g_new0 (McpDaemon, 1);
  g_autoptr(GPtrArray) env = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *conf = NULL;
  g_autofree char *text = NULL;
  const char *args[4] = { "--config", NULL, "serve", NULL };
  const char *marker = "MCP over Streamable HTTP on http://127.0.0.1:";
  gint64 deadline;
  const char *at;

  daemon->dir = g_dir_make_tmp ("gb-daemon-XXXXXX", &error);
  g_assert_no_error (error);
  conf = g_build_filename (daemon->dir, "gamegate.conf", NULL);
  text = g_strdup_printf ("[gamebridge]\nhttp-port=0\n%s\n[gabp]\nserver=false\n",
                          gamebridge_keys != NULL ? gamebridge_keys : "");
  g_assert_true (g_file_set_contents (conf, text, -1, NULL));
  args[1] = conf;
  g_ptr_array_add (env, g_strdup_printf ("GAME_BRIDGE_INSTANCES=%s", daemon->dir));
  g_ptr_array_add (env, g_strdup ("GAME_BRIDGE_HTTP_PORT"));
  g_ptr_array_add (env, g_strdup ("GAME_BRIDGE_PORT"));
  g_ptr_array_add (env, g_strdup ("GAME_BRIDGE_HOME"));
  for (guint i = 0; extra_env != NULL && extra_env[i] != NULL; i++)
    g_ptr_array_add (env, g_strdup (extra_env[i]));
  g_ptr_array_add (env, NULL);
  daemon->process = gg_test_process_spawn (args, (const char * const *) env->pdata, &error);
  g_assert_no_error (error);
  deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (20000) * 1000;
  while ((at = strstr (gg_test_process_get_stderr (daemon->process), marker)) == NULL ||
         strstr (at, "/mcp") == NULL)
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("gamegate serve did not listen: %s", gg_test_process_get_stderr (daemon->process));
      gg_test_spin (10);
    }
  daemon->port = (guint) g_ascii_strtoull (at + strlen (marker), NULL, 10);
  g_assert_cmpuint (daemon->port, >, 0);
  daemon->url = g_strdup_printf ("http://127.0.0.1:%u/mcp", daemon->port);
  return daemon;
}

gint64
mcp_daemon_rss_kib (McpDaemon *daemon)
{
  g_autofree char *path = g_strdup_printf ("/proc/%s/status", gg_test_process_get_pid (daemon->process));
  g_autofree char *text = NULL;
  const char *line;

  if (!g_file_get_contents (path, &text, NULL, NULL) || (line = strstr (text, "\nVmRSS:")) == NULL)
    return -1;
  return g_ascii_strtoll (line + strlen ("\nVmRSS:"), NULL, 10);
}

guint
mcp_daemon_fd_count (McpDaemon *daemon)
{
  g_autofree char *path = g_strdup_printf ("/proc/%s/fd", gg_test_process_get_pid (daemon->process));
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  guint n = 0;

  while (dir != NULL && g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

void
mcp_daemon_stop (McpDaemon *daemon)
{
  int status = -1;

  gg_test_process_send_signal (daemon->process, SIGTERM);
  if (!gg_test_process_wait (daemon->process, gg_test_timeout_ms (20000), &status))
    {
      gg_test_process_send_signal (daemon->process, SIGKILL);
      gg_test_process_wait (daemon->process, 5000, &status);
      g_error ("gamegate serve did not stop on SIGTERM");
    }
  if (status != 0 || gg_test_process_count_in_stderr (daemon->process, "-CRITICAL **") > 0)
    g_error ("gamegate serve exited with %d:\n%s", status, gg_test_process_get_stderr (daemon->process));
  gg_test_process_free (daemon->process);
  rm_rf (daemon->dir);
  g_free (daemon->dir);
  g_free (daemon->url);
  g_free (daemon);
}

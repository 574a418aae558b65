/* test-http-hostile.c: malformed HTTP framing against the HTTP endpoint of
 * the real `gamegate serve` (MCP over Streamable HTTP). libsoup 3.2.3
 * leaks a few bytes inside soup_headers_parse_request() for each request
 * with `Content-Length: abc` or `Transfer-Encoding: gzip, chunked`
 * (tests/tools/lsan.supp and valgrind.supp suppress exactly that); this
 * sends such requests many times over and checks that each is refused
 * with 400 or 501, that the daemon still answers a good request, and that
 * it exits cleanly (under asan and valgrind: without other leaks).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "gg-test-util.h"

#define ROUNDS 20

static guint16
free_port (void)
{
  g_autoptr(GSocketListener) listener = g_socket_listener_new ();
  g_autoptr(GError) error = NULL;
  guint16 port = g_socket_listener_add_any_inet_port (listener, NULL, &error);

  g_assert_no_error (error);
  g_socket_listener_close (listener);
  return port;
}

/* Sends @request as it is and returns the whole answer (the server closes
 * a connection whose framing it refused), or what came before @timeout. */
static char *
exchange (guint16     port,
          const char *request)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) connection = NULL;
  g_autoptr(GString) answer = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  GInputStream *input;
  char buf[4096];
  gssize n;

  g_socket_client_set_timeout (client, 10);
  connection = g_socket_client_connect_to_host (client, "127.0.0.1", port, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (connection)),
                                            request, strlen (request), NULL, NULL, &error));
  g_assert_no_error (error);
  input = g_io_stream_get_input_stream (G_IO_STREAM (connection));
  while ((n = g_input_stream_read (input, buf, sizeof buf, NULL, &error)) > 0)
    {
      g_string_append_len (answer, buf, n);
      /* a complete answer with a body length we know ends here */
      if (strstr (answer->str, "\r\n\r\n") != NULL && strstr (answer->str, "Content-Length: 0\r\n") != NULL)
        break;
    }
  return g_string_free (g_steal_pointer (&answer), FALSE);
}

static char *
status_line (const char *answer)
{
  const char *end = strstr (answer, "\r\n");

  return end != NULL ? g_strndup (answer, end - answer) : g_strdup (answer);
}

#define INIT_BODY "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":" \
                  "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}," \
                  "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"

static void
test_bad_framing (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gg-http-hostile-XXXXXX", NULL);
  g_autofree char *conf = g_build_filename (dir, "gamegate.conf", NULL);
  guint16 port = free_port ();
  g_autofree char *text = g_strdup_printf ("[gamebridge]\nhttp-port=%u\n[gabp]\nserver=false\n", port);
  const char *args[] = { "--config", conf, "serve", NULL };
  g_autoptr(GgTestProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *asan_options = NULL;
  static const struct { const char *request, *status; } bad[] = {
    { "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: abc\r\n\r\n{}", "HTTP/1.1 400 Bad Request" },
    { "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", "HTTP/1.1 501 Not Implemented" },
  };
  gint64 deadline;
  int status = -1;

  g_assert_true (g_file_set_contents (conf, text, -1, NULL));
  /* Under asan: whole allocation stacks. The default fast unwinder stops
   * at g_malloc() (GLib has no frame pointers), and the suppression of
   * libsoup's leak names the libsoup function above it. */
  if (g_getenv ("ASAN_OPTIONS") != NULL)
    asan_options = g_strdup_printf ("ASAN_OPTIONS=%s:fast_unwind_on_malloc=0", g_getenv ("ASAN_OPTIONS"));
  {
    const char *env[] = { asan_options, NULL };
    process = gg_test_process_spawn (args, env, &error);
  }
  g_assert_no_error (error);
  deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (10000) * 1000;
  while (gg_test_process_count_in_stderr (process, "MCP over Streamable HTTP on") == 0)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (10000);
    }

  for (guint round = 0; round < ROUNDS; round++)
    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_autofree char *answer = exchange (port, bad[i].request);
        g_autofree char *line = status_line (answer);

        g_assert_cmpstr (line, ==, bad[i].status);
      }

  /* Still healthy: an MCP client is served as before. */
  {
    g_autofree char *request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                "Content-Type: application/json\r\n"
                                                "Accept: application/json, text/event-stream\r\n"
                                                "Connection: close\r\n"
                                                "Content-Length: %zu\r\n\r\n%s",
                                                strlen (INIT_BODY), INIT_BODY);
    g_autofree char *answer = exchange (port, request);
    g_autofree char *line = status_line (answer);

    g_assert_cmpstr (line, ==, "HTTP/1.1 200 OK");
    g_assert_nonnull (strstr (answer, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\","));
  }

  gg_test_process_send_signal (process, SIGTERM);
  g_assert_true (gg_test_process_wait (process, gg_test_timeout_ms (10000), &status));
  if (status != 0)
    g_test_message ("gamegate stderr: %s", gg_test_process_get_stderr (process));
  /* Under asan the daemon's exit status carries LeakSanitizer's verdict. */
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpuint (gg_test_process_count_in_stderr (process, "-CRITICAL **"), ==, 0);
  g_remove (conf);
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/http/hostile/bad-framing", test_bad_framing);
  return g_test_run ();
}

/* gg-test-line-client.c: see gg-test-line-client.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gunixsocketaddress.h>
#include <string.h>

#include "gg-test-line-client.h"
#include "gg-test-util.h"

/**
 * gg_test_line_client_connect:
 * @path: a Unix socket the daemon is about to create, or has
 *
 * Connects, retrying while the daemon starts (up to 15 s, scaled like
 * every test timeout); reads and writes then time out after 20 s.
 *
 * Returns: (transfer full): the client
 */
GgTestLineClient *
gg_test_line_client_connect (const char *path)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketAddress) address = g_unix_socket_address_new (path);
  gint64 deadline = g_get_monotonic_time () + (gint64) gg_test_timeout_ms (15000) * 1000;
  GgTestLineClient *self = g_new0 (GgTestLineClient, 1);

  while (self->connection == NULL)
    {
      g_autoptr(GError) error = NULL;

      self->connection = g_socket_client_connect (client, G_SOCKET_CONNECTABLE (address), NULL, &error);
      if (self->connection == NULL)
        {
          g_assert_cmpint (g_get_monotonic_time (), <, deadline);
          g_usleep (50 * 1000);
        }
    }
  g_socket_set_timeout (g_socket_connection_get_socket (self->connection), gg_test_timeout_ms (20000) / 1000);
  self->input = g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (self->connection)));
  return self;
}

/** gg_test_line_client_free: @client: (transfer full) (nullable): a client */
void
gg_test_line_client_free (GgTestLineClient *client)
{
  if (client == NULL)
    return;
  g_object_unref (client->input);
  g_object_unref (client->connection);
  g_free (client);
}

/**
 * gg_test_line_client_send:
 * @line: one message, without its newline
 */
void
gg_test_line_client_send (GgTestLineClient *client,
                          const char       *line)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = g_strconcat (line, "\n", NULL);

  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (client->connection)), text, strlen (text),
                             NULL, NULL, &error);
  g_assert_no_error (error);
}

/**
 * gg_test_line_client_recv:
 *
 * Returns: (transfer full): the next line, without its newline; fails the
 *   test on a timeout or the end of the stream
 */
char *
gg_test_line_client_recv (GgTestLineClient *client)
{
  char *line = gg_test_line_client_recv_or_end (client);

  g_assert_nonnull (line);
  return line;
}

/**
 * gg_test_line_client_recv_or_end:
 *
 * Returns: (transfer full) (nullable): the next line, without its newline,
 *   or %NULL at the end of the stream; fails the test on a timeout
 */
char *
gg_test_line_client_recv_or_end (GgTestLineClient *client)
{
  g_autoptr(GError) error = NULL;
  char *line = g_data_input_stream_read_line_utf8 (client->input, NULL, NULL, &error);

  g_assert_no_error (error);
  return line;
}

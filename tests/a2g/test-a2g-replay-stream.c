/* test-a2g-replay-stream.c: the connection whose first bytes are read
 * again (gg-a2g-replay-stream.c), over a socketpair: the replayed bytes
 * first, in reads of any size, blocking or not, then the peer's; readable
 * and its source ready at once while replayed bytes are left, would-block
 * after them until the peer writes; writes reach the peer; closing closes
 * the socket. (The TLS handshake through it is test-a2g-tls.)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gg-a2g-replay-stream.h"

typedef struct {
  int peer;
  GIOStream *stream;
  GInputStream *input;
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketConnection) connection = NULL;
  g_autoptr(GBytes) replayed = g_bytes_new_static ("ClientHello", 11);
  int fds[2];

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), ==, 0);
  socket = g_socket_new_from_fd (fds[0], &error);
  g_assert_no_error (error);
  connection = g_socket_connection_factory_create_connection (socket);
  fixture->peer = fds[1];
  fixture->stream = gg_a2g_replay_stream_new (G_IO_STREAM (connection), replayed);
  fixture->input = g_io_stream_get_input_stream (fixture->stream); /* borrowed: stream lives until teardown */
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_object_unref (fixture->stream);
  close (fixture->peer);
}

static gboolean
on_readable (GObject  *stream,
             gpointer  user_data)
{
  (*(guint *) user_data)++;
  return G_SOURCE_REMOVE;
}

/* How often a source of the input dispatches in one non-blocking round. */
static guint
dispatches_now (Fixture *fixture)
{
  g_autoptr(GSource) source = g_pollable_input_stream_create_source (G_POLLABLE_INPUT_STREAM (fixture->input), NULL);
  guint fired = 0;

  g_source_set_callback (source, (GSourceFunc) (void (*) (void)) on_readable, &fired, NULL);
  g_source_attach (source, NULL);
  for (guint i = 0; i < 10; i++)
    g_main_context_iteration (NULL, FALSE);
  g_source_destroy (source);
  return fired;
}

static void
test_replay_then_peer (Fixture       *fixture,
                       gconstpointer  data)
{
  GPollableInputStream *pollable = G_POLLABLE_INPUT_STREAM (fixture->input);
  g_autoptr(GError) error = NULL;
  char buffer[64];
  gssize n;

  g_assert_true (g_pollable_input_stream_can_poll (pollable));
  /* The replayed bytes: readable, the source ready at once. */
  g_assert_true (g_pollable_input_stream_is_readable (pollable));
  g_assert_cmpuint (dispatches_now (fixture), ==, 1);
  n = g_input_stream_read (fixture->input, buffer, 6, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (buffer, n, "Client", 6);
  n = g_pollable_input_stream_read_nonblocking (pollable, buffer, sizeof buffer, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (buffer, n, "Hello", 5);
  /* Then the peer's bytes: none yet. */
  g_assert_false (g_pollable_input_stream_is_readable (pollable));
  g_assert_cmpuint (dispatches_now (fixture), ==, 0);
  n = g_pollable_input_stream_read_nonblocking (pollable, buffer, sizeof buffer, NULL, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK);
  g_assert_cmpint (n, ==, -1);
  g_clear_error (&error);
  g_assert_cmpint (write (fixture->peer, "ServerHello?", 12), ==, 12);
  g_assert_cmpuint (dispatches_now (fixture), ==, 1);
  n = g_pollable_input_stream_read_nonblocking (pollable, buffer, sizeof buffer, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (buffer, n, "ServerHello?", 12);
  g_assert_cmpint (write (fixture->peer, "more", 4), ==, 4);
  n = g_input_stream_read (fixture->input, buffer, sizeof buffer, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (buffer, n, "more", 4);
}

static void
test_write_and_close (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  char buffer[64];
  gsize written = 0;

  g_output_stream_write_all (g_io_stream_get_output_stream (fixture->stream), "alert", 5, &written, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (read (fixture->peer, buffer, sizeof buffer), ==, 5);
  g_assert_cmpmem (buffer, 5, "alert", 5);
  g_assert_true (g_io_stream_close (fixture->stream, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_input_stream_is_closed (fixture->input));
  /* The socket itself is closed: the peer reads its end. */
  g_assert_cmpint (read (fixture->peer, buffer, sizeof buffer), ==, 0);
}

static void
test_nothing_replayed (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketConnection) connection = NULL;
  g_autoptr(GIOStream) stream = NULL;
  char buffer[8];
  int fds[2];

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), ==, 0);
  socket = g_socket_new_from_fd (fds[0], &error);
  g_assert_no_error (error);
  connection = g_socket_connection_factory_create_connection (socket);
  stream = gg_a2g_replay_stream_new (G_IO_STREAM (connection), NULL);
  g_assert_false (g_pollable_input_stream_is_readable (G_POLLABLE_INPUT_STREAM (g_io_stream_get_input_stream (stream))));
  g_assert_cmpint (write (fds[1], "x", 1), ==, 1);
  g_assert_cmpint (g_input_stream_read (g_io_stream_get_input_stream (stream), buffer, sizeof buffer, NULL, &error),
                   ==, 1);
  g_assert_no_error (error);
  g_assert_cmpint (buffer[0], ==, 'x');
  close (fds[1]);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/a2g/replay-stream/replay-then-peer", Fixture, NULL, fixture_setup, test_replay_then_peer,
              fixture_teardown);
  g_test_add ("/a2g/replay-stream/write-and-close", Fixture, NULL, fixture_setup, test_write_and_close,
              fixture_teardown);
  g_test_add_func ("/a2g/replay-stream/nothing-replayed", test_nothing_replayed);
  return g_test_run ();
}

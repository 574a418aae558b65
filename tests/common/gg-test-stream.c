/* gg-test-stream.c: the socket-pair and pipe stream fixture of
 * gg-test-stream.h, shared by the framed-stream and JSON-RPC peer tests.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>

#include "gg-test-stream.h"

static void
set_nonblocking (int fd)
{
  g_assert_true (g_unix_set_fd_nonblocking (fd, TRUE, NULL));
}

GIOStream *
gg_test_stream_pair_open_socket (GgTestStreamPair *pair)
{
  int sv[2];
  g_autoptr(GSocket) sock = NULL;

  memset (pair, 0, sizeof *pair);
  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), ==, 0);
  sock = g_socket_new_from_fd (sv[0], NULL);
  g_assert_nonnull (sock);
  pair->write_fd = sv[1];
  pair->read_fd = sv[1];
  set_nonblocking (pair->write_fd);
  pair->received = g_string_new (NULL);
  return G_IO_STREAM (g_socket_connection_factory_create_connection (sock));
}

void
gg_test_stream_pair_open_pipes (GgTestStreamPair *pair,
                                GInputStream    **input,
                                GOutputStream   **output)
{
  int in[2], out[2];

  memset (pair, 0, sizeof *pair);
  g_assert_true (g_unix_open_pipe (in, FD_CLOEXEC, NULL));
  g_assert_true (g_unix_open_pipe (out, FD_CLOEXEC, NULL));
  *input = g_unix_input_stream_new (in[0], TRUE);
  *output = g_unix_output_stream_new (out[1], TRUE);
  pair->write_fd = in[1];
  pair->read_fd = out[0];
  set_nonblocking (pair->write_fd);
  set_nonblocking (pair->read_fd);
  pair->received = g_string_new (NULL);
}

void
gg_test_stream_pair_clear (GgTestStreamPair *pair)
{
  /* Let cancelled operations finish before the next test. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  if (pair->write_fd >= 0)
    close (pair->write_fd);
  if (pair->read_fd != pair->write_fd && pair->read_fd >= 0)
    close (pair->read_fd);
  pair->write_fd = pair->read_fd = -1;
  if (pair->received != NULL)
    g_string_free (pair->received, TRUE);
  pair->received = NULL;
}

static gboolean
tick_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

void
gg_test_stream_pair_spin_until (GgTestStreamPair *pair,
                                gboolean        (*check) (gpointer data),
                                gpointer          data)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  guint tick = g_timeout_add (5, tick_cb, NULL);

  while (!check (data))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
      /* collect whatever the library side wrote */
      for (;;)
        {
          char buf[65536];
          ssize_t n = read (pair->read_fd, buf, sizeof buf);

          if (n <= 0)
            break;
          g_string_append_len (pair->received, buf, n);
        }
    }
  g_source_remove (tick);
}

static gboolean
drained (gpointer data)
{
  return !g_main_context_pending (NULL);
}

void
gg_test_stream_pair_spin_idle (GgTestStreamPair *pair)
{
  for (int i = 0; i < 3; i++)
    {
      gg_test_stream_pair_spin_until (pair, drained, NULL);
      g_usleep (1000);
    }
  gg_test_stream_pair_spin_until (pair, drained, NULL);
}

void
gg_test_stream_pair_feed (GgTestStreamPair *pair,
                          const char       *data,
                          gsize             len)
{
  gsize done = 0;

  while (done < len)
    {
      ssize_t n = write (pair->write_fd, data + done, len - done);

      if (n < 0)
        {
          if (errno != EAGAIN && errno != EINTR)
            g_error ("write: %s", g_strerror (errno));
          g_main_context_iteration (NULL, FALSE);
          continue;
        }
      done += (gsize) n;
    }
}

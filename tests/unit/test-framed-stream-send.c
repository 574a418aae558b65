/* test-framed-stream-send.c: GgFramedStream writing and closing: both framings
 * out, close and dispose at every point (in a handler, while reading),
 * flushes cancelled or nested, write errors, too large, back-pressure.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>

#include "framed-stream-test.h"

/* Output */

static void
flush_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (gg_framed_stream_flush_finish (GG_FRAMED_STREAM (source), result, &error));
  g_assert_no_error (error);
  *done = TRUE;
}

static gboolean
flag_set (Fixture *f, gpointer data)
{
  return *(gboolean *) data;
}

static void
test_send_newline (void)
{
  Fixture f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) want = g_string_new (NULL);
  gboolean flushed = FALSE;

  setup_socket (&f, GG_FRAMING_NEWLINE);
  gg_framed_stream_start (f.fs);
  for (int i = 0; i < 2000; i++)
    {
      g_autofree char *msg = g_strdup_printf ("{\"seq\":%d}", i);

      g_assert_true (gg_framed_stream_send (f.fs, msg, strlen (msg), &error));
      g_assert_no_error (error);
      g_string_append_printf (want, "%s\n", msg);
    }
  g_assert_cmpuint (gg_framed_stream_get_pending_output (f.fs), >, 0);
  g_assert_false (gg_framed_stream_send (f.fs, "a\nb", 3, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  gg_framed_stream_flush_async (f.fs, NULL, flush_cb, &flushed);
  spin_until (&f, flag_set, &flushed);
  g_assert_cmpuint (gg_framed_stream_get_pending_output (f.fs), ==, 0);
  spin_until (&f, received_len, GSIZE_TO_POINTER (want->len));
  g_assert_cmpstr (f.pair.received->str, ==, want->str);

  /* flushing an empty queue completes at once */
  flushed = FALSE;
  gg_framed_stream_flush_async (f.fs, NULL, flush_cb, &flushed);
  spin_until (&f, flag_set, &flushed);
  fixture_free (&f);
}

static void
test_send_content_length (void)
{
  Fixture f = { 0 };
  g_autoptr(GError) error = NULL;
  const char *want = "Content-Length: 7\r\n\r\n{\"a\":1}Content-Length: 4\r\n\r\na\nb\n";

  setup_socket (&f, GG_FRAMING_CONTENT_LENGTH);
  g_assert_true (gg_framed_stream_send (f.fs, "{\"a\":1}", 7, &error));
  g_assert_true (gg_framed_stream_send (f.fs, "a\nb\n", 4, &error));
  g_assert_no_error (error);
  spin_until (&f, received_len, GSIZE_TO_POINTER (strlen (want)));
  g_assert_cmpstr (f.pair.received->str, ==, want);
  fixture_free (&f);
}

static gboolean
peer_saw_eof (Fixture *f, gpointer data)
{
  char c;
  ssize_t n = recv (f->pair.write_fd, &c, 1, MSG_PEEK);

  return n == 0;
}

static void
test_close (void)
{
  Fixture f = { 0 };
  g_autoptr(GError) error = NULL;

  setup_socket (&f, GG_FRAMING_NEWLINE);
  gg_framed_stream_start (f.fs);
  g_assert_true (gg_framed_stream_send (f.fs, "last", 4, &error));
  gg_framed_stream_close (f.fs);
  g_assert_cmpuint (f.closed, ==, 1);
  g_assert_true (gg_framed_stream_is_closed (f.fs));
  gg_framed_stream_close (f.fs);
  g_assert_cmpuint (f.closed, ==, 1);

  g_assert_false (gg_framed_stream_send (f.fs, "more", 4, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED);

  /* the queued message still goes out, then the socket closes */
  spin_until (&f, received_len, GSIZE_TO_POINTER (5));
  g_assert_cmpstr (f.pair.received->str, ==, "last\n");
  spin_until (&f, peer_saw_eof, NULL);
  spin_idle (&f);
  g_assert_cmpuint (f.messages->len, ==, 0);
  g_assert_cmpuint (f.closed, ==, 1);
  fixture_free (&f);
}

static void
test_unref_in_handler (void)
{
  Fixture f = { 0 };

  setup_socket (&f, GG_FRAMING_NEWLINE);
  gg_framed_stream_start (f.fs);
  f.unref_in_handler = TRUE;
  feed_str (&f, "first\nsecond\nthird\n");
  spin_until (&f, has_messages, GUINT_TO_POINTER (1));
  spin_idle (&f);
  g_assert_null (f.fs);
  g_assert_cmpuint (f.messages->len, ==, 1);
  g_assert_cmpuint (f.closed, ==, 0);
  fixture_free (&f);
}

static void
test_dispose_while_reading (void)
{
  Fixture f = { 0 };

  setup_socket (&f, GG_FRAMING_CONTENT_LENGTH);
  gg_framed_stream_start (f.fs);
  feed_str (&f, "Content-Length: 100\r\n\r\npartial");
  spin_idle (&f);
  g_object_run_dispose (G_OBJECT (f.fs));
  feed_str (&f, "more");
  spin_idle (&f);
  g_assert_cmpuint (f.messages->len, ==, 0);
  g_assert_cmpuint (f.closed, ==, 0);
  fixture_free (&f);
}

static void
test_close_in_handler (void)
{
  Fixture f = { 0 };

  setup_socket (&f, GG_FRAMING_NEWLINE);
  gg_framed_stream_start (f.fs);
  f.close_in_handler = TRUE;
  feed_str (&f, "first\nsecond\nthird\n");
  spin_until (&f, is_closed, NULL);
  spin_idle (&f);
  g_assert_cmpuint (f.messages->len, ==, 1);
  g_assert_cmpuint (f.closed, ==, 1);
  g_assert_no_error (f.closed_error);
  fixture_free (&f);
}

static void
flush_fails_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GError **out = user_data;

  g_assert_false (gg_framed_stream_flush_finish (GG_FRAMED_STREAM (source), result, out));
  g_assert_nonnull (*out);
}

static void
flush_cancelled_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_false (gg_framed_stream_flush_finish (GG_FRAMED_STREAM (source), result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  *done = TRUE;
}

/* Nobody reads: the flush waits until cancelled; later the output drains. */
static void
test_flush_cancel (void)
{
  Fixture f = { 0 };
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *chunk = g_strnfill (65536, 'c');
  gboolean cancelled = FALSE, flushed = FALSE;
  gsize total = 0;

  setup_socket (&f, GG_FRAMING_NEWLINE);
  for (int i = 0; i < 64; i++)
    {
      g_assert_true (gg_framed_stream_send (f.fs, chunk, strlen (chunk), NULL));
      total += strlen (chunk) + 1;
    }
  gg_framed_stream_flush_async (f.fs, cancellable, flush_cancelled_cb, &cancelled);
  for (int i = 0; i < 10; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_false (cancelled);
  g_cancellable_cancel (cancellable);
  while (!cancelled)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (gg_framed_stream_get_pending_output (f.fs), >, 0);

  gg_framed_stream_flush_async (f.fs, NULL, flush_cb, &flushed);
  spin_until (&f, flag_set, &flushed);
  spin_until (&f, received_len, GSIZE_TO_POINTER (total));
  g_assert_cmpuint (f.pair.received->len, ==, total);
  fixture_free (&f);
}

/* The reader went away: writes fail (SIGPIPE ignored as gamegate does), flush
 * and send report it. */
static void
test_write_error (gconstpointer data)
{
  Fixture f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *chunk = g_strnfill (65536, 'w');

  if (GPOINTER_TO_INT (data))
    setup_pipes (&f, GG_FRAMING_NEWLINE);
  else
    setup_socket (&f, GG_FRAMING_NEWLINE);
  close (f.pair.read_fd);
  if (f.pair.read_fd == f.pair.write_fd)
    f.pair.write_fd = -1;
  f.pair.read_fd = -1;

  for (int i = 0; i < 64; i++)
    g_assert_true (gg_framed_stream_send (f.fs, chunk, strlen (chunk), NULL));
  gg_framed_stream_flush_async (f.fs, NULL, flush_fails_cb, &error);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (error->domain == G_IO_ERROR);
  g_clear_error (&error);
  g_assert_false (gg_framed_stream_send (f.fs, "x", 1, &error));
  g_assert_nonnull (error);
  fixture_free (&f);
}

typedef struct {
  Fixture *f;
  guint    completed;
  GError  *second_error;
} Reflush;

static void
reflush_second_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Reflush *r = user_data;

  g_assert_false (gg_framed_stream_flush_finish (GG_FRAMED_STREAM (source), result,
                                                 &r->second_error));
  r->completed++;
}

static void
reflush_first_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Reflush *r = user_data;
  GgFramedStream *fs = GG_FRAMED_STREAM (source);

  g_assert_true (gg_framed_stream_flush_finish (fs, result, NULL));
  r->completed++;
  /* The reader goes away, then a send and a flush from the callback: the
   * new flush waits for the new write, which fails; it must not complete
   * successfully together with the waiter being completed now. */
  close (r->f->pair.write_fd);
  r->f->pair.write_fd = r->f->pair.read_fd = -1;
  g_assert_true (gg_framed_stream_send (fs, "second", 6, NULL));
  gg_framed_stream_flush_async (fs, NULL, reflush_second_cb, r);
}

static void
test_flush_from_flush_callback (void)
{
  Fixture f = { 0 };
  Reflush r = { &f, 0, NULL };

  setup_socket (&f, GG_FRAMING_NEWLINE);
  g_assert_true (gg_framed_stream_send (f.fs, "first", 5, NULL));
  gg_framed_stream_flush_async (f.fs, NULL, reflush_first_cb, &r);
  while (r.completed < 2)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (r.second_error);
  g_assert_true (r.second_error->domain == G_IO_ERROR);
  g_clear_error (&r.second_error);
  fixture_free (&f);
}

/* A message the output queue cannot hold is refused, not truncated (the
 * queue is a GByteArray, limited to G_MAXUINT bytes). */
static void
test_send_too_large (void)
{
#if GLIB_SIZEOF_SIZE_T > 4
  Fixture f = { 0 };
  g_autoptr(GError) error = NULL;
  gsize size = (gsize) G_MAXUINT + 16;
  void *huge = mmap (NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

  if (huge == MAP_FAILED)
    {
      g_test_skip ("cannot map 4 GiB of address space");
      return;
    }
  setup_socket (&f, GG_FRAMING_CONTENT_LENGTH);
  g_assert_false (gg_framed_stream_send (f.fs, huge, size, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  g_assert_cmpuint (gg_framed_stream_get_pending_output (f.fs), ==, 0);
  /* the stream still works */
  g_assert_true (gg_framed_stream_send (f.fs, "ok", 2, NULL));
  spin_until (&f, received_len, GSIZE_TO_POINTER (23));
  g_assert_cmpstr (f.pair.received->str, ==, "Content-Length: 2\r\n\r\nok");
  munmap (huge, size);
  fixture_free (&f);
#else
  g_test_skip ("needs a 64-bit address space");
#endif
}

/* A peer that keeps sending but never reads what we write: once the output
 * backlog passes four maximum-size messages (at least 1 MiB), its input is
 * no longer read, so memory stays bounded; reading resumes once the output
 * has drained. */
static void
test_output_backpressure (void)
{
  Fixture f = { 0 };
  g_autofree char *chunk = g_strnfill (64 * 1024, 'o');
  const char *first[] = { "a", NULL };
  const char *both[] = { "a", "b", NULL };
  gsize total = 0;

  setup_socket (&f, GG_FRAMING_NEWLINE);
  gg_framed_stream_set_max_message_size (f.fs, 1024);
  gg_framed_stream_start (f.fs);
  for (int i = 0; i < 32; i++)
    {
      g_assert_true (gg_framed_stream_send (f.fs, chunk, strlen (chunk), NULL));
      total += strlen (chunk) + 1;
    }
  g_assert_cmpuint (gg_framed_stream_get_pending_output (f.fs), >, 1024 * 1024);

  /* The read started before the backlog completes; the next is not made.
   * (spin_until would drain our socket, so iterate by hand.) */
  feed_str (&f, "a\n");
  while (f.messages->len < 1)
    g_main_context_iteration (NULL, TRUE);
  feed_str (&f, "b\n");
  for (int i = 0; i < 50; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_cmpuint (f.messages->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f.messages, 0), ==, first[0]);

  /* Reading our output lets theirs in again. */
  spin_until (&f, received_len, GSIZE_TO_POINTER (total));
  assert_messages (&f, both);
  g_assert_cmpuint (f.pair.received->len, ==, total);
  fixture_free (&f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* As gamegate does: a reader gone is a write error (test_write_error). */
  signal (SIGPIPE, SIG_IGN);

  g_test_add_func ("/framed-stream/send/newline", test_send_newline);
  g_test_add_func ("/framed-stream/send/content-length", test_send_content_length);
  g_test_add_func ("/framed-stream/close", test_close);
  g_test_add_func ("/framed-stream/unref-in-handler", test_unref_in_handler);
  g_test_add_func ("/framed-stream/close-in-handler", test_close_in_handler);
  g_test_add_func ("/framed-stream/flush-cancel", test_flush_cancel);
  g_test_add_data_func ("/framed-stream/write-error/socket", GINT_TO_POINTER (0), test_write_error);
  g_test_add_data_func ("/framed-stream/write-error/pipe", GINT_TO_POINTER (1), test_write_error);
  g_test_add_func ("/framed-stream/dispose-while-reading", test_dispose_while_reading);
  g_test_add_func ("/framed-stream/flush-from-flush-callback", test_flush_from_flush_callback);
  g_test_add_func ("/framed-stream/send/too-large", test_send_too_large);
  g_test_add_func ("/framed-stream/output-backpressure", test_output_backpressure);

  return g_test_run ();
}

/* framed-stream-test.c: the helpers of framed-stream-test.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "framed-stream-test.h"

void
on_message (GgFramedStream *fs, GBytes *body, gpointer user_data)
{
  Fixture *f = user_data;
  gsize len;
  const char *data = g_bytes_get_data (body, &len);

  g_ptr_array_add (f->messages, g_strndup (data != NULL ? data : "", len));
  if (f->close_in_handler)
    {
      f->close_in_handler = FALSE;
      gg_framed_stream_close (f->fs);
    }
  if (f->unref_in_handler)
    {
      f->unref_in_handler = FALSE;
      g_clear_object (&f->fs);
    }
}

void
on_framing_error (GgFramedStream *fs, const GError *error, gpointer user_data)
{
  Fixture *f = user_data;

  g_assert_true (error->domain == GG_FRAMING_ERROR);
  g_ptr_array_add (f->errors, g_error_copy (error));
}

void
on_closed (GgFramedStream *fs, const GError *error, gpointer user_data)
{
  Fixture *f = user_data;

  f->closed++;
  if (error != NULL)
    f->closed_error = g_error_copy (error);
}

void
connect_signals (Fixture *f)
{
  g_signal_connect (f->fs, "message", G_CALLBACK (on_message), f);
  g_signal_connect (f->fs, "framing-error", G_CALLBACK (on_framing_error), f);
  g_signal_connect (f->fs, "closed", G_CALLBACK (on_closed), f);
}

void
fixture_init (Fixture *f)
{
  f->messages = g_ptr_array_new_with_free_func (g_free);
  f->errors = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
}

/* A socketpair; the library side wrapped in a GSocketConnection. */
void
setup_socket (Fixture *f, GgFraming framing)
{
  g_autoptr(GIOStream) conn = gg_test_stream_pair_open_socket (&f->pair);

  fixture_init (f);
  f->fs = gg_framed_stream_new_for_io_stream (conn, framing);
  connect_signals (f);
}

/* Two pipes wrapped in GUnixInputStream / GUnixOutputStream (stdio-like). */
void
setup_pipes (Fixture *f, GgFraming framing)
{
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;

  gg_test_stream_pair_open_pipes (&f->pair, &input, &output);
  fixture_init (f);
  f->fs = gg_framed_stream_new (input, output, framing);
  connect_signals (f);
}

void
fixture_free (Fixture *f)
{
  g_clear_object (&f->fs);
  gg_test_stream_pair_clear (&f->pair);
  g_ptr_array_unref (f->messages);
  g_ptr_array_unref (f->errors);
  g_clear_error (&f->closed_error);
}

gboolean
cond_call (gpointer data)
{
  CondCall *call = data;

  return call->cond (call->f, call->data);
}

/* Runs the main loop until @cond holds; fails the test after 10 s. */
void
spin_until (Fixture *f, Cond cond, gpointer data)
{
  CondCall call = { f, cond, data };

  gg_test_stream_pair_spin_until (&f->pair, cond_call, &call);
}

gboolean
drained (Fixture *f, gpointer data)
{
  return !g_main_context_pending (NULL);
}

void
spin_idle (Fixture *f)
{
  gg_test_stream_pair_spin_idle (&f->pair);
}

/* Writes raw bytes, running the loop while the socket buffer is full. */
void
feed (Fixture *f, const char *data, gsize len)
{
  gg_test_stream_pair_feed (&f->pair, data, len);
}

void
feed_str (Fixture *f, const char *s)
{
  feed (f, s, strlen (s));
}

/* One byte per read: spin after each byte. */
void
feed_bytewise (Fixture *f, const char *s)
{
  for (const char *p = s; *p != '\0'; p++)
    {
      feed (f, p, 1);
      spin_until (f, drained, NULL);
    }
}

void
end_input (Fixture *f)
{
  if (f->pair.write_fd == f->pair.read_fd)
    g_assert_cmpint (shutdown (f->pair.write_fd, SHUT_WR), ==, 0);
  else
    {
      close (f->pair.write_fd);
      f->pair.write_fd = -1;
    }
}

gboolean
has_messages (Fixture *f, gpointer data)
{
  return f->messages->len >= GPOINTER_TO_UINT (data);
}

gboolean
has_errors (Fixture *f, gpointer data)
{
  return f->errors->len >= GPOINTER_TO_UINT (data);
}

gboolean
is_closed (Fixture *f, gpointer data)
{
  return f->closed > 0;
}

gboolean
received_len (Fixture *f, gpointer data)
{
  return f->pair.received->len >= GPOINTER_TO_SIZE (data);
}

void
assert_messages (Fixture *f, const char *const *expected)
{
  guint n = g_strv_length ((char **) expected);

  spin_until (f, has_messages, GUINT_TO_POINTER (n));
  spin_idle (f);
  g_assert_cmpuint (f->messages->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr (g_ptr_array_index (f->messages, i), ==, expected[i]);
}

void
assert_error (Fixture *f, guint index, GgFramingError code)
{
  spin_until (f, has_errors, GUINT_TO_POINTER (index + 1));
  const GError *error = g_ptr_array_index (f->errors, index);

  g_assert_error (error, GG_FRAMING_ERROR, (gint) code);
}

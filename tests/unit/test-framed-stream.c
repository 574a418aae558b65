/* test-framed-stream.c: GgFramedStream over real sockets and pipes, fed raw
 * bytes by the test, in both framings.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>

#include "gg-test-stream.h"
#include "gg-test-util.h"

typedef struct {
  GgTestStreamPair pair;        /* our end: raw writes, what the stream wrote */
  GgFramedStream  *fs;
  GPtrArray       *messages;    /* char *, NUL-terminated copies */
  GPtrArray       *errors;      /* GError * */
  guint            closed;
  GError          *closed_error;
  gboolean         unref_in_handler;
  gboolean         close_in_handler;
} Fixture;

static void
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

static void
on_framing_error (GgFramedStream *fs, const GError *error, gpointer user_data)
{
  Fixture *f = user_data;

  g_assert_true (error->domain == GG_FRAMING_ERROR);
  g_ptr_array_add (f->errors, g_error_copy (error));
}

static void
on_closed (GgFramedStream *fs, const GError *error, gpointer user_data)
{
  Fixture *f = user_data;

  f->closed++;
  if (error != NULL)
    f->closed_error = g_error_copy (error);
}

static void
connect_signals (Fixture *f)
{
  g_signal_connect (f->fs, "message", G_CALLBACK (on_message), f);
  g_signal_connect (f->fs, "framing-error", G_CALLBACK (on_framing_error), f);
  g_signal_connect (f->fs, "closed", G_CALLBACK (on_closed), f);
}

static void
fixture_init (Fixture *f)
{
  f->messages = g_ptr_array_new_with_free_func (g_free);
  f->errors = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
}

/* A socketpair; the library side wrapped in a GSocketConnection. */
static void
setup_socket (Fixture *f, GgFraming framing)
{
  g_autoptr(GIOStream) conn = gg_test_stream_pair_open_socket (&f->pair);

  fixture_init (f);
  f->fs = gg_framed_stream_new_for_io_stream (conn, framing);
  connect_signals (f);
}

/* Two pipes wrapped in GUnixInputStream / GUnixOutputStream (stdio-like). */
static void
setup_pipes (Fixture *f, GgFraming framing)
{
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;

  gg_test_stream_pair_open_pipes (&f->pair, &input, &output);
  fixture_init (f);
  f->fs = gg_framed_stream_new (input, output, framing);
  connect_signals (f);
}

static void
fixture_free (Fixture *f)
{
  g_clear_object (&f->fs);
  gg_test_stream_pair_clear (&f->pair);
  g_ptr_array_unref (f->messages);
  g_ptr_array_unref (f->errors);
  g_clear_error (&f->closed_error);
}

typedef gboolean (*Cond) (Fixture *f, gpointer data);

typedef struct {
  Fixture *f;
  Cond     cond;
  gpointer data;
} CondCall;

static gboolean
cond_call (gpointer data)
{
  CondCall *call = data;

  return call->cond (call->f, call->data);
}

/* Runs the main loop until @cond holds; fails the test after 10 s. */
static void
spin_until (Fixture *f, Cond cond, gpointer data)
{
  CondCall call = { f, cond, data };

  gg_test_stream_pair_spin_until (&f->pair, cond_call, &call);
}

static gboolean
drained (Fixture *f, gpointer data)
{
  return !g_main_context_pending (NULL);
}

static void
spin_idle (Fixture *f)
{
  gg_test_stream_pair_spin_idle (&f->pair);
}

/* Writes raw bytes, running the loop while the socket buffer is full. */
static void
feed (Fixture *f, const char *data, gsize len)
{
  gg_test_stream_pair_feed (&f->pair, data, len);
}

static void
feed_str (Fixture *f, const char *s)
{
  feed (f, s, strlen (s));
}

/* One byte per read: spin after each byte. */
static void
feed_bytewise (Fixture *f, const char *s)
{
  for (const char *p = s; *p != '\0'; p++)
    {
      feed (f, p, 1);
      spin_until (f, drained, NULL);
    }
}

static void
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

static gboolean
has_messages (Fixture *f, gpointer data)
{
  return f->messages->len >= GPOINTER_TO_UINT (data);
}

static gboolean
has_errors (Fixture *f, gpointer data)
{
  return f->errors->len >= GPOINTER_TO_UINT (data);
}

static gboolean
is_closed (Fixture *f, gpointer data)
{
  return f->closed > 0;
}

static gboolean
received_len (Fixture *f, gpointer data)
{
  return f->pair.received->len >= GPOINTER_TO_SIZE (data);
}

static void
assert_messages (Fixture *f, const char *const *expected)
{
  guint n = g_strv_length ((char **) expected);

  spin_until (f, has_messages, GUINT_TO_POINTER (n));
  spin_idle (f);
  g_assert_cmpuint (f->messages->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr (g_ptr_array_index (f->messages, i), ==, expected[i]);
}

static void
assert_error (Fixture *f, guint index, GgFramingError code)
{
  spin_until (f, has_errors, GUINT_TO_POINTER (index + 1));
  const GError *error = g_ptr_array_index (f->errors, index);

  g_assert_error (error, GG_FRAMING_ERROR, (gint) code);
}

/* Newline framing */

static void
test_newline_basic (void)
{
  Fixture f = { 0 };
  const char *expected[] = { "a", "b", "{\"x\": 1}", "  x  ", NULL };

  setup_socket (&f, GG_FRAMING_NEWLINE);
  g_assert_cmpint (gg_framed_stream_get_framing (f.fs), ==, GG_FRAMING_NEWLINE);
  gg_framed_stream_start (f.fs);
  feed_str (&f, "a\nb\r\n\n   \r\n\t\n{\"x\": 1}\n  x  \n");
  assert_messages (&f, expected);
  g_assert_cmpuint (f.errors->len, ==, 0);
  g_assert_cmpuint (f.closed, ==, 0);
  g_assert_false (gg_framed_stream_is_closed (f.fs));

  end_input (&f);
  spin_until (&f, is_closed, NULL);
  g_assert_no_error (f.closed_error);
  g_assert_cmpuint (f.errors->len, ==, 0);
  g_assert_true (gg_framed_stream_is_closed (f.fs));
  fixture_free (&f);
}

static void
test_newline_many_per_read (void)
{
  Fixture f = { 0 };
  g_autoptr(GString) all = g_string_new (NULL);

  setup_socket (&f, GG_FRAMING_NEWLINE);
  for (int i = 0; i < 5000; i++)
    g_string_append_printf (all, "{\"n\":%d}\n", i);
  feed (&f, all->str, all->len);
  gg_framed_stream_start (f.fs);
  spin_until (&f, has_messages, GUINT_TO_POINTER (5000));
  for (int i = 0; i < 5000; i++)
    {
      g_autofree char *want = g_strdup_printf ("{\"n\":%d}", i);
      g_assert_cmpstr (g_ptr_array_index (f.messages, i), ==, want);
    }
  fixture_free (&f);
}

static void
test_newline_bytewise (void)
{
  Fixture f = { 0 };
  const char *expected[] = { "hello", "{\"a\":[1,2]}", NULL };

  setup_socket (&f, GG_FRAMING_NEWLINE);
  gg_framed_stream_start (f.fs);
  feed_bytewise (&f, "hello\r\n\r\n{\"a\":[1,2]}\n");
  assert_messages (&f, expected);
  fixture_free (&f);
}

static void
test_newline_oversized (void)
{
  Fixture f = { 0 };
  const char *expected[] = { "0123456789", "ok", "0123456789", "fine", "end", NULL };
  g_autofree char *huge = g_strnfill (100000, 'x');

  setup_socket (&f, GG_FRAMING_NEWLINE);
  gg_framed_stream_set_max_message_size (f.fs, 10);
  g_assert_cmpuint (gg_framed_stream_get_max_message_size (f.fs), ==, 10);
  gg_framed_stream_start (f.fs);
  /* exactly the limit, limit + 1, the limit with a tolerated `\r` */
  feed_str (&f, "0123456789\n01234567890\nok\n0123456789\r\n");
  spin_until (&f, has_messages, GUINT_TO_POINTER (3));
  assert_error (&f, 0, GG_FRAMING_ERROR_TOO_LARGE);

  /* an oversized line arriving over many reads is skipped to its newline */
  feed (&f, huge, strlen (huge));
  spin_idle (&f);
  feed_str (&f, "yyy\nfine\n");
  assert_error (&f, 1, GG_FRAMING_ERROR_TOO_LARGE);
  feed_str (&f, "end\n");
  assert_messages (&f, expected);
  g_assert_cmpuint (f.errors->len, ==, 2);
  g_assert_cmpuint (f.closed, ==, 0);
  fixture_free (&f);
}

static void
test_newline_truncated (void)
{
  Fixture f = { 0 };
  const char *expected[] = { "one", NULL };

  setup_socket (&f, GG_FRAMING_NEWLINE);
  gg_framed_stream_start (f.fs);
  feed_str (&f, "one\n{\"partial\":");
  end_input (&f);
  spin_until (&f, is_closed, NULL);
  assert_messages (&f, expected);
  g_assert_cmpuint (f.errors->len, ==, 1);
  assert_error (&f, 0, GG_FRAMING_ERROR_TRUNCATED);
  g_assert_cmpuint (f.closed, ==, 1);
  g_assert_no_error (f.closed_error);
  fixture_free (&f);
}

static void
test_newline_blank_tail (void)
{
  Fixture f = { 0 };

  setup_socket (&f, GG_FRAMING_NEWLINE);
  gg_framed_stream_start (f.fs);
  feed_str (&f, "x\n  \r");
  end_input (&f);
  spin_until (&f, is_closed, NULL);
  g_assert_cmpuint (f.messages->len, ==, 1);
  g_assert_cmpuint (f.errors->len, ==, 0);
  fixture_free (&f);
}

static void
test_newline_pipes (void)
{
  Fixture f = { 0 };
  const char *expected[] = { "in-1", "in-2", NULL };
  g_autoptr(GError) error = NULL;

  setup_pipes (&f, GG_FRAMING_NEWLINE);
  gg_framed_stream_start (f.fs);
  feed_str (&f, "in-1\nin-2\n");
  assert_messages (&f, expected);
  g_assert_true (gg_framed_stream_send (f.fs, "out-1", 5, &error));
  g_assert_no_error (error);
  g_assert_true (gg_framed_stream_send (f.fs, "out-2", 5, &error));
  spin_until (&f, received_len, GSIZE_TO_POINTER (12));
  g_assert_cmpstr (f.pair.received->str, ==, "out-1\nout-2\n");
  end_input (&f);
  spin_until (&f, is_closed, NULL);
  fixture_free (&f);
}

/* Content-Length framing */

static void
test_cl_basic (void)
{
  Fixture f = { 0 };
  const char *expected[] = { "hello", "abc", "hi", "", "{\"z\":0}", NULL };

  setup_socket (&f, GG_FRAMING_CONTENT_LENGTH);
  gg_framed_stream_start (f.fs);
  feed_str (&f,
            "Content-Length: 5\r\n\r\nhello"
            "content-length:3\nContent-Type: application/vscode-jsonrpc; charset=utf-8\n\nabc"
            "X-Unknown: whatever\r\nCONTENT-LENGTH: \t2 \r\n\r\nhi"
            "Content-Length: 0\r\n\r\n"
            "\r\n\r\n" /* stray blank lines between messages */
            "Content-Length: 7\r\nContent-Length: 7\r\n\r\n{\"z\":0}");
  assert_messages (&f, expected);
  g_assert_cmpuint (f.errors->len, ==, 0);
  fixture_free (&f);
}

static void
test_cl_bytewise (void)
{
  Fixture f = { 0 };
  const char *expected[] = { "{\"a\":1}", "xy", NULL };

  setup_socket (&f, GG_FRAMING_CONTENT_LENGTH);
  gg_framed_stream_start (f.fs);
  feed_bytewise (&f, "Content-Length: 7\r\nContent-Type: x\r\n\r\n{\"a\":1}Content-Length: 2\n\nxy");
  assert_messages (&f, expected);
  g_assert_cmpuint (f.errors->len, ==, 0);
  fixture_free (&f);
}

static void
test_cl_split_headers (void)
{
  Fixture f = { 0 };
  const char *expected[] = { "12345", NULL };

  setup_socket (&f, GG_FRAMING_CONTENT_LENGTH);
  gg_framed_stream_start (f.fs);
  feed_str (&f, "Content-Le");
  spin_idle (&f);
  feed_str (&f, "ngth: 5\r");
  spin_idle (&f);
  feed_str (&f, "\n\r");
  spin_idle (&f);
  feed_str (&f, "\n123");
  spin_idle (&f);
  g_assert_cmpuint (f.messages->len, ==, 0);
  feed_str (&f, "45");
  assert_messages (&f, expected);
  fixture_free (&f);
}

static void
test_cl_many_per_read (void)
{
  Fixture f = { 0 };
  g_autoptr(GString) all = g_string_new (NULL);

  setup_socket (&f, GG_FRAMING_CONTENT_LENGTH);
  for (int i = 0; i < 3000; i++)
    {
      g_autofree char *body = g_strdup_printf ("{\"n\":%d}", i);
      g_string_append_printf (all, "Content-Length: %zu\r\n\r\n%s", strlen (body), body);
    }
  feed (&f, all->str, all->len);
  gg_framed_stream_start (f.fs);
  spin_until (&f, has_messages, GUINT_TO_POINTER (3000));
  g_assert_cmpstr (g_ptr_array_index (f.messages, 2999), ==, "{\"n\":2999}");
  g_assert_cmpuint (f.errors->len, ==, 0);
  fixture_free (&f);
}

static void
test_cl_large (void)
{
  Fixture f = { 0 };
  gsize size = 3 * 1024 * 1024 + 17;
  g_autofree char *body = g_strnfill (size, 'q');
  g_autofree char *header = g_strdup_printf ("Content-Length: %zu\r\n\r\n", size);

  setup_socket (&f, GG_FRAMING_CONTENT_LENGTH);
  gg_framed_stream_start (f.fs);
  feed_str (&f, header);
  feed (&f, body, size);
  feed_str (&f, "Content-Length: 1\r\n\r\n!");
  spin_until (&f, has_messages, GUINT_TO_POINTER (2));
  g_assert_cmpstr (g_ptr_array_index (f.messages, 0), ==, body);
  g_assert_cmpstr (g_ptr_array_index (f.messages, 1), ==, "!");
  fixture_free (&f);
}

static void
test_cl_oversized (void)
{
  Fixture f = { 0 };
  const char *expected[] = { "0123456789", "ok", "after", NULL };

  setup_socket (&f, GG_FRAMING_CONTENT_LENGTH);
  gg_framed_stream_set_max_message_size (f.fs, 10);
  gg_framed_stream_start (f.fs);
  feed_str (&f,
            "Content-Length: 10\r\n\r\n0123456789"
            "Content-Length: 11\r\n\r\n01234567890"
            "Content-Length: 2\r\n\r\nok"
            /* a valid but huge length: its body is skipped as it arrives */
            "Content-Length: 40\r\n\r\n");
  spin_until (&f, has_messages, GUINT_TO_POINTER (2));
  assert_error (&f, 0, GG_FRAMING_ERROR_TOO_LARGE);
  assert_error (&f, 1, GG_FRAMING_ERROR_TOO_LARGE);
  feed_str (&f, "0123456789012345678901234567890123456789");
  feed_str (&f, "Content-Length: 5\r\n\r\nafter");
  assert_messages (&f, expected);
  g_assert_cmpuint (f.errors->len, ==, 2);
  fixture_free (&f);
}

static void
test_cl_bad_headers (void)
{
  Fixture f = { 0 };
  const char *expected[] = { "m1", "m2", "m3", "m4", "m5", "m6", "m7", NULL };
  const char *bad[] = {
    "Content-Type: application/json\r\n\r\n",           /* missing length */
    "Content-Length: -5\r\n\r\n",                       /* negative */
    "Content-Length: abc\r\n\r\n",                      /* not a number */
    "Content-Length: 99999999999999999999999\r\n\r\n",  /* overflows */
    "Content-Length: 0x10\r\n\r\n",
    "Content-Length: 2\r\nContent-Length: 3\r\n\r\n",   /* conflicting */
    "garbage without a colon\r\n\r\n",
  };

  setup_socket (&f, GG_FRAMING_CONTENT_LENGTH);
  gg_framed_stream_start (f.fs);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *good = g_strdup_printf ("Content-Length: 2\r\n\r\nm%u", i + 1);

      feed_str (&f, bad[i]);
      feed_str (&f, good);
      assert_error (&f, i, GG_FRAMING_ERROR_BAD_HEADER);
    }
  assert_messages (&f, expected);
  g_assert_cmpuint (f.errors->len, ==, G_N_ELEMENTS (bad));
  g_assert_cmpuint (f.closed, ==, 0);
  fixture_free (&f);
}

static void
test_cl_garbage_resync (void)
{
  Fixture f = { 0 };
  const char *expected[] = { "ok", "ok2", NULL };
  g_autofree char *long_line = g_strnfill (20000, 'h');

  setup_socket (&f, GG_FRAMING_CONTENT_LENGTH);
  gg_framed_stream_start (f.fs);
  /* a body without headers, then a proper message straight after */
  feed_str (&f, "{\"jsonrpc\":\"2.0\"}\r\nContent-Length: 2\r\n\r\nok");
  assert_error (&f, 0, GG_FRAMING_ERROR_BAD_HEADER);
  /* a header line that never ends is cut off, not buffered forever */
  feed (&f, long_line, strlen (long_line));
  assert_error (&f, 1, GG_FRAMING_ERROR_BAD_HEADER);
  feed_str (&f, "\r\nContent-Length: 3\r\n\r\nok2");
  assert_messages (&f, expected);
  fixture_free (&f);
}

static void
test_cl_truncated (void)
{
  const char *inputs[] = {
    "Content-Length: 10\r\n\r\nabc",
    "Content-Length: 10\r\n",
    "Content-Len",
  };

  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      Fixture f = { 0 };

      setup_socket (&f, GG_FRAMING_CONTENT_LENGTH);
      gg_framed_stream_start (f.fs);
      feed_str (&f, inputs[i]);
      end_input (&f);
      spin_until (&f, is_closed, NULL);
      g_assert_cmpuint (f.messages->len, ==, 0);
      g_assert_cmpuint (f.errors->len, ==, 1);
      assert_error (&f, 0, GG_FRAMING_ERROR_TRUNCATED);
      g_assert_cmpuint (f.closed, ==, 1);
      fixture_free (&f);
    }
}

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

/* The reader went away: writes fail (no SIGPIPE), flush and send report it. */
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

/* No effective limit: a line split over reads is still one message (the
 * "limit + 1 for a `\r`" check must not wrap around). */
static void
test_newline_unlimited (void)
{
  Fixture f = { 0 };
  const char *expected[] = { "abcdef", NULL };

  setup_socket (&f, GG_FRAMING_NEWLINE);
  gg_framed_stream_set_max_message_size (f.fs, G_MAXSIZE);
  gg_framed_stream_start (f.fs);
  feed_str (&f, "abc");
  spin_idle (&f);
  feed_str (&f, "def\n");
  assert_messages (&f, expected);
  g_assert_cmpuint (f.errors->len, ==, 0);
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

  g_test_add_func ("/framed-stream/newline/basic", test_newline_basic);
  g_test_add_func ("/framed-stream/newline/many-per-read", test_newline_many_per_read);
  g_test_add_func ("/framed-stream/newline/bytewise", test_newline_bytewise);
  g_test_add_func ("/framed-stream/newline/oversized", test_newline_oversized);
  g_test_add_func ("/framed-stream/newline/truncated", test_newline_truncated);
  g_test_add_func ("/framed-stream/newline/blank-tail", test_newline_blank_tail);
  g_test_add_func ("/framed-stream/newline/pipes", test_newline_pipes);
  g_test_add_func ("/framed-stream/content-length/basic", test_cl_basic);
  g_test_add_func ("/framed-stream/content-length/bytewise", test_cl_bytewise);
  g_test_add_func ("/framed-stream/content-length/split-headers", test_cl_split_headers);
  g_test_add_func ("/framed-stream/content-length/many-per-read", test_cl_many_per_read);
  g_test_add_func ("/framed-stream/content-length/large", test_cl_large);
  g_test_add_func ("/framed-stream/content-length/oversized", test_cl_oversized);
  g_test_add_func ("/framed-stream/content-length/bad-headers", test_cl_bad_headers);
  g_test_add_func ("/framed-stream/content-length/garbage-resync", test_cl_garbage_resync);
  g_test_add_func ("/framed-stream/content-length/truncated", test_cl_truncated);
  g_test_add_func ("/framed-stream/send/newline", test_send_newline);
  g_test_add_func ("/framed-stream/send/content-length", test_send_content_length);
  g_test_add_func ("/framed-stream/close", test_close);
  g_test_add_func ("/framed-stream/unref-in-handler", test_unref_in_handler);
  g_test_add_func ("/framed-stream/close-in-handler", test_close_in_handler);
  g_test_add_func ("/framed-stream/flush-cancel", test_flush_cancel);
  g_test_add_data_func ("/framed-stream/write-error/socket", GINT_TO_POINTER (0), test_write_error);
  g_test_add_data_func ("/framed-stream/write-error/pipe", GINT_TO_POINTER (1), test_write_error);
  g_test_add_func ("/framed-stream/dispose-while-reading", test_dispose_while_reading);
  g_test_add_func ("/framed-stream/newline/unlimited", test_newline_unlimited);
  g_test_add_func ("/framed-stream/flush-from-flush-callback", test_flush_from_flush_callback);
  g_test_add_func ("/framed-stream/send/too-large", test_send_too_large);
  g_test_add_func ("/framed-stream/output-backpressure", test_output_backpressure);

  return g_test_run ();
}

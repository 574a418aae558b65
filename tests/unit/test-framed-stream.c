/* test-framed-stream.c: GgFramedStream reading newline-framed messages over
 * real sockets and pipes, fed raw bytes by the test: several per read, byte
 * by byte, oversized, truncated, blank tails, no limit.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "framed-stream-test.h"

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
  g_test_add_func ("/framed-stream/newline/unlimited", test_newline_unlimited);

  return g_test_run ();
}

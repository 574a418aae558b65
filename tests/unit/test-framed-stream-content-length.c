/* test-framed-stream-content-length.c: GgFramedStream reading Content-Length framed
 * messages: split headers, several per read, large bodies, oversized and bad
 * headers, resynchronising after garbage, truncation.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "framed-stream-test.h"

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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/framed-stream/content-length/basic", test_cl_basic);
  g_test_add_func ("/framed-stream/content-length/bytewise", test_cl_bytewise);
  g_test_add_func ("/framed-stream/content-length/split-headers", test_cl_split_headers);
  g_test_add_func ("/framed-stream/content-length/many-per-read", test_cl_many_per_read);
  g_test_add_func ("/framed-stream/content-length/large", test_cl_large);
  g_test_add_func ("/framed-stream/content-length/oversized", test_cl_oversized);
  g_test_add_func ("/framed-stream/content-length/bad-headers", test_cl_bad_headers);
  g_test_add_func ("/framed-stream/content-length/garbage-resync", test_cl_garbage_resync);
  g_test_add_func ("/framed-stream/content-length/truncated", test_cl_truncated);

  return g_test_run ();
}

/* test-gabp-limits.c: the bounds of gamegate's GABP mod-side server that
 * a bridge's input can reach, through the real `gamegate gabp` on
 * stdin/stdout: at most GG_GABP_SESSION_MAX_SUBSCRIPTIONS channels per
 * session, each name at most GG_GABP_SESSION_MAX_CHANNEL_LENGTH bytes;
 * past either, events/subscribe is -32602 and subscribes nothing.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "gabp-test-util.h"
#include "gg-gabp-session.h"
#include "gg-test-util.h"

/* The bodies of the frames gamegate wrote, compact. */
static GPtrArray *
split_frames (const char *text)
{
  GPtrArray *bodies = g_ptr_array_new_with_free_func (g_free);
  const char *p = text;

  while ((p = strstr (p, "Content-Length: ")) != NULL)
    {
      guint64 length = g_ascii_strtoull (p + 16, NULL, 10);
      const char *body = strstr (p, "\r\n\r\n");

      g_assert_nonnull (body);
      body += 4;
      g_ptr_array_add (bodies, g_strndup (body, length));
      p = body + length;
    }
  return bodies;
}

static char *
request (guint       n,
         const char *method,
         const char *params)
{
  return g_strdup_printf ("{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-4466554400%02u\","
                          "\"type\":\"request\",\"method\":\"%s\",\"params\":%s}", n, method, params);
}

static char *
channel_list (guint first,
              guint count)
{
  GString *list = g_string_new ("{\"channels\":[");

  for (guint i = 0; i < count; i++)
    g_string_append_printf (list, "%s\"c%u\"", i > 0 ? "," : "", first + i);
  g_string_append (list, "]}");
  return g_string_free (list, FALSE);
}

static void
test_subscriptions (void)
{
  g_autofree char *dir = g_dir_make_tmp ("gg-gabp-XXXXXX", NULL);
  g_autofree char *conf = g_build_filename (dir, "gamegate.conf", NULL);
  const char *args[] = { "--config", conf, "gabp", NULL };
  g_autofree char *all = channel_list (0, GG_GABP_SESSION_MAX_SUBSCRIPTIONS);
  g_autofree char *first = channel_list (0, 1);
  g_autofree char *one_more = channel_list (GG_GABP_SESSION_MAX_SUBSCRIPTIONS, 1);
  g_autofree char *long_name = g_strnfill (GG_GABP_SESSION_MAX_CHANNEL_LENGTH + 1, 'n');
  g_autofree char *long_params = g_strdup_printf ("{\"channels\":[\"ok\",\"%s\"]}", long_name);
  g_autofree char *max_name = g_strnfill (GG_GABP_SESSION_MAX_CHANNEL_LENGTH, 'm');
  g_autofree char *max_params = g_strdup_printf ("{\"channels\":[\"%s\"]}", max_name);
  char *requests[] = {
    request (1, "session/hello", "{\"token\":\"" TEST_TOKEN2 "\",\"bridgeVersion\":\"1\",\"platform\":\"linux\","
                                 "\"launchId\":\"550e8400-e29b-41d4-a716-446655440000\"}"),
    request (2, "events/subscribe", all),
    request (3, "events/subscribe", first),      /* already there: no new channel */
    request (4, "events/subscribe", one_more),   /* the 257th */
    request (5, "events/unsubscribe", first),
    request (6, "events/subscribe", long_params),
    request (7, "events/subscribe", max_params), /* takes the place of c0 */
    request (8, "events/subscribe", one_more),   /* full again */
    NULL,
  };
  g_autoptr(GgTestProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) bodies = NULL;
  g_autofree char *out = NULL;
  g_autofree char *expect_max = NULL;
  int status = -1;

  g_file_set_contents (conf, "[gabp]\nserver-token=" TEST_TOKEN2 "\nbridge-file=\n", -1, &error);
  g_assert_no_error (error);
  process = gg_test_process_spawn (args, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; requests[i] != NULL; i++)
    {
      g_autofree char *frame = g_strdup_printf ("Content-Length: %zu\r\n\r\n%s", strlen (requests[i]), requests[i]);
      g_assert_true (gg_test_process_write_line (process, frame, &error));
      g_free (requests[i]);
    }
  gg_test_process_close_stdin (process);
  out = gg_test_process_read_stdout (process, gg_test_timeout_ms (10000));
  g_assert_true (gg_test_process_wait (process, gg_test_timeout_ms (10000), &status));
  g_assert_cmpint (status, ==, 0);

  bodies = split_frames (out);
  g_assert_cmpuint (bodies->len, ==, 8);
  g_assert_nonnull (strstr (bodies->pdata[1], "\"subscribed\":[\"c0\",\"c1\","));
  g_assert_cmpstr (bodies->pdata[2], ==,
                   "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440003\",\"type\":\"response\","
                   "\"result\":{\"subscribed\":[\"c0\"]}}");
  g_assert_cmpstr (bodies->pdata[3], ==,
                   "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440004\",\"type\":\"response\","
                   "\"error\":{\"code\":-32602,\"message\":\"events/subscribe: too many subscriptions "
                   "(at most 256 channels per session)\"}}");
  g_assert_cmpstr (bodies->pdata[4], ==,
                   "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440005\",\"type\":\"response\","
                   "\"result\":{\"unsubscribed\":[\"c0\"]}}");
  /* Nothing of a refused request is subscribed, not even "ok". */
  g_assert_cmpstr (bodies->pdata[5], ==,
                   "{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440006\",\"type\":\"response\","
                   "\"error\":{\"code\":-32602,\"message\":\"events/subscribe: a channel name is longer "
                   "than 256 bytes\"}}");
  expect_max = g_strdup_printf ("{\"v\":\"gabp/1\",\"id\":\"550e8400-e29b-41d4-a716-446655440007\",\"type\":\"response\","
                                "\"result\":{\"subscribed\":[\"%s\"]}}", max_name);
  g_assert_cmpstr (bodies->pdata[6], ==, expect_max);
  g_assert_nonnull (strstr (bodies->pdata[7], "\"code\":-32602"));
  g_remove (conf);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gabp/limits/subscriptions", test_subscriptions);
  return g_test_run ();
}

/* test-a2g-limits.c: the request-level limits against the real `gamegate
 * a2g` (spec section 6, 429 rate_limited with Retry-After): requests per
 * network address, /v1/session per address, the session limit (renewals
 * still taken); and `gamegate serve` running the service on [a2g] listen.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "a2g-test-util.h"

#define CLIENT "c_5f1c9a27e04b7d13"

static void
assert_rate_limited (A2gResponse *response,
                     const char  *message)
{
  g_autofree char *expected = g_strdup_printf ("{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"%s\",\"code\":\"rate_limited\"}",
                                               message);

  g_assert_cmpuint (response->status, ==, 429);
  a2g_assert_json (response->body, expected);
  g_assert_cmpint (atoi (soup_message_headers_get_one (response->headers, "Retry-After")), >=, 1);
}

static void
test_address_rate (void)
{
  /* Three requests in a burst, then one every 10 s. */
  A2gService *service = a2g_service_start ("[a2g]\naddress-rate=0.1\naddress-burst=3\n");

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(A2gResponse) response = a2g_get (service, "/health");
      g_assert_cmpuint (response->status, ==, 200);
    }
  {
    g_autoptr(A2gResponse) response = a2g_get (service, "/health");
    assert_rate_limited (response, "Too many requests.");
    g_assert_cmpint (atoi (soup_message_headers_get_one (response->headers, "Retry-After")), <=, 10);
  }
  a2g_service_stop (service);
}

static void
test_session_rate (void)
{
  A2gService *service = a2g_service_start ("[a2g]\nsession-open-rate=0.1\nsession-open-burst=2\n");
  g_autofree char *one = a2g_open (service, CLIENT, NULL);
  g_autofree char *two = a2g_open (service, "c_second_client", NULL);
  g_autofree char *body = g_strdup_printf ("{\"client_id\":\"c_third_client\",\"game\":\"orbital-freight\",\"manifest\":%s}",
                                           a2g_test_manifest);
  g_autoptr(A2gResponse) third = a2g_post (service, "/v1/session", NULL, body);

  assert_rate_limited (third, "Too many session requests.");
  {
    /* Other endpoints are not held back by it. */
    g_autoptr(A2gResponse) health = a2g_get (service, "/health");
    g_assert_cmpuint (health->status, ==, 200);
  }
  a2g_service_stop (service);
}

static void
test_max_sessions (void)
{
  A2gService *service = a2g_service_start ("[a2g]\nmax-sessions=2\n");
  g_autofree char *one = a2g_open (service, CLIENT, NULL);
  g_autofree char *two = a2g_open (service, "c_second_client", NULL);
  g_autofree char *body = g_strdup_printf ("{\"client_id\":\"c_third_client\",\"game\":\"orbital-freight\",\"manifest\":%s}",
                                           a2g_test_manifest);
  g_autoptr(A2gResponse) third = a2g_post (service, "/v1/session", NULL, body);
  g_autofree char *renewed = a2g_open (service, CLIENT, NULL);

  assert_rate_limited (third, "Too many sessions.");
  g_assert_cmpstr (renewed, !=, one);
  a2g_service_stop (service);
}

static void
test_serve (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("gg-a2g-serve-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "gamegate.conf", NULL);
  const char *args[] = { "--config", path, "serve", NULL };
  const char *prefix = "A2G decision service on http://127.0.0.1:";
  g_autoptr(GgTestProcess) process = NULL;
  A2gService service = { 0 };
  const char *found = NULL;
  int status = -1;

  g_file_set_contents (path, "[a2g]\nlisten=127.0.0.1:0\n", -1, &error);
  g_assert_no_error (error);
  process = gg_test_process_spawn (args, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 1000 && found == NULL; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      found = strstr (gg_test_process_get_stderr (process), prefix);
      if (found == NULL)
        g_usleep (10000);
    }
  g_assert_nonnull (found);
  service.port = (guint) g_ascii_strtoull (found + strlen (prefix), NULL, 10);
  service.http = soup_session_new ();
  {
    g_autoptr(A2gResponse) response = a2g_get (&service, "/health");
    a2g_assert_json (response->body, "{\"a2g\":\"0.1\",\"ok\":true,\"profile\":\"local\",\"model\":\"system\","
                                     "\"provider\":\"none\"}");
  }
  g_clear_object (&service.http);
  gg_test_process_send_signal (process, SIGTERM);
  g_assert_true (gg_test_process_wait (process, gg_test_timeout_ms (10000), &status));
  g_assert_cmpint (status, ==, 0);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/a2g/limits/address-rate", test_address_rate);
  g_test_add_func ("/a2g/limits/session-rate", test_session_rate);
  g_test_add_func ("/a2g/limits/max-sessions", test_max_sessions);
  g_test_add_func ("/a2g/limits/serve", test_serve);
  return g_test_run ();
}

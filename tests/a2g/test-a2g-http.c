/* test-a2g-http.c: the transport rules of the local profile against the
 * real `gamegate a2g`: /health, the console files and their headers, the
 * Host, Origin, Content-Type, method, path and body-size checks, and that
 * no answer ever carries Access-Control-Allow-Origin.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "a2g-test-util.h"

static A2gService *service;

static void
assert_error (A2gResponse *response,
              guint        status,
              const char  *message,
              const char  *code)
{
  g_autofree char *expected = g_strdup_printf ("{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"%s\",\"code\":\"%s\"}",
                                               message, code);

  g_assert_cmpuint (response->status, ==, status);
  a2g_assert_json (response->body, expected);
  g_assert_null (soup_message_headers_get_one (response->headers, "Access-Control-Allow-Origin"));
}

static void
test_health (void)
{
  g_autoptr(A2gResponse) response = a2g_get (service, "/health");

  g_assert_cmpuint (response->status, ==, 200);
  g_assert_cmpstr (response->body, ==,
                   "{\"a2g\":\"0.1\",\"ok\":true,\"profile\":\"local\",\"model\":\"scripted\",\"provider\":\"scripted\"}");
  g_assert_cmpstr (soup_message_headers_get_content_type (response->headers, NULL), ==, "application/json");
  g_assert_cmpstr (soup_message_headers_get_one (response->headers, "Cache-Control"), ==, "no-store");
}

static void
test_console_files (void)
{
  const char *paths[] = { "/", "/console.css", "/console.js" };
  const char *types[] = { "text/html", "text/css", "text/javascript" };

  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr(A2gResponse) response = a2g_get (service, paths[i]);

      g_assert_cmpuint (response->status, ==, 200);
      g_assert_cmpstr (soup_message_headers_get_content_type (response->headers, NULL), ==, types[i]);
      g_assert_cmpstr (soup_message_headers_get_one (response->headers, "Cache-Control"), ==, "no-cache");
      g_assert_cmpstr (soup_message_headers_get_one (response->headers, "Content-Security-Policy"), ==,
                       "default-src 'self'");
      g_assert_cmpuint (strlen (response->body), >, 100);
    }
  {
    g_autoptr(A2gResponse) page = a2g_get (service, "/");
    /* No inline script or style: the CSP forbids them. */
    g_assert_null (strstr (page->body, "<script>"));
    g_assert_null (strstr (page->body, "style="));
    g_assert_nonnull (strstr (page->body, "src=\"/console.js\""));
  }
}

static char *
get_with_host (const char *host)
{
  g_autofree char *request = g_strdup_printf ("GET /health HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host);

  return a2g_raw (service, request, strlen (request));
}

static void
test_host (void)
{
  const char *good[] = { "127.0.0.1", "localhost:8787", "[::1]:1", "LOCALHOST" };
  const char *bad[] = { "evil.example", "evil.example:8787", "127.0.0.1.evil.example", "localhost:80x",
                        "127.0.0.2", "[::1]:", "localhost:123456" };

  /* Raw requests: an HTTP client library sets Host itself. */
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autofree char *raw = get_with_host (good[i]);

      g_test_message ("%s", good[i]);
      g_assert_true (g_str_has_prefix (raw, "HTTP/1.1 200 "));
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *raw = get_with_host (bad[i]);

      g_test_message ("%s", bad[i]);
      g_assert_true (g_str_has_prefix (raw, "HTTP/1.1 403 ") || g_str_has_prefix (raw, "HTTP/1.1 400 "));
      if (g_str_has_prefix (raw, "HTTP/1.1 403 "))
        g_assert_nonnull (strstr (raw, "{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"Host not allowed.\",\"code\":\"forbidden\"}"));
    }
  {
    /* No Host at all (HTTP/1.0) is refused too. */
    const char *request = "GET /health HTTP/1.0\r\n\r\n";
    g_autofree char *raw = a2g_raw (service, request, strlen (request));
    g_assert_true (g_str_has_prefix (raw, "HTTP/1.0 403 ") || g_str_has_prefix (raw, "HTTP/1.1 403 "));
  }
}

static void
test_origin (void)
{
  g_autofree char *own = g_strdup_printf ("http://127.0.0.1:%u", service->port);
  g_autofree char *own_name = g_strdup_printf ("http://localhost:%u", service->port);
  g_autofree char *other_port = g_strdup_printf ("http://127.0.0.1:%u", service->port + 1);
  const char *good[] = { own, own_name };
  const char *bad[] = { "http://evil.example", other_port, "null", "http://127.0.0.1", "https://127.0.0.1" };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      const char *headers[] = { "Origin", good[i], NULL };
      g_autoptr(A2gResponse) response = a2g_request (service, "GET", "/health", headers, NULL);

      g_assert_cmpuint (response->status, ==, 200);
      g_assert_null (soup_message_headers_get_one (response->headers, "Access-Control-Allow-Origin"));
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      const char *headers[] = { "Origin", bad[i], "Content-Type", "application/json", NULL };
      g_autoptr(A2gResponse) response = a2g_request (service, "POST", "/v1/session", headers, "{}");

      assert_error (response, 403, "Origin not allowed.", "forbidden");
    }
}

static void
test_content_type (void)
{
  const char *types[] = { "text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
                          "application/jsonp" };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      const char *headers[] = { "Content-Type", types[i], NULL };
      g_autoptr(A2gResponse) response = a2g_request (service, "POST", "/v1/session", headers, "{}");

      assert_error (response, 415, "Content-Type must be application/json.", "unsupported_media_type");
    }
  {
    /* Parameters are fine. */
    const char *headers[] = { "Content-Type", "application/json; charset=utf-8", NULL };
    g_autoptr(A2gResponse) response = a2g_request (service, "POST", "/v1/session", headers, "{}");

    assert_error (response, 400, "client_id: is required", "invalid");
  }
  {
    const char *request = "POST /v1/report HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}";
    g_autofree char *raw = a2g_raw (service, request, strlen (request));
    g_assert_true (g_str_has_prefix (raw, "HTTP/1.1 415 "));
  }
}

static void
test_paths_and_methods (void)
{
  g_autoptr(A2gResponse) missing = a2g_get (service, "/v1/nothing");
  g_autoptr(A2gResponse) get_session = a2g_get (service, "/v1/session");
  g_autoptr(A2gResponse) post_health = a2g_post (service, "/health", NULL, "{}");
  g_autoptr(A2gResponse) delete = a2g_request (service, "DELETE", "/v1/session", NULL, NULL);

  assert_error (missing, 404, "Unknown path.", "not_found");
  assert_error (get_session, 405, "Method not allowed.", "method_not_allowed");
  g_assert_cmpstr (soup_message_headers_get_one (get_session->headers, "Allow"), ==, "POST");
  assert_error (post_health, 405, "Method not allowed.", "method_not_allowed");
  g_assert_cmpstr (soup_message_headers_get_one (post_health->headers, "Allow"), ==, "GET");
  assert_error (delete, 405, "Method not allowed.", "method_not_allowed");
}

static void
test_too_large (void)
{
  gsize size = 256 * 1024 + 1;
  g_autofree char *body = g_malloc (size + 1);
  g_autofree char *head = NULL;
  g_autofree char *raw = NULL;
  g_autoptr(GString) chunked = g_string_new (NULL);

  /* 256 KiB + 1 announced: refused from the headers alone. */
  memset (body, ' ', size);
  body[0] = '{';
  body[size - 1] = '}';
  body[size] = '\0';
  {
    g_autoptr(A2gResponse) response = a2g_post (service, "/v1/session", NULL, body);
    assert_error (response, 413, "The body is over 262144 bytes.", "too_large");
  }
  /* Announced but never sent: the answer comes without reading it. */
  head = g_strdup_printf ("POST /v1/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                          "Content-Length: %" G_GSIZE_FORMAT "\r\n\r\n{", size);
  raw = a2g_raw (service, head, strlen (head));
  g_assert_true (g_str_has_prefix (raw, "HTTP/1.1 413 "));
  g_assert_nonnull (strstr (raw, "\"code\":\"too_large\""));

  /* Chunked: counted as it arrives. */
  g_string_append (chunked, "POST /v1/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
  for (guint i = 0; i < 65; i++)
    {
      g_string_append_printf (chunked, "%x\r\n", 4096);
      for (guint j = 0; j < 4096; j++)
        g_string_append_c (chunked, ' ');
      g_string_append (chunked, "\r\n");
    }
  g_string_append (chunked, "0\r\n\r\n");
  g_free (raw);
  raw = a2g_raw (service, chunked->str, chunked->len);
  g_assert_true (g_str_has_prefix (raw, "HTTP/1.1 413 "));
  /* Exactly 256 KiB is accepted (and then judged as JSON). */
  body[size - 1] = ' ';
  body[size - 2] = '}';
  {
    g_autoptr(A2gResponse) response = a2g_post (service, "/v1/session", NULL, body);
    g_autofree char *trimmed = g_strndup (body, size - 1);
    g_autoptr(A2gResponse) exact = a2g_post (service, "/v1/session", NULL, trimmed);

    g_assert_cmpuint (response->status, ==, 413);
    assert_error (exact, 400, "client_id: is required", "invalid");
  }
}

static void
test_hostile_json (void)
{
  static const struct {
    const char *body, *prefix;
  } rows[] = {
    { "{\"client_id\":", "Invalid JSON: " },
    { "{\"client_id\":\"c_\xff\xfe\"}", "Invalid JSON: " },
    { "[]", "The body must be a JSON object." },
    { "\"x\"", "The body must be a JSON object." },
    { "{\"a\":1e999}", "Invalid JSON: " },
    { "", "Invalid JSON: " },
  };
  g_autoptr(GString) deep = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(A2gResponse) response = a2g_post (service, "/v1/session", NULL, rows[i].body);
      g_autoptr(JsonObject) object = a2g_json (response);

      g_test_message ("%s", rows[i].body);
      g_assert_cmpuint (response->status, ==, 400);
      g_assert_cmpstr (json_object_get_string_member (object, "code"), ==, "invalid");
      g_assert_true (g_str_has_prefix (json_object_get_string_member (object, "error"), rows[i].prefix));
    }
  /* 100,000 levels of nesting: refused at the depth limit, no crash. */
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  {
    g_autofree char *body = g_strdup_printf ("{\"a\":%s", deep->str);
    g_autoptr(A2gResponse) response = a2g_post (service, "/v1/session", NULL, body);
    g_autoptr(JsonObject) object = a2g_json (response);

    g_assert_cmpuint (response->status, ==, 400);
    g_assert_true (g_str_has_prefix (json_object_get_string_member (object, "error"), "Invalid JSON: "));
  }
  /* Still serving. */
  {
    g_autoptr(A2gResponse) response = a2g_get (service, "/health");
    g_assert_cmpuint (response->status, ==, 200);
  }
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *model = a2g_model_config ("[]");
  g_autofree char *config = g_strconcat ("[a2g]\n", model, NULL);
  int status;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/a2g/http/health", test_health);
  g_test_add_func ("/a2g/http/console-files", test_console_files);
  g_test_add_func ("/a2g/http/host", test_host);
  g_test_add_func ("/a2g/http/origin", test_origin);
  g_test_add_func ("/a2g/http/content-type", test_content_type);
  g_test_add_func ("/a2g/http/paths-methods", test_paths_and_methods);
  g_test_add_func ("/a2g/http/too-large", test_too_large);
  g_test_add_func ("/a2g/http/hostile-json", test_hostile_json);
  service = a2g_service_start (config);
  status = g_test_run ();
  a2g_service_stop (service);
  return status;
}

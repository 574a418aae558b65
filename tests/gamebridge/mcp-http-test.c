/* mcp-http-test.c: the helpers of mcp-http-test.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "mcp-http-test.h"

void
pending_free (Pending *pending)
{
  g_clear_object (&pending->msg);
  g_clear_pointer (&pending->body, g_bytes_unref);
  g_clear_error (&pending->error);
  g_free (pending);
}

void
fixture_set_up (Fixture       *fx,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fx->fake.n_tools = data != NULL ? GPOINTER_TO_UINT (data) : FAKE_PROVIDER_FIXED_TOOLS;
  fx->server = gb_mcp_server_new ("test-server", "1.2.3", "Use the tools.",
                                  &fake_provider_vtable, &fx->fake);
  g_assert_true (gb_mcp_server_listen_http (fx->server, 0, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gb_mcp_server_get_http_port (fx->server), >, 0);
  fx->url = g_strdup_printf ("http://127.0.0.1:%u/mcp", gb_mcp_server_get_http_port (fx->server));
  fx->client = soup_session_new ();
}

void
iterate_for (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
}

void
fixture_tear_down (Fixture       *fx,
                   gconstpointer  data)
{
  gb_mcp_server_close (fx->server);
  soup_session_abort (fx->client);
  iterate_for (50);
  g_clear_object (&fx->server);
  g_clear_object (&fx->client);
  iterate_for (20);
  g_free (fx->url);
}

void
sent_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Pending *pending = user_data;

  pending->body = soup_session_send_and_read_finish (SOUP_SESSION (source), result, &pending->error);
  pending->done = TRUE;
}

/* Starts a request; @headers is a NULL-terminated name, value, … list
 * replacing the defaults (Accept both, Content-Type application/json). */
Pending *
start (Fixture            *fx,
       const char         *method,
       const char         *url,
       const char         *session_id,
       const char         *body,
       const char * const *headers)
{
  Pending *pending = g_new0 (Pending, 1);
  SoupMessageHeaders *h;

  pending->msg = soup_message_new (method, url != NULL ? url : fx->url);
  h = soup_message_get_request_headers (pending->msg);
  soup_message_headers_replace (h, "Accept", "application/json, text/event-stream");
  if (session_id != NULL)
    soup_message_headers_replace (h, "Mcp-Session-Id", session_id);
  if (body != NULL)
    {
      g_autoptr(GBytes) bytes = g_bytes_new (body, strlen (body));
      soup_message_set_request_body_from_bytes (pending->msg, "application/json", bytes);
    }
  for (gsize i = 0; headers != NULL && headers[i] != NULL; i += 2)
    {
      if (headers[i + 1] == NULL)
        soup_message_headers_remove (h, headers[i]);
      else
        soup_message_headers_replace (h, headers[i], headers[i + 1]);
    }
  soup_session_send_and_read_async (fx->client, pending->msg, G_PRIORITY_DEFAULT, NULL,
                                    sent_cb, pending);
  return pending;
}

void
wait_for (Pending *pending)
{
  while (!pending->done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (pending->error);
}

Pending *
request (Fixture            *fx,
         const char         *method,
         const char         *session_id,
         const char         *body,
         const char * const *headers)
{
  Pending *pending = start (fx, method, NULL, session_id, body, headers);
  wait_for (pending);
  return pending;
}

guint
status_of (Pending *pending)
{
  return soup_message_get_status (pending->msg);
}

const char *
header_of (Pending    *pending,
           const char *name)
{
  return soup_message_headers_get_one (soup_message_get_response_headers (pending->msg), name);
}

char *
body_of (Pending *pending)
{
  return g_strndup (g_bytes_get_data (pending->body, NULL), g_bytes_get_size (pending->body));
}

JsonNode *
json_of (Pending *pending)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = body_of (pending);
  JsonNode *node = gg_json_parse (text, -1, 128, &error);

  g_assert_no_error (error);
  return node;
}

/* The `data:` of every SSE event in the body. */
GPtrArray *
events_of (Pending *pending)
{
  g_autofree char *text = body_of (pending);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  for (char **line = lines; *line != NULL; line++)
    if (g_str_has_prefix (*line, "data: "))
      g_ptr_array_add (events, json_from_string (*line + 6, NULL));
  return events;
}

gint64
member_int (JsonNode   *node,
            const char *path)
{
  g_autoptr(GError) error = NULL;
  JsonNode *member = gg_json_path_get (node, path, &error);

  g_assert_no_error (error);
  return json_node_get_int (member);
}

const char *
member_string (JsonNode   *node,
               const char *path)
{
  g_autoptr(GError) error = NULL;
  JsonNode *member = gg_json_path_get (node, path, &error);

  g_assert_no_error (error);
  return json_node_get_string (member);
}

/* A new initialized session; returns its id. */
char *
open_session (Fixture *fx)
{
  g_autoptr(Pending) init = request (fx, "POST", NULL, INIT_BODY, NULL);
  g_autoptr(Pending) done = NULL;
  char *id;

  g_assert_cmpuint (status_of (init), ==, 200);
  id = g_strdup (header_of (init, "Mcp-Session-Id"));
  g_assert_nonnull (id);
  done = request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", NULL);
  g_assert_cmpuint (status_of (done), ==, 202);
  return id;
}

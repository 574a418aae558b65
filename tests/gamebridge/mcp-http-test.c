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
  /* Streams hold their connections: room for several at once. */
  fx->client = soup_session_new_with_options ("max-conns-per-host", 16, "max-conns", 32, NULL);
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
  fake_provider_clear (&fx->fake);
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

/* A request to @url (NULL: the endpoint) accepting @accept; @headers is a
 * NULL-terminated name, value, … list replacing the defaults (a NULL value
 * removes the header). */
static SoupMessage *
new_message (Fixture            *fx,
             const char         *method,
             const char         *url,
             const char         *session_id,
             const char         *body,
             const char         *accept,
             const char * const *headers)
{
  SoupMessage *msg = soup_message_new (method, url != NULL ? url : fx->url);
  SoupMessageHeaders *h = soup_message_get_request_headers (msg);

  soup_message_headers_replace (h, "Accept", accept);
  if (session_id != NULL)
    soup_message_headers_replace (h, "Mcp-Session-Id", session_id);
  if (body != NULL)
    {
      g_autoptr(GBytes) bytes = g_bytes_new (body, strlen (body));
      soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
    }
  for (gsize i = 0; headers != NULL && headers[i] != NULL; i += 2)
    {
      if (headers[i + 1] == NULL)
        soup_message_headers_remove (h, headers[i]);
      else
        soup_message_headers_replace (h, headers[i], headers[i + 1]);
    }
  return msg;
}

/* Starts a request; @headers replace the defaults (Accept both,
 * Content-Type application/json). */
Pending *
start (Fixture            *fx,
       const char         *method,
       const char         *url,
       const char         *session_id,
       const char         *body,
       const char * const *headers)
{
  Pending *pending = g_new0 (Pending, 1);

  pending->msg = new_message (fx, method, url, session_id, body, "application/json, text/event-stream", headers);
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

/* The JSON-RPC answer: the JSON body, or the last event of an SSE body. */
JsonNode *
answer_of (Pending *pending)
{
  g_autoptr(GPtrArray) events = NULL;

  if (g_strcmp0 (header_of (pending, "Content-Type"), "text/event-stream") != 0)
    return json_of (pending);
  events = events_of (pending);
  g_assert_cmpuint (events->len, >, 0);
  return json_node_ref (events->pdata[events->len - 1]);
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
  return open_session_version (fx, "2025-11-25");
}

/* A new session initialized with @version; returns its id. */
char *
open_session_version (Fixture    *fx,
                      const char *version)
{
  g_autofree char *body = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                                           "{\"protocolVersion\":\"%s\",\"capabilities\":{},"
                                           "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}", version);
  g_autoptr(Pending) init = request (fx, "POST", NULL, body, NULL);
  g_autoptr(Pending) done = NULL;
  char *id;

  g_assert_cmpuint (status_of (init), ==, 200);
  id = g_strdup (header_of (init, "Mcp-Session-Id"));
  g_assert_nonnull (id);
  done = request (fx, "POST", id, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", NULL);
  g_assert_cmpuint (status_of (done), ==, 202);
  return id;
}

static void
line_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Stream *stream = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source),
                                                                     result, NULL, &error);

  g_assert_no_error (error);
  if (line == NULL)
    stream->eof = TRUE;
  else
    {
      g_string_append (stream->seen, line);
      g_string_append_c (stream->seen, '\n');
    }
  stream->waiting = FALSE;
}

static void
read_line (Stream *stream)
{
  g_assert_false (stream->eof);
  stream->waiting = TRUE;
  g_data_input_stream_read_line_async (stream->lines, G_PRIORITY_DEFAULT, NULL, line_cb, stream);
  while (stream->waiting)
    g_main_context_iteration (NULL, TRUE);
}

void
stream_read_until (Stream     *stream,
                   const char *needle)
{
  while (strstr (stream->seen->str, needle) == NULL)
    read_line (stream);
}

void
stream_read_to_end (Stream *stream)
{
  while (!stream->eof)
    read_line (stream);
}

static void
opened_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Stream *stream = user_data;
  g_autoptr(GError) error = NULL;

  stream->body = soup_session_send_finish (SOUP_SESSION (source), result, &error);
  g_assert_no_error (error);
  stream->waiting = FALSE;
}

Stream *
stream_open (Fixture            *fx,
             const char         *method,
             const char         *session_id,
             const char         *body,
             const char * const *headers)
{
  Stream *stream = g_new0 (Stream, 1);

  stream->seen = g_string_new (NULL);
  stream->msg = new_message (fx, method, NULL, session_id, body,
                             body != NULL ? "application/json, text/event-stream" : "text/event-stream", headers);
  stream->waiting = TRUE;
  soup_session_send_async (fx->client, stream->msg, G_PRIORITY_DEFAULT, NULL, opened_cb, stream);
  while (stream->waiting)
    g_main_context_iteration (NULL, TRUE);
  stream->lines = g_data_input_stream_new (stream->body);
  return stream;
}

void
stream_drop (Stream *stream)
{
  g_autoptr(GError) error = NULL;

  /* Closing the body of an unfinished answer disconnects it. */
  g_input_stream_close (G_INPUT_STREAM (stream->lines), NULL, &error);
  g_assert_no_error (error);
  stream->eof = TRUE;
}

void
stream_free (Stream *stream)
{
  g_clear_object (&stream->lines);
  g_clear_object (&stream->body);
  g_clear_object (&stream->msg);
  g_string_free (stream->seen, TRUE);
  g_free (stream);
}

/* fake-openai-server.c: an OpenAI-compatible server for the model-openai
 * tests: /v1/models and /v1/chat/completions, streamed (server-sent events
 * with chunked encoding, tool calls split over many chunks, usage in the
 * last chunk) or not, error bodies as real servers send them, slow
 * answers, dropped connections, and a record of what clients sent.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fake-openai-server.h"

struct _FakeOpenai {
  SoupServer *server;
  guint port;
  GQueue replies;          /* FakeReply* */
  GPtrArray *requests;     /* JsonObject* bodies */
  GPtrArray *authorizations;
  GStrv models;
  char *api_key;
  char *default_text;      /* the answer when no reply is queued */
  guint n_model_lists;
  guint n_aborted;
  GHashTable *pending;     /* SoupServerMessage* -> Pending* */
  GHashTable *dropped;     /* SoupServerMessage* we cut off ourselves */
  gint64 last_served_us;
  guint serial;
  guint max_pending;
};

typedef struct {
  FakeOpenai *fake;
  SoupServerMessage *msg;
  FakeReply *reply;
  GPtrArray *events;   /* the body pieces still to send, in order */
  guint next;
  guint source_id;
  gboolean dropped;
  gboolean paused;
  gint64 started_us;
} Pending;

static void
fake_reply_free (FakeReply *reply)
{
  g_free (reply->text);
  g_clear_pointer (&reply->tool_calls, json_array_unref);
  g_free (reply->finish_reason);
  g_free (reply->refusal);
  g_free (reply->raw_body);
  g_free (reply->raw_sse);
  g_free (reply->retry_after);
  g_free (reply);
}

static void
pending_free (Pending *pending)
{
  g_clear_handle_id (&pending->source_id, g_source_remove);
  g_clear_pointer (&pending->events, g_ptr_array_unref);
  g_clear_pointer (&pending->reply, fake_reply_free);
  g_free (pending);
}

/* ---- rendering the wire format ----------------------------------------- */

static JsonObject *
chunk_object (FakeOpenai *self,
              const char *model)
{
  JsonObject *chunk = json_object_new ();
  g_autofree char *id = g_strdup_printf ("chatcmpl-fake%u", self->serial);

  json_object_set_string_member (chunk, "id", id);
  json_object_set_string_member (chunk, "object", "chat.completion.chunk");
  json_object_set_int_member (chunk, "created", 1732000000);
  json_object_set_string_member (chunk, "model", model);
  json_object_set_string_member (chunk, "system_fingerprint", "fp_fake");
  return chunk;
}

static char *
to_event (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *text = NULL;

  json_node_take_object (node, object);
  text = json_to_string (node, FALSE);
  return g_strdup_printf ("data: %s\n\n", text);
}

static JsonObject *
choice_chunk (FakeOpenai *self,
              const char *model,
              JsonObject *delta,
              const char *finish_reason)
{
  JsonObject *chunk = chunk_object (self, model);
  JsonArray *choices = json_array_new ();
  JsonObject *choice = json_object_new ();

  json_object_set_int_member (choice, "index", 0);
  json_object_set_object_member (choice, "delta", delta);
  json_object_set_null_member (choice, "logprobs");
  if (finish_reason != NULL)
    json_object_set_string_member (choice, "finish_reason", finish_reason);
  else
    json_object_set_null_member (choice, "finish_reason");
  json_array_add_object_element (choices, choice);
  json_object_set_array_member (chunk, "choices", choices);
  return chunk;
}

static JsonObject *
usage_object (JsonObject *request,
              FakeReply  *reply)
{
  JsonObject *usage = json_object_new ();
  JsonObject *details = json_object_new ();
  JsonArray *messages = json_object_get_array_member (request, "messages");
  gint64 prompt = 10 + 5 * (messages != NULL ? json_array_get_length (messages) : 0);
  gint64 completion = reply->text != NULL ? (gint64) strlen (reply->text) / 4 + 1 : 7;

  json_object_set_int_member (usage, "prompt_tokens", prompt);
  json_object_set_int_member (usage, "completion_tokens", completion);
  json_object_set_int_member (usage, "total_tokens", prompt + completion);
  json_object_set_int_member (details, "cached_tokens", prompt / 2);
  json_object_set_object_member (usage, "prompt_tokens_details", details);
  return usage;
}

/* Splits @text into about @pieces parts on UTF-8 boundaries. */
static GPtrArray *
split_text (const char *text,
            guint       pieces)
{
  GPtrArray *parts = g_ptr_array_new_with_free_func (g_free);
  glong chars = g_utf8_strlen (text, -1);
  glong step = MAX (1, (chars + MAX (pieces, 1) - 1) / MAX (pieces, 1));
  const char *p = text;

  while (*p != '\0')
    {
      const char *end = p;
      for (glong i = 0; i < step && *end != '\0'; i++)
        end = g_utf8_next_char (end);
      g_ptr_array_add (parts, g_strndup (p, end - p));
      p = end;
    }
  return parts;
}

static GPtrArray *
render_stream (FakeOpenai *self,
               JsonObject *request,
               FakeReply  *reply)
{
  GPtrArray *events = g_ptr_array_new_with_free_func (g_free);
  const char *model = json_object_get_string_member_with_default (request, "model", "fake");
  JsonObject *options = json_object_get_object_member (request, "stream_options");
  gboolean usage = !reply->no_usage && options != NULL &&
                   json_object_get_boolean_member_with_default (options, "include_usage", FALSE);
  JsonObject *delta;
  const char *finish;

  if (reply->raw_sse != NULL)
    {
      g_autoptr(GPtrArray) parts = split_text (reply->raw_sse, MAX (reply->raw_pieces, 1));
      for (guint i = 0; i < parts->len; i++)
        g_ptr_array_add (events, g_strdup (parts->pdata[i]));
      return events;
    }

  delta = json_object_new ();
  json_object_set_string_member (delta, "role", "assistant");
  json_object_set_string_member (delta, "content", "");
  g_ptr_array_add (events, to_event (choice_chunk (self, model, delta, NULL)));

  if (reply->refusal != NULL)
    {
      g_autoptr(GPtrArray) parts = split_text (reply->refusal, 3);
      for (guint i = 0; i < parts->len; i++)
        {
          delta = json_object_new ();
          json_object_set_string_member (delta, "refusal", parts->pdata[i]);
          g_ptr_array_add (events, to_event (choice_chunk (self, model, delta, NULL)));
        }
    }
  if (reply->text != NULL)
    {
      g_autoptr(GPtrArray) parts = split_text (reply->text, reply->text_pieces ? reply->text_pieces : 4);
      for (guint i = 0; i < parts->len; i++)
        {
          delta = json_object_new ();
          json_object_set_string_member (delta, "content", parts->pdata[i]);
          g_ptr_array_add (events, to_event (choice_chunk (self, model, delta, NULL)));
        }
    }
  for (guint c = 0; reply->tool_calls != NULL && c < json_array_get_length (reply->tool_calls); c++)
    {
      JsonObject *call = json_array_get_object_element (reply->tool_calls, c);
      g_autoptr(GPtrArray) parts = split_text (json_object_get_string_member (call, "arguments"),
                                               reply->arg_fragments ? reply->arg_fragments : 5);
      JsonArray *calls = json_array_new ();
      JsonObject *first = json_object_new ();
      JsonObject *function = json_object_new ();

      /* The first fragment names the call, the others carry arguments. */
      json_object_set_int_member (first, "index", c);
      json_object_set_string_member (first, "id", json_object_get_string_member (call, "id"));
      json_object_set_string_member (first, "type", "function");
      json_object_set_string_member (function, "name", json_object_get_string_member (call, "name"));
      json_object_set_string_member (function, "arguments", "");
      json_object_set_object_member (first, "function", function);
      json_array_add_object_element (calls, first);
      delta = json_object_new ();
      json_object_set_array_member (delta, "tool_calls", calls);
      g_ptr_array_add (events, to_event (choice_chunk (self, model, delta, NULL)));

      for (guint i = 0; i < parts->len; i++)
        {
          JsonObject *fragment = json_object_new ();
          calls = json_array_new ();
          function = json_object_new ();
          json_object_set_int_member (fragment, "index", c);
          json_object_set_string_member (function, "arguments", parts->pdata[i]);
          json_object_set_object_member (fragment, "function", function);
          json_array_add_object_element (calls, fragment);
          delta = json_object_new ();
          json_object_set_array_member (delta, "tool_calls", calls);
          g_ptr_array_add (events, to_event (choice_chunk (self, model, delta, NULL)));
        }
    }

  finish = reply->finish_reason != NULL ? reply->finish_reason :
           reply->tool_calls != NULL ? "tool_calls" : "stop";
  g_ptr_array_add (events, to_event (choice_chunk (self, model, json_object_new (), finish)));
  if (usage)
    {
      JsonObject *chunk = chunk_object (self, model);
      json_object_set_array_member (chunk, "choices", json_array_new ());
      json_object_set_object_member (chunk, "usage", usage_object (request, reply));
      g_ptr_array_add (events, to_event (chunk));
    }
  g_ptr_array_add (events, g_strdup ("data: [DONE]\n\n"));
  return events;
}

static char *
render_body (FakeOpenai *self,
             JsonObject *request,
             FakeReply  *reply)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  JsonObject *body = json_object_new ();
  JsonArray *choices = json_array_new ();
  JsonObject *choice = json_object_new ();
  JsonObject *message = json_object_new ();
  g_autofree char *id = g_strdup_printf ("chatcmpl-fake%u", self->serial);

  json_object_set_string_member (body, "id", id);
  json_object_set_string_member (body, "object", "chat.completion");
  json_object_set_int_member (body, "created", 1732000000);
  json_object_set_string_member (body, "model",
                                 json_object_get_string_member_with_default (request, "model", "fake"));
  json_object_set_string_member (message, "role", "assistant");
  if (reply->text != NULL)
    json_object_set_string_member (message, "content", reply->text);
  else
    json_object_set_null_member (message, "content");
  if (reply->refusal != NULL)
    json_object_set_string_member (message, "refusal", reply->refusal);
  else
    json_object_set_null_member (message, "refusal");
  if (reply->tool_calls != NULL)
    {
      JsonArray *calls = json_array_new ();
      for (guint c = 0; c < json_array_get_length (reply->tool_calls); c++)
        {
          JsonObject *call = json_array_get_object_element (reply->tool_calls, c);
          JsonObject *wire = json_object_new ();
          JsonObject *function = json_object_new ();
          json_object_set_string_member (wire, "id", json_object_get_string_member (call, "id"));
          json_object_set_string_member (wire, "type", "function");
          json_object_set_string_member (function, "name", json_object_get_string_member (call, "name"));
          json_object_set_string_member (function, "arguments",
                                         json_object_get_string_member (call, "arguments"));
          json_object_set_object_member (wire, "function", function);
          json_array_add_object_element (calls, wire);
        }
      json_object_set_array_member (message, "tool_calls", calls);
    }
  json_object_set_int_member (choice, "index", 0);
  json_object_set_object_member (choice, "message", message);
  json_object_set_null_member (choice, "logprobs");
  json_object_set_string_member (choice, "finish_reason",
                                 reply->finish_reason != NULL ? reply->finish_reason :
                                 reply->tool_calls != NULL ? "tool_calls" : "stop");
  json_array_add_object_element (choices, choice);
  json_object_set_array_member (body, "choices", choices);
  if (!reply->no_usage)
    json_object_set_object_member (body, "usage", usage_object (request, reply));
  json_object_set_string_member (body, "system_fingerprint", "fp_fake");
  json_node_take_object (node, body);
  return json_to_string (node, FALSE);
}

/* ---- serving ------------------------------------------------------------ */

static void
set_json_error (SoupServerMessage *msg,
                guint              status,
                const char        *body)
{
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, body, strlen (body));
}

static void
finish_pending (Pending *pending)
{
  pending->fake->last_served_us = g_get_monotonic_time () - pending->started_us;
  g_clear_handle_id (&pending->source_id, g_source_remove);
}

static gboolean
send_next_event (gpointer user_data)
{
  Pending *pending = user_data;
  FakeReply *reply = pending->reply;
  SoupMessageBody *body = soup_server_message_get_response_body (pending->msg);

  pending->source_id = 0;
  if (reply->drop_after >= 0 && pending->next >= (guint) reply->drop_after)
    {
      /* Kill the connection mid-stream, as a crashing server would. */
      GSocket *socket = soup_server_message_get_socket (pending->msg);
      pending->dropped = TRUE;
      g_hash_table_add (pending->fake->dropped, pending->msg);
      if (socket != NULL)
        g_socket_shutdown (socket, TRUE, TRUE, NULL);
      soup_server_message_unpause (pending->msg);
      return G_SOURCE_REMOVE;
    }
  if (pending->next >= pending->events->len)
    {
      if (reply->hang)
        return G_SOURCE_REMOVE; /* keep the client waiting for ever */
      soup_message_body_complete (body);
      finish_pending (pending);
      soup_server_message_unpause (pending->msg);
      return G_SOURCE_REMOVE;
    }
  {
    const char *event = pending->events->pdata[pending->next++];
    soup_message_body_append (body, SOUP_MEMORY_COPY, event, strlen (event));
  }
  soup_server_message_unpause (pending->msg);
  if (reply->chunk_delay_ms > 0)
    pending->source_id = g_timeout_add (reply->chunk_delay_ms, send_next_event, pending);
  else
    pending->source_id = g_idle_add (send_next_event, pending);
  return G_SOURCE_REMOVE;
}

static void
resume (Pending *pending)
{
  if (pending->paused)
    soup_server_message_unpause (pending->msg);
  pending->paused = FALSE;
}

static gboolean
start_response (gpointer user_data)
{
  Pending *pending = user_data;
  FakeReply *reply = pending->reply;
  SoupServerMessage *msg = pending->msg;
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  JsonObject *request = g_ptr_array_index (pending->fake->requests, pending->fake->requests->len - 1);
  gboolean stream = json_object_get_boolean_member_with_default (request, "stream", FALSE);

  pending->source_id = 0;
  if (reply->retry_after != NULL)
    soup_message_headers_replace (headers, "Retry-After", reply->retry_after);

  if (reply->raw_body != NULL || reply->status != SOUP_STATUS_OK)
    {
      const char *body = reply->raw_body != NULL ? reply->raw_body : "";
      soup_server_message_set_status (msg, reply->status, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, body, strlen (body));
      finish_pending (pending);
      resume (pending);
      return G_SOURCE_REMOVE;
    }
  if (!stream)
    {
      g_autofree char *body = render_body (pending->fake, request, reply);
      soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, body, strlen (body));
      finish_pending (pending);
      resume (pending);
      return G_SOURCE_REMOVE;
    }

  pending->events = render_stream (pending->fake, request, reply);
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_headers_replace (headers, "Content-Type", "text/event-stream");
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  if (!pending->paused)
    {
      pending->paused = TRUE;
      soup_server_message_pause (msg);
    }
  send_next_event (pending);
  return G_SOURCE_REMOVE;
}

static void
on_message_finished (SoupServerMessage *msg,
                     gpointer           user_data)
{
  FakeOpenai *self = user_data;
  g_hash_table_remove (self->pending, msg);
}

static void
on_request_aborted (SoupServer        *server,
                    SoupServerMessage *msg,
                    gpointer           user_data)
{
  FakeOpenai *self = user_data;
  /* Our own dropped connections do not count: the client did not abort. */
  if (g_hash_table_remove (self->dropped, msg))
    return;
  if (g_str_has_suffix (g_uri_get_path (soup_server_message_get_uri (msg)), "/chat/completions"))
    self->n_aborted++;
}

static gboolean
authorized (FakeOpenai        *self,
            SoupServerMessage *msg)
{
  const char *auth = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                   "Authorization");
  g_autofree char *expected = NULL;

  if (self->api_key == NULL)
    return TRUE;
  expected = g_strconcat ("Bearer ", self->api_key, NULL);
  if (g_strcmp0 (auth, expected) == 0)
    return TRUE;
  {
    /* OpenAI's real 401 quotes a masked form of the key it got. */
    g_autofree char *shown = NULL;
    g_autofree char *body = NULL;
    const char *given = auth != NULL && g_str_has_prefix (auth, "Bearer ") ? auth + 7 : "";

    shown = strlen (given) > 8 ? g_strdup_printf ("%.4s****%s", given, given + strlen (given) - 4)
                               : g_strdup (given);
    body = g_strdup_printf ("{\"error\":{\"message\":\"Incorrect API key provided: %s. You can find "
                            "your API key at https://platform.openai.com/account/api-keys.\","
                            "\"type\":\"invalid_request_error\",\"param\":null,"
                            "\"code\":\"invalid_api_key\"}}", shown);
    set_json_error (msg, 401, body);
    return FALSE;
  }
}

static void
handle_models (FakeOpenai        *self,
               SoupServerMessage *msg)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  JsonObject *list = json_object_new ();
  JsonArray *data = json_array_new ();
  g_autofree char *text = NULL;

  self->n_model_lists++;
  for (guint i = 0; self->models != NULL && self->models[i] != NULL; i++)
    {
      JsonObject *entry = json_object_new ();
      json_object_set_string_member (entry, "id", self->models[i]);
      json_object_set_string_member (entry, "object", "model");
      json_object_set_int_member (entry, "created", 1732000000);
      json_object_set_string_member (entry, "owned_by", "library");
      json_array_add_object_element (data, entry);
    }
  json_object_set_string_member (list, "object", "list");
  json_object_set_array_member (list, "data", data);
  json_node_take_object (node, list);
  text = json_to_string (node, FALSE);
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, text, strlen (text));
}

static void
handle_request (SoupServer        *server,
                SoupServerMessage *msg,
                const char        *path,
                GHashTable        *query,
                gpointer           user_data)
{
  FakeOpenai *self = user_data;
  SoupMessageBody *request_body;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  const char *auth;
  Pending *pending;

  auth = soup_message_headers_get_one (soup_server_message_get_request_headers (msg), "Authorization");
  if (g_str_equal (path, "/v1/models") && g_str_equal (soup_server_message_get_method (msg), "GET"))
    {
      if (authorized (self, msg))
        handle_models (self, msg);
      return;
    }
  if (!g_str_equal (path, "/v1/chat/completions") ||
      !g_str_equal (soup_server_message_get_method (msg), "POST"))
    {
      set_json_error (msg, 404, "{\"error\":{\"message\":\"Not found\",\"type\":\"invalid_request_error\","
                                "\"param\":null,\"code\":null}}");
      return;
    }

  request_body = soup_server_message_get_request_body (msg);
  bytes = soup_message_body_flatten (request_body);
  if (!json_parser_load_from_data (parser, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      set_json_error (msg, 400, "{\"error\":{\"message\":\"We could not parse the JSON body of your "
                                "request.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":null}}");
      return;
    }
  g_ptr_array_add (self->requests, json_object_ref (json_node_get_object (json_parser_get_root (parser))));
  g_ptr_array_add (self->authorizations, g_strdup (auth != NULL ? auth : ""));
  if (!authorized (self, msg))
    return;

  self->serial++;
  pending = g_new0 (Pending, 1);
  pending->fake = self;
  pending->msg = msg;
  pending->started_us = g_get_monotonic_time ();
  pending->reply = g_queue_pop_head (&self->replies);
  if (pending->reply == NULL)
    {
      pending->reply = g_new0 (FakeReply, 1);
      pending->reply->status = SOUP_STATUS_OK;
      pending->reply->drop_after = -1;
      pending->reply->text = g_strdup (self->default_text != NULL ? self->default_text
                                                                  : "Hello from the fake server.");
    }
  g_hash_table_insert (self->pending, msg, pending);
  self->max_pending = MAX (self->max_pending, g_hash_table_size (self->pending));
  g_signal_connect (msg, "finished", G_CALLBACK (on_message_finished), self);

  /* An immediate whole answer is given from the handler; anything slow or
   * streamed pauses the message and resumes it from the main loop. */
  if (pending->reply->delay_ms > 0)
    {
      pending->paused = TRUE;
      soup_server_message_pause (msg);
      pending->source_id = g_timeout_add (pending->reply->delay_ms, start_response, pending);
    }
  else
    start_response (pending);
}

/* ---- API ---------------------------------------------------------------- */

/**
 * fake_openai_new:
 *
 * Returns: (transfer full): a server listening on 127.0.0.1 on a free port
 */
FakeOpenai *
fake_openai_new (void)
{
  FakeOpenai *self = g_new0 (FakeOpenai, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSList) uris = NULL;
  const char *default_models[] = { "fake-model", NULL };

  self->server = soup_server_new ("server-header", "fake-openai ", NULL);
  g_queue_init (&self->replies);
  self->requests = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  self->authorizations = g_ptr_array_new_with_free_func (g_free);
  self->models = g_strdupv ((char **) default_models);
  self->pending = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) pending_free);
  self->dropped = g_hash_table_new (NULL, NULL);
  soup_server_add_handler (self->server, NULL, handle_request, self, NULL);
  g_signal_connect (self->server, "request-aborted", G_CALLBACK (on_request_aborted), self);
  if (!soup_server_listen_local (self->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error))
    g_error ("fake server: %s", error->message);
  uris = soup_server_get_uris (self->server);
  self->port = g_uri_get_port (uris->data);
  g_slist_free_full (g_steal_pointer (&uris), (GDestroyNotify) g_uri_unref);
  return self;
}

/**
 * fake_openai_free:
 * @self: (transfer full): a server
 */
void
fake_openai_free (FakeOpenai *self)
{
  GHashTableIter iter;
  gpointer key;

  if (self == NULL)
    return;
  g_hash_table_iter_init (&iter, self->pending);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_signal_handlers_disconnect_by_data (key, self);
  soup_server_disconnect (self->server);
  g_signal_handlers_disconnect_by_data (self->server, self);
  g_clear_object (&self->server);
  /* Closed connections finish tearing down from the main loop. */
  for (int i = 0; i < 20 && g_main_context_iteration (NULL, FALSE); i++)
    ;
  g_hash_table_unref (self->pending);
  g_hash_table_unref (self->dropped);
  g_queue_clear_full (&self->replies, (GDestroyNotify) fake_reply_free);
  g_ptr_array_unref (self->requests);
  g_ptr_array_unref (self->authorizations);
  g_strfreev (self->models);
  g_free (self->default_text);
  g_free (self->api_key);
  g_free (self);
}

char *
fake_openai_get_base_url (FakeOpenai *self)
{
  return g_strdup_printf ("http://127.0.0.1:%u/v1", self->port);
}

void
fake_openai_set_models (FakeOpenai         *self,
                        const char * const *ids)
{
  g_strfreev (self->models);
  self->models = g_strdupv ((char **) ids);
}

void
fake_openai_set_default_text (FakeOpenai *self,
                              const char *text)
{
  g_free (self->default_text);
  self->default_text = g_strdup (text);
}

void
fake_openai_set_api_key (FakeOpenai *self,
                         const char *key)
{
  g_free (self->api_key);
  self->api_key = g_strdup (key);
}

FakeReply *
fake_openai_push (FakeOpenai *self)
{
  FakeReply *reply = g_new0 (FakeReply, 1);

  reply->status = SOUP_STATUS_OK;
  reply->drop_after = -1;
  g_queue_push_tail (&self->replies, reply);
  return reply;
}

FakeReply *
fake_openai_push_text (FakeOpenai *self,
                       const char *text)
{
  FakeReply *reply = fake_openai_push (self);

  reply->text = g_strdup (text);
  return reply;
}

FakeReply *
fake_openai_push_error (FakeOpenai *self,
                        guint       status,
                        const char *body)
{
  FakeReply *reply = fake_openai_push (self);

  reply->status = status;
  reply->raw_body = g_strdup (body);
  return reply;
}

void
fake_reply_add_tool_call (FakeReply  *reply,
                          const char *id,
                          const char *name,
                          const char *arguments)
{
  JsonObject *call = json_object_new ();

  if (reply->tool_calls == NULL)
    reply->tool_calls = json_array_new ();
  json_object_set_string_member (call, "id", id);
  json_object_set_string_member (call, "name", name);
  json_object_set_string_member (call, "arguments", arguments);
  json_array_add_object_element (reply->tool_calls, call);
}

guint
fake_openai_get_n_requests (FakeOpenai *self)
{
  return self->requests->len;
}

JsonObject *
fake_openai_get_request (FakeOpenai *self,
                         guint       index)
{
  g_assert_cmpuint (index, <, self->requests->len);
  return g_ptr_array_index (self->requests, index);
}

const char *
fake_openai_get_authorization (FakeOpenai *self,
                               guint       index)
{
  g_assert_cmpuint (index, <, self->authorizations->len);
  return g_ptr_array_index (self->authorizations, index);
}

guint
fake_openai_get_n_model_lists (FakeOpenai *self)
{
  return self->n_model_lists;
}

guint
fake_openai_get_n_aborted (FakeOpenai *self)
{
  return self->n_aborted;
}

guint
fake_openai_get_n_pending (FakeOpenai *self)
{
  return g_hash_table_size (self->pending);
}

gint64
fake_openai_get_last_served_us (FakeOpenai *self)
{
  return self->last_served_us;
}

guint
fake_openai_get_max_pending (FakeOpenai *self)
{
  return self->max_pending;
}

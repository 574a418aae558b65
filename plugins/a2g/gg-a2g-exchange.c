/* gg-a2g-exchange.c: one HTTP request of the a2g service in progress:
 * answering it (JSON bodies, error rows of spec section 6), noticing when
 * its client goes away, and authenticating session-bound requests
 * (client_id, session, token).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "gg-a2g-exchange.h"

/* ---- replies --------------------------------------------------------------- */

/** gg_a2g_reply_new: Returns: (transfer full): `{"a2g":"0.1"}` to fill */
JsonObject *
gg_a2g_reply_new (void)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "a2g", GG_A2G_VERSION);
  return object;
}

static void
set_common_headers (SoupServerMessage *msg,
                    const char        *content_type)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);

  soup_message_headers_replace (headers, "Content-Type", content_type);
  soup_message_headers_replace (headers, "Cache-Control", "no-store");
  soup_message_headers_replace (headers, "X-Content-Type-Options", "nosniff");
  soup_message_headers_replace (headers, "Referrer-Policy", "no-referrer");
}

static void
respond_json (SoupServerMessage *msg,
              guint              status,
              GBytes            *body)
{
  SoupMessageBody *response = soup_server_message_get_response_body (msg);

  set_common_headers (msg, "application/json");
  soup_server_message_set_status (msg, status, NULL);
  /* The body as it is, not a copy (a decide answer is one buffer). */
  soup_message_body_truncate (response);
  soup_message_body_append_bytes (response, body);
}

GBytes *
gg_a2g_error_body (GgA2gError  code,
                   const char *message)
{
  g_autoptr(JsonObject) object = gg_a2g_reply_new ();
  char *text;

  json_object_set_boolean_member (object, "ok", FALSE);
  json_object_set_string_member (object, "error", message);
  json_object_set_string_member (object, "code", gg_a2g_error_code (code));
  text = gg_json_object_to_string (object);
  return g_bytes_new_take (text, strlen (text));
}

void
gg_a2g_respond_error (SoupServerMessage *msg,
                      GgA2gError         code,
                      const char        *message)
{
  g_autoptr(GBytes) body = gg_a2g_error_body (code, message);

  respond_json (msg, gg_a2g_error_status (code), body);
}

/* ---- exchanges ------------------------------------------------------------- */

static void
on_disconnected (SoupServerMessage *msg,
                 GgA2gExchange     *ex)
{
  /* The client went away: whatever runs for it stops. */
  g_cancellable_cancel (ex->cancellable);
}

/* libsoup does not read a connection whose message is paused, so a client
 * that goes away would go unnoticed until the answer is written: the
 * socket is watched meanwhile, and an end of file cancels the work. */
static gboolean
on_socket_ready (GSocket      *socket,
                 GIOCondition  condition,
                 gpointer      user_data)
{
  GgA2gExchange *ex = user_data;
  char byte;
  gssize n;

  if ((condition & (G_IO_HUP | G_IO_ERR)) == 0)
    {
      n = recv (g_socket_get_fd (socket), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
      if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
        {
          /* A pipelined request, not an end: stop watching. */
          g_clear_pointer (&ex->watch, g_source_unref);
          return G_SOURCE_REMOVE;
        }
    }
  g_cancellable_cancel (ex->cancellable);
  g_clear_pointer (&ex->watch, g_source_unref);
  return G_SOURCE_REMOVE;
}

static void
exchange_watch (GgA2gExchange *ex)
{
  GSocket *socket = soup_server_message_get_socket (ex->msg);

  if (socket == NULL)
    return;
  ex->watch = g_socket_create_source (socket, G_IO_IN | G_IO_HUP | G_IO_ERR, NULL);
  g_source_set_callback (ex->watch, (GSourceFunc) (void (*) (void)) on_socket_ready, ex, NULL);
  g_source_attach (ex->watch, NULL);
}

GgA2gExchange *
gg_a2g_exchange_new (GgA2gService      *service,
                     SoupServerMessage *msg)
{
  GgA2gExchange *ex = g_new0 (GgA2gExchange, 1);

  g_atomic_ref_count_init (&ex->ref);
  ex->service = service;
  ex->msg = g_object_ref (msg);
  ex->cancellable = g_cancellable_new ();
  ex->started_us = g_get_monotonic_time ();
  if (G_UNLIKELY (gg_bus_is_observed (service->bus)))
    {
      /* The bus tap: the decisions this request asks for carry its id. */
      g_autofree char *id = gg_bus_new_correlation (service->bus, "a2g");
      GgBusRecord record = { .kind = "request", .plugin = "a2g",
                             .name = g_uri_get_path (soup_server_message_get_uri (msg)),
                             .correlation = id, .duration_us = -1 };

      gg_bus_set_correlation (ex->cancellable, "a2g", NULL, id);
      gg_bus_report (service->bus, &record);
    }
  ex->disconnected_id = g_signal_connect (msg, "disconnected", G_CALLBACK (on_disconnected), ex);
  g_hash_table_add (service->live, ex);
  exchange_watch (ex);
  return ex;
}

/** gg_a2g_exchange_ref: Returns: (transfer full): @ex */
GgA2gExchange *
gg_a2g_exchange_ref (GgA2gExchange *ex)
{
  g_atomic_ref_count_inc (&ex->ref);
  return ex;
}

static void
exchange_detach (GgA2gExchange *ex)
{
  if (ex->watch != NULL)
    {
      g_source_destroy (ex->watch);
      g_clear_pointer (&ex->watch, g_source_unref);
    }
  if (ex->msg == NULL)
    return;
  g_clear_signal_handler (&ex->disconnected_id, ex->msg);
  g_clear_object (&ex->msg);
  if (ex->service != NULL)
    g_hash_table_remove (ex->service->live, ex);
}

/** gg_a2g_exchange_unref: @ex: (transfer full): an exchange */
void
gg_a2g_exchange_unref (GgA2gExchange *ex)
{
  if (!g_atomic_ref_count_dec (&ex->ref))
    return;
  if (ex->msg != NULL)
    {
      /* Never answered (a bug): do not leave the client hanging. */
      gg_a2g_respond_error (ex->msg, GG_A2G_ERROR_UNAVAILABLE, "The request was not answered.");
      soup_server_message_unpause (ex->msg);
      exchange_detach (ex);
    }
  g_cancellable_cancel (ex->cancellable);
  g_object_unref (ex->cancellable);
  g_clear_pointer (&ex->body, json_object_unref);
  g_clear_pointer (&ex->query, g_hash_table_unref);
  g_clear_pointer (&ex->session, gg_a2g_session_unref);
  g_free (ex);
}

/**
 * gg_a2g_exchange_bearer:
 * @ex: an exchange
 *
 * Returns: (transfer full) (nullable): the credential of its
 *   `Authorization: Bearer` header (the caller wipes it)
 */
char *
gg_a2g_exchange_bearer (GgA2gExchange *ex)
{
  const char *header = soup_message_headers_get_one (soup_server_message_get_request_headers (ex->msg),
                                                     "Authorization");

  if (header == NULL || g_ascii_strncasecmp (header, "Bearer ", 7) != 0)
    return NULL;
  return g_strstrip (g_strdup (header + 7));
}

/** gg_a2g_exchange_is_live: Returns: whether @ex still awaits its answer */
gboolean
gg_a2g_exchange_is_live (GgA2gExchange *ex)
{
  return ex->msg != NULL && ex->service != NULL && !g_cancellable_is_cancelled (ex->cancellable);
}

static void
on_written (SoupServerMessage *msg,
            gpointer           user_data)
{
  guint *writing = user_data;

  g_signal_handlers_disconnect_by_func (msg, on_written, user_data);
  (*writing)--;
}

/**
 * gg_a2g_exchange_reply_bytes:
 * @ex: the exchange
 * @status: HTTP status
 * @body: the JSON text
 *
 * Answers; does nothing when the client is gone.
 */
void
gg_a2g_exchange_reply_bytes (GgA2gExchange *ex,
                             guint          status,
                             GBytes        *body)
{
  SoupServerMessage *msg = ex->msg;

  if (msg == NULL)
    return;
  respond_json (msg, status, body);
  if (ex->service != NULL && ex->service->closing)
    {
      /* Shutting down: the service waits until this answer is out. */
      ex->service->writing++;
      g_signal_connect (msg, "finished", G_CALLBACK (on_written), &ex->service->writing);
    }
  g_object_ref (msg);
  exchange_detach (ex);
  soup_server_message_unpause (msg);
  g_object_unref (msg);
}

/** gg_a2g_exchange_reply: answers @body with @status */
void
gg_a2g_exchange_reply (GgA2gExchange *ex,
                       guint          status,
                       JsonObject    *body)
{
  char *text = gg_json_object_to_string (body);
  g_autoptr(GBytes) bytes = g_bytes_new_take (text, strlen (text));

  gg_a2g_exchange_reply_bytes (ex, status, bytes);
}

/** gg_a2g_exchange_reply_error: answers the error row of @error */
void
gg_a2g_exchange_reply_error (GgA2gExchange *ex,
                             const GError  *error)
{
  GgA2gError code = error->domain == GG_A2G_ERROR ? (GgA2gError) error->code : GG_A2G_ERROR_UNAVAILABLE;
  const char *message = error->domain == GG_A2G_ERROR ? error->message : "The service is unavailable.";
  g_autoptr(GBytes) body = gg_a2g_error_body (code, message);

  if (ex->msg == NULL)
    return;
  if (code == GG_A2G_ERROR_RATE_LIMITED &&
      soup_message_headers_get_one (soup_server_message_get_response_headers (ex->msg), "Retry-After") == NULL)
    soup_message_headers_replace (soup_server_message_get_response_headers (ex->msg), "Retry-After", "1");
  gg_a2g_exchange_reply_bytes (ex, gg_a2g_error_status (code), body);
}

/**
 * gg_a2g_exchange_rate_limited:
 * @ex: an exchange
 * @wait_ms: how long until the limit lets a request through (> 0)
 * @message: the error's sentence
 *
 * Answers 429 `rate_limited` with `Retry-After` in whole seconds (at
 * least 1), rounded up.
 */
void
gg_a2g_exchange_rate_limited (GgA2gExchange *ex,
                              gint64         wait_ms,
                              const char    *message)
{
  g_autofree char *seconds = g_strdup_printf ("%" G_GINT64_FORMAT, MAX ((wait_ms + 999) / 1000, 1));

  if (ex->msg != NULL)
    soup_message_headers_replace (soup_server_message_get_response_headers (ex->msg), "Retry-After", seconds);
  gg_a2g_exchange_fail (ex, GG_A2G_ERROR_RATE_LIMITED, "%s", message);
}

/** gg_a2g_exchange_fail: answers an error made from @format */
void
gg_a2g_exchange_fail (GgA2gExchange *ex,
                      GgA2gError     code,
                      const char    *format,
                      ...)
{
  g_autoptr(GError) error = NULL;
  va_list args;

  va_start (args, format);
  error = g_error_new_valist (GG_A2G_ERROR, code, format, args);
  va_end (args);
  gg_a2g_exchange_reply_error (ex, error);
}

/**
 * gg_a2g_json_string:
 * @object: an object
 * @name: a member
 *
 * Returns: (transfer none) (nullable): the member when it is a string
 */
char *
gg_a2g_json_string (JsonObject *object,
                    const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return (char *) json_node_get_string (node);
}

/** gg_a2g_client_id_valid: Returns: whether @client_id matches ^[A-Za-z0-9_-]{8,64}$ */
gboolean
gg_a2g_client_id_valid (const char *client_id)
{
  gsize n = 0;

  if (client_id == NULL)
    return FALSE;
  for (const char *p = client_id; *p != '\0'; p++, n++)
    if (!g_ascii_isalnum (*p) && *p != '_' && *p != '-')
      return FALSE;
  return n >= 8 && n <= 64;
}

/* ---- authentication -------------------------------------------------------- */

typedef struct {
  GgA2gExchange *ex;
  GgA2gHandler then;
} AuthData;

static void
on_authenticated (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  AuthData *data = user_data;
  g_autoptr(GgA2gExchange) ex = data->ex;
  GgA2gHandler then = data->then;
  g_autoptr(GError) error = NULL;
  GgA2gSession *session = gg_a2g_store_session_lookup_finish (GG_A2G_STORE (source), result, &error);

  g_free (data);
  if (session == NULL)
    {
      gg_a2g_exchange_reply_error (ex, error);
      return;
    }
  ex->session = session;
  if (gg_a2g_exchange_is_live (ex))
    then (ex);
}

/**
 * gg_a2g_exchange_authenticate:
 * @ex: an exchange with a body
 * @then: the handler to run with `ex->session` set
 *
 * Checks `client_id` (400), the session (409) and its token (401).
 */
void
gg_a2g_exchange_authenticate (GgA2gExchange *ex,
                              GgA2gHandler   then)
{
  const char *client_id = gg_a2g_json_string (ex->body, "client_id");
  g_autofree char *token = NULL;
  AuthData *data;

  if (client_id == NULL)
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "client_id: is required");
      return;
    }
  if (!gg_a2g_client_id_valid (client_id))
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "client_id: must match ^[A-Za-z0-9_-]{8,64}$");
      return;
    }
  token = gg_a2g_exchange_bearer (ex);
  data = g_new0 (AuthData, 1);
  data->ex = gg_a2g_exchange_ref (ex);
  data->then = then;
  gg_a2g_store_session_lookup_async (ex->service->store, client_id, token, ex->cancellable,
                                     on_authenticated, data);
  if (token != NULL)
    memset (token, 0, strlen (token));
}


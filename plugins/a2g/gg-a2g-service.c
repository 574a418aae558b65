/* gg-a2g-service.c: the A2G HTTP service: request checks (in the local
 * profile loopback peer, Host, Origin; outside it those of
 * gg-a2g-access.c; methods, Content-Type, body size), routing, the
 * exchange every endpoint answers through, authentication of
 * session-bound requests, and the model and manifests the endpoints
 * share.
 *
 * Error bodies are `{"a2g":"0.1","ok":false,"error":…,"code":…}` with
 * short English sentences: never a token, a path or provider detail.
 * No response carries Access-Control-Allow-Origin: the console is served
 * from the same origin and needs no CORS.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "gg-a2g-console.h"
#include "gg-a2g-endpoints.h"
#include "gg-a2g-exchange.h"
#include "gg-a2g-process-store.h"
#include "gg-a2g-redis-store.h"
#include "gg-a2g-service.h"

typedef struct {
  const char *path;
  const char *method;   /* "GET" or "POST" */
  GgA2gHandler handler; /* NULL: served by the console */
  gboolean session;     /* needs a session (client_id + token) */
} Route;

static const Route routes[] = {
  { "/", "GET", NULL, FALSE },
  { "/console.css", "GET", NULL, FALSE },
  { "/console.js", "GET", NULL, FALSE },
  { "/v1/console/events", "GET", NULL, FALSE },
  { "/health", "GET", gg_a2g_handle_health, FALSE },
  { "/v1/session", "POST", gg_a2g_handle_session, FALSE },
  { "/v1/decide", "POST", gg_a2g_handle_decide, TRUE },
  { "/v1/report", "POST", gg_a2g_handle_report, TRUE },
  { "/v1/telemetry", "POST", gg_a2g_handle_telemetry, TRUE },
  { "/v1/context", "POST", gg_a2g_handle_context, TRUE },
  { "/v1/usage", "GET", gg_a2g_handle_usage, FALSE },
  { "/v1/policy", "GET", gg_a2g_handle_policy, FALSE },
};

static const Route *
find_route (const char *path)
{
  for (guint i = 0; i < G_N_ELEMENTS (routes); i++)
    if (strcmp (routes[i].path, path) == 0)
      return &routes[i];
  return NULL;
}

/* ---- request checks -------------------------------------------------------- */

static gboolean
host_allowed (const char *host)
{
  const char *names[] = { "127.0.0.1", "localhost", "[::1]" };

  if (host == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      gsize n = strlen (names[i]);

      if (g_ascii_strncasecmp (host, names[i], n) == 0)
        {
          const char *rest = host + n;

          if (*rest == '\0')
            return TRUE;
          if (*rest != ':' || rest[1] == '\0')
            return FALSE;
          for (const char *p = rest + 1; *p != '\0'; p++)
            if (!g_ascii_isdigit (*p))
              return FALSE;
          return strlen (rest + 1) <= 5;
        }
    }
  return FALSE;
}

static gboolean
origin_allowed (GgA2gService *service,
                const char   *origin)
{
  const char *names[] = { "http://127.0.0.1", "http://localhost", "http://[::1]" };

  if (origin == NULL)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_str_has_prefix (origin, names[i]) &&
        g_strcmp0 (origin + strlen (names[i]), service->origin_port) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
peer_is_loopback (SoupServerMessage *msg)
{
  GSocketAddress *address = soup_server_message_get_remote_address (msg);

  return address != NULL && G_IS_INET_SOCKET_ADDRESS (address) &&
         g_inet_address_get_is_loopback (g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (address)));
}

static gboolean
is_json_content (SoupMessageHeaders *headers)
{
  const char *type = soup_message_headers_get_content_type (headers, NULL);

  return type != NULL && g_ascii_strcasecmp (type, "application/json") == 0;
}

static void
on_got_chunk (SoupServerMessage *msg,
              GBytes            *chunk,
              gpointer           user_data)
{
  gsize total = GPOINTER_TO_SIZE (g_object_get_data (G_OBJECT (msg), "gg-a2g-size"));

  total = MIN (total + g_bytes_get_size (chunk), (gsize) GG_A2G_MAX_BODY + 1);
  g_object_set_data (G_OBJECT (msg), "gg-a2g-size", GSIZE_TO_POINTER (total));
  if (total > GG_A2G_MAX_BODY)
    {
      /* Counted as it arrives; nothing past the limit is kept. */
      SoupMessageBody *body = soup_server_message_get_request_body (msg);
      soup_message_body_set_accumulate (body, FALSE);
      soup_message_body_truncate (body);
    }
}

static gboolean
close_later (gpointer user_data)
{
  g_io_stream_close (user_data, NULL, NULL);
  return G_SOURCE_REMOVE;
}

/* libsoup reads a refused body before it answers (unless the client sent
 * Expect: 100-continue). A body over the limit is not read at all: the
 * connection is taken over, the answer written, and it is closed. */
static void
refuse_unread (SoupServerMessage *msg,
               GgA2gError         code,
               const char        *message)
{
  g_autoptr(GBytes) body = gg_a2g_error_body (code, message);
  g_autoptr(GIOStream) stream = soup_server_message_steal_connection (msg);
  g_autofree char *head = NULL;
  const char *hsts;
  GOutputStream *out;
  gsize length;
  gconstpointer data = g_bytes_get_data (body, &length);

  if (stream == NULL)
    return;
  hsts = soup_message_headers_get_one (soup_server_message_get_response_headers (msg), "Strict-Transport-Security");
  head = g_strdup_printf ("HTTP/1.1 %u %s\r\nContent-Type: application/json\r\nContent-Length: %" G_GSIZE_FORMAT
                          "\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n%s%s%s"
                          "Connection: close\r\n\r\n", gg_a2g_error_status (code),
                          soup_status_get_phrase (gg_a2g_error_status (code)), length,
                          hsts != NULL ? "Strict-Transport-Security: " : "", hsts != NULL ? hsts : "",
                          hsts != NULL ? "\r\n" : "");
  out = g_io_stream_get_output_stream (stream);
  if (g_output_stream_write_all (out, head, strlen (head), NULL, NULL, NULL) &&
      g_output_stream_write_all (out, data, length, NULL, NULL, NULL))
    g_output_stream_flush (out, NULL, NULL);
  if (G_IS_SOCKET_CONNECTION (stream))
    g_socket_shutdown (g_socket_connection_get_socket (G_SOCKET_CONNECTION (stream)), FALSE, TRUE, NULL);
  /* Closed a moment later, so that the answer is read before a reset. */
  g_timeout_add_full (G_PRIORITY_DEFAULT, 1000, close_later, g_steal_pointer (&stream), g_object_unref);
}

static void
early_handler (SoupServer        *soup,
               SoupServerMessage *msg,
               const char        *path,
               GHashTable        *query,
               gpointer           user_data)
{
  GgA2gService *service = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *method = soup_server_message_get_method (msg);
  const Route *route;
  const char *refusal = NULL;

  if (service->settings.profile != GG_A2G_PROFILE_LOCAL)
    {
      /* Outside the local profile (gg-a2g-access.c): HTTPS only, HSTS on
       * every answer, the service's own origin only, and the console and
       * the readers behind their credentials. */
      soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Strict-Transport-Security",
                                    "max-age=31536000");
      if (!gg_a2g_access_check_transport (service->settings.access, msg, &refusal))
        {
          gg_a2g_respond_error (msg, GG_A2G_ERROR_FORBIDDEN, refusal);
          return;
        }
      if (!gg_a2g_access_check_origin (service->settings.access, msg))
        {
          gg_a2g_respond_error (msg, GG_A2G_ERROR_FORBIDDEN, "Origin not allowed.");
          return;
        }
      route = find_route (path);
      if (route != NULL && (route->handler == NULL || route->handler == gg_a2g_handle_usage ||
                            route->handler == gg_a2g_handle_policy))
        {
          GgA2gReader reader = route->handler == NULL ? GG_A2G_READER_CONSOLE
                               : route->handler == gg_a2g_handle_usage ? GG_A2G_READER_USAGE
                               : GG_A2G_READER_POLICY;
          GgA2gError code = GG_A2G_ERROR_FORBIDDEN;

          if (!gg_a2g_access_check_reader (service->settings.access, msg, reader,
                                           query != NULL ? g_hash_table_lookup (query, "manifest_hash") : NULL,
                                           &code, &refusal))
            {
              /* The browser's own prompt, for the page and the event stream. */
              if (reader == GG_A2G_READER_CONSOLE && code == GG_A2G_ERROR_UNAUTHORIZED)
                soup_message_headers_replace (soup_server_message_get_response_headers (msg), "WWW-Authenticate",
                                              "Basic realm=\"a2g console\", charset=\"UTF-8\"");
              gg_a2g_respond_error (msg, code, refusal);
              return;
            }
        }
    }
  else if (!peer_is_loopback (msg))
    {
      gg_a2g_respond_error (msg, GG_A2G_ERROR_FORBIDDEN, "Only loopback clients are served in the local profile.");
      return;
    }
  else if (!host_allowed (soup_message_headers_get_one (headers, "Host")))
    {
      gg_a2g_respond_error (msg, GG_A2G_ERROR_FORBIDDEN, "Host not allowed.");
      return;
    }
  else if (!origin_allowed (service, soup_message_headers_get_one (headers, "Origin")))
    {
      gg_a2g_respond_error (msg, GG_A2G_ERROR_FORBIDDEN, "Origin not allowed.");
      return;
    }
  if (service->closing)
    {
      gg_a2g_respond_error (msg, GG_A2G_ERROR_UNAVAILABLE, "The service is shutting down.");
      return;
    }
  route = find_route (path);
  if (route == NULL)
    {
      gg_a2g_respond_error (msg, GG_A2G_ERROR_NOT_FOUND, "Unknown path.");
      return;
    }
  if (strcmp (method, route->method) != 0)
    {
      soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Allow", route->method);
      gg_a2g_respond_error (msg, GG_A2G_ERROR_METHOD_NOT_ALLOWED, "Method not allowed.");
      return;
    }
  if (strcmp (method, "POST") == 0 && !is_json_content (headers))
    {
      gg_a2g_respond_error (msg, GG_A2G_ERROR_UNSUPPORTED_MEDIA_TYPE, "Content-Type must be application/json.");
      return;
    }
  if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH &&
      soup_message_headers_get_content_length (headers) > GG_A2G_MAX_BODY)
    {
      refuse_unread (msg, GG_A2G_ERROR_TOO_LARGE, "The body is over 262144 bytes.");
      return;
    }
  g_signal_connect (msg, "got-chunk", G_CALLBACK (on_got_chunk), NULL);
}

/* ---- dispatch -------------------------------------------------------------- */

typedef struct {
  GgA2gExchange *ex;
  const Route *route;
} Dispatch;

static void
run_route (GgA2gExchange *ex,
           const Route   *route)
{
  if (route->session)
    gg_a2g_exchange_authenticate (ex, route->handler);
  else
    route->handler (ex);
}

static void
on_address_rate (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Dispatch *dispatch = user_data;
  g_autoptr(GgA2gExchange) ex = dispatch->ex;
  const Route *route = dispatch->route;
  g_autoptr(GError) error = NULL;
  gint64 wait_ms = gg_a2g_store_rate_take_finish (GG_A2G_STORE (source), result, &error);

  g_free (dispatch);
  if (!gg_a2g_exchange_is_live (ex))
    return;
  /* A shared store out of reach: the route decides (sessions fail closed,
   * decisions fall back), so the address limit does not answer for it. */
  if (error == NULL && wait_ms != 0)
    {
      gg_a2g_exchange_rate_limited (ex, wait_ms, "Too many requests.");
      return;
    }
  run_route (ex, route);
}

static void
handler (SoupServer        *soup,
         SoupServerMessage *msg,
         const char        *path,
         GHashTable        *query,
         gpointer           user_data)
{
  GgA2gService *service = user_data;
  const Route *route = find_route (path);
  g_autoptr(GgA2gExchange) ex = NULL;
  Dispatch *dispatch;
  g_autofree char *bucket = NULL;
  GSocketAddress *peer = soup_server_message_get_remote_address (msg);
  g_autofree char *peer_text = NULL;

  if (route == NULL)
    return;  /* answered by the early handler */
  if (route->handler == NULL)
    {
      if (strcmp (path, "/v1/console/events") == 0)
        gg_a2g_console_open_stream (service->console, msg);
      else
        gg_a2g_console_serve_file (service->console, msg, path);
      return;
    }
  if (GPOINTER_TO_SIZE (g_object_get_data (G_OBJECT (msg), "gg-a2g-size")) > GG_A2G_MAX_BODY)
    {
      gg_a2g_respond_error (msg, GG_A2G_ERROR_TOO_LARGE, "The body is over 262144 bytes.");
      return;
    }

  soup_server_message_pause (msg);
  ex = gg_a2g_exchange_new (service, msg);
  if (query != NULL)
    ex->query = g_hash_table_ref (query);
  if (strcmp (route->method, "POST") == 0)
    {
      SoupMessageBody *body = soup_server_message_get_request_body (msg);
      g_autoptr(GBytes) bytes = soup_message_body_flatten (body);
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = NULL;
      gsize length;
      const char *data = g_bytes_get_data (bytes, &length);

      node = gg_json_parse (data != NULL ? data : "", (gssize) length, GG_A2G_JSON_DEPTH, &error);
      if (node == NULL)
        {
          gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "Invalid JSON: %s", error->message);
          return;
        }
      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "The body must be a JSON object.");
          return;
        }
      ex->body = json_object_ref (json_node_get_object (node));
    }

  /* Requests per network address (all of them loopback here, but the
   * limit is the same one the server profile applies). */
  if (peer != NULL && G_IS_INET_SOCKET_ADDRESS (peer))
    peer_text = g_inet_address_to_string (g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (peer)));
  bucket = g_strconcat ("address:", peer_text != NULL ? peer_text : "?", NULL);
  dispatch = g_new0 (Dispatch, 1);
  dispatch->ex = gg_a2g_exchange_ref (ex);
  dispatch->route = route;
  gg_a2g_store_rate_take_async (service->store, bucket, service->settings.address_rate,
                                service->settings.address_burst, ex->cancellable, on_address_rate, dispatch);
}

/* The client closed its connection before its answer: stop its work. */
static void
on_request_aborted (SoupServer        *soup,
                    SoupServerMessage *msg,
                    gpointer           user_data)
{
  GgA2gService *service = user_data;
  GHashTableIter iter;
  GgA2gExchange *ex;

  g_hash_table_iter_init (&iter, service->live);
  while (g_hash_table_iter_next (&iter, (gpointer *) &ex, NULL))
    if (ex->msg == msg)
      {
        g_cancellable_cancel (ex->cancellable);
        break;
      }
}

/* ---- the service ----------------------------------------------------------- */

static char *
model_provider (GgA2gService *service,
                JsonNode     *spec)
{
  /* "system" names the bus's default model: the bus keeps it (transfer none). */
  if (spec != NULL && JSON_NODE_HOLDS_VALUE (spec) && g_strcmp0 (json_node_get_string (spec), "system") == 0)
    spec = gg_bus_get_default_model (service->bus);
  if (spec == NULL)
    return g_strdup ("none");
  if (JSON_NODE_HOLDS_VALUE (spec) && json_node_get_value_type (spec) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (spec));
  if (JSON_NODE_HOLDS_OBJECT (spec) && gg_a2g_json_string (json_node_get_object (spec), "type") != NULL)
    return g_strdup (gg_a2g_json_string (json_node_get_object (spec), "type"));
  return g_strdup ("unknown");
}

/**
 * gg_a2g_service_new:
 * @bus: the bus (models)
 * @settings: (transfer full): the [a2g] settings, moved into the service
 * @error: unused yet
 *
 * Returns: (transfer full): a service, not listening yet
 */
GgA2gService *
gg_a2g_service_new (GgBus          *bus,
                    GgA2gSettings  *settings,
                    GError        **error)
{
  GgA2gService *service = g_new0 (GgA2gService, 1);
  g_autoptr(GError) model_error = NULL;

  service->bus = bus;
  service->settings = *settings;
  memset (settings, 0, sizeof *settings);
  if (service->settings.redis != NULL)
    service->store = GG_A2G_STORE (gg_a2g_redis_store_new (service->settings.redis, service->settings.redis_prefix,
                                                           service->settings.redis_timeout_ms,
                                                           (guint) service->settings.cache_entries,
                                                           service->settings.cache_ttl_s));
  else
    service->store = GG_A2G_STORE (gg_a2g_process_store_new ((guint) service->settings.cache_entries,
                                                             service->settings.cache_ttl_s));
  service->stats = gg_a2g_stats_new (service->store);
  service->live = g_hash_table_new (NULL, NULL);
  service->model = gg_bus_create_model (bus, service->settings.model, &model_error);
  if (service->model == NULL)
    /* Decisions become FALLBACK unavailable; the reason is for the operator. */
    g_warning ("a2g: no model: %s", model_error->message);
  if (JSON_NODE_HOLDS_VALUE (service->settings.model))
    service->model_name = g_strdup (json_node_get_string (service->settings.model));
  else
    service->model_name = model_provider (service, service->settings.model);
  service->provider = model_provider (service, service->settings.model);
  service->soup = soup_server_new ("server-header", "gamegate-a2g ", NULL);
  soup_server_add_early_handler (service->soup, NULL, early_handler, service, NULL);
  soup_server_add_handler (service->soup, NULL, handler, service, NULL);
  g_signal_connect (service->soup, "request-aborted", G_CALLBACK (on_request_aborted), service);
  service->console = gg_a2g_console_new (service);
  return service;
}

/**
 * gg_a2g_service_listen:
 * @service: the service
 * @error: where to report failure
 *
 * Returns: %TRUE once listening on the configured loopback address
 */
gboolean
gg_a2g_service_listen (GgA2gService  *service,
                       GError       **error)
{
  g_autoptr(GInetAddress) host = g_inet_address_new_from_string (service->settings.listen_host);
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GSList) listeners = NULL;
  g_autoptr(GSocketAddress) local = NULL;

  if (host == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "Cannot listen on %s",
                   service->settings.listen_host);
      return FALSE;
    }
  address = g_inet_socket_address_new (host, service->settings.listen_port);
  if (gg_a2g_access_get_certificate (service->settings.access) != NULL)
    {
      /* Its own TLS: accepted and checked (TLS 1.2+) in gg-a2g-tls.c. */
      service->tls = gg_a2g_tls_listener_new (service->soup, gg_a2g_access_get_certificate (service->settings.access),
                                              address, (guint) service->settings.tls_handshake_timeout_s, error);
      if (service->tls == NULL)
        return FALSE;
      service->port = gg_a2g_tls_listener_get_port (service->tls);
      g_free (service->origin_port);
      service->origin_port = g_strdup_printf (":%u", service->port);
      return TRUE;
    }
  if (!soup_server_listen (service->soup, address, 0, error))
    return FALSE;
  listeners = soup_server_get_listeners (service->soup);
  local = listeners != NULL ? g_socket_get_local_address (listeners->data, error) : NULL;
  if (local == NULL)
    return FALSE;
  service->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local));
  g_free (service->origin_port);
  service->origin_port = g_strdup_printf (":%u", service->port);
  return TRUE;
}

/**
 * gg_a2g_service_close:
 * @service: the service
 *
 * Stops serving: requests in progress are cancelled (a decide answers
 * what it has), new ones get 503, and the listeners close.
 */
void
gg_a2g_service_close (GgA2gService *service)
{
  GHashTableIter iter;
  GgA2gExchange *ex;

  if (service->closing)
    return;
  service->closing = TRUE;
  g_hash_table_iter_init (&iter, service->live);
  while (g_hash_table_iter_next (&iter, (gpointer *) &ex, NULL))
    g_cancellable_cancel (ex->cancellable);
  gg_a2g_console_close (service->console);
}

/**
 * gg_a2g_service_answer_unavailable:
 * @service: a closing service
 *
 * Answers every request still in progress with 503.
 */
void
gg_a2g_service_answer_unavailable (GgA2gService *service)
{
  g_autoptr(GList) live = g_hash_table_get_keys (service->live);

  for (GList *l = live; l != NULL; l = l->next)
    gg_a2g_exchange_fail (l->data, GG_A2G_ERROR_UNAVAILABLE, "The service is shutting down.");
}

/** gg_a2g_service_free: @service: (transfer full): the service */
void
gg_a2g_service_free (GgA2gService *service)
{
  GHashTableIter iter;
  GgA2gExchange *ex;

  gg_a2g_service_close (service);
  g_hash_table_iter_init (&iter, service->live);
  while (g_hash_table_iter_next (&iter, (gpointer *) &ex, NULL))
    ex->service = NULL;
  g_clear_pointer (&service->tls, gg_a2g_tls_listener_free);
  soup_server_disconnect (service->soup);
  gg_a2g_console_free (service->console);
  g_object_unref (service->soup);
  g_hash_table_unref (service->live);
  g_clear_object (&service->model);
  g_clear_object (&service->store);
  gg_a2g_stats_free (service->stats);
  g_free (service->model_name);
  g_free (service->provider);
  g_free (service->origin_port);
  gg_a2g_settings_clear (&service->settings);
  g_free (service);
}

/* refgame-http.c: GET /health, /state, /command, /tools and /screenshot on
 * 127.0.0.1.
 *
 * Handlers answer from the main loop at once: /command only types and queues
 * the command (fire-and-forget); the game's tick applies it later.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "refgame-http.h"
#include "refgame-commands.h"
#include "refgame-manifest.h"
#include "refgame-query.h"
#include "refgame-sim.h"

#include <libsoup/soup.h>

struct _RgHttp {
  SoupServer *server;
  RgGame     *game;        /* not owned */
  gboolean    no_tools;
  RgScreenshotOptions screenshot;
};

/* libsoup before 3.3 leaks the socket (and its file descriptor) of every
 * keep-alive connection the client closes while idle, which a bridge polling
 * /state does all day.  There, the server closes each connection itself,
 * unless told to keep them alive (--keep-alive: a benchmark's long-lived
 * client, measuring what a game whose HTTP server has no such bug costs). */
static gboolean close_connections;
static gboolean keep_alive_asked;

/**
 * rg_http_keep_connections_alive:
 *
 * Keeps every connection alive, as HTTP/1.1 does, even on a libsoup that
 * leaks the socket of one its client closes while idle. Call it before
 * rg_http_new().
 */
void
rg_http_keep_connections_alive (void)
{
  keep_alive_asked = TRUE;
}

static void
respond (SoupServerMessage *msg,
         guint              status,
         char              *body)   /* taken */
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);

  soup_message_headers_replace (headers, "Cache-Control", "no-store");
  if (close_connections)
    soup_message_headers_replace (headers, "Connection", "close");
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE, body, strlen (body));
}

static void
respond_error (SoupServerMessage *msg,
               guint              status,
               const char        *code,
               const char        *message)
{
  GString *out = g_string_new ("{\"accepted\":false,\"error\":");

  rg_json_write_string (out, code);
  g_string_append (out, ",\"message\":");
  rg_json_write_string (out, message);
  g_string_append_c (out, '}');
  respond (msg, status, g_string_free (out, FALSE));
}

static void
write_string_array (GString            *out,
                    const char * const *items,
                    guint               n)
{
  g_string_append_c (out, '[');
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      rg_json_write_string (out, items[i]);
    }
  g_string_append_c (out, ']');
}

static void
handle_command (RgHttp            *http,
                SoupServerMessage *msg)
{
  GUri *uri = soup_server_message_get_uri (msg);
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) params = NULL;
  g_autoptr(JsonObject) args = NULL;
  g_autoptr(GPtrArray) ignored = NULL;
  g_autofree char *name = NULL;
  GString *out;
  guint64 id;

  params = rg_query_parse (g_uri_get_query (uri), &error);
  if (params == NULL)
    {
      respond_error (msg, SOUP_STATUS_BAD_REQUEST, "bad_query", error->message);
      return;
    }
  args = rg_commands_parse (params, &name, &ignored, &error);
  if (args == NULL)
    {
      if (g_error_matches (error, RG_COMMAND_ERROR, RG_COMMAND_ERROR_UNKNOWN_COMMAND))
        {
          const char * const *known = rg_commands_known ();

          /* HTTP 200: the request was fine, the game just has no such command. */
          out = g_string_new ("{\"accepted\":false,\"error\":\"unknown_command\",\"message\":");
          rg_json_write_string (out, error->message);
          g_string_append (out, ",\"known\":");
          write_string_array (out, known, g_strv_length ((char **) known));
          g_string_append_c (out, '}');
          respond (msg, SOUP_STATUS_OK, g_string_free (out, FALSE));
        }
      else
        respond_error (msg, SOUP_STATUS_BAD_REQUEST, rg_command_error_code (error), error->message);
      return;
    }
  if (!rg_game_enqueue (http->game, name, args, &id))
    {
      respond (msg, SOUP_STATUS_OK,
               g_strdup_printf ("{\"accepted\":false,\"error\":\"queue_full\",\"message\":"
                                "\"the command queue holds %d commands not yet applied\"}", RG_QUEUE_MAX));
      return;
    }
  out = g_string_new (NULL);
  g_string_append_printf (out, "{\"accepted\":true,\"commandId\":%" G_GUINT64_FORMAT
                          ",\"frame\":%" G_GUINT64_FORMAT,
                          id, rg_game_get_frame (http->game));
  if (ignored->len > 0)
    {
      g_string_append (out, ",\"ignored\":");
      write_string_array (out, (const char * const *) ignored->pdata, ignored->len);
    }
  g_string_append_c (out, '}');
  respond (msg, SOUP_STATUS_OK, g_string_free (out, FALSE));
}

static void
handle_request (SoupServer        *server,
                SoupServerMessage *msg,
                const char        *path,
                GHashTable        *query,
                gpointer           user_data)
{
  RgHttp *http = user_data;
  const char *method = soup_server_message_get_method (msg);

  if (method != SOUP_METHOD_GET && method != SOUP_METHOD_HEAD)
    {
      soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Allow", "GET, HEAD");
      respond_error (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, "method_not_allowed",
                     "the game's debug surface only answers GET");
      return;
    }

  if (g_str_equal (path, "/health"))
    respond (msg, SOUP_STATUS_OK,
             g_strdup_printf ("{\"ok\":true,\"frame\":%" G_GUINT64_FORMAT "}", rg_game_get_frame (http->game)));
  else if (g_str_equal (path, "/state"))
    respond (msg, SOUP_STATUS_OK, rg_game_state_json (http->game));
  else if (g_str_equal (path, "/command"))
    handle_command (http, msg);
  else if (g_str_equal (path, "/tools") && !http->no_tools)
    {
      g_autofree char *screenshot = rg_screenshot_manifest (&http->screenshot);

      respond (msg, SOUP_STATUS_OK, rg_manifest_json (screenshot));
    }
  else if (g_str_equal (path, "/screenshot"))
    {
      rg_screenshot_respond (&http->screenshot, http->game, msg);
      if (close_connections)
        soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Connection", "close");
    }
  else
    respond_error (msg, SOUP_STATUS_NOT_FOUND, "not_found",
                   "no such endpoint; this game serves /health, /state, /command, /tools and /screenshot");
}

/**
 * rg_http_new:
 * @game: the game the surface reads and queues into (must outlive the surface)
 * @no_tools: answer GET /tools with 404, as a game without a manifest does
 * @screenshot: what GET /screenshot serves (copied)
 *
 * Returns: (transfer full): a surface that is not listening yet.
 */
RgHttp *
rg_http_new (RgGame                    *game,
             gboolean                   no_tools,
             const RgScreenshotOptions *screenshot)
{
  RgHttp *http = g_new0 (RgHttp, 1);

  close_connections = !keep_alive_asked && soup_get_major_version () == 3 && soup_get_minor_version () < 3;

  http->game = game;
  http->no_tools = no_tools;
  http->screenshot = *screenshot;
  http->server = soup_server_new ("server-header", "gamegate-refgame ", NULL);
  soup_server_add_handler (http->server, NULL, handle_request, http, NULL);
  return http;
}

void
rg_http_free (RgHttp *http)
{
  if (http == NULL)
    return;
  rg_http_stop (http);
  g_clear_object (&http->server);
  g_free (http);
}

/**
 * rg_http_listen:
 * @http: the surface
 * @port: the port to bind on 127.0.0.1, 0 for any free one
 * @out_port: (out): the port bound
 * @error: where a bind failure goes
 *
 * Returns: %TRUE once listening.
 */
gboolean
rg_http_listen (RgHttp   *http,
                guint     port,
                guint    *out_port,
                GError  **error)
{
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, port);
  g_autoptr(GSList) listeners = NULL;
  g_autoptr(GSocketAddress) local = NULL;

  if (!soup_server_listen (http->server, address, 0, error))
    return FALSE;
  /* Not soup_server_get_uris(): libsoup 3.2 leaks the address it reads there. */
  listeners = soup_server_get_listeners (http->server);
  local = listeners != NULL ? g_socket_get_local_address (listeners->data, error) : NULL;
  if (local == NULL)
    return FALSE;
  *out_port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local));
  return TRUE;
}

/**
 * rg_http_stop:
 * @http: the surface
 *
 * Closes the listening socket and every open connection.
 */
void
rg_http_stop (RgHttp *http)
{
  if (http->server != NULL)
    soup_server_disconnect (http->server);
}

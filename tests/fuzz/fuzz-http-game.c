/* fuzz-http-game.c: see fuzz-http-game.h. The answers are the reference
 * game's (tests/refgame) at frame 0, so a target that sets none talks to a
 * game gamebridge knows how to drive. /state keeps completedCommandId at
 * the last commandId handed out, so a command is confirmed at once.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz-http-game.h"

#include <libsoup/soup.h>
#include <string.h>

typedef struct {
  guint status;
  GBytes *body;
} Answer;

static SoupServer *server;
static guint port;
static Answer answers[FUZZ_HTTP_N_PATHS];
static guint served;

static const char *default_bodies[FUZZ_HTTP_N_PATHS] = {
  "{\"ok\":true,\"frame\":0}",
  "{\"game\":{\"name\":\"Fuzz Game\",\"version\":\"0.1.0\",\"protocol\":1},\"toolsets\":[{\"name\":\"play\","
    "\"description\":\"Drive the game.\",\"tools\":[{\"name\":\"spawn\",\"description\":\"Take a crate.\","
    "\"args\":{\"kind\":{\"type\":\"string\",\"description\":\"wood, steel or ice\"}}},{\"name\":\"drop\","
    "\"description\":\"Release it.\",\"args\":[{\"name\":\"x\",\"type\":\"number\",\"required\":false}]},"
    "{\"name\":\"new_game\",\"command\":\"restart\",\"description\":\"Start again.\",\"args\":[]}]}]}",
  "{\"frame\":0,\"simFrame\":0,\"completedCommandId\":1,\"paused\":false,\"queued\":0,\"ui\":{\"screen\":"
    "\"GameScreen\",\"elements\":[{\"label\":\"Score\",\"visible\":true}]},\"events\":[\"spawned wood\"],"
    "\"game\":{\"score\":0,\"state\":\"RUNNING\",\"held\":null,\"crates\":[]}}",
  "{\"accepted\":true,\"commandId\":1,\"frame\":0}",
};

static void
handle (SoupServer        *soup,
        SoupServerMessage *msg,
        const char        *path,
        GHashTable        *query,
        gpointer           user_data)
{
  static const char *paths[FUZZ_HTTP_N_PATHS] = { "/health", "/tools", "/state", "/command" };

  served++;
  for (guint i = 0; i < FUZZ_HTTP_N_PATHS; i++)
    if (g_str_equal (path, paths[i]))
      {
        gsize size = 0;
        const char *data = g_bytes_get_data (answers[i].body, &size);

        soup_server_message_set_status (msg, answers[i].status, NULL);
        soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, data, size);
        return;
      }
  soup_server_message_set_status (msg, 404, NULL);
  soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_STATIC, "no", 2);
}

void
fuzz_http_game_set (FuzzHttpPath path,
                    guint        status,
                    const char  *body,
                    gsize        length)
{
  g_clear_pointer (&answers[path].body, g_bytes_unref);
  answers[path].status = status;
  answers[path].body = g_bytes_new (body, length);
}

void
fuzz_http_game_reset (void)
{
  for (guint i = 0; i < FUZZ_HTTP_N_PATHS; i++)
    fuzz_http_game_set (i, 200, default_bodies[i], strlen (default_bodies[i]));
  served = 0;
}

guint
fuzz_http_game_served (void)
{
  return served;
}

guint
fuzz_http_game_port (void)
{
  if (server == NULL)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
      g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
      GSList *uris;

      fuzz_http_game_reset ();
      server = soup_server_new (NULL, NULL);
      soup_server_add_handler (server, NULL, handle, NULL, NULL);
      if (!soup_server_listen (server, address, 0, &error))
        g_error ("the fake game cannot listen: %s", error->message);
      uris = soup_server_get_uris (server);
      port = g_uri_get_port (uris->data);
      g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
    }
  return port;
}

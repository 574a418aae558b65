/* bench-bare-soup.c: a bare libsoup server answering every request with
 * the same 200 JSON, read from a file: the HTTP floor gamegate's a2g is
 * measured against in bench-a2g-peers.py (the same library, the same
 * bytes, nothing decided). Prints "listening on http://127.0.0.1:PORT".
 *
 * Usage: bench-bare-soup ANSWER_FILE
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdio.h>

#include <libsoup/soup.h>

static void
on_request (SoupServer        *server,
            SoupServerMessage *msg,
            const char        *path,
            GHashTable        *query,
            gpointer           user_data)
{
  GBytes *answer = user_data;
  gsize length;
  const char *data = g_bytes_get_data (answer, &length);

  (void) server, (void) path, (void) query;
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, data, length);
  soup_server_message_set_status (msg, 200, NULL);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(SoupServer) server = NULL;
  g_autoptr(GBytes) answer = NULL;
  g_autofree char *text = NULL;
  gsize length;
  GSList *uris;

  if (argc != 2)
    {
      g_printerr ("usage: bench-bare-soup ANSWER_FILE\n");
      return 2;
    }
  if (!g_file_get_contents (argv[1], &text, &length, &error))
    {
      g_printerr ("bench-bare-soup: %s\n", error->message);
      return 1;
    }
  answer = g_bytes_new_take (g_steal_pointer (&text), length);
  server = soup_server_new ("server-header", NULL, NULL);
  soup_server_add_handler (server, NULL, on_request, answer, NULL);
  if (!soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error))
    {
      g_printerr ("bench-bare-soup: %s\n", error->message);
      return 1;
    }
  uris = soup_server_get_uris (server);
  printf ("listening on http://127.0.0.1:%d\n", g_uri_get_port (uris->data));
  fflush (stdout);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  /* Runs until the benchmark ends it (SIGTERM). */
  g_main_loop_run (loop);
  return 0;
}

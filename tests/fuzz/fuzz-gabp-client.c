/* fuzz-gabp-client.c: gamegate as a GABP bridge (gg-gabp-client) against a
 * mod that says anything: a fake mod in this process accepts the
 * connection over loopback TCP, reads gamegate's session/hello and answers
 * with the input's lines, one message body per line, each framed with its
 * Content-Length. In a line, $ID stands for the id of the last request
 * gamegate sent (so a welcome can answer the hello); a line "~" waits for
 * gamegate's next request (once ready, it asks tools/list and tools/call),
 * at most 20 ms.
 * After the last line the mod hangs up. The first byte picks the options.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "gg-gabp-client.h"

#define FUZZ_TOKEN "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

typedef struct {
  GPtrArray *lines;          /* char *, "~" entries are pauses */
  guint next;
  char *last_id;
  GgFramedStream *stream;
  GSocketConnection *connection;
  gboolean closing;
  gboolean hung_up;
  guint pause_id;            /* a pause ends with the next request or after 20 ms */
} FakeMod;

static FakeMod mod;

static GgGabpSchemas *
schemas (void)
{
  static GgGabpSchemas *loaded;

  if (loaded == NULL)
    {
      g_autoptr(GError) error = NULL;
      const char *dir = g_getenv ("GAMEGATE_GABP_SCHEMA_DIR");

      loaded = gg_gabp_schemas_new_from_dir (dir != NULL && *dir ? dir : FUZZ_GABP_SCHEMA_DIR, &error);
      if (loaded == NULL)
        g_error ("no GABP schemas: %s", error->message);
    }
  return loaded;
}

static void
mod_close (void)
{
  mod.hung_up = TRUE;
  if (mod.stream != NULL)
    gg_framed_stream_close (mod.stream);
  if (mod.connection != NULL)
    g_io_stream_close (G_IO_STREAM (mod.connection), NULL, NULL);
}

static void
mod_flushed (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  GgFramedStream *stream = GG_FRAMED_STREAM (source);

  (void) gg_framed_stream_flush_finish (stream, result, NULL);
  /* A later input's mod is not this one. */
  if (stream == mod.stream)
    mod_close ();
  g_object_unref (stream);
}

/* Hangs up once everything sent has gone out. */
static void
mod_hang_up (void)
{
  if (mod.hung_up || mod.closing)
    return;
  mod.closing = TRUE;
  if (mod.stream == NULL)
    {
      mod_close ();
      return;
    }
  gg_framed_stream_flush_async (mod.stream, NULL, mod_flushed, g_object_ref (mod.stream));
}

static void mod_send (void);

static gboolean
pause_over (gpointer user_data)
{
  mod.pause_id = 0;
  mod_send ();
  return G_SOURCE_REMOVE;
}

/* Sends lines up to the next pause (or all, then hangs up). */
static void
mod_send (void)
{
  g_clear_handle_id (&mod.pause_id, g_source_remove);
  while (mod.next < mod.lines->len)
    {
      const char *line = mod.lines->pdata[mod.next++];
      g_autofree char *id = g_strdup_printf ("\"%s\"", mod.last_id != NULL ? mod.last_id : "");
      g_auto(GStrv) parts = NULL;
      g_autofree char *body = NULL;

      if (g_str_equal (line, "~"))
        {
          /* gamegate may have nothing more to ask (it waits for a welcome
           * that comes after the pause): do not wait on its timeouts. */
          mod.pause_id = g_timeout_add (20, pause_over, NULL);
          return;
        }
      parts = g_strsplit (line, "$ID", -1);
      body = g_strjoinv (id, parts);
      if (!gg_framed_stream_send (mod.stream, body, strlen (body), NULL))
        break;
    }
  mod_hang_up ();
}

static void
mod_on_message (GgFramedStream *stream,
                GBytes         *body,
                gpointer        user_data)
{
  g_autoptr(JsonNode) node = gg_json_parse (g_bytes_get_data (body, NULL), (gssize) g_bytes_get_size (body),
                                            GG_JSON_DEFAULT_MAX_DEPTH, NULL);

  /* gamegate validates what it sends: it is always a GABP message. */
  g_assert_true (node != NULL && JSON_NODE_HOLDS_OBJECT (node));
  g_free (mod.last_id);
  mod.last_id = g_strdup (json_object_get_string_member_with_default (json_node_get_object (node), "id", ""));
  mod_send ();
}

static gboolean
on_incoming (GSocketService    *service,
             GSocketConnection *connection,
             GObject           *source,
             gpointer           user_data)
{
  if (mod.connection != NULL || mod.lines == NULL)
    {
      /* Only one connection per input; a reconnect is turned away. */
      g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
      return TRUE;
    }
  mod.connection = g_object_ref (connection);
  mod.stream = gg_framed_stream_new_for_io_stream (G_IO_STREAM (connection), GG_FRAMING_CONTENT_LENGTH);
  g_signal_connect (mod.stream, "message", G_CALLBACK (mod_on_message), NULL);
  gg_framed_stream_start (mod.stream);
  return TRUE;
}

static guint16
mod_port (void)
{
  static GSocketService *service;
  static guint16 port;

  if (service == NULL)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
      g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
      g_autoptr(GSocketAddress) bound = NULL;

      service = g_socket_service_new ();
      if (!g_socket_listener_add_address (G_SOCKET_LISTENER (service), address, G_SOCKET_TYPE_STREAM,
                                          G_SOCKET_PROTOCOL_TCP, NULL, &bound, &error))
        g_error ("the fake mod cannot listen: %s", error->message);
      port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
      g_signal_connect (service, "incoming", G_CALLBACK (on_incoming), NULL);
      g_socket_service_start (service);
    }
  return port;
}

typedef struct {
  GgGabpClient *client;
  guint calls;
  gboolean over;
} Run;

static void
call_done (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = gg_gabp_client_call_finish (GG_GABP_CLIENT (source), result, &error);

  g_assert_true (answer != NULL || error != NULL);
  if (g_strcmp0 (g_getenv ("FUZZ_DUMP"), "1") == 0)
    {
      g_autofree char *text = answer != NULL ? gg_json_to_string (answer) : NULL;
      g_printerr ("call: %s\n", text != NULL ? text : error->message);
    }
  run->calls--;
}

static void
on_ready (GgGabpClient *client,
          JsonObject   *welcome,
          Run          *run)
{
  g_autoptr(JsonObject) params = json_object_new ();

  g_assert_nonnull (welcome);
  (void) gg_gabp_client_supports (client, "tools/call");
  json_object_set_string_member (params, "name", "fuzz/tool");
  run->calls += 2;
  gg_gabp_client_call_async (client, "tools/list", NULL, NULL, call_done, run);
  gg_gabp_client_call_async (client, "tools/call", params, NULL, call_done, run);
}

/* The mod hung up and gamegate noticed (it is connecting again). */
static gboolean
check_over (gpointer user_data)
{
  Run *run = user_data;
  GgGabpClientState state = gg_gabp_client_get_state (run->client);

  if (mod.hung_up && state != GG_GABP_CLIENT_READY && state != GG_GABP_CLIENT_HANDSHAKING)
    run->over = TRUE;
  return G_SOURCE_CONTINUE;
}

static void
on_over (GgGabpClient *client,
         GError       *why,
         Run          *run)
{
  run->over = TRUE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  FuzzInput in = { data, size };
  guint8 mode = fuzz_input_byte (&in);
  g_autoptr(GgGabpClient) client = NULL;
  Run run = { NULL, 0, FALSE };
  guint16 port;
  guint check;

  fuzz_init ();
  port = mod_port ();
  mod.lines = g_ptr_array_new_with_free_func (g_free);
  while (in.size > 0)
    g_ptr_array_add (mod.lines, fuzz_input_piece (&in, '\n', NULL));

  client = gg_gabp_client_new (schemas (), "127.0.0.1", port, FUZZ_TOKEN);
  run.client = client;
  gg_gabp_client_set_timeout (client, 200);
  /* One connection per input: a reconnect would come after the run. */
  gg_gabp_client_set_backoff (client, 60000, 60000);
  if (mode & 1)
    gg_gabp_client_set_max_message_size (client, 512);
  g_signal_connect (client, "ready", G_CALLBACK (on_ready), &run);
  g_signal_connect (client, "disconnected", G_CALLBACK (on_over), &run);
  g_signal_connect (client, "handshake-failed", G_CALLBACK (on_over), &run);
  gg_gabp_client_start (client);
  check = g_timeout_add (2, check_over, &run);
  fuzz_wait_until (&run.over, 3000);
  g_source_remove (check);
  gg_gabp_client_stop (client);
  fuzz_drain ();
  g_assert_cmpuint (run.calls, ==, 0);
  g_signal_handlers_disconnect_by_data (client, &run);

  g_clear_handle_id (&mod.pause_id, g_source_remove);
  mod_close ();
  fuzz_drain ();
  if (mod.stream != NULL)
    g_signal_handlers_disconnect_by_data (mod.stream, NULL);
  g_clear_object (&mod.stream);
  g_clear_object (&mod.connection);
  g_clear_pointer (&mod.lines, g_ptr_array_unref);
  g_clear_pointer (&mod.last_id, g_free);
  mod.next = 0;
  mod.closing = FALSE;
  mod.hung_up = FALSE;
  return 0;
}

/* gabp-test-util.c: see gabp-test-util.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gabp-test-util.h"

GgGabpSchemas *
test_schemas (void)
{
  g_autoptr(GError) error = NULL;
  GgGabpSchemas *schemas = gg_gabp_schemas_get_default (&error);

  g_assert_no_error (error);
  return schemas;
}

/* The reference mod on @port (0: one it chooses), with @token. */
GgTestServer *
test_mod_start (guint16     port,
                const char *token)
{
  g_autofree char *exe = g_build_filename (GG_TOP_BUILDDIR, "tests", "gabp-mod", "gabp-mod", NULL);
  g_autofree char *port_env = g_strdup_printf ("GABP_SERVER_PORT=%u", port);
  g_autofree char *token_env = g_strconcat ("GABP_TOKEN=", token, NULL);

  return gg_test_server_start ((const char *[]) { exe, NULL },
                               (const char *[]) { port_env, token_env, NULL },
                               "GABP_SERVER_PORT=");
}

static void
on_message (GgFramedStream *stream,
            GBytes         *body,
            TestPeer       *peer)
{
  gsize length;
  const char *data = g_bytes_get_data (body, &length);
  g_autoptr(GError) error = NULL;
  JsonNode *node = gg_json_parse (data, (gssize) length, 64, &error);

  g_assert_no_error (error);
  g_queue_push_tail (&peer->messages, node);
}

static void
on_closed (GgFramedStream *stream,
           GError         *error,
           TestPeer       *peer)
{
  peer->closed = TRUE;
}

/* Starts reading on a peer whose connection and stream are set. */
void
test_peer_attach (TestPeer *peer)
{
  g_signal_connect (peer->stream, "message", G_CALLBACK (on_message), peer);
  g_signal_connect (peer->stream, "closed", G_CALLBACK (on_closed), peer);
  gg_framed_stream_start (peer->stream);
}

/* A peer on an accepted connection (a fake mod's side). */
TestPeer *
test_peer_new_for_connection (GSocketConnection *connection)
{
  TestPeer *peer = g_new0 (TestPeer, 1);

  peer->connection = g_object_ref (connection);
  peer->stream = gg_framed_stream_new_for_io_stream (G_IO_STREAM (connection), GG_FRAMING_CONTENT_LENGTH);
  g_queue_init (&peer->messages);
  test_peer_attach (peer);
  return peer;
}

TestPeer *
test_peer_connect_with_retry (guint16 port,
                              guint   timeout_ms)
{
  g_autoptr(GSocketConnection) probe = gg_test_connect_with_retry (port, timeout_ms);

  if (probe == NULL)
    return NULL;
  g_io_stream_close (G_IO_STREAM (probe), NULL, NULL);
  return test_peer_connect (port);
}

TestPeer *
test_peer_connect (guint16 port)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GError) error = NULL;
  TestPeer *peer = g_new0 (TestPeer, 1);

  peer->connection = g_socket_client_connect_to_host (client, "127.0.0.1", port, NULL, &error);
  g_assert_no_error (error);
  peer->stream = gg_framed_stream_new_for_io_stream (G_IO_STREAM (peer->connection), GG_FRAMING_CONTENT_LENGTH);
  g_queue_init (&peer->messages);
  g_signal_connect (peer->stream, "message", G_CALLBACK (on_message), peer);
  g_signal_connect (peer->stream, "closed", G_CALLBACK (on_closed), peer);
  gg_framed_stream_start (peer->stream);
  return peer;
}

void
test_peer_free (TestPeer *peer)
{
  g_signal_handlers_disconnect_by_data (peer->stream, peer);
  gg_framed_stream_close (peer->stream);
  g_object_unref (peer->stream);
  g_io_stream_close (G_IO_STREAM (peer->connection), NULL, NULL);
  g_object_unref (peer->connection);
  g_queue_clear_full (&peer->messages, (GDestroyNotify) json_node_unref);
  g_free (peer);
}

void
test_peer_send_raw (TestPeer   *peer,
                    const char *data,
                    gsize       length)
{
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (peer->connection));
  g_autoptr(GError) error = NULL;

  g_output_stream_write_all (out, data, length, NULL, NULL, &error);
  g_assert_no_error (error);
}

void
test_peer_send (TestPeer   *peer,
                const char *json)
{
  g_autofree char *frame = g_strdup_printf ("Content-Length: %zu\r\n\r\n%s", strlen (json), json);
  test_peer_send_raw (peer, frame, strlen (frame));
}

char *
test_peer_request (TestPeer   *peer,
                   const char *method,
                   const char *params_json)
{
  char *id = g_uuid_string_random ();
  g_autofree char *json = g_strdup_printf ("{\"v\":\"gabp/1\",\"id\":\"%s\",\"type\":\"request\",\"method\":\"%s\",\"params\":%s}",
                                           id, method, params_json != NULL ? params_json : "{}");
  test_peer_send (peer, json);
  return id;
}

static gboolean
peer_has_message (gpointer data)
{
  TestPeer *peer = data;
  return !g_queue_is_empty (&peer->messages) || peer->closed;
}

JsonNode *
test_peer_next (TestPeer *peer,
                guint     timeout_ms)
{
  gg_test_wait_for (peer_has_message, peer, timeout_ms);
  return g_queue_pop_head (&peer->messages);
}

/* Waits for the response to @id; other messages stay queued, in order. */
JsonObject *
test_peer_wait_response (TestPeer   *peer,
                         const char *id)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (g_get_monotonic_time () < deadline)
    {
      for (GList *l = peer->messages.head; l != NULL; l = l->next)
        {
          JsonObject *o = json_node_get_object (l->data);
          if (g_strcmp0 (json_object_get_string_member_with_default (o, "type", ""), "response") == 0 &&
              g_strcmp0 (json_object_get_string_member_with_default (o, "id", ""), id) == 0)
            {
              JsonObject *result = json_object_ref (o);
              json_node_unref (l->data);
              g_queue_delete_link (&peer->messages, l);
              return result;
            }
        }
      if (peer->closed)
        return NULL;
      g_main_context_iteration (NULL, TRUE);
    }
  return NULL;
}

static gboolean
peer_is_closed (gpointer data)
{
  return ((TestPeer *) data)->closed;
}

gboolean
test_peer_wait_closed (TestPeer *peer,
                       guint     timeout_ms)
{
  return gg_test_wait_for (peer_is_closed, peer, timeout_ms);
}

JsonObject *
test_peer_hello (TestPeer   *peer,
                 const char *token)
{
  g_autofree char *launch = g_uuid_string_random ();
  g_autofree char *params = g_strdup_printf ("{\"token\":\"%s\",\"bridgeVersion\":\"1.0.0\",\"platform\":\"linux\",\"launchId\":\"%s\"}",
                                             token, launch);
  g_autofree char *id = test_peer_request (peer, "session/hello", params);

  return test_peer_wait_response (peer, id);
}

int
test_response_error_code (JsonObject *response)
{
  g_assert_nonnull (response);
  if (!json_object_has_member (response, "error"))
    return 0;
  return (int) json_object_get_int_member (json_object_get_object_member (response, "error"), "code");
}

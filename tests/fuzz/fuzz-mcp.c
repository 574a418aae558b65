/* fuzz-mcp.c: a whole MCP session of gamegate's game-bridge front end over
 * stdio from fuzzed bytes (one JSON-RPC message per line; a line "~"
 * waits until gamegate is idle), against a fake game: an HTTP game in this
 * process (the default port) and a fuzz game on the bus (instance
 * "fuzz:game"). The first byte picks options, the next four the read
 * sizes.
 *
 * Nothing of the machine is touched: no port scan, no registry, a launch
 * declaration that does not exist, and every `port` member and
 * "http:<port>" string of a message is pointed at the fake game before the
 * message is sent, so no input makes gamegate talk to anyone else's port.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "fuzz-game.h"
#include "fuzz-http-game.h"
#include "gb-bridge.h"
#include "gb-mcp-server.h"
#include "gb-tools.h"

static void
confine (JsonNode *node,
         guint     port)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);

      for (GList *l = members; l != NULL; l = l->next)
        {
          if (g_str_equal (l->data, "port"))
            json_object_set_int_member (object, l->data, port);
          else
            confine (json_object_get_member (object, l->data), port);
        }
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        confine (json_array_get_element (array, i), port);
    }
  else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING &&
           g_str_has_prefix (json_node_get_string (node), "http:"))
    {
      g_autofree char *own = g_strdup_printf ("http:%u", port);
      json_node_set_string (node, own);
    }
}

/* The input's lines, each message confined to the fake game; lines that
 * are not JSON go as they are (they never reach a tool). */
static GBytes *
confined_input (FuzzInput *in,
                guint      port)
{
  GString *out = g_string_new (NULL);

  while (in->size > 0)
    {
      gsize length;
      g_autofree char *line = fuzz_input_piece (in, '\n', &length);
      g_autoptr(JsonNode) node = gg_json_parse (line, (gssize) length, GG_JSON_DEFAULT_MAX_DEPTH, NULL);

      if (node != NULL)
        {
          g_autofree char *text = NULL;

          confine (node, port);
          text = gg_json_to_string (node);
          g_string_append (out, text);
        }
      else
        g_string_append_len (out, line, (gssize) length);
      g_string_append_c (out, '\n');
    }
  return g_string_free_to_bytes (out);
}

static void
on_client_gone (GbMcpServer *server,
                gboolean    *gone)
{
  *gone = TRUE;
}

typedef struct {
  GbBridge *bridge;
  gboolean done;
} Shutdown;

static void
on_shut_down (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Shutdown *shutdown = user_data;

  gb_bridge_shutdown_finish (shutdown->bridge, result);
  shutdown->done = TRUE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  FuzzInput in = { data, size };
  guint8 mode = fuzz_input_byte (&in);
  guint32 seed = fuzz_input_u32 (&in);
  guint port;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  g_autoptr(GIOStream) stdio = NULL;
  g_autoptr(GgBus) bus = NULL;
  g_autoptr(FuzzGame) game = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GbMcpServer) server = NULL;
  GbOptions options = { 0 };
  GbBridge *bridge;
  Shutdown shutdown = { NULL, FALSE };
  gboolean gone = FALSE;

  fuzz_init ();
  port = fuzz_http_game_port ();
  fuzz_http_game_reset ();
  bytes = confined_input (&in, port);

  bus = gg_bus_new ();
  game = fuzz_game_new ("fuzz:game");
  g_assert_true (gg_bus_add_target (bus, GG_TARGET (game), NULL));
  options.port = (int) port;
  options.no_scan = TRUE;
  options.no_registry = TRUE;
  options.eager = (mode & 1) != 0;
  options.timeout_ms = 200;
  options.config = (char *) "/nonexistent/gamebridge.json";
  bridge = gb_bridge_new (bus, &options, &error);
  g_assert_no_error (error);
  server = gb_mcp_server_new ("gamegate", PACKAGE_VERSION, "fuzz", gb_tools_provider (), bridge);
  bridge->server = server;
  g_signal_connect (server, "client-gone", G_CALLBACK (on_client_gone), &gone);

  input = fuzz_chunk_stream_new_paused (bytes, seed, 1 + (seed >> 24) % 1024);
  output = g_memory_output_stream_new_resizable ();
  stdio = g_simple_io_stream_new (input, output);
  gb_mcp_server_serve_stdio (server, stdio);
  /* Calls to the HTTP game go over real sockets: wait, boundedly. */
  fuzz_wait_until (&gone, 5000);
  gb_mcp_server_close (server);
  fuzz_drain ();
  fuzz_dump_output (output);
  g_signal_handlers_disconnect_by_data (server, &gone);
  shutdown.bridge = bridge;
  gb_bridge_shutdown_async (bridge, on_shut_down, &shutdown);
  g_assert_true (fuzz_wait_until (&shutdown.done, 5000));
  fuzz_drain ();
  g_clear_object (&server);
  gb_bridge_free (bridge);
  gg_bus_remove_target (bus, GG_TARGET (game));
  fuzz_drain ();
  return 0;
}

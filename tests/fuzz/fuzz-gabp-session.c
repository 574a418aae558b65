/* fuzz-gabp-session.c: a whole GABP session of gamegate's mod-side server
 * from fuzzed bytes: a valid session/hello (unless bit 1 of the first byte
 * is set), then anything. The next four bytes seed the read sizes; the rest
 * is one message body per line, each framed with its Content-Length by the
 * harness (bit 0 set: the rest goes on the wire as it is, framing and
 * all). The bus holds a fuzz game whose tools answer, fail and send
 * events.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "fuzz-game.h"
#include "gg-gabp-session.h"

#define FUZZ_TOKEN "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

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
frame (GByteArray *wire,
       const char *body,
       gsize       length)
{
  g_autofree char *header = g_strdup_printf ("Content-Length: %" G_GSIZE_FORMAT "\r\n\r\n", length);

  g_byte_array_append (wire, (const guint8 *) header, strlen (header));
  g_byte_array_append (wire, (const guint8 *) body, length);
}

static void
on_closed (GgGabpSession *session,
           gboolean      *closed)
{
  *closed = TRUE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  static const char hello[] =
    "{\"v\":\"gabp/1\",\"id\":\"6f1c2c2e-8f5b-4a55-9a57-8d2f7a0c1b11\",\"type\":\"request\","
    "\"method\":\"session/hello\",\"params\":{\"token\":\"" FUZZ_TOKEN "\",\"bridgeVersion\":\"1.0.0\","
    "\"platform\":\"linux\",\"launchId\":\"0f8fad5b-d9cb-469f-a165-70867728950e\"}}";
  FuzzInput in = { data, size };
  guint8 mode = fuzz_input_byte (&in);
  guint32 seed = fuzz_input_u32 (&in);
  g_autoptr(GByteArray) wire = g_byte_array_new ();
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  g_autoptr(GIOStream) stream = NULL;
  g_autoptr(GgGabpCodec) codec = NULL;
  g_autoptr(GgGabpSession) session = NULL;
  g_autoptr(GgBus) bus = NULL;
  g_autoptr(FuzzGame) game = NULL;
  gboolean closed = FALSE;

  fuzz_init ();
  if (!(mode & 2))
    frame (wire, hello, strlen (hello));
  if (mode & 1)
    g_byte_array_append (wire, in.data, (guint) in.size);
  else
    while (in.size > 0)
      {
        gsize length;
        g_autofree char *body = fuzz_input_piece (&in, '\n', &length);

        frame (wire, body, length);
      }
  bytes = g_byte_array_free_to_bytes (g_steal_pointer (&wire));

  bus = gg_bus_new ();
  game = fuzz_game_new ("fuzz:game");
  g_assert_true (gg_bus_add_target (bus, GG_TARGET (game), NULL));
  input = fuzz_chunk_stream_new (bytes, seed, 1 + (seed >> 24) % 512);
  output = g_memory_output_stream_new_resizable ();
  stream = g_simple_io_stream_new (input, output);
  codec = gg_gabp_codec_new (stream, schemas ());
  if (mode & 4)
    gg_gabp_codec_set_max_message_size (codec, 512);
  /* No clock: a rate limit no input can reach. */
  session = gg_gabp_session_new (codec, bus, FUZZ_TOKEN, 1e9, 1000000);
  g_signal_connect (session, "closed", G_CALLBACK (on_closed), &closed);
  gg_gabp_session_start (session);
  fuzz_run_until (&closed, 4 * (g_bytes_get_size (bytes) + 64));
  fuzz_drain ();
  gg_gabp_session_close (session);
  fuzz_drain ();
  fuzz_dump_output (output);
  g_signal_handlers_disconnect_by_data (session, &closed);
  gg_bus_remove_target (bus, GG_TARGET (game));
  fuzz_drain ();
  return 0;
}

/* fuzz-oam.c: a whole oam connection from fuzzed bytes: a sequence of
 * oam messages (one per line, as a game engine writes them) against the
 * scripted model, with answers to the bridge's tool/call requests ("t-1",
 * "t-2", ...) and cancels. A line "~" waits until gamegate has done all it
 * can with what came before (so an answer can follow its tool/call). The
 * first byte picks limits, the next four the read sizes. A deep world
 * path that once overflowed the stack (the deep-world-path seed) lived in
 * this state, not in a parser.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "fuzz-common.h"
#include "gg-oam-connection.h"
#include "gg-scripted.h"

static GgModel *
create_scripted (JsonObject *spec,
                 gpointer    user_data,
                 GError    **error)
{
  return gg_scripted_model_new (spec, error);
}

static void
on_finished (GgOamConnection *connection,
             gboolean        *finished)
{
  *finished = TRUE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  FuzzInput in = { data, size };
  guint8 mode = fuzz_input_byte (&in);
  guint32 seed = fuzz_input_u32 (&in);
  g_autoptr(GBytes) bytes = g_bytes_new (in.data, in.size);
  g_autoptr(GInputStream) input = fuzz_chunk_stream_new_paused (bytes, seed, 1 + (seed >> 24) % 1024);
  g_autoptr(GOutputStream) output = g_memory_output_stream_new_resizable ();
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GgOamConnection) connection = NULL;
  g_autoptr(GError) error = NULL;
  GgOamSettings settings;
  gboolean finished = FALSE;

  fuzz_init ();
  g_assert_true (gg_bus_register_model_type (bus, "scripted", create_scripted, NULL, NULL, &error));
  gg_oam_settings_init (&settings);
  if (mode & 1)
    {
      /* Small limits, so the fuzzer reaches every one of them. */
      settings.max_sessions = 2;
      settings.max_npcs = 2;
      settings.max_worlds = 2;
      settings.max_subscriptions = 2;
      settings.max_message_size = 4096;
    }
  /* A tool the input never answers fails at the end of input, not on a clock. */
  settings.tool_timeout_ms = 0;
  settings.scripted_models = TRUE;
  /* The "system" model: one tool round, then text. */
  settings.script_steps = gg_json_parse ("[{\"toolCalls\":[{\"name\":\"open_gate\",\"arguments\":{\"gate\":\"north\"}}]},"
                                         "{\"template\":\"{toolOutput}\"}]", -1, 16, NULL);
  connection = gg_oam_connection_new_split (bus, &settings, input, output);
  gg_oam_settings_clear (&settings);
  g_signal_connect (connection, "finished", G_CALLBACK (on_finished), &finished);
  gg_oam_connection_start (connection);
  fuzz_run_until (&finished, 64 * (in.size + 64));
  if (!finished)
    {
      /* Work that waits on a clock (a script's delayMs): cancel it. */
      gg_oam_connection_shutdown (connection);
      fuzz_run_until (&finished, 100000);
    }
  fuzz_drain ();
  fuzz_dump_output (output);
  g_signal_handlers_disconnect_by_data (connection, &finished);
  return 0;
}

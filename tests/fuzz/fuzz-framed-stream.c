/* fuzz-framed-stream.c: GgFramedStream in both framings, fed in chunk
 * sizes the input chooses. The first byte picks the framing (bit 0) and the
 * maximum message size (bits 1-2), the next four seed the chunk sizes, the
 * rest is the stream. The oracle: the same bytes read in one piece give the
 * same messages and the same framing errors, in the same order.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gamegate.h>

#include "fuzz-common.h"

typedef struct {
  GString *log;
  gsize max_size;
  gboolean closed;
} Run;

static void
on_message (GgFramedStream *stream,
            GBytes         *body,
            Run            *run)
{
  gsize size = g_bytes_get_size (body);

  if (size > run->max_size)
    g_error ("a message of %" G_GSIZE_FORMAT " bytes passed a %" G_GSIZE_FORMAT " byte limit",
             size, run->max_size);
  g_string_append_printf (run->log, "M%" G_GSIZE_FORMAT ":", size);
  g_string_append_len (run->log, g_bytes_get_data (body, NULL), (gssize) size);
}

static void
on_framing_error (GgFramedStream *stream,
                  GError         *error,
                  Run            *run)
{
  g_assert_true (error->domain == GG_FRAMING_ERROR);
  g_string_append_printf (run->log, "E%d;", error->code);
}

static void
on_closed (GgFramedStream *stream,
           GError         *error,
           Run            *run)
{
  g_assert_false (run->closed);
  run->closed = TRUE;
  if (error != NULL)
    g_string_append_printf (run->log, "C%s%d;", g_quark_to_string (error->domain), error->code);
  else
    g_string_append (run->log, "C;");
}

static GString *
frame_all (GBytes   *bytes,
           GgFraming framing,
           gsize     max_size,
           guint32   seed,
           gsize     max_chunk)
{
  g_autoptr(GInputStream) in = fuzz_chunk_stream_new (bytes, seed, max_chunk);
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GgFramedStream) stream = gg_framed_stream_new (in, out, framing);
  Run run = { g_string_new (NULL), max_size, FALSE };

  gg_framed_stream_set_max_message_size (stream, max_size);
  g_signal_connect (stream, "message", G_CALLBACK (on_message), &run);
  g_signal_connect (stream, "framing-error", G_CALLBACK (on_framing_error), &run);
  g_signal_connect (stream, "closed", G_CALLBACK (on_closed), &run);
  gg_framed_stream_start (stream);
  /* Every read makes progress, so the stream ends well within this. */
  if (!fuzz_run_until (&run.closed, 4 * (g_bytes_get_size (bytes) + 16)))
    g_error ("the stream never reported its end");
  gg_framed_stream_close (stream);
  fuzz_drain ();
  g_signal_handlers_disconnect_by_data (stream, &run);
  return run.log;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  static const gsize max_sizes[] = { 64, 1024, 65536, GG_FRAMED_STREAM_DEFAULT_MAX_MESSAGE_SIZE };
  FuzzInput in = { data, size };
  guint8 mode = fuzz_input_byte (&in);
  guint32 seed = fuzz_input_u32 (&in);
  GgFraming framing = (mode & 1) ? GG_FRAMING_CONTENT_LENGTH : GG_FRAMING_NEWLINE;
  gsize max_size = max_sizes[(mode >> 1) & 3];
  g_autoptr(GBytes) bytes = g_bytes_new (in.data, in.size);
  g_autoptr(GString) chunked = NULL;
  g_autoptr(GString) whole = NULL;

  fuzz_init ();
  chunked = frame_all (bytes, framing, max_size, seed, 1 + (seed >> 24) % 96);
  whole = frame_all (bytes, framing, max_size, seed, G_MAXSIZE / 2);
  if (!g_string_equal (chunked, whole))
    g_error ("split reads frame differently:\n  chunked: %s\n  whole:   %s", chunked->str, whole->str);
  return 0;
}

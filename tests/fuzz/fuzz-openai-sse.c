/* fuzz-openai-sse.c: model-openai's stream readers: the server-sent event
 * parser and the chat-completion chunk decoder above it. The first byte
 * picks the request (schema or not), the next four the piece sizes the
 * body is fed in; the oracle is that split feeding gives the same events,
 * the same text deltas and the same answer as feeding it whole.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "gg-openai-private.h"

static gboolean
on_event (const char  *event,
          const char  *data,
          gpointer     user_data,
          GError     **error)
{
  GString *log = user_data;

  g_string_append_printf (log, "[%s|%s]", event, data);
  return TRUE;
}

static void
on_delta (const char *delta,
          gboolean    is_reset,
          gpointer    user_data)
{
  GString *log = user_data;

  g_string_append_printf (log, "%s%s;", is_reset ? "R:" : "", delta);
}

static gsize
next_piece (guint32 *state,
            gsize    left)
{
  guint32 x = *state;

  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return MIN (left, (gsize) ((x & 3) == 0 ? 1 : (x >> 2) % 64 + 1));
}

/* Everything the readers said about @data fed in pieces (seed 0: whole). */
static GString *
read_all (const char           *data,
          gsize                 size,
          guint32               seed,
          const GgModelRequest *request)
{
  GString *log = g_string_new (NULL);
  g_autoptr(GString) deltas = g_string_new (NULL);
  g_autoptr(GgOpenaiSse) sse = gg_openai_sse_new (4096, on_event, log);
  g_autoptr(GgOpenaiStream) stream = gg_openai_stream_new (on_delta, deltas);
  g_autoptr(GError) sse_error = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GgModelReply) reply = NULL;
  gboolean sse_ok = TRUE, stream_ok = TRUE;
  guint32 state = seed != 0 ? seed : 1;

  for (gsize off = 0; off < size;)
    {
      gsize piece = seed != 0 ? next_piece (&state, size - off) : size;

      if (sse_ok)
        sse_ok = gg_openai_sse_feed (sse, data + off, piece, &sse_error);
      if (stream_ok)
        stream_ok = gg_openai_stream_feed (stream, data + off, piece, &error);
      off += piece;
    }
  if (sse_ok)
    sse_ok = gg_openai_sse_finish (sse, &sse_error);
  if (stream_ok)
    stream_ok = gg_openai_stream_finish (stream, &error);
  if (stream_ok)
    reply = gg_openai_answer_to_reply (gg_openai_stream_get_answer (stream), request, &error);
  g_string_append_printf (log, " sse:%s", sse_error != NULL ? sse_error->message : "ok");
  g_string_append_printf (log, " deltas:%s", deltas->str);
  g_string_append_printf (log, " stream:%s", error != NULL ? error->message : "ok");
  if (reply != NULL)
    {
      g_autofree char *json = reply->json != NULL ? gg_json_to_string (reply->json) : NULL;

      g_assert_true ((reply->text != NULL) + (reply->json != NULL) + (reply->tool_calls != NULL) == 1);
      g_string_append_printf (log, " text:%s json:%s calls:%u", reply->text != NULL ? reply->text : "-",
                              json != NULL ? json : "-",
                              reply->tool_calls != NULL ? json_array_get_length (reply->tool_calls) : 0);
    }
  return log;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  FuzzInput in = { data, size };
  guint8 mode = fuzz_input_byte (&in);
  guint32 seed = fuzz_input_u32 (&in);
  g_autoptr(GgModelRequest) request = gg_model_request_new ();
  g_autoptr(GString) whole = NULL;
  g_autoptr(GString) split = NULL;

  fuzz_init ();
  if (mode & 1)
    request->output_schema = gg_json_parse ("{\"type\":\"object\",\"properties\":{\"line\":{\"type\":\"string\"}},"
                                            "\"required\":[\"line\"]}", -1, 16, NULL);
  request->stream = TRUE;
  whole = read_all ((const char *) in.data, in.size, 0, request);
  split = read_all ((const char *) in.data, in.size, seed | 1, request);
  if (!g_string_equal (whole, split))
    g_error ("split feeding reads differently:\n  whole: %s\n  split: %s", whole->str, split->str);
  return 0;
}

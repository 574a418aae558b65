/* gg-openai-sse.c: an incremental parser of server-sent events (the
 * WHATWG "event stream" format) and the streaming decoder built on it:
 * bytes in as they arrive, chat.completion.chunk events assembled into an
 * answer (tool call fragments joined by index), text deltas out.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-openai-private.h"

struct _GgOpenaiSse {
  gsize max_event;
  GgOpenaiSseFunc func;
  gpointer user_data;
  GString *line;     /* the incomplete line so far */
  GString *data;     /* data lines of the current event */
  char *event;       /* its type, NULL for "message" */
  gboolean has_data;
  gboolean after_cr; /* the last byte was \r: a following \n belongs to it */
  gboolean first;    /* a leading BOM is skipped */
  gboolean failed;
};

static GError *
stream_error (const char *format,
              ...) G_GNUC_PRINTF (1, 2);

static GError *
stream_error (const char *format,
              ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  return gg_model_error_new (GG_MODEL_ERROR_GENERATION_FAILED, NULL,
                             "The model server sent a malformed stream: %s", message);
}

/**
 * gg_openai_sse_new:
 * @max_event: the largest line or event accepted, in bytes
 * @func: receives each complete event
 * @user_data: data for @func
 *
 * Returns: (transfer full): a parser
 */
GgOpenaiSse *
gg_openai_sse_new (gsize            max_event,
                   GgOpenaiSseFunc  func,
                   gpointer         user_data)
{
  GgOpenaiSse *sse = g_new0 (GgOpenaiSse, 1);

  sse->max_event = max_event;
  sse->func = func;
  sse->user_data = user_data;
  sse->line = g_string_new (NULL);
  sse->data = g_string_new (NULL);
  sse->first = TRUE;
  return sse;
}

/**
 * gg_openai_sse_free:
 * @sse: (transfer full) (nullable): a parser
 */
void
gg_openai_sse_free (GgOpenaiSse *sse)
{
  if (sse == NULL)
    return;
  g_string_free (sse->line, TRUE);
  g_string_free (sse->data, TRUE);
  g_free (sse->event);
  g_free (sse);
}

static gboolean
dispatch (GgOpenaiSse  *sse,
          GError      **error)
{
  gboolean ok = TRUE;

  if (sse->has_data)
    ok = sse->func (sse->event != NULL ? sse->event : "message", sse->data->str,
                    sse->user_data, error);
  g_string_truncate (sse->data, 0);
  g_clear_pointer (&sse->event, g_free);
  sse->has_data = FALSE;
  return ok;
}

static gboolean
process_line (GgOpenaiSse  *sse,
              GError      **error)
{
  const char *line = sse->line->str;
  const char *colon, *value;
  g_autofree char *field = NULL;

  if (sse->line->len == 0)
    return dispatch (sse, error);
  if (line[0] == ':')
    return TRUE; /* a comment (keep-alive) */
  if (memchr (line, '\0', sse->line->len) != NULL)
    {
      g_propagate_error (error, stream_error ("a line holds a NUL byte"));
      return FALSE;
    }
  colon = strchr (line, ':');
  if (colon != NULL)
    {
      field = g_strndup (line, colon - line);
      value = colon + 1;
      if (*value == ' ')
        value++;
    }
  else
    {
      field = g_strdup (line);
      value = "";
    }

  if (g_str_equal (field, "data"))
    {
      gsize len = strlen (value);
      if (sse->data->len + len + 1 > sse->max_event)
        {
          g_propagate_error (error, stream_error ("an event exceeds %" G_GSIZE_FORMAT " bytes",
                                                  sse->max_event));
          return FALSE;
        }
      if (sse->has_data)
        g_string_append_c (sse->data, '\n');
      g_string_append_len (sse->data, value, len);
      sse->has_data = TRUE;
    }
  else if (g_str_equal (field, "event"))
    {
      g_free (sse->event);
      sse->event = g_strndup (value, 64);
    }
  /* "id", "retry" and unknown fields mean nothing to a chat stream. */
  return TRUE;
}

/**
 * gg_openai_sse_feed:
 * @sse: a parser
 * @data: the next bytes of the stream
 * @length: their number
 * @error: return location for a %GG_MODEL_ERROR
 *
 * Parses @data, calling the event function for every complete event.
 * After an error the parser refuses further input.
 *
 * Returns: %FALSE on a malformed stream or when the event function failed
 */
gboolean
gg_openai_sse_feed (GgOpenaiSse  *sse,
                    const char   *data,
                    gsize         length,
                    GError      **error)
{
  gsize i = 0;

  if (sse->failed)
    {
      g_propagate_error (error, stream_error ("input after an error"));
      return FALSE;
    }
  if (sse->first && length > 0)
    {
      /* A UTF-8 byte order mark may open the stream; it may even be split. */
      static const char bom[] = "\xef\xbb\xbf";
      gsize have = sse->line->len;
      while (i < length && have + i < 3 && (guchar) data[i] == (guchar) bom[have + i])
        i++;
      if (have + i == 3)
        {
          g_string_truncate (sse->line, 0);
          sse->first = FALSE;
        }
      else if (i < length)
        {
          /* Not a BOM after all: what matched so far is ordinary input. */
          g_string_append_len (sse->line, data, i);
          sse->first = FALSE;
        }
      else
        {
          g_string_append_len (sse->line, data, i);
          return TRUE;
        }
    }

  while (i < length)
    {
      const char *start = data + i;
      gsize rest = length - i;
      const char *nl = NULL;

      if (sse->after_cr)
        {
          sse->after_cr = FALSE;
          if (*start == '\n')
            {
              i++;
              continue;
            }
        }
      for (gsize k = 0; k < rest; k++)
        if (start[k] == '\n' || start[k] == '\r')
          {
            nl = start + k;
            break;
          }
      if (nl == NULL)
        {
          if (sse->line->len + rest > sse->max_event)
            {
              sse->failed = TRUE;
              g_propagate_error (error, stream_error ("a line exceeds %" G_GSIZE_FORMAT " bytes",
                                                      sse->max_event));
              return FALSE;
            }
          g_string_append_len (sse->line, start, rest);
          return TRUE;
        }
      if (sse->line->len + (nl - start) > sse->max_event)
        {
          sse->failed = TRUE;
          g_propagate_error (error, stream_error ("a line exceeds %" G_GSIZE_FORMAT " bytes",
                                                  sse->max_event));
          return FALSE;
        }
      g_string_append_len (sse->line, start, nl - start);
      sse->after_cr = *nl == '\r';
      i += (nl - start) + 1;
      if (!process_line (sse, error))
        {
          sse->failed = TRUE;
          return FALSE;
        }
      g_string_truncate (sse->line, 0);
    }
  return TRUE;
}

/**
 * gg_openai_sse_finish:
 * @sse: a parser
 * @error: return location for a %GG_MODEL_ERROR
 *
 * Ends the stream: an unterminated last event is still delivered, as the
 * format allows servers to close right after it.
 *
 * Returns: %FALSE when the event function failed
 */
gboolean
gg_openai_sse_finish (GgOpenaiSse  *sse,
                      GError      **error)
{
  if (sse->failed)
    return TRUE;
  if (sse->line->len > 0 && !process_line (sse, error))
    return FALSE;
  g_string_truncate (sse->line, 0);
  return dispatch (sse, error);
}

/* ---- the streaming decoder -------------------------------------------- */

struct _GgOpenaiStream {
  GgOpenaiSse *sse;
  GgOpenaiAnswer *answer;
  GgModelDeltaFunc on_delta;
  gpointer delta_data;
  GString *delta;
  gboolean done;      /* [DONE] arrived */
  gboolean got_data;  /* at least one event arrived */
  gboolean forwarded; /* at least one delta went to on_delta */
};

static gboolean
on_event (const char  *event,
          const char  *data,
          gpointer     user_data,
          GError     **error)
{
  GgOpenaiStream *stream = user_data;
  g_autoptr(JsonNode) chunk = NULL;
  g_autoptr(GError) local_error = NULL;

  stream->got_data = TRUE;
  if (stream->done)
    return TRUE; /* anything after [DONE] is ignored */
  if (g_str_equal (data, "[DONE]"))
    {
      stream->done = TRUE;
      return TRUE;
    }
  chunk = gg_json_parse (data, -1, GG_JSON_DEFAULT_MAX_DEPTH, &local_error);
  if (chunk == NULL)
    {
      g_propagate_error (error, stream_error ("an event is not JSON: %s", local_error->message));
      return FALSE;
    }
  if (g_str_equal (event, "error") && JSON_NODE_HOLDS_OBJECT (chunk) &&
      !json_object_has_member (json_node_get_object (chunk), "error"))
    {
      /* `event: error` with the error object as the data. */
      g_propagate_error (error, gg_openai_error_from_body (json_node_get_object (chunk), 0, NULL));
      return FALSE;
    }
  g_string_truncate (stream->delta, 0);
  if (!gg_openai_answer_add_chunk (stream->answer, chunk,
                                   stream->on_delta != NULL ? stream->delta : NULL, error))
    return FALSE;
  if (stream->on_delta != NULL && stream->delta->len > 0)
    {
      stream->forwarded = TRUE;
      stream->on_delta (stream->delta->str, FALSE, stream->delta_data);
    }
  return TRUE;
}

/**
 * gg_openai_stream_new:
 * @on_delta: (nullable): receives text deltas as they arrive
 * @delta_data: data for @on_delta
 *
 * Returns: (transfer full): a decoder of one streamed answer
 */
GgOpenaiStream *
gg_openai_stream_new (GgModelDeltaFunc  on_delta,
                      gpointer          delta_data)
{
  GgOpenaiStream *stream = g_new0 (GgOpenaiStream, 1);

  stream->sse = gg_openai_sse_new (GG_OPENAI_MAX_SSE_EVENT, on_event, stream);
  stream->answer = gg_openai_answer_new ();
  stream->on_delta = on_delta;
  stream->delta_data = delta_data;
  stream->delta = g_string_new (NULL);
  return stream;
}

/**
 * gg_openai_stream_free:
 * @stream: (transfer full) (nullable): a decoder
 */
void
gg_openai_stream_free (GgOpenaiStream *stream)
{
  if (stream == NULL)
    return;
  gg_openai_sse_free (stream->sse);
  gg_openai_answer_free (stream->answer);
  g_string_free (stream->delta, TRUE);
  g_free (stream);
}

/**
 * gg_openai_stream_feed:
 * @stream: a decoder
 * @data: the next bytes of the body
 * @length: their number
 * @error: return location for a %GG_MODEL_ERROR
 *
 * Returns: %FALSE on a malformed stream or a server error event
 */
gboolean
gg_openai_stream_feed (GgOpenaiStream  *stream,
                       const char      *data,
                       gsize            length,
                       GError         **error)
{
  return gg_openai_sse_feed (stream->sse, data, length, error);
}

/**
 * gg_openai_stream_finish:
 * @stream: a decoder
 * @error: return location for a %GG_MODEL_ERROR
 *
 * Ends the body. A stream that stopped before `[DONE]` and before any
 * finish reason was cut off and fails.
 *
 * Returns: %TRUE when the answer is complete
 */
gboolean
gg_openai_stream_finish (GgOpenaiStream  *stream,
                         GError         **error)
{
  if (!gg_openai_sse_finish (stream->sse, error))
    return FALSE;
  if (!stream->done && !gg_openai_answer_is_finished (stream->answer))
    {
      g_propagate_error (error, gg_model_error_new (GG_MODEL_ERROR_GENERATION_FAILED, NULL,
                                                    "The model server closed the stream before "
                                                    "the answer was complete"));
      return FALSE;
    }
  return TRUE;
}

/**
 * gg_openai_stream_forwarded:
 * @stream: a decoder
 *
 * Returns: whether any text went to the delta function (a retry would then
 *   repeat text the caller has shown)
 */
gboolean
gg_openai_stream_forwarded (GgOpenaiStream *stream)
{
  return stream->forwarded;
}

/**
 * gg_openai_stream_got_data:
 * @stream: a decoder
 *
 * Returns: whether any event arrived
 */
gboolean
gg_openai_stream_got_data (GgOpenaiStream *stream)
{
  return stream->got_data;
}

/**
 * gg_openai_stream_get_answer:
 * @stream: a decoder
 *
 * Returns: (transfer none): the answer assembled so far
 */
GgOpenaiAnswer *
gg_openai_stream_get_answer (GgOpenaiStream *stream)
{
  return stream->answer;
}

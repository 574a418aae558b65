/* gg-framed-stream-reader.c: the input side of a #GgFramedStream, frame
 * decoding for both framings.
 *
 * One asynchronous read of up to 64 KiB at a time goes into a growable
 * buffer, then everything buffered is scanned with memchr, emitting one
 * `message` per complete frame. Oversized frames are skipped without being
 * buffered whole, so a hostile peer cannot make the buffer grow past the
 * maximum message size (plus one read).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-framed-stream-private.h"

#define READ_CHUNK        (64 * 1024)
#define MAX_HEADER_LINE   (8 * 1024)
#define SHRINK_THRESHOLD  (1024 * 1024)

static GgFramedReadBuf *
read_buf_ref (GgFramedReadBuf *buf)
{
  return g_rc_box_acquire (buf);
}

/* A handler may close the stream, or dispose it, from inside a signal. If
 * it dropped the last outside reference (only the caller's hold is left),
 * nobody owns the stream any more: stop delivering. */
static inline gboolean
stopped (GgFramedStream *self)
{
  return self->disposed || self->read_closed ||
         g_atomic_int_get ((int *) &G_OBJECT (self)->ref_count) <= 1;
}

static gboolean
is_blank (const guint8 *p,
          gsize         n)
{
  for (gsize i = 0; i < n; i++)
    if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
      return FALSE;
  return TRUE;
}

/* Newline framing: returns when the buffer holds no complete line. */
static void
process_newline (GgFramedStream *self)
{
  while (!stopped (self))
    {
      guint8 *data = self->inbuf->data + self->pos;
      gsize avail = self->inbuf->len - self->pos;
      guint8 *nl;
      gsize line_len;

      if (avail == 0)
        return;

      if (self->discard_line)
        {
          nl = memchr (data, '\n', avail);
          if (nl == NULL)
            {
              self->pos = self->inbuf->len;
              return;
            }
          self->pos += (gsize) (nl - data) + 1;
          self->discard_line = FALSE;
          continue;
        }

      nl = memchr (data + self->scanned, '\n', avail - self->scanned);
      if (nl == NULL)
        {
          self->scanned = avail;
          /* +1: the line may still end in a tolerated `\r` (written as
           * avail - 1 so that a limit of G_MAXSIZE cannot wrap; avail > 0) */
          if (avail - 1 > self->max_size)
            {
              self->discard_line = TRUE;
              self->pos = self->inbuf->len;
              self->scanned = 0;
              _gg_framed_stream_emit_framing_error (self, GG_FRAMING_ERROR_TOO_LARGE,
                                  "message exceeds the maximum size");
            }
          return;
        }

      line_len = (gsize) (nl - data);
      self->pos += line_len + 1;
      self->scanned = 0;
      if (line_len > 0 && data[line_len - 1] == '\r')
        line_len--;
      if (line_len > self->max_size)
        {
          _gg_framed_stream_emit_framing_error (self, GG_FRAMING_ERROR_TOO_LARGE,
                              "message exceeds the maximum size");
          continue;
        }
      if (is_blank (data, line_len))
        continue;
      _gg_framed_stream_emit_message (self, data, line_len);
    }
}

static gboolean
is_token_char (guint8 c)
{
  return g_ascii_isalnum (c) || (c != 0 && strchr ("!#$%&'*+-.^_`|~", c) != NULL);
}

/* One header line (without its line end). FALSE if it is malformed. */
static gboolean
parse_header_line (GgFramedStream *self,
                   const guint8   *line,
                   gsize           len,
                   GError        **error)
{
  const guint8 *colon = memchr (line, ':', len);
  gsize name_len;
  const char *value;
  gsize value_len;
  char digits[24];
  guint64 size;

  if (colon == NULL || colon == line)
    {
      g_set_error_literal (error, GG_FRAMING_ERROR, GG_FRAMING_ERROR_BAD_HEADER,
                           "malformed header line");
      return FALSE;
    }
  name_len = (gsize) (colon - line);
  for (gsize i = 0; i < name_len; i++)
    if (!is_token_char (line[i]))
      {
        g_set_error_literal (error, GG_FRAMING_ERROR, GG_FRAMING_ERROR_BAD_HEADER,
                             "malformed header name");
        return FALSE;
      }

  if (name_len != strlen ("Content-Length") ||
      g_ascii_strncasecmp ((const char *) line, "Content-Length", name_len) != 0)
    return TRUE; /* Content-Type and unknown headers are ignored */

  value = (const char *) colon + 1;
  value_len = len - name_len - 1;
  while (value_len > 0 && (*value == ' ' || *value == '\t'))
    value++, value_len--;
  while (value_len > 0 && (value[value_len - 1] == ' ' || value[value_len - 1] == '\t'))
    value_len--;
  if (value_len == 0 || value_len >= sizeof digits)
    {
      g_set_error_literal (error, GG_FRAMING_ERROR, GG_FRAMING_ERROR_BAD_HEADER,
                           "invalid Content-Length");
      return FALSE;
    }
  for (gsize i = 0; i < value_len; i++)
    if (!g_ascii_isdigit (value[i]))
      {
        g_set_error_literal (error, GG_FRAMING_ERROR, GG_FRAMING_ERROR_BAD_HEADER,
                             "invalid Content-Length");
        return FALSE;
      }
  memcpy (digits, value, value_len);
  digits[value_len] = '\0';
  if (!g_ascii_string_to_unsigned (digits, 10, 0, G_MAXUINT64, &size, NULL))
    {
      g_set_error_literal (error, GG_FRAMING_ERROR, GG_FRAMING_ERROR_BAD_HEADER,
                           "invalid Content-Length");
      return FALSE;
    }
  if (self->cl_have_length && size != self->cl_length)
    {
      g_set_error_literal (error, GG_FRAMING_ERROR, GG_FRAMING_ERROR_BAD_HEADER,
                           "conflicting Content-Length headers");
      return FALSE;
    }
  self->cl_have_length = TRUE;
  self->cl_length = size;
  return TRUE;
}

static void
reset_header_block (GgFramedStream *self)
{
  self->cl_have_length = FALSE;
  self->cl_block_started = FALSE;
  self->cl_length = 0;
}

/* Content-Length framing: returns when more input is needed. */
static void
process_content_length (GgFramedStream *self)
{
  while (!stopped (self))
    {
      guint8 *data = self->inbuf->data + self->pos;
      gsize avail = self->inbuf->len - self->pos;

      if (self->cl_state == GG_FRAMED_CL_BODY)
        {
          if (avail < self->body_size)
            return;
          self->pos += self->body_size;
          self->cl_state = GG_FRAMED_CL_HEADERS;
          _gg_framed_stream_emit_message (self, data, self->body_size);
          continue;
        }

      if (self->cl_state == GG_FRAMED_CL_DISCARD)
        {
          gsize n = (gsize) MIN ((guint64) avail, self->discard_left);

          self->pos += n;
          self->discard_left -= n;
          if (self->discard_left > 0)
            return;
          self->cl_state = GG_FRAMED_CL_HEADERS;
          continue;
        }

      /* GG_FRAMED_CL_HEADERS, or skipping the rest of an over-long header line */
      if (avail == 0)
        return;

      {
        guint8 *nl;
        gsize line_len;
        g_autoptr(GError) error = NULL;

        if (self->discard_line)
          {
            nl = memchr (data, '\n', avail);
            if (nl == NULL)
              {
                self->pos = self->inbuf->len;
                return;
              }
            self->pos += (gsize) (nl - data) + 1;
            self->discard_line = FALSE;
            continue;
          }

        nl = memchr (data + self->scanned, '\n', avail - self->scanned);
        if (nl == NULL)
          {
            self->scanned = avail;
            if (avail > MAX_HEADER_LINE)
              {
                self->discard_line = TRUE;
                self->pos = self->inbuf->len;
                self->scanned = 0;
                reset_header_block (self);
                _gg_framed_stream_emit_framing_error (self, GG_FRAMING_ERROR_BAD_HEADER,
                                    "header line too long");
              }
            return;
          }

        line_len = (gsize) (nl - data);
        self->pos += line_len + 1;
        self->scanned = 0;
        if (line_len > 0 && data[line_len - 1] == '\r')
          line_len--;

        if (line_len > 0)
          {
            self->cl_block_started = TRUE;
            if (!parse_header_line (self, data, line_len, &error))
              {
                /* Resynchronise: the next line starts a new block. */
                reset_header_block (self);
                _gg_framed_stream_emit_framing_error (self, GG_FRAMING_ERROR_BAD_HEADER, error->message);
              }
            continue;
          }

        /* End of a header block. Stray blank lines between messages are fine. */
        if (!self->cl_block_started)
          continue;
        if (!self->cl_have_length)
          {
            reset_header_block (self);
            _gg_framed_stream_emit_framing_error (self, GG_FRAMING_ERROR_BAD_HEADER,
                                "missing Content-Length header");
            continue;
          }
        if (self->cl_length > self->max_size)
          {
            self->discard_left = self->cl_length;
            reset_header_block (self);
            self->cl_state = GG_FRAMED_CL_DISCARD;
            _gg_framed_stream_emit_framing_error (self, GG_FRAMING_ERROR_TOO_LARGE,
                                "message exceeds the maximum size");
            continue;
          }
        self->body_size = (gsize) self->cl_length;
        reset_header_block (self);
        self->cl_state = GG_FRAMED_CL_BODY;
      }
    }
}

static void
compact_input (GgFramedStream *self)
{
  GgFramedReadBuf *in = self->inbuf;

  if (self->pos == in->len)
    {
      in->len = 0;
      self->pos = 0;
      /* Give back the memory of a past large message. */
      if (in->cap > SHRINK_THRESHOLD)
        {
          g_free (in->data);
          in->cap = READ_CHUNK;
          in->data = g_malloc (in->cap);
        }
    }
  else if (self->pos > 0)
    {
      gsize rest = in->len - self->pos;

      memmove (in->data, in->data + self->pos, rest);
      in->len = rest;
      self->pos = 0;
    }
}

static gboolean
truncated_at_eof (GgFramedStream *self)
{
  const guint8 *data = self->inbuf->data + self->pos;
  gsize avail = self->inbuf->len - self->pos;

  if (self->framing == GG_FRAMING_NEWLINE)
    return !self->discard_line && !is_blank (data, avail);

  switch (self->cl_state)
    {
    case GG_FRAMED_CL_BODY:
      return TRUE;
    case GG_FRAMED_CL_DISCARD:
      return FALSE;
    case GG_FRAMED_CL_HEADERS:
    default:
      return !self->discard_line && (self->cl_block_started || !is_blank (data, avail));
    }
}

static void
read_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  GgFramedOp *op = user_data;
  g_autoptr(GgFramedStream) self = g_weak_ref_get (&op->self);
  g_autoptr(GError) error = NULL;
  gssize n;

  n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);
  _gg_framed_stream_op_free (op);
  if (self == NULL || self->disposed)
    return;
  self->reading = FALSE;

  if (n < 0)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_debug ("framed stream %p: read failed: %s", self, error->message);
          _gg_framed_stream_emit_closed (self, error);
        }
      _gg_framed_stream_maybe_finish_output (self);
      return;
    }

  self->inbuf->len += (gsize) n;

  /* Closed while this read was completing: its data is dropped. */
  if (self->read_closed)
    {
      _gg_framed_stream_maybe_finish_output (self);
      return;
    }

  if (n == 0)
    {
      if (truncated_at_eof (self))
        _gg_framed_stream_emit_framing_error (self, GG_FRAMING_ERROR_TRUNCATED,
                            "the stream ended inside a message");
      _gg_framed_stream_emit_closed (self, NULL);
      _gg_framed_stream_maybe_finish_output (self);
      return;
    }

  if (self->framing == GG_FRAMING_NEWLINE)
    process_newline (self);
  else
    process_content_length (self);

  if (stopped (self))
    return;
  compact_input (self);
  _gg_framed_stream_schedule_read (self);
}

/* How much to ask for: a chunk, or the rest of a large body at once. */
static gsize
read_size (GgFramedStream *self)
{
  gsize avail = self->inbuf->len - self->pos;

  if (self->framing == GG_FRAMING_CONTENT_LENGTH && self->cl_state == GG_FRAMED_CL_BODY &&
      self->body_size > avail + READ_CHUNK)
    return MIN (self->body_size - avail, (gsize) 4 * 1024 * 1024);
  return READ_CHUNK;
}

/* A peer that sends requests but never reads the answers would otherwise
 * make the output queue grow without bound: past a few maximum-size
 * messages of backlog, its input is left unread until the output drains. */
gsize
_gg_framed_stream_output_limit (GgFramedStream *self)
{
  if (self->max_size > G_MAXSIZE / 4)
    return G_MAXSIZE;
  return MAX (4 * self->max_size, (gsize) 1024 * 1024);
}

void
_gg_framed_stream_schedule_read (GgFramedStream *self)
{
  GgFramedReadBuf *in = self->inbuf;
  GgFramedOp *op;
  gsize want;

  if (self->reading || self->read_closed || self->disposed || !self->started)
    return;
  if (gg_framed_stream_get_pending_output (self) > _gg_framed_stream_output_limit (self))
    {
      self->read_paused = TRUE;
      return;
    }
  self->read_paused = FALSE;

  want = read_size (self);
  if (in->cap - in->len < want)
    {
      in->cap = MAX (in->len + want, in->cap * 2);
      in->data = g_realloc (in->data, in->cap);
    }

  op = _gg_framed_stream_op_new (self);
  op->buf = read_buf_ref (in);
  self->reading = TRUE;
  g_input_stream_read_async (self->input, in->data + in->len, want,
                             G_PRIORITY_DEFAULT, self->read_cancellable, read_cb, op);
}


/* gg-framed-stream.c: whole messages over a pair of streams.
 *
 * Reading: one asynchronous read of up to 64 KiB at a time into a growable
 * buffer, then a scan of everything buffered with memchr, emitting one
 * `message` per complete frame. Writing: framed messages are appended to one
 * output buffer; while a write is in flight further messages accumulate, so
 * a burst of small messages leaves in a few large writes, in order.
 *
 * Asynchronous operations never hold a strong reference on the stream: they
 * keep their own buffer alive and find the stream through a weak reference,
 * so dropping the last reference (which cancels them) is always safe.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "gg-framed-stream.h"

#define READ_CHUNK        (64 * 1024)
#define MAX_HEADER_LINE   (8 * 1024)
#define SHRINK_THRESHOLD  (1024 * 1024)

G_DEFINE_QUARK (gg-framing-error-quark, gg_framing_error)

typedef enum {
  CL_HEADERS,   /* reading a header block */
  CL_BODY,      /* reading `body_size` bytes of body */
  CL_DISCARD,   /* skipping `discard_left` bytes of an oversized body */
} ClState;

/* The read buffer outlives the stream while a read into it is pending. */
typedef struct {
  guint8 *data;
  gsize   len;
  gsize   cap;
} ReadBuf;

struct _GgFramedStream
{
  GObject parent_instance;

  GIOStream     *io_stream;   /* nullable: kept alive while we use its halves */
  GInputStream  *input;
  GOutputStream *output;
  GgFraming      framing;
  gsize          max_size;

  /* input */
  GCancellable *read_cancellable;
  ReadBuf      *inbuf;     /* bytes [pos, len) are unconsumed */
  gsize         pos;
  gsize         scanned;      /* bytes after pos known not to hold a newline */
  gboolean      discard_line; /* skipping up to the next newline */
  ClState       cl_state;
  gboolean      cl_have_length;
  guint64       cl_length;    /* the Content-Length of the current block */
  gboolean      cl_block_started;
  gsize         body_size;
  guint64       discard_left;
  gboolean      started;
  gboolean      reading;
  gboolean      read_closed;  /* `closed` was emitted */

  /* output */
  GCancellable *write_cancellable;
  GByteArray   *outbuf;       /* framed bytes not yet handed to a write */
  gsize         in_flight;    /* size of the write in progress, 0 if none */
  GError       *write_error;  /* the first write failure; output is dead */
  GQueue        flush_tasks;
  gboolean      close_requested;
  gboolean      output_closed;

  gboolean      disposed;
};

enum { SIGNAL_MESSAGE, SIGNAL_FRAMING_ERROR, SIGNAL_CLOSED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (GgFramedStream, gg_framed_stream, G_TYPE_OBJECT)

static void
read_buf_clear (ReadBuf *buf)
{
  g_free (buf->data);
}

static ReadBuf *
read_buf_ref (ReadBuf *buf)
{
  return g_rc_box_acquire (buf);
}

static void
read_buf_unref (ReadBuf *buf)
{
  g_rc_box_release_full (buf, (GDestroyNotify) read_buf_clear);
}

typedef struct {
  GWeakRef        self;
  ReadBuf         *buf;
  GBytes     *bytes;
} AsyncOp;

static AsyncOp *
async_op_new (GgFramedStream *self)
{
  AsyncOp *op = g_new0 (AsyncOp, 1);
  g_weak_ref_init (&op->self, self);
  return op;
}

static void
async_op_free (AsyncOp *op)
{
  g_weak_ref_clear (&op->self);
  if (op->buf != NULL)
    read_buf_unref (op->buf);
  g_clear_pointer (&op->bytes, g_bytes_unref);
  g_free (op);
}

static void schedule_read (GgFramedStream *self);
static void start_write (GgFramedStream *self);
static void maybe_finish_output (GgFramedStream *self);

static void
emit_closed (GgFramedStream *self,
             const GError   *error)
{
  if (self->read_closed)
    return;
  self->read_closed = TRUE;
  if (!self->disposed)
    g_signal_emit (self, signals[SIGNAL_CLOSED], 0, error);
}

static void
emit_framing_error (GgFramedStream *self,
                    GgFramingError  code,
                    const char     *message)
{
  g_autoptr(GError) error = g_error_new_literal (GG_FRAMING_ERROR, code, message);

  g_debug ("framed stream %p: %s", self, message);
  if (!self->disposed && !self->read_closed)
    g_signal_emit (self, signals[SIGNAL_FRAMING_ERROR], 0, error);
}

static void
emit_message (GgFramedStream *self,
              const guint8   *data,
              gsize           length)
{
  g_autoptr(GBytes) bytes = NULL;

  if (self->disposed || self->read_closed)
    return;
  bytes = g_bytes_new (data, length);
  g_signal_emit (self, signals[SIGNAL_MESSAGE], 0, bytes);
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
          /* +1: the line may still end in a tolerated `\r` */
          if (avail > self->max_size + 1)
            {
              self->discard_line = TRUE;
              self->pos = self->inbuf->len;
              self->scanned = 0;
              emit_framing_error (self, GG_FRAMING_ERROR_TOO_LARGE,
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
          emit_framing_error (self, GG_FRAMING_ERROR_TOO_LARGE,
                              "message exceeds the maximum size");
          continue;
        }
      if (is_blank (data, line_len))
        continue;
      emit_message (self, data, line_len);
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

      if (self->cl_state == CL_BODY)
        {
          if (avail < self->body_size)
            return;
          self->pos += self->body_size;
          self->cl_state = CL_HEADERS;
          emit_message (self, data, self->body_size);
          continue;
        }

      if (self->cl_state == CL_DISCARD)
        {
          gsize n = (gsize) MIN ((guint64) avail, self->discard_left);

          self->pos += n;
          self->discard_left -= n;
          if (self->discard_left > 0)
            return;
          self->cl_state = CL_HEADERS;
          continue;
        }

      /* CL_HEADERS, or skipping the rest of an over-long header line */
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
                emit_framing_error (self, GG_FRAMING_ERROR_BAD_HEADER,
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
                emit_framing_error (self, GG_FRAMING_ERROR_BAD_HEADER, error->message);
              }
            continue;
          }

        /* End of a header block. Stray blank lines between messages are fine. */
        if (!self->cl_block_started)
          continue;
        if (!self->cl_have_length)
          {
            reset_header_block (self);
            emit_framing_error (self, GG_FRAMING_ERROR_BAD_HEADER,
                                "missing Content-Length header");
            continue;
          }
        if (self->cl_length > self->max_size)
          {
            self->discard_left = self->cl_length;
            reset_header_block (self);
            self->cl_state = CL_DISCARD;
            emit_framing_error (self, GG_FRAMING_ERROR_TOO_LARGE,
                                "message exceeds the maximum size");
            continue;
          }
        self->body_size = (gsize) self->cl_length;
        reset_header_block (self);
        self->cl_state = CL_BODY;
      }
    }
}

static void
compact_input (GgFramedStream *self)
{
  ReadBuf *in = self->inbuf;

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
    case CL_BODY:
      return TRUE;
    case CL_DISCARD:
      return FALSE;
    case CL_HEADERS:
    default:
      return !self->discard_line && (self->cl_block_started || !is_blank (data, avail));
    }
}

static void
read_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  AsyncOp *op = user_data;
  g_autoptr(GgFramedStream) self = g_weak_ref_get (&op->self);
  g_autoptr(GError) error = NULL;
  gssize n;

  n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);
  async_op_free (op);
  if (self == NULL || self->disposed)
    return;
  self->reading = FALSE;

  if (n < 0)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_debug ("framed stream %p: read failed: %s", self, error->message);
          emit_closed (self, error);
        }
      maybe_finish_output (self);
      return;
    }

  self->inbuf->len += (gsize) n;

  /* Closed while this read was completing: its data is dropped. */
  if (self->read_closed)
    {
      maybe_finish_output (self);
      return;
    }

  if (n == 0)
    {
      if (truncated_at_eof (self))
        emit_framing_error (self, GG_FRAMING_ERROR_TRUNCATED,
                            "the stream ended inside a message");
      emit_closed (self, NULL);
      maybe_finish_output (self);
      return;
    }

  if (self->framing == GG_FRAMING_NEWLINE)
    process_newline (self);
  else
    process_content_length (self);

  if (stopped (self))
    return;
  compact_input (self);
  schedule_read (self);
}

/* How much to ask for: a chunk, or the rest of a large body at once. */
static gsize
read_size (GgFramedStream *self)
{
  gsize avail = self->inbuf->len - self->pos;

  if (self->framing == GG_FRAMING_CONTENT_LENGTH && self->cl_state == CL_BODY &&
      self->body_size > avail + READ_CHUNK)
    return MIN (self->body_size - avail, (gsize) 4 * 1024 * 1024);
  return READ_CHUNK;
}

static void
schedule_read (GgFramedStream *self)
{
  ReadBuf *in = self->inbuf;
  AsyncOp *op;
  gsize want;

  if (self->reading || self->read_closed || self->disposed || !self->started)
    return;

  want = read_size (self);
  if (in->cap - in->len < want)
    {
      in->cap = MAX (in->len + want, in->cap * 2);
      in->data = g_realloc (in->data, in->cap);
    }

  op = async_op_new (self);
  op->buf = read_buf_ref (in);
  self->reading = TRUE;
  g_input_stream_read_async (self->input, in->data + in->len, want,
                             G_PRIORITY_DEFAULT, self->read_cancellable, read_cb, op);
}

/* Output */

static void
complete_flushes (GgFramedStream *self)
{
  GTask *task;

  while ((task = g_queue_pop_head (&self->flush_tasks)) != NULL)
    {
      GSource *cancel = g_task_get_task_data (task);

      if (cancel != NULL)
        g_source_destroy (cancel);
      if (self->write_error != NULL)
        g_task_return_error (task, g_error_copy (self->write_error));
      else
        g_task_return_boolean (task, TRUE);
      g_object_unref (task);
    }
}

static void
close_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (G_IS_IO_STREAM (source))
    g_io_stream_close_finish (G_IO_STREAM (source), result, &error);
  else if (G_IS_OUTPUT_STREAM (source))
    g_output_stream_close_finish (G_OUTPUT_STREAM (source), result, &error);
  else
    g_input_stream_close_finish (G_INPUT_STREAM (source), result, &error);
  if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED))
    g_debug ("framed stream: closing failed: %s", error->message);
}

/* After gg_framed_stream_close(): close the streams once the output is out
 * and no read is pending (a stream with a pending operation cannot close). */
static void
maybe_finish_output (GgFramedStream *self)
{
  if (!self->close_requested || self->output_closed || self->reading ||
      self->in_flight > 0 || (self->outbuf->len > 0 && self->write_error == NULL))
    return;
  self->output_closed = TRUE;
  if (self->io_stream != NULL)
    g_io_stream_close_async (self->io_stream, G_PRIORITY_DEFAULT, NULL, close_done_cb, NULL);
  else
    {
      g_output_stream_close_async (self->output, G_PRIORITY_DEFAULT, NULL, close_done_cb, NULL);
      g_input_stream_close_async (self->input, G_PRIORITY_DEFAULT, NULL, close_done_cb, NULL);
    }
}

static void
write_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  AsyncOp *op = user_data;
  g_autoptr(GgFramedStream) self = g_weak_ref_get (&op->self);
  g_autoptr(GError) error = NULL;

  g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error);
  async_op_free (op);
  if (self == NULL || self->disposed)
    return;

  self->in_flight = 0;
  if (error != NULL)
    {
      g_debug ("framed stream %p: write failed: %s", self, error->message);
      if (self->write_error == NULL)
        self->write_error = g_steal_pointer (&error);
      g_byte_array_set_size (self->outbuf, 0);
    }

  start_write (self);
  if (self->in_flight == 0)
    {
      complete_flushes (self);
      maybe_finish_output (self);
    }
}

static void
start_write (GgFramedStream *self)
{
  AsyncOp *op;
  gsize size;

  if (self->in_flight > 0 || self->outbuf->len == 0 || self->write_error != NULL ||
      self->disposed)
    return;

  op = async_op_new (self);
  size = self->outbuf->len;
  op->bytes = g_byte_array_free_to_bytes (self->outbuf);
  self->outbuf = g_byte_array_sized_new (4096);
  self->in_flight = size;
  g_output_stream_write_all_async (self->output, g_bytes_get_data (op->bytes, NULL), size,
                                   G_PRIORITY_DEFAULT, self->write_cancellable, write_cb, op);
}

/* GObject */

static void
gg_framed_stream_dispose (GObject *object)
{
  GgFramedStream *self = GG_FRAMED_STREAM (object);

  if (!self->disposed)
    {
      self->disposed = TRUE;
      g_cancellable_cancel (self->read_cancellable);
      g_cancellable_cancel (self->write_cancellable);
      if (self->write_error == NULL)
        self->write_error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED,
                                                 "The stream was disposed");
      complete_flushes (self);
    }
  G_OBJECT_CLASS (gg_framed_stream_parent_class)->dispose (object);
}

static void
gg_framed_stream_finalize (GObject *object)
{
  GgFramedStream *self = GG_FRAMED_STREAM (object);

  g_clear_object (&self->read_cancellable);
  g_clear_object (&self->write_cancellable);
  g_clear_pointer (&self->inbuf, read_buf_unref);
  g_clear_pointer (&self->outbuf, g_byte_array_unref);
  g_clear_error (&self->write_error);
  g_clear_object (&self->input);
  g_clear_object (&self->output);
  g_clear_object (&self->io_stream);
  G_OBJECT_CLASS (gg_framed_stream_parent_class)->finalize (object);
}

static void
gg_framed_stream_class_init (GgFramedStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = gg_framed_stream_dispose;
  object_class->finalize = gg_framed_stream_finalize;

#ifdef SIGPIPE
  /* Like GSocket: a peer closing its end of a pipe (stdout) must give a
   * write error, not kill the process. A handler the host set stays. */
  {
    struct sigaction old;

    if (sigaction (SIGPIPE, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
      signal (SIGPIPE, SIG_IGN);
  }
#endif

  /**
   * GgFramedStream::message:
   * @body: the message without its framing
   */
  signals[SIGNAL_MESSAGE] =
    g_signal_new ("message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, g_cclosure_marshal_VOID__BOXED,
                  G_TYPE_NONE, 1, G_TYPE_BYTES | G_SIGNAL_TYPE_STATIC_SCOPE);
  g_signal_set_va_marshaller (signals[SIGNAL_MESSAGE], G_TYPE_FROM_CLASS (klass),
                              g_cclosure_marshal_VOID__BOXEDv);

  /**
   * GgFramedStream::framing-error:
   * @error: a %GG_FRAMING_ERROR; the bad frame was skipped
   */
  signals[SIGNAL_FRAMING_ERROR] =
    g_signal_new ("framing-error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, g_cclosure_marshal_VOID__BOXED,
                  G_TYPE_NONE, 1, G_TYPE_ERROR | G_SIGNAL_TYPE_STATIC_SCOPE);
  g_signal_set_va_marshaller (signals[SIGNAL_FRAMING_ERROR], G_TYPE_FROM_CLASS (klass),
                              g_cclosure_marshal_VOID__BOXEDv);

  /**
   * GgFramedStream::closed:
   * @error: (nullable): the read error, or %NULL at end of input or after
   *   gg_framed_stream_close()
   */
  signals[SIGNAL_CLOSED] =
    g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, g_cclosure_marshal_VOID__BOXED,
                  G_TYPE_NONE, 1, G_TYPE_ERROR | G_SIGNAL_TYPE_STATIC_SCOPE);
  g_signal_set_va_marshaller (signals[SIGNAL_CLOSED], G_TYPE_FROM_CLASS (klass),
                              g_cclosure_marshal_VOID__BOXEDv);
}

static void
gg_framed_stream_init (GgFramedStream *self)
{
  self->max_size = GG_FRAMED_STREAM_DEFAULT_MAX_MESSAGE_SIZE;
  self->read_cancellable = g_cancellable_new ();
  self->write_cancellable = g_cancellable_new ();
  self->inbuf = g_rc_box_new0 (ReadBuf);
  self->outbuf = g_byte_array_sized_new (4096);
  self->cl_state = CL_HEADERS;
  g_queue_init (&self->flush_tasks);
}

/* API */

/**
 * gg_framed_stream_new:
 * @input: where messages come from
 * @output: where messages go
 * @framing: how messages are delimited
 *
 * Creates a framed stream over two streams (e.g. stdin and stdout). Nothing
 * is read before gg_framed_stream_start().
 *
 * Returns: (transfer full): a new #GgFramedStream
 */
GgFramedStream *
gg_framed_stream_new (GInputStream  *input,
                      GOutputStream *output,
                      GgFraming      framing)
{
  GgFramedStream *self;

  g_return_val_if_fail (G_IS_INPUT_STREAM (input), NULL);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (output), NULL);
  g_return_val_if_fail (framing == GG_FRAMING_NEWLINE ||
                        framing == GG_FRAMING_CONTENT_LENGTH, NULL);

  self = g_object_new (GG_TYPE_FRAMED_STREAM, NULL);
  self->input = g_object_ref (input);
  self->output = g_object_ref (output);
  self->framing = framing;
  return self;
}

/**
 * gg_framed_stream_new_for_io_stream:
 * @stream: a bidirectional stream (a socket connection)
 * @framing: how messages are delimited
 *
 * Returns: (transfer full): a new #GgFramedStream over both halves of @stream
 */
GgFramedStream *
gg_framed_stream_new_for_io_stream (GIOStream *stream,
                                    GgFraming  framing)
{
  GgFramedStream *self;

  g_return_val_if_fail (G_IS_IO_STREAM (stream), NULL);

  self = gg_framed_stream_new (g_io_stream_get_input_stream (stream),
                               g_io_stream_get_output_stream (stream), framing);
  if (self != NULL)
    self->io_stream = g_object_ref (stream);
  return self;
}

/**
 * gg_framed_stream_get_framing:
 * @self: a #GgFramedStream
 *
 * Returns: the framing given at construction
 */
GgFraming
gg_framed_stream_get_framing (GgFramedStream *self)
{
  g_return_val_if_fail (GG_IS_FRAMED_STREAM (self), GG_FRAMING_NEWLINE);
  return self->framing;
}

/**
 * gg_framed_stream_set_max_message_size:
 * @self: a #GgFramedStream
 * @max_size: the largest accepted message body in bytes (at least 1)
 *
 * Larger incoming messages are skipped with a %GG_FRAMING_ERROR_TOO_LARGE
 * `framing-error`. The default is %GG_FRAMED_STREAM_DEFAULT_MAX_MESSAGE_SIZE.
 */
void
gg_framed_stream_set_max_message_size (GgFramedStream *self,
                                       gsize           max_size)
{
  g_return_if_fail (GG_IS_FRAMED_STREAM (self));
  g_return_if_fail (max_size > 0);
  self->max_size = max_size;
}

/**
 * gg_framed_stream_get_max_message_size:
 * @self: a #GgFramedStream
 *
 * Returns: the largest accepted incoming message in bytes
 */
gsize
gg_framed_stream_get_max_message_size (GgFramedStream *self)
{
  g_return_val_if_fail (GG_IS_FRAMED_STREAM (self), 0);
  return self->max_size;
}

/**
 * gg_framed_stream_start:
 * @self: a #GgFramedStream
 *
 * Starts reading; connect to the signals first. Calling it again does nothing.
 */
void
gg_framed_stream_start (GgFramedStream *self)
{
  g_return_if_fail (GG_IS_FRAMED_STREAM (self));
  if (self->started)
    return;
  self->started = TRUE;
  schedule_read (self);
}

/**
 * gg_framed_stream_send:
 * @self: a #GgFramedStream
 * @data: (array length=length): the message body
 * @length: its length in bytes
 * @error: return location for a #GError
 *
 * Queues one message, framed. Messages are written in the order they are
 * sent. Fails if the stream was closed or a write failed, and (newline
 * framing) if @data holds a newline.
 *
 * Returns: %TRUE if the message was queued
 */
gboolean
gg_framed_stream_send (GgFramedStream *self,
                       const char     *data,
                       gsize           length,
                       GError        **error)
{
  g_return_val_if_fail (GG_IS_FRAMED_STREAM (self), FALSE);
  g_return_val_if_fail (data != NULL || length == 0, FALSE);

  if (self->close_requested || self->disposed)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CLOSED, "The stream is closed");
      return FALSE;
    }
  if (self->write_error != NULL)
    {
      g_propagate_error (error, g_error_copy (self->write_error));
      return FALSE;
    }

  if (self->framing == GG_FRAMING_NEWLINE)
    {
      if (length > 0 && memchr (data, '\n', length) != NULL)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                               "A newline-framed message cannot contain a newline");
          return FALSE;
        }
      g_byte_array_append (self->outbuf, (const guint8 *) data, (guint) length);
      g_byte_array_append (self->outbuf, (const guint8 *) "\n", 1);
    }
  else
    {
      char header[64];
      int n = g_snprintf (header, sizeof header, "Content-Length: %" G_GSIZE_FORMAT "\r\n\r\n",
                          length);

      g_byte_array_append (self->outbuf, (const guint8 *) header, (guint) n);
      g_byte_array_append (self->outbuf, (const guint8 *) data, (guint) length);
    }

  start_write (self);
  return TRUE;
}

/**
 * gg_framed_stream_get_pending_output:
 * @self: a #GgFramedStream
 *
 * Returns: the number of framed bytes queued or being written
 */
gsize
gg_framed_stream_get_pending_output (GgFramedStream *self)
{
  g_return_val_if_fail (GG_IS_FRAMED_STREAM (self), 0);
  return self->outbuf->len + self->in_flight;
}

static gboolean
flush_cancelled_cb (GCancellable *cancellable,
                    gpointer      user_data)
{
  GTask *task = user_data;
  GgFramedStream *self = g_task_get_source_object (task);

  g_queue_remove (&self->flush_tasks, task);
  g_task_return_error_if_cancelled (task);
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

/**
 * gg_framed_stream_flush_async:
 * @self: a #GgFramedStream
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when everything sent so far has been written
 * @user_data: data for @callback
 *
 * Waits until the output queue is empty. Fails with the write error if the
 * output broke; cancelling stops the wait, not the writes.
 */
void
gg_framed_stream_flush_async (GgFramedStream      *self,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (GG_IS_FRAMED_STREAM (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, gg_framed_stream_flush_async);
  g_task_set_check_cancellable (task, TRUE);

  if (self->write_error != NULL)
    g_task_return_error (task, g_error_copy (self->write_error));
  else if (self->in_flight == 0 && self->outbuf->len == 0)
    g_task_return_boolean (task, TRUE);
  else
    {
      if (cancellable != NULL)
        {
          /* Cancelling gives up waiting; the writes themselves go on. */
          GSource *cancel = g_cancellable_source_new (cancellable);

          g_source_set_callback (cancel, G_SOURCE_FUNC (flush_cancelled_cb), task, NULL);
          g_source_attach (cancel, g_task_get_context (task));
          g_task_set_task_data (task, cancel, (GDestroyNotify) g_source_unref);
        }
      g_queue_push_tail (&self->flush_tasks, g_steal_pointer (&task));
    }
}

/**
 * gg_framed_stream_flush_finish:
 * @self: a #GgFramedStream
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE if all queued output was written
 */
gboolean
gg_framed_stream_flush_finish (GgFramedStream  *self,
                               GAsyncResult    *result,
                               GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * gg_framed_stream_close:
 * @self: a #GgFramedStream
 *
 * Stops reading (emitting `closed` if it was not emitted yet), then closes
 * the streams once the queued output has been written. Further sends fail.
 */
void
gg_framed_stream_close (GgFramedStream *self)
{
  g_autoptr(GgFramedStream) hold = NULL;

  g_return_if_fail (GG_IS_FRAMED_STREAM (self));

  if (self->close_requested)
    return;
  hold = g_object_ref (self);
  self->close_requested = TRUE;
  g_cancellable_cancel (self->read_cancellable);
  emit_closed (self, NULL);
  maybe_finish_output (self);
}

/**
 * gg_framed_stream_is_closed:
 * @self: a #GgFramedStream
 *
 * Returns: %TRUE once `closed` was emitted (end of input, a read error or
 *   gg_framed_stream_close())
 */
gboolean
gg_framed_stream_is_closed (GgFramedStream *self)
{
  g_return_val_if_fail (GG_IS_FRAMED_STREAM (self), TRUE);
  return self->read_closed;
}

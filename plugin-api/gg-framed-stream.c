/* gg-framed-stream.c: whole messages over a pair of streams; the object,
 * its signals and its life cycle. Frame decoding is in
 * gg-framed-stream-reader.c, the output queue in gg-framed-stream-writer.c.
 *
 * Asynchronous operations never hold a strong reference on the stream: they
 * keep their own buffer alive and find the stream through a weak reference,
 * so dropping the last reference (which cancels them) is always safe.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-framed-stream-private.h"

/**
 * gg_framing_error_quark:
 *
 * The error domain of bad frames, %GG_FRAMING_ERROR.
 *
 * Returns: the #GQuark of the domain
 *
 * Since: 1.0
 */
G_DEFINE_QUARK (gg-framing-error-quark, gg_framing_error)

enum { SIGNAL_MESSAGE, SIGNAL_FRAMING_ERROR, SIGNAL_CLOSED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (GgFramedStream, gg_framed_stream, G_TYPE_OBJECT)

static void
read_buf_clear (GgFramedReadBuf *buf)
{
  g_free (buf->data);
}

void
_gg_framed_stream_read_buf_unref (GgFramedReadBuf *buf)
{
  g_rc_box_release_full (buf, (GDestroyNotify) read_buf_clear);
}

GgFramedOp *
_gg_framed_stream_op_new (GgFramedStream *self)
{
  GgFramedOp *op = g_new0 (GgFramedOp, 1);
  g_weak_ref_init (&op->self, self);
  return op;
}

void
_gg_framed_stream_op_free (GgFramedOp *op)
{
  g_weak_ref_clear (&op->self);
  if (op->buf != NULL)
    _gg_framed_stream_read_buf_unref (op->buf);
  g_clear_pointer (&op->bytes, g_bytes_unref);
  g_free (op);
}

void
_gg_framed_stream_emit_closed (GgFramedStream *self,
                               const GError   *error)
{
  if (self->read_closed)
    return;
  self->read_closed = TRUE;
  if (!self->disposed)
    g_signal_emit (self, signals[SIGNAL_CLOSED], 0, error);
}

void
_gg_framed_stream_emit_framing_error (GgFramedStream *self,
                                      GgFramingError  code,
                                      const char     *message)
{
  g_autoptr(GError) error = g_error_new_literal (GG_FRAMING_ERROR, code, message);

  g_debug ("framed stream %p: %s", self, message);
  if (!self->disposed && !self->read_closed)
    g_signal_emit (self, signals[SIGNAL_FRAMING_ERROR], 0, error);
}

void
_gg_framed_stream_emit_message (GgFramedStream *self,
                                const guint8   *data,
                                gsize           length)
{
  g_autoptr(GBytes) bytes = NULL;

  if (self->disposed || self->read_closed)
    return;
  bytes = g_bytes_new (data, length);
  g_signal_emit (self, signals[SIGNAL_MESSAGE], 0, bytes);
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
      _gg_framed_stream_complete_flushes (self);
    }
  G_OBJECT_CLASS (gg_framed_stream_parent_class)->dispose (object);
}

static void
gg_framed_stream_finalize (GObject *object)
{
  GgFramedStream *self = GG_FRAMED_STREAM (object);

  g_clear_object (&self->read_cancellable);
  g_clear_object (&self->write_cancellable);
  g_clear_pointer (&self->inbuf, _gg_framed_stream_read_buf_unref);
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

  /**
   * GgFramedStream::message:
   * @self: the stream
   * @body: the message without its framing
   *
   * One whole incoming message.
   *
   * Since: 1.0
   */
  signals[SIGNAL_MESSAGE] =
    g_signal_new ("message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, g_cclosure_marshal_VOID__BOXED,
                  G_TYPE_NONE, 1, G_TYPE_BYTES | G_SIGNAL_TYPE_STATIC_SCOPE);
  g_signal_set_va_marshaller (signals[SIGNAL_MESSAGE], G_TYPE_FROM_CLASS (klass),
                              g_cclosure_marshal_VOID__BOXEDv);

  /**
   * GgFramedStream::framing-error:
   * @self: the stream
   * @error: a %GG_FRAMING_ERROR; the bad frame was skipped
   *
   * A bad frame was skipped; reading goes on.
   *
   * Since: 1.0
   */
  signals[SIGNAL_FRAMING_ERROR] =
    g_signal_new ("framing-error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, g_cclosure_marshal_VOID__BOXED,
                  G_TYPE_NONE, 1, G_TYPE_ERROR | G_SIGNAL_TYPE_STATIC_SCOPE);
  g_signal_set_va_marshaller (signals[SIGNAL_FRAMING_ERROR], G_TYPE_FROM_CLASS (klass),
                              g_cclosure_marshal_VOID__BOXEDv);

  /**
   * GgFramedStream::closed:
   * @self: the stream
   * @error: (nullable): the read error, or %NULL at end of input or after
   *   gg_framed_stream_close()
   *
   * End of input or a read error: no more #GgFramedStream::message signals
   * follow. Output may still be flushed.
   *
   * Since: 1.0
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
  self->inbuf = g_rc_box_new0 (GgFramedReadBuf);
  self->outbuf = g_byte_array_sized_new (4096);
  self->cl_state = GG_FRAMED_CL_HEADERS;
  g_queue_init (&self->flush_tasks);
}

/* API */

/**
 * gg_framed_stream_new:
 * @input: where messages come from
 * @output: where messages go
 * @framing: how messages are delimited
 *
 * Creates a framed stream over two streams (e.g. stdin and stdout), keeping
 * a reference on each; gg_framed_stream_close() closes both. Nothing is
 * read before gg_framed_stream_start().
 *
 * Returns: (transfer full): a new #GgFramedStream
 *
 * Since: 1.0
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
 * Like gg_framed_stream_new() over both halves of @stream. Keeps a
 * reference on @stream; gg_framed_stream_close() closes it as a whole.
 *
 * Returns: (transfer full): a new #GgFramedStream
 *
 * Since: 1.0
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
 * Gets how the stream frames its messages.
 *
 * Returns: the framing given at construction
 *
 * Since: 1.0
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
 *
 * Since: 1.0
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
 * Gets the size limit of incoming messages.
 *
 * Returns: the largest accepted incoming message in bytes
 *
 * Since: 1.0
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
 *
 * Since: 1.0
 */
void
gg_framed_stream_start (GgFramedStream *self)
{
  g_return_if_fail (GG_IS_FRAMED_STREAM (self));
  if (self->started)
    return;
  self->started = TRUE;
  _gg_framed_stream_schedule_read (self);
}

/**
 * gg_framed_stream_close:
 * @self: a #GgFramedStream
 *
 * Stops reading (emitting `closed` if it was not emitted yet), then closes
 * the streams once the queued output has been written. Further sends fail.
 *
 * Since: 1.0
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
  _gg_framed_stream_emit_closed (self, NULL);
  _gg_framed_stream_maybe_finish_output (self);
}

/**
 * gg_framed_stream_is_closed:
 * @self: a #GgFramedStream
 *
 * Tells whether the input side is closed.
 *
 * Returns: %TRUE once `closed` was emitted (end of input, a read error or
 *   gg_framed_stream_close())
 *
 * Since: 1.0
 */
gboolean
gg_framed_stream_is_closed (GgFramedStream *self)
{
  g_return_val_if_fail (GG_IS_FRAMED_STREAM (self), TRUE);
  return self->read_closed;
}

/* gg-framed-stream-writer.c: the output side of a #GgFramedStream.
 *
 * Framed messages are appended to one output buffer; while a write is in
 * flight further messages accumulate, so a burst of small messages leaves in
 * a few large writes, in order. Flush waiters complete when the queue is
 * empty or the output broke.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-framed-stream-private.h"

static void start_write (GgFramedStream *self);

void
_gg_framed_stream_complete_flushes (GgFramedStream *self)
{
  GQueue waiting = self->flush_tasks;
  GTask *task;

  /* Only the waiters queued now: a callback may send and flush again, and
   * that new waiter must wait for its own message. */
  g_queue_init (&self->flush_tasks);
  while ((task = g_queue_pop_head (&waiting)) != NULL)
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
void
_gg_framed_stream_maybe_finish_output (GgFramedStream *self)
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
  GgFramedOp *op = user_data;
  g_autoptr(GgFramedStream) self = g_weak_ref_get (&op->self);
  g_autoptr(GError) error = NULL;

  g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error);
  _gg_framed_stream_op_free (op);
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
  if (self->read_paused &&
      gg_framed_stream_get_pending_output (self) <= _gg_framed_stream_output_limit (self) / 2)
    _gg_framed_stream_schedule_read (self);
  if (self->in_flight == 0)
    {
      _gg_framed_stream_complete_flushes (self);
      _gg_framed_stream_maybe_finish_output (self);
    }
}

static void
start_write (GgFramedStream *self)
{
  GgFramedOp *op;
  gsize size;

  if (self->in_flight > 0 || self->outbuf->len == 0 || self->write_error != NULL ||
      self->disposed)
    return;

  op = _gg_framed_stream_op_new (self);
  size = self->outbuf->len;
  op->bytes = g_byte_array_free_to_bytes (self->outbuf);
  self->outbuf = g_byte_array_sized_new (4096);
  self->in_flight = size;
  g_output_stream_write_all_async (self->output, g_bytes_get_data (op->bytes, NULL), size,
                                   G_PRIORITY_DEFAULT, self->write_cancellable, write_cb, op);
}

/**
 * gg_framed_stream_send:
 * @self: a #GgFramedStream
 * @data: (array length=length): the message body
 * @length: its length in bytes
 * @error: return location for a #GError
 *
 * Queues one message, framed. Messages are written in the order they are
 * sent. @data is copied. Fails if the stream was closed or a write failed,
 * with %G_IO_ERROR_MESSAGE_TOO_LARGE if the queue cannot hold it (4 GiB),
 * and (newline framing) if @data holds a newline.
 *
 * Returns: %TRUE if the message was queued
 *
 * Since: 1.0
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

  /* The queue is a GByteArray: it cannot hold more than G_MAXUINT bytes
   * (64 leaves room for the framing). */
  if (length > G_MAXUINT - 64 || self->outbuf->len > G_MAXUINT - 64 - length)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                           "The message does not fit in the output queue");
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
 * While this is above four maximum-size messages (at least 1 MiB) the
 * stream does not read its input.
 *
 * Returns: the number of framed bytes queued or being written
 *
 * Since: 1.0
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
 *
 * Since: 1.0
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
 * Finishes gg_framed_stream_flush_async().
 *
 * Returns: %TRUE if all queued output was written
 *
 * Since: 1.0
 */
gboolean
gg_framed_stream_flush_finish (GgFramedStream  *self,
                               GAsyncResult    *result,
                               GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}


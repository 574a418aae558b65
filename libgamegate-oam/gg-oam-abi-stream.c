/* gg-oam-abi-stream.c: the in-process stream pair the oam front end reads
 * and writes, as it reads stdin and writes stdout under `gamegate oam`.
 *
 * The front end takes any GIOStream (GgFrontend's run_stdio_async), so the
 * C ABI needs no seam in the oam plugin: the input stream reads the lines
 * oam_bridge_send() queued, the output stream hands each line written to
 * the callback at once. Both are asynchronous without threads: a read with
 * nothing queued waits until the bridge is woken; a write completes as
 * soon as the callback has seen it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-oam-abi-private.h"

/* ---- input -------------------------------------------------------------- */

struct _GgOamAbiInput {
  GInputStream parent_instance;

  oam_bridge *bridge;           /* unowned: it outlives its streams */
  gboolean eof;
  GTask *pending;               /* a read waiting for input */
  guint8 *pending_buffer;
  gsize pending_count;
  GSource *cancel_source;
};

#define GG_TYPE_OAM_ABI_INPUT (gg_oam_abi_input_get_type ())
G_DECLARE_FINAL_TYPE (GgOamAbiInput, gg_oam_abi_input, GG, OAM_ABI_INPUT, GInputStream)
G_DEFINE_FINAL_TYPE (GgOamAbiInput, gg_oam_abi_input, G_TYPE_INPUT_STREAM)

/**
 * gg_oam_abi_take_input:
 * @bridge: a bridge
 * @buffer: where to copy
 * @count: at most this many bytes
 *
 * Returns: how many queued bytes were moved into @buffer (0: none queued)
 */
gsize
gg_oam_abi_take_input (oam_bridge *bridge,
                       guint8     *buffer,
                       gsize       count)
{
  gsize n;

  pthread_mutex_lock (&bridge->lock);
  n = MIN (count, bridge->inbox->len - bridge->inbox_pos);
  if (n > 0)
    memcpy (buffer, bridge->inbox->data + bridge->inbox_pos, n);
  bridge->inbox_pos += n;
  /* Moved down only once the read part is the larger: a long queue read
   * chunk by chunk is not copied again for each chunk. */
  if (bridge->inbox_pos == bridge->inbox->len)
    {
      g_byte_array_set_size (bridge->inbox, 0);
      bridge->inbox_pos = 0;
    }
  else if (bridge->inbox_pos > bridge->inbox->len / 2)
    {
      g_byte_array_remove_range (bridge->inbox, 0, (guint) bridge->inbox_pos);
      bridge->inbox_pos = 0;
    }
  pthread_mutex_unlock (&bridge->lock);
  return n;
}

/**
 * gg_oam_abi_has_input:
 * @bridge: a bridge
 *
 * Returns: whether input is queued
 */
gboolean
gg_oam_abi_has_input (oam_bridge *bridge)
{
  gboolean queued;

  pthread_mutex_lock (&bridge->lock);
  queued = bridge->inbox->len > bridge->inbox_pos;
  pthread_mutex_unlock (&bridge->lock);
  return queued;
}

static GTask *
steal_pending (GgOamAbiInput *self)
{
  if (self->cancel_source != NULL)
    {
      g_source_destroy (self->cancel_source);
      g_clear_pointer (&self->cancel_source, g_source_unref);
    }
  return g_steal_pointer (&self->pending);
}

/**
 * gg_oam_abi_input_feed:
 * @input: the stream reading the inbox
 *
 * Completes a waiting read with what is queued (bridge thread, from the
 * wake source: the reader's callback runs at once, so what it took is
 * processed before anything can drop the reader). A read whose reader
 * cancelled it (the front end closing) takes nothing: what is queued
 * stays for the next reader.
 */
void
gg_oam_abi_input_feed (GgOamAbiInput *input)
{
  GCancellable *cancellable;
  gsize n;

  if (input->pending == NULL)
    return;
  cancellable = g_task_get_cancellable (input->pending);
  if (cancellable != NULL && g_cancellable_is_cancelled (cancellable))
    {
      g_autoptr(GTask) task = steal_pending (input);

      g_task_return_error_if_cancelled (task);
      return;
    }
  n = gg_oam_abi_take_input (input->bridge, input->pending_buffer, input->pending_count);
  if (n > 0 || input->eof)
    {
      g_autoptr(GTask) task = steal_pending (input);

      g_task_return_int (task, (gssize) n);
    }
}

/**
 * gg_oam_abi_input_end:
 * @input: the stream reading the inbox
 *
 * From now on reads see the end of the input (the bridge is stopping).
 */
void
gg_oam_abi_input_end (GgOamAbiInput *input)
{
  input->eof = TRUE;
  gg_oam_abi_input_feed (input);
}

static gboolean
on_read_cancelled (GCancellable *cancellable,
                   gpointer      user_data)
{
  GgOamAbiInput *self = user_data;
  g_autoptr(GTask) task = NULL;

  g_clear_pointer (&self->cancel_source, g_source_unref);
  task = g_steal_pointer (&self->pending);
  if (task != NULL && !g_task_return_error_if_cancelled (task))
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Operation was cancelled");
  return G_SOURCE_REMOVE;
}

static void
input_read_async (GInputStream        *stream,
                  void                *buffer,
                  gsize                count,
                  int                  io_priority,
                  GCancellable        *cancellable,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data)
{
  GgOamAbiInput *self = GG_OAM_ABI_INPUT (stream);
  g_autoptr(GTask) task = g_task_new (stream, cancellable, callback, user_data);

  g_task_set_source_tag (task, input_read_async);
  if (g_task_return_error_if_cancelled (task))
    return;
  if (count == 0)
    {
      g_task_return_int (task, 0);
      return;
    }
  /* Even with input queued, the read completes from the wake source, not
   * from an idle of GTask's: a reader dropped before that idle would lose
   * what it had taken (gg_oam_abi_input_feed()). GInputStream allows one
   * operation at a time: nothing else waits. */
  self->pending = g_steal_pointer (&task);
  self->pending_buffer = buffer;
  self->pending_count = count;
  if (cancellable != NULL)
    {
      self->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (self->cancel_source, G_SOURCE_FUNC (on_read_cancelled), self, NULL);
      g_source_attach (self->cancel_source, g_task_get_context (self->pending));
    }
  if (self->eof || gg_oam_abi_has_input (self->bridge))
    g_source_set_ready_time (self->bridge->wake, 0);
}

static gssize
input_read_finish (GInputStream  *stream,
                   GAsyncResult  *result,
                   GError       **error)
{
  return g_task_propagate_int (G_TASK (result), error);
}

/* Not used by the front end (it reads asynchronously); never blocks. */
static gssize
input_read (GInputStream  *stream,
            void          *buffer,
            gsize          count,
            GCancellable  *cancellable,
            GError       **error)
{
  GgOamAbiInput *self = GG_OAM_ABI_INPUT (stream);
  gsize n = gg_oam_abi_take_input (self->bridge, buffer, count);

  if (n == 0 && !self->eof && count > 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK, "No input is queued");
      return -1;
    }
  return (gssize) n;
}

/* GInputStream's default would close from a worker thread, whose answer
 * could come after the bridge's loop has ended: closing is immediate. */
static void
input_close_async (GInputStream        *stream,
                   int                  io_priority,
                   GCancellable        *cancellable,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (stream, cancellable, callback, user_data);

  g_task_set_source_tag (task, input_close_async);
  g_task_return_boolean (task, TRUE);
}

static gboolean
close_finish (GObject       *stream,
              GAsyncResult  *result,
              GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

static gboolean
input_close_finish (GInputStream  *stream,
                    GAsyncResult  *result,
                    GError       **error)
{
  return close_finish (G_OBJECT (stream), result, error);
}

static void
gg_oam_abi_input_dispose (GObject *object)
{
  GgOamAbiInput *self = GG_OAM_ABI_INPUT (object);
  g_autoptr(GTask) task = steal_pending (self);

  if (self->bridge != NULL && self->bridge->input == self)
    self->bridge->input = NULL;
  self->bridge = NULL;
  if (task != NULL)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CLOSED, "The stream is closed");
  G_OBJECT_CLASS (gg_oam_abi_input_parent_class)->dispose (object);
}

static void
gg_oam_abi_input_class_init (GgOamAbiInputClass *klass)
{
  GInputStreamClass *stream_class = G_INPUT_STREAM_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = gg_oam_abi_input_dispose;
  stream_class->read_fn = input_read;
  stream_class->read_async = input_read_async;
  stream_class->read_finish = input_read_finish;
  stream_class->close_async = input_close_async;
  stream_class->close_finish = input_close_finish;
}

static void
gg_oam_abi_input_init (GgOamAbiInput *self)
{
}

/**
 * gg_oam_abi_input_new:
 * @bridge: a bridge
 *
 * Returns: (transfer full): a stream reading @bridge's inbox; it becomes
 *   the one the bridge feeds
 */
GgOamAbiInput *
gg_oam_abi_input_new (oam_bridge *bridge)
{
  GgOamAbiInput *self = g_object_new (GG_TYPE_OAM_ABI_INPUT, NULL);

  self->bridge = bridge;
  bridge->input = self;
  return self;
}

/* ---- output ------------------------------------------------------------- */

struct _GgOamAbiOutput {
  GOutputStream parent_instance;

  oam_bridge *bridge;           /* unowned */
};

#define GG_TYPE_OAM_ABI_OUTPUT (gg_oam_abi_output_get_type ())
G_DECLARE_FINAL_TYPE (GgOamAbiOutput, gg_oam_abi_output, GG, OAM_ABI_OUTPUT, GOutputStream)
G_DEFINE_FINAL_TYPE (GgOamAbiOutput, gg_oam_abi_output, G_TYPE_OUTPUT_STREAM)

static gssize
output_write (GOutputStream  *stream,
              const void     *buffer,
              gsize           count,
              GCancellable   *cancellable,
              GError        **error)
{
  GgOamAbiOutput *self = GG_OAM_ABI_OUTPUT (stream);

  gg_oam_abi_deliver (self->bridge, buffer, count);
  return (gssize) count;
}

/* GOutputStream's default would write from a worker thread: the callback
 * must run on the bridge thread, so the write happens here and now. */
static void
output_write_async (GOutputStream       *stream,
                    const void          *buffer,
                    gsize                count,
                    int                  io_priority,
                    GCancellable        *cancellable,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (stream, cancellable, callback, user_data);

  g_task_set_source_tag (task, output_write_async);
  g_task_return_int (task, output_write (stream, buffer, count, cancellable, NULL));
}

static gssize
output_write_finish (GOutputStream  *stream,
                     GAsyncResult   *result,
                     GError        **error)
{
  return g_task_propagate_int (G_TASK (result), error);
}

static void
output_close_async (GOutputStream       *stream,
                    int                  io_priority,
                    GCancellable        *cancellable,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (stream, cancellable, callback, user_data);

  g_task_set_source_tag (task, output_close_async);
  g_task_return_boolean (task, TRUE);
}

static gboolean
output_close_finish (GOutputStream  *stream,
                     GAsyncResult   *result,
                     GError        **error)
{
  return close_finish (G_OBJECT (stream), result, error);
}

static void
gg_oam_abi_output_class_init (GgOamAbiOutputClass *klass)
{
  GOutputStreamClass *stream_class = G_OUTPUT_STREAM_CLASS (klass);

  stream_class->write_fn = output_write;
  stream_class->write_async = output_write_async;
  stream_class->write_finish = output_write_finish;
  stream_class->close_async = output_close_async;
  stream_class->close_finish = output_close_finish;
}

static void
gg_oam_abi_output_init (GgOamAbiOutput *self)
{
}

/* ---- the pair ----------------------------------------------------------- */

struct _GgOamAbiStream {
  GIOStream parent_instance;

  GgOamAbiInput *input;
  GgOamAbiOutput *output;
};

#define GG_TYPE_OAM_ABI_STREAM (gg_oam_abi_stream_get_type ())
G_DECLARE_FINAL_TYPE (GgOamAbiStream, gg_oam_abi_stream, GG, OAM_ABI_STREAM, GIOStream)
G_DEFINE_FINAL_TYPE (GgOamAbiStream, gg_oam_abi_stream, G_TYPE_IO_STREAM)

static GInputStream *
stream_get_input (GIOStream *stream)
{
  return G_INPUT_STREAM (GG_OAM_ABI_STREAM (stream)->input);
}

static GOutputStream *
stream_get_output (GIOStream *stream)
{
  return G_OUTPUT_STREAM (GG_OAM_ABI_STREAM (stream)->output);
}

/* Like the halves: GIOStream's default closes from a worker thread. */
static void
stream_close_async (GIOStream           *stream,
                    int                  io_priority,
                    GCancellable        *cancellable,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (stream, cancellable, callback, user_data);

  g_task_set_source_tag (task, stream_close_async);
  g_task_return_boolean (task, TRUE);
}

static gboolean
stream_close_finish (GIOStream     *stream,
                     GAsyncResult  *result,
                     GError       **error)
{
  return close_finish (G_OBJECT (stream), result, error);
}

static void
gg_oam_abi_stream_finalize (GObject *object)
{
  GgOamAbiStream *self = GG_OAM_ABI_STREAM (object);

  g_clear_object (&self->input);
  g_clear_object (&self->output);
  G_OBJECT_CLASS (gg_oam_abi_stream_parent_class)->finalize (object);
}

static void
gg_oam_abi_stream_class_init (GgOamAbiStreamClass *klass)
{
  GIOStreamClass *stream_class = G_IO_STREAM_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = gg_oam_abi_stream_finalize;
  stream_class->get_input_stream = stream_get_input;
  stream_class->get_output_stream = stream_get_output;
  stream_class->close_async = stream_close_async;
  stream_class->close_finish = stream_close_finish;
}

static void
gg_oam_abi_stream_init (GgOamAbiStream *self)
{
}

/**
 * gg_oam_abi_stream_new:
 * @bridge: a bridge
 *
 * Returns: (transfer full): a new input (now the one fed) and an output
 *   delivering to the callback, as one stream
 */
GIOStream *
gg_oam_abi_stream_new (oam_bridge *bridge)
{
  GgOamAbiStream *self = g_object_new (GG_TYPE_OAM_ABI_STREAM, NULL);

  self->input = gg_oam_abi_input_new (bridge);
  self->output = g_object_new (GG_TYPE_OAM_ABI_OUTPUT, NULL);
  self->output->bridge = bridge;
  return G_IO_STREAM (self);
}

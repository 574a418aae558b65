/* gg-a2g-replay-stream.c: a connection whose first bytes, read already,
 * are read again: the service reads a TLS ClientHello itself before
 * deciding to go on (gg-a2g-client-hello.c), then hands the connection
 * to GTlsServerConnection, which must see the ClientHello from its first
 * byte. (Peeking at the socket instead cannot wait for the rest of a
 * ClientHello: the bytes peeked keep the socket readable.)
 *
 * The input is pollable, as GTlsConnection needs of its base stream, and
 * may be read from its handshake thread; the replayed bytes are read
 * first, then the base's. Output and closing are the base's.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-replay-stream.h"

/* ---- the input ----------------------------------------------------------- */

#define GG_TYPE_A2G_REPLAY_INPUT (gg_a2g_replay_input_get_type ())
G_DECLARE_FINAL_TYPE (GgA2gReplayInput, gg_a2g_replay_input, GG, A2G_REPLAY_INPUT, GInputStream)

struct _GgA2gReplayInput {
  GInputStream parent_instance;

  GInputStream *base;  /* pollable */
  GBytes *replayed;    /* NULL once all read */
  gsize offset;
};

static void gg_a2g_replay_input_pollable_init (GPollableInputStreamInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GgA2gReplayInput, gg_a2g_replay_input, G_TYPE_INPUT_STREAM,
                               G_IMPLEMENT_INTERFACE (G_TYPE_POLLABLE_INPUT_STREAM,
                                                      gg_a2g_replay_input_pollable_init))

static gssize
take_replayed (GgA2gReplayInput *self,
               void             *buffer,
               gsize             count)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (self->replayed, &size);
  gsize n = MIN (count, size - self->offset);

  memcpy (buffer, data + self->offset, n);
  self->offset += n;
  if (self->offset == size)
    g_clear_pointer (&self->replayed, g_bytes_unref);
  return (gssize) n;
}

static gssize
gg_a2g_replay_input_read (GInputStream  *stream,
                          void          *buffer,
                          gsize          count,
                          GCancellable  *cancellable,
                          GError       **error)
{
  GgA2gReplayInput *self = GG_A2G_REPLAY_INPUT (stream);

  if (self->replayed != NULL)
    return take_replayed (self, buffer, count);
  return g_input_stream_read (self->base, buffer, count, cancellable, error);
}

/* The GIOStream closes the base. */
static gboolean
gg_a2g_replay_input_close (GInputStream  *stream,
                           GCancellable  *cancellable,
                           GError       **error)
{
  return TRUE;
}

static gboolean
gg_a2g_replay_input_can_poll (GPollableInputStream *stream)
{
  GgA2gReplayInput *self = GG_A2G_REPLAY_INPUT (stream);

  return g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (self->base));
}

static gboolean
gg_a2g_replay_input_is_readable (GPollableInputStream *stream)
{
  GgA2gReplayInput *self = GG_A2G_REPLAY_INPUT (stream);

  return self->replayed != NULL || g_pollable_input_stream_is_readable (G_POLLABLE_INPUT_STREAM (self->base));
}

static GSource *
gg_a2g_replay_input_create_source (GPollableInputStream *stream,
                                   GCancellable         *cancellable)
{
  GgA2gReplayInput *self = GG_A2G_REPLAY_INPUT (stream);
  g_autoptr(GSource) base_source = NULL;

  /* Replayed bytes are readable at once. */
  if (self->replayed != NULL)
    base_source = g_timeout_source_new (0);
  else
    base_source = g_pollable_input_stream_create_source (G_POLLABLE_INPUT_STREAM (self->base), NULL);
  return g_pollable_source_new_full (stream, base_source, cancellable);
}

static gssize
gg_a2g_replay_input_read_nonblocking (GPollableInputStream  *stream,
                                      void                  *buffer,
                                      gsize                  count,
                                      GError               **error)
{
  GgA2gReplayInput *self = GG_A2G_REPLAY_INPUT (stream);

  if (self->replayed != NULL)
    return take_replayed (self, buffer, count);
  return g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (self->base), buffer, count, NULL,
                                                   error);
}

static void
gg_a2g_replay_input_pollable_init (GPollableInputStreamInterface *iface)
{
  iface->can_poll = gg_a2g_replay_input_can_poll;
  iface->is_readable = gg_a2g_replay_input_is_readable;
  iface->create_source = gg_a2g_replay_input_create_source;
  iface->read_nonblocking = gg_a2g_replay_input_read_nonblocking;
}

static void
gg_a2g_replay_input_finalize (GObject *object)
{
  GgA2gReplayInput *self = GG_A2G_REPLAY_INPUT (object);

  g_object_unref (self->base);
  g_clear_pointer (&self->replayed, g_bytes_unref);
  G_OBJECT_CLASS (gg_a2g_replay_input_parent_class)->finalize (object);
}

static void
gg_a2g_replay_input_class_init (GgA2gReplayInputClass *klass)
{
  GInputStreamClass *input_class = G_INPUT_STREAM_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = gg_a2g_replay_input_finalize;
  input_class->read_fn = gg_a2g_replay_input_read;
  input_class->close_fn = gg_a2g_replay_input_close;
}

static void
gg_a2g_replay_input_init (GgA2gReplayInput *self)
{
}

/* ---- the stream ---------------------------------------------------------- */

struct _GgA2gReplayStream {
  GIOStream parent_instance;

  GIOStream *base;
  GInputStream *input;
};

G_DEFINE_FINAL_TYPE (GgA2gReplayStream, gg_a2g_replay_stream, G_TYPE_IO_STREAM)

static GInputStream *
gg_a2g_replay_stream_get_input_stream (GIOStream *stream)
{
  return GG_A2G_REPLAY_STREAM (stream)->input;
}

static GOutputStream *
gg_a2g_replay_stream_get_output_stream (GIOStream *stream)
{
  return g_io_stream_get_output_stream (GG_A2G_REPLAY_STREAM (stream)->base);
}

static gboolean
gg_a2g_replay_stream_close (GIOStream     *stream,
                            GCancellable  *cancellable,
                            GError       **error)
{
  GgA2gReplayStream *self = GG_A2G_REPLAY_STREAM (stream);

  g_input_stream_close (self->input, NULL, NULL);
  return g_io_stream_close (self->base, cancellable, error);
}

static void
gg_a2g_replay_stream_finalize (GObject *object)
{
  GgA2gReplayStream *self = GG_A2G_REPLAY_STREAM (object);

  g_object_unref (self->input);
  g_object_unref (self->base);
  G_OBJECT_CLASS (gg_a2g_replay_stream_parent_class)->finalize (object);
}

static void
gg_a2g_replay_stream_class_init (GgA2gReplayStreamClass *klass)
{
  GIOStreamClass *stream_class = G_IO_STREAM_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = gg_a2g_replay_stream_finalize;
  stream_class->get_input_stream = gg_a2g_replay_stream_get_input_stream;
  stream_class->get_output_stream = gg_a2g_replay_stream_get_output_stream;
  stream_class->close_fn = gg_a2g_replay_stream_close;
}

static void
gg_a2g_replay_stream_init (GgA2gReplayStream *self)
{
}

/**
 * gg_a2g_replay_stream_new:
 * @base: a connection whose input stream is pollable (a #GSocketConnection)
 * @replayed: (nullable): the bytes read from it already, read first again
 *
 * Returns: (transfer full): a stream reading @replayed, then @base; writing
 *   to @base; closing @base
 */
GIOStream *
gg_a2g_replay_stream_new (GIOStream *base,
                          GBytes    *replayed)
{
  GgA2gReplayStream *self;
  GgA2gReplayInput *input;

  g_return_val_if_fail (G_IS_POLLABLE_INPUT_STREAM (g_io_stream_get_input_stream (base)), NULL);

  self = g_object_new (GG_TYPE_A2G_REPLAY_STREAM, NULL);
  self->base = g_object_ref (base);
  input = g_object_new (GG_TYPE_A2G_REPLAY_INPUT, NULL);
  input->base = g_object_ref (g_io_stream_get_input_stream (base));
  if (replayed != NULL && g_bytes_get_size (replayed) > 0)
    input->replayed = g_bytes_ref (replayed);
  self->input = G_INPUT_STREAM (input);
  return G_IO_STREAM (self);
}

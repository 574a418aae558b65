/* gg-framed-stream-private.h: what the parts of #GgFramedStream share inside
 * libgamegate (the object, its reader and its writer). Not installed, not
 * exported.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-framed-stream.h"

G_BEGIN_DECLS

typedef enum {
  GG_FRAMED_CL_HEADERS,   /* reading a header block */
  GG_FRAMED_CL_BODY,      /* reading `body_size` bytes of body */
  GG_FRAMED_CL_DISCARD,   /* skipping `discard_left` bytes of an oversized body */
} GgFramedClState;

/* The read buffer outlives the stream while a read into it is pending. */
typedef struct {
  guint8 *data;
  gsize   len;
  gsize   cap;
} GgFramedReadBuf;

struct _GgFramedStream
{
  GObject parent_instance;

  GIOStream       *io_stream;         /* nullable: kept alive while we use its halves */
  GInputStream    *input;
  GOutputStream   *output;
  GgFraming        framing;
  gsize            max_size;

  /* input */
  GCancellable    *read_cancellable;
  GgFramedReadBuf *inbuf;             /* bytes [pos, len) are unconsumed */
  gsize            pos;
  gsize            scanned;           /* bytes after pos known not to hold a newline */
  gboolean         discard_line;      /* skipping up to the next newline */
  GgFramedClState  cl_state;
  gboolean         cl_have_length;
  guint64          cl_length;         /* the Content-Length of the current block */
  gboolean         cl_block_started;
  gsize            body_size;
  guint64          discard_left;
  gboolean         started;
  gboolean         reading;
  gboolean         read_closed;       /* `closed` was emitted */
  gboolean         read_paused;       /* too much output is pending: not reading */

  /* output */
  GCancellable    *write_cancellable;
  GByteArray      *outbuf;            /* framed bytes not yet handed to a write */
  gsize            in_flight;         /* size of the write in progress, 0 if none */
  GError          *write_error;       /* the first write failure; output is dead */
  GQueue           flush_tasks;
  gboolean         close_requested;
  gboolean         output_closed;

  gboolean         disposed;
};

typedef struct {
  GWeakRef         self;
  GgFramedReadBuf *buf;    /* a read: the buffer it fills */
  GBytes          *bytes;  /* a write: the bytes it writes */
} GgFramedOp;

/* An asynchronous read or write: finds the stream through a weak reference. */
GgFramedOp *_gg_framed_stream_op_new             (GgFramedStream *self);
void        _gg_framed_stream_op_free            (GgFramedOp     *op);
void        _gg_framed_stream_read_buf_unref     (GgFramedReadBuf *buf);

/* Signal emission; each does nothing once the stream is disposed (and
 * message/framing-error nothing once `closed` was emitted). */
void        _gg_framed_stream_emit_message       (GgFramedStream *self,
                                                  const guint8   *data,
                                                  gsize           length);
void        _gg_framed_stream_emit_framing_error (GgFramedStream *self,
                                                  GgFramingError  code,
                                                  const char     *message);
void        _gg_framed_stream_emit_closed        (GgFramedStream *self,
                                                  const GError   *error);

/* Reader: starts the next read unless one is pending, input is over or
 * reading is paused because the output is backlogged. */
void        _gg_framed_stream_schedule_read      (GgFramedStream *self);
/* Reading pauses above this much pending output, and resumes at half. */
gsize       _gg_framed_stream_output_limit       (GgFramedStream *self);

/* Writer: close the streams once gg_framed_stream_close() was called and the
 * output is out; complete every flush waiter with the current state. */
void        _gg_framed_stream_maybe_finish_output (GgFramedStream *self);
void        _gg_framed_stream_complete_flushes   (GgFramedStream *self);

G_END_DECLS

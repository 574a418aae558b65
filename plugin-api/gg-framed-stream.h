/* gg-framed-stream.h: whole messages over any pair of streams, one JSON per
 * line or LSP-style Content-Length headers.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined (GAMEGATE_INSIDE) && !defined (GAMEGATE_COMPILATION)
#error "Only <gamegate.h> can be included directly."
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

#define GG_FRAMING_ERROR (gg_framing_error_quark ())
GQuark gg_framing_error_quark (void);

/**
 * GgFramingError:
 * @GG_FRAMING_ERROR_TOO_LARGE: a message exceeds the maximum size; it is
 *   skipped
 * @GG_FRAMING_ERROR_BAD_HEADER: a malformed or missing `Content-Length`
 *   header
 * @GG_FRAMING_ERROR_TRUNCATED: the stream ended inside a message (a last
 *   line without its newline counts)
 *
 * Errors of the %GG_FRAMING_ERROR domain, reported by
 * #GgFramedStream::framing-error and #GgFramedStream::closed.
 *
 * Since: 1.0
 */
typedef enum {
  GG_FRAMING_ERROR_TOO_LARGE,
  GG_FRAMING_ERROR_BAD_HEADER,
  GG_FRAMING_ERROR_TRUNCATED,
} GgFramingError;

/**
 * GgFraming:
 * @GG_FRAMING_NEWLINE: one message per line, `\n` separated; blank lines
 *   ignored
 * @GG_FRAMING_CONTENT_LENGTH: `Content-Length: n` (and an optional
 *   `Content-Type`) headers before each message, CRLF or LF (LSP framing)
 *
 * How messages are delimited on a #GgFramedStream.
 *
 * Since: 1.0
 */
typedef enum {
  GG_FRAMING_NEWLINE,
  GG_FRAMING_CONTENT_LENGTH,
} GgFraming;

/**
 * GG_FRAMED_STREAM_DEFAULT_MAX_MESSAGE_SIZE:
 *
 * The largest incoming message a new #GgFramedStream accepts, 16 MiB.
 *
 * Since: 1.0
 */
#define GG_FRAMED_STREAM_DEFAULT_MAX_MESSAGE_SIZE (16 * 1024 * 1024)

/**
 * GgFramedStream:
 *
 * Messages over a byte stream, framed by newlines or `Content-Length`
 * headers, read and written asynchronously on the main loop. Incoming
 * messages arrive as #GgFramedStream::message signals.
 *
 * Over a pipe, a reader that went away fails the writes only where SIGPIPE
 * does not kill the process: the host ignores it (`gamegate` does) or
 * blocks it in the thread that runs the loop (libgamegate-oam's bridges).
 * The stream leaves the process's signal handling alone.
 *
 * Since: 1.0
 */
#define GG_TYPE_FRAMED_STREAM (gg_framed_stream_get_type ())
G_DECLARE_FINAL_TYPE (GgFramedStream, gg_framed_stream, GG, FRAMED_STREAM, GObject)

/* Signals:
 *  `message` (GBytes *body): one whole message, without framing;
 *  `framing-error` (GError *error): a bad frame was skipped, reading goes on;
 *  `closed` (GError *error or NULL): end of input or a read error; no more
 *     `message` signals follow. Output may still be flushed.
 * Backpressure: while more than four maximum-size messages (at least 1 MiB)
 * of output are pending, input is not read; reading resumes once the
 * backlog has halved. A peer that never reads cannot make us buffer
 * without bound. */
GgFramedStream *gg_framed_stream_new                  (GInputStream  *input,
                                                       GOutputStream *output,
                                                       GgFraming      framing);
GgFramedStream *gg_framed_stream_new_for_io_stream    (GIOStream *stream,
                                                       GgFraming  framing);
GgFraming       gg_framed_stream_get_framing          (GgFramedStream *self);
void            gg_framed_stream_set_max_message_size (GgFramedStream *self,
                                                       gsize           max_size);
gsize           gg_framed_stream_get_max_message_size (GgFramedStream *self);
void            gg_framed_stream_start                (GgFramedStream *self);
gboolean        gg_framed_stream_send                 (GgFramedStream *self,
                                                       const char     *data,
                                                       gsize           length,
                                                       GError        **error);
gsize           gg_framed_stream_get_pending_output   (GgFramedStream *self);
void            gg_framed_stream_flush_async          (GgFramedStream      *self,
                                                       GCancellable        *cancellable,
                                                       GAsyncReadyCallback  callback,
                                                       gpointer             user_data);
gboolean        gg_framed_stream_flush_finish         (GgFramedStream  *self,
                                                       GAsyncResult    *result,
                                                       GError         **error);
void            gg_framed_stream_close                (GgFramedStream *self);
gboolean        gg_framed_stream_is_closed            (GgFramedStream *self);

G_END_DECLS

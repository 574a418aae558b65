/* framed-stream-test.h: what the GgFramedStream test programs share: a stream
 * over a socketpair or two pipes, the messages, framing errors and close it
 * signals, and the test side's raw writes and reads.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>

#include "gg-test-stream.h"
#include "gg-test-util.h"

G_BEGIN_DECLS

typedef struct {
  GgTestStreamPair pair;        /* our end: raw writes, what the stream wrote */
  GgFramedStream  *fs;
  GPtrArray       *messages;    /* char *, NUL-terminated copies */
  GPtrArray       *errors;      /* GError * */
  guint            closed;
  GError          *closed_error;
  gboolean         unref_in_handler;
  gboolean         close_in_handler;
} Fixture;

typedef gboolean (*Cond) (Fixture *f, gpointer data);

typedef struct {
  Fixture *f;
  Cond     cond;
  gpointer data;
} CondCall;

void on_message (GgFramedStream *fs, GBytes *body, gpointer user_data);
void on_framing_error (GgFramedStream *fs, const GError *error, gpointer user_data);
void on_closed (GgFramedStream *fs, const GError *error, gpointer user_data);
void connect_signals (Fixture *f);
void fixture_init (Fixture *f);
void setup_socket (Fixture *f, GgFraming framing);
void setup_pipes (Fixture *f, GgFraming framing);
void fixture_free (Fixture *f);
gboolean cond_call (gpointer data);
void spin_until (Fixture *f, Cond cond, gpointer data);
gboolean drained (Fixture *f, gpointer data);
void spin_idle (Fixture *f);
void feed (Fixture *f, const char *data, gsize len);
void feed_str (Fixture *f, const char *s);
void feed_bytewise (Fixture *f, const char *s);
void end_input (Fixture *f);
gboolean has_messages (Fixture *f, gpointer data);
gboolean has_errors (Fixture *f, gpointer data);
gboolean is_closed (Fixture *f, gpointer data);
gboolean received_len (Fixture *f, gpointer data);
void assert_messages (Fixture *f, const char *const *expected);
void assert_error (Fixture *f, guint index, GgFramingError code);

G_END_DECLS

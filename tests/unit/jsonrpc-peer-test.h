/* jsonrpc-peer-test.h: what the GgJsonRpcPeer test programs share: a peer
 * over a real socketpair with a few methods (echo, hold, drop, fail, gerror,
 * note), the raw writes of the test side and the exact bytes the peer writes back.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <glib-unix.h>

#include "gg-test-stream.h"
#include "gg-test-util.h"

G_BEGIN_DECLS

typedef struct {
  GgTestStreamPair  pair;        /* test side of the socketpair */
  GgFramedStream   *fs;
  GgJsonRpcPeer    *peer;
  GPtrArray        *held;        /* GgJsonRpcRequest * kept by "hold" */
  GPtrArray        *notes;       /* method names of notifications seen */
  guint             idle;
  guint             closed;
} Fixture;

typedef gboolean (*Cond) (Fixture *f, gpointer data);

typedef struct {
  Fixture *f;
  Cond     cond;
  gpointer data;
} CondCall;

#define ERR(id, code, msg, data) \
  "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"error\":{\"code\":" #code ",\"message\":\"" msg "\",\"data\":" data "}}"

/* Outgoing */

typedef struct {
  gboolean  done;
  JsonNode *result;
  GError   *error;
} CallResult;

void echo_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data);
void hold_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data);
void drop_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data);
void fail_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data);
void gerror_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data);
void note_cb (GgJsonRpcPeer *peer, GgJsonRpcRequest *request, gpointer user_data);
void on_idle (GgJsonRpcPeer *peer, gpointer user_data);
void on_closed (GgJsonRpcPeer *peer, gpointer user_data);
void setup (Fixture *f, GgFraming framing);
void teardown (Fixture *f);
gboolean cond_call (gpointer data);
void spin_until (Fixture *f, Cond cond, gpointer data);
gboolean drained (Fixture *f, gpointer data);
void spin_idle (Fixture *f);
void feed (Fixture *f, const char *data, gsize len);
void send_line (Fixture *f, const char *line);
gboolean has_line (Fixture *f, gpointer data);
char *next_line (Fixture *f);
void expect (Fixture *f, const char *in, const char *out);
void assert_no_output (Fixture *f);
void call_cb (GObject *source, GAsyncResult *result, gpointer user_data);
void call_result_clear (CallResult *r);
gboolean call_done (Fixture *f, gpointer data);

G_END_DECLS

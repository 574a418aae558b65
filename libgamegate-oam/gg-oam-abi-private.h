/* gg-oam-abi-private.h: the bridge behind the C ABI, shared by the
 * library's files (not installed).
 *
 * A bridge is a thread running a GMainContext of its own, on which a host
 * of the plugins (configuration, bus, plugins) serves one oam connection,
 * the same front end as `gamegate oam`, over an in-process stream pair:
 * oam_bridge_send() appends lines to the inbox, which the input stream
 * reads; what the front end writes is split into lines for the callback.
 *
 * Cross-thread state is under `lock`, a pthread mutex (ThreadSanitizer
 * sees those, not GLib's futex-based GMutex); everything else belongs to
 * the bridge thread.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>
#include <pthread.h>

#include "gamegate-oam.h"

G_BEGIN_DECLS

/* Bytes oam_bridge_send() queues before the bridge has read them; past it
 * a message is answered -32603 at once instead of queued (a host sending
 * faster than the bridge reads, for long). */
#define GG_OAM_ABI_MAX_QUEUED_BYTES (64 * 1024 * 1024)

typedef struct _GgOamAbiHost GgOamAbiHost;
typedef struct _GgOamAbiInput GgOamAbiInput;

struct oam_bridge {
  oam_message_callback callback;
  void *user_data;
  GMainContext *context;
  GSource *wake;                 /* made ready by other threads */

  pthread_mutex_t lock;
  pthread_cond_t cond;           /* a callback returned, a call was answered */
  /* under lock */
  GThread *thread;
  GByteArray *inbox;             /* newline-framed input, read up to inbox_pos */
  gsize inbox_pos;
  GPtrArray *rejected;           /* responses to messages the inbox refused */
  gboolean wake_pending;
  gboolean destroying;           /* no callback from now on */
  gboolean stop_requested;
  gboolean self_destroy;         /* destroyed from its callback: frees itself */
  gboolean callback_running;
  GHashTable *calls;             /* id key -> GgOamAbiCall, blocking waiters */
  GHashTable *abandoned;         /* id keys of calls that timed out */
  guint active_calls;            /* threads inside oam_call_blocking() */
  guint64 next_call;

  /* bridge thread only */
  GgOamAbiHost *host;
  GgOamAbiInput *input;          /* the stream reading the inbox now */
  gboolean stopping;
  gboolean finished;             /* the thread's loop ends */
  GByteArray *partial;           /* output not ended by a newline yet */
};

/* gg-oam-abi.c */
gboolean       gg_oam_abi_on_bridge_thread (oam_bridge *bridge);
void           gg_oam_abi_enqueue          (oam_bridge *bridge,
                                            const char *line,
                                            gsize       length);
void           gg_oam_abi_deliver          (oam_bridge   *bridge,
                                            const guint8 *data,
                                            gsize         length);
void           gg_oam_abi_finish           (oam_bridge *bridge);

/* gg-oam-abi-stream.c: the in-process stream pair */
GgOamAbiInput *gg_oam_abi_input_new        (oam_bridge *bridge);
void           gg_oam_abi_input_feed       (GgOamAbiInput *input);
void           gg_oam_abi_input_end        (GgOamAbiInput *input);
GIOStream     *gg_oam_abi_stream_new       (oam_bridge *bridge);
gboolean       gg_oam_abi_has_input        (oam_bridge *bridge);
gsize          gg_oam_abi_take_input       (oam_bridge *bridge,
                                            guint8     *buffer,
                                            gsize       count);

/* gg-oam-abi-host.c: configuration, plugins, the front end */
GgOamAbiHost  *gg_oam_abi_host_start       (oam_bridge *bridge);
void           gg_oam_abi_host_stop        (GgOamAbiHost *host);
void           gg_oam_abi_host_free        (GgOamAbiHost *host);

/* gg-oam-abi-call.c: oam_call_blocking() */
char          *gg_oam_abi_id_key           (JsonNode *id);
char          *gg_oam_abi_error_response   (JsonNode   *id,
                                            int         code,
                                            const char *name,
                                            const char *message);
gboolean       gg_oam_abi_route_response   (oam_bridge *bridge,
                                            const char *line,
                                            gsize       length);
void           gg_oam_abi_calls_shut_down  (oam_bridge *bridge);

/* gg-oam-abi-log.c: OAM_BRIDGE_LOG */
void           gg_oam_abi_log_init         (void);
void           gg_oam_abi_log_add_domain   (const char *domain);

G_END_DECLS

/* gg-tap-server.h: the bus tap's Unix socket in `gamegate serve` (host only).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

/* Per reader: past this many queued records or bytes, records are dropped
 * for that reader only. */
#define GG_TAP_QUEUE_MAX_RECORDS 1000
#define GG_TAP_QUEUE_MAX_BYTES (256 * 1024)
/* At shutdown, a reader gets this long to take what it was queued: enough
 * for a terminal catching up, short enough not to hold a stop up. */
#define GG_TAP_DRAIN_TIMEOUT_MS 2000
#define GG_TAP_MAX_DRAIN_TIMEOUT_MS 600000

typedef struct _GgTapServer GgTapServer;

char        *gg_tap_default_socket_path (void);
GgTapServer *gg_tap_server_new          (GgBus       *bus,
                                         const char  *path,
                                         GError     **error);
void         gg_tap_server_drain_async  (GgTapServer         *self,
                                         guint                timeout_ms,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data);
gboolean     gg_tap_server_drain_finish (GAsyncResult  *result,
                                         GError       **error);
void         gg_tap_server_free         (GgTapServer *self);

/* The filters `gamegate tap` sends and applies (NULL members match all). */
typedef struct {
  char *plugin;
  char *target;
  char *session;
  gboolean errors;
} GgTapFilter;

void     gg_tap_filter_clear      (GgTapFilter *filter);
void     gg_tap_filter_from_json  (GgTapFilter *filter,
                                   JsonObject  *object);
gboolean gg_tap_filter_matches    (const GgTapFilter *filter,
                                   JsonObject        *record);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (GgTapFilter, gg_tap_filter_clear)

G_END_DECLS

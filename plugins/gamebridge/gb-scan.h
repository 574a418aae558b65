/* gb-scan.h: scan ranges and health sweeps over them (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

#define GB_MAX_SCAN_PORTS      512

GArray   *gb_scan_parse_range (const char  *spec,
                               GError     **error);
typedef enum {
  GB_PROBE_LIVE,
  GB_PROBE_NOT_A_GAME,
  GB_PROBE_FREE,
} GbProbeKind;

typedef struct {
  guint       port;
  GbProbeKind kind;
  JsonObject *health;   /* live */
  char       *reason;   /* not a game */
} GbProbe;

void       gb_probe_free (GbProbe *probe);
/* Health-checks every port of @ports, at most @concurrency at once; the
 * result is a GPtrArray of GbProbe in the order of @ports. */
void       gb_scan_async  (SoupSession         *session,
                           GArray              *ports,
                           guint                timeout_ms,
                           guint                concurrency,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data);
GPtrArray *gb_scan_finish (GAsyncResult  *result,
                           GError       **error);

G_END_DECLS

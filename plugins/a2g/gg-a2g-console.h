/* gg-a2g-console.h: the web console of the a2g service: its static files
 * and its event stream (GET /v1/console/events), fed by every decision.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-a2g-service.h"

G_BEGIN_DECLS

GgA2gConsole *gg_a2g_console_new         (GgA2gService *service);
void          gg_a2g_console_free        (GgA2gConsole *console);
gboolean      gg_a2g_console_serve_file  (GgA2gConsole      *console,
                                          SoupServerMessage *msg,
                                          const char        *path);
void          gg_a2g_console_open_stream (GgA2gConsole      *console,
                                          SoupServerMessage *msg);
/* One settled entity as the console shows it (every field borrowed). */
typedef struct {
  const char *entity;
  const char *type;        /* nullable */
  const char *action;      /* an action id, or FALLBACK */
  const char *source;      /* a decision's; NULL for a fallback */
  const char *code;        /* a fallback's */
  const char *message;     /* a fallback's, nullable */
  gint64 confidence;
  const char *reason;      /* a decision's, nullable or empty: none */
} GgA2gConsoleDecision;

void          gg_a2g_console_report      (GgA2gConsole               *console,
                                          GgA2gSession               *session,
                                          const GgA2gConsoleDecision *decision,
                                          gint64                      started_us);
void          gg_a2g_console_close       (GgA2gConsole *console);

G_END_DECLS

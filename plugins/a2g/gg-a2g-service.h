/* gg-a2g-service.h: the A2G decision service: its HTTP server, its state
 * store, model and counters, its console, and the exchanges (HTTP requests,
 * gg-a2g-exchange.h) in progress that its endpoints (gg-a2g-endpoints.h)
 * answer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <libsoup/soup.h>
#include <gamegate.h>

#include "gg-a2g-errors.h"
#include "gg-a2g-settings.h"
#include "gg-a2g-stats.h"
#include "gg-a2g-store.h"
#include "gg-a2g-tls.h"

G_BEGIN_DECLS

#define GG_A2G_VERSION "0.1"
#define GG_A2G_MAX_BODY (256 * 1024)
#define GG_A2G_MAX_ENTITIES 16
#define GG_A2G_MAX_REPORTS 64
#define GG_A2G_JSON_DEPTH 32

typedef struct _GgA2gConsole GgA2gConsole;

typedef struct {
  GgBus *bus;                 /* borrowed */
  GgA2gSettings settings;
  GgA2gStore *store;
  GgModel *model;             /* nullable: none configured or creatable */
  char *model_name;           /* for /health */
  char *provider;
  GgA2gStats *stats;
  GgA2gConsole *console;
  SoupServer *soup;
  GgA2gTlsListener *tls;      /* nullable: the server profile's own TLS */
  guint port;
  char *origin_port;          /* ":PORT" for the Origin check */
  GHashTable *live;           /* GgA2gExchange in progress */
  gint64 model_calls;         /* in flight */
  guint writing;              /* answers given that libsoup has not finished writing */
  gboolean closing;
} GgA2gService;

GgA2gService  *gg_a2g_service_new          (GgBus          *bus,
                                            GgA2gSettings  *settings,
                                            GError        **error);
gboolean       gg_a2g_service_listen       (GgA2gService  *service,
                                            GError       **error);
void           gg_a2g_service_close        (GgA2gService *service);
void           gg_a2g_service_answer_unavailable (GgA2gService *service);
void           gg_a2g_service_free         (GgA2gService *service);

G_END_DECLS

/* gg-a2g-service.h: the A2G decision service: its HTTP server, state store,
 * model, manifests and counters, and the exchange (one HTTP request in
 * progress) that every endpoint handler works on.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <libsoup/soup.h>
#include <gamegate.h>

#include "gg-a2g-errors.h"
#include "gg-a2g-manifest.h"
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

typedef struct _GgA2gService GgA2gService;
typedef struct _GgA2gConsole GgA2gConsole;

struct _GgA2gService {
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
};

typedef struct _GgA2gExchange GgA2gExchange;

struct _GgA2gExchange {
  gatomicrefcount ref;
  GgA2gService *service;      /* NULL once the service is gone */
  SoupServerMessage *msg;     /* NULL once answered or disconnected */
  GCancellable *cancellable;  /* cancelled when the client goes */
  JsonObject *body;           /* POST bodies */
  GHashTable *query;          /* GET query */
  GgA2gSession *session;      /* after authentication */
  gint64 started_us;
  gulong disconnected_id;
  GSource *watch;             /* the connection, while the answer is pending */
};

typedef void (*GgA2gHandler) (GgA2gExchange *ex);

GgA2gService  *gg_a2g_service_new          (GgBus          *bus,
                                            GgA2gSettings  *settings,
                                            GError        **error);
gboolean       gg_a2g_service_listen       (GgA2gService  *service,
                                            GError       **error);
void           gg_a2g_service_close        (GgA2gService *service);
void           gg_a2g_service_answer_unavailable (GgA2gService *service);
void           gg_a2g_service_free         (GgA2gService *service);

GgA2gExchange *gg_a2g_exchange_ref         (GgA2gExchange *ex);
void           gg_a2g_exchange_unref       (GgA2gExchange *ex);
gboolean       gg_a2g_exchange_is_live     (GgA2gExchange *ex);
void           gg_a2g_exchange_reply       (GgA2gExchange *ex,
                                            guint          status,
                                            JsonObject    *body);
void           gg_a2g_exchange_reply_bytes (GgA2gExchange *ex,
                                            guint          status,
                                            GBytes        *body);
void           gg_a2g_exchange_reply_error (GgA2gExchange *ex,
                                            const GError  *error);
void           gg_a2g_exchange_rate_limited (GgA2gExchange *ex,
                                             gint64         wait_ms,
                                             const char    *message);
void           gg_a2g_exchange_fail        (GgA2gExchange *ex,
                                            GgA2gError     code,
                                            const char    *format,
                                            ...) G_GNUC_PRINTF (3, 4);
void           gg_a2g_exchange_authenticate (GgA2gExchange *ex,
                                             GgA2gHandler   then);
JsonObject    *gg_a2g_reply_new            (void);
char          *gg_a2g_json_string          (JsonObject *object,
                                            const char *name);
gboolean       gg_a2g_client_id_valid      (const char *client_id);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgA2gExchange, gg_a2g_exchange_unref)

/* Between gg-a2g-service.c and gg-a2g-exchange.c. */
GgA2gExchange *_gg_a2g_exchange_new   (GgA2gService      *service,
                                       SoupServerMessage *msg);
GBytes        *_gg_a2g_error_body     (GgA2gError  code,
                                       const char *message);
void           _gg_a2g_respond_error  (SoupServerMessage *msg,
                                       GgA2gError         code,
                                       const char        *message);

/* The endpoints (gg-a2g-session.c, gg-a2g-decide.c, gg-a2g-endpoints.c). */
void gg_a2g_handle_session   (GgA2gExchange *ex);
void gg_a2g_handle_decide    (GgA2gExchange *ex);
void gg_a2g_handle_report    (GgA2gExchange *ex);
void gg_a2g_handle_telemetry (GgA2gExchange *ex);
void gg_a2g_handle_context   (GgA2gExchange *ex);
void gg_a2g_handle_usage     (GgA2gExchange *ex);
void gg_a2g_handle_policy    (GgA2gExchange *ex);
void gg_a2g_handle_health    (GgA2gExchange *ex);

/* The console (gg-a2g-console.c). */
GgA2gConsole *gg_a2g_console_new          (GgA2gService *service);
void          gg_a2g_console_free         (GgA2gConsole *console);
gboolean      gg_a2g_console_serve_file   (GgA2gConsole      *console,
                                           SoupServerMessage *msg,
                                           const char        *path);
void          gg_a2g_console_open_stream  (GgA2gConsole      *console,
                                           SoupServerMessage *msg);
void          gg_a2g_console_decision     (GgA2gConsole *console,
                                           JsonObject   *event);
void          gg_a2g_console_report       (GgA2gConsole *console,
                                           GgA2gSession *session,
                                           const char   *type,
                                           JsonObject   *answer,
                                           gint64        started_us);
void          gg_a2g_console_close        (GgA2gConsole *console);

G_END_DECLS

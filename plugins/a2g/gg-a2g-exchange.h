/* gg-a2g-exchange.h: one HTTP request of the a2g service in progress, as
 * every endpoint works on it: its body or query, its session once
 * authenticated, a cancellable cancelled when its client goes, and the
 * ways to answer it (JSON, the error rows of spec section 6, 429 with
 * Retry-After).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-a2g-service.h"

G_BEGIN_DECLS

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

GgA2gExchange *gg_a2g_exchange_new          (GgA2gService      *service,
                                             SoupServerMessage *msg);
GgA2gExchange *gg_a2g_exchange_ref          (GgA2gExchange *ex);
void           gg_a2g_exchange_unref        (GgA2gExchange *ex);
gboolean       gg_a2g_exchange_is_live      (GgA2gExchange *ex);
char          *gg_a2g_exchange_bearer       (GgA2gExchange *ex);
void           gg_a2g_exchange_reply        (GgA2gExchange *ex,
                                             guint          status,
                                             JsonObject    *body);
void           gg_a2g_exchange_reply_bytes  (GgA2gExchange *ex,
                                             guint          status,
                                             GBytes        *body);
void           gg_a2g_exchange_reply_error  (GgA2gExchange *ex,
                                             const GError  *error);
void           gg_a2g_exchange_rate_limited (GgA2gExchange *ex,
                                             gint64         wait_ms,
                                             const char    *message);
void           gg_a2g_exchange_fail         (GgA2gExchange *ex,
                                             GgA2gError     code,
                                             const char    *format,
                                             ...) G_GNUC_PRINTF (3, 4);
void           gg_a2g_exchange_authenticate (GgA2gExchange *ex,
                                             GgA2gHandler   then);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgA2gExchange, gg_a2g_exchange_unref)

/* The answers made before there is an exchange (the early checks). */
GBytes *gg_a2g_error_body    (GgA2gError  code,
                              const char *message);
void    gg_a2g_respond_error (SoupServerMessage *msg,
                              GgA2gError         code,
                              const char        *message);

/* JSON as every endpoint reads and writes it. */
JsonObject *gg_a2g_reply_new       (void);
char       *gg_a2g_json_string     (JsonObject *object,
                                    const char *name);
gboolean    gg_a2g_client_id_valid (const char *client_id);

G_END_DECLS

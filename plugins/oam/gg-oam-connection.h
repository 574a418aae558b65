/* gg-oam-connection.h: one client of the bridge: its peer, sessions, NPCs,
 * worlds and subscriptions.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

/**
 * GgOamSettings:
 *
 * Limits and switches of the front end ([oam] group and command line).
 */
typedef struct {
  gint64 max_sessions;
  gint64 max_npcs;
  gint64 max_worlds;
  gint64 max_subscriptions;
  gint64 tool_timeout_ms;
  gboolean scripted_models;
  gint64 max_message_size;
  JsonNode *script_steps;     /* OAM_SCRIPT: "system" becomes this script */
} GgOamSettings;

#define GG_OAM_DEFAULT_MAX_SESSIONS      64
#define GG_OAM_DEFAULT_MAX_NPCS          128
#define GG_OAM_DEFAULT_MAX_WORLDS        64
#define GG_OAM_DEFAULT_MAX_SUBSCRIPTIONS 256
#define GG_OAM_DEFAULT_TOOL_TIMEOUT_MS   120000

void gg_oam_settings_init  (GgOamSettings       *settings);
void gg_oam_settings_copy  (GgOamSettings       *dest,
                            const GgOamSettings *src);
void gg_oam_settings_clear (GgOamSettings *settings);

#define GG_TYPE_OAM_CONNECTION (gg_oam_connection_get_type ())
G_DECLARE_FINAL_TYPE (GgOamConnection, gg_oam_connection, GG, OAM_CONNECTION, GObject)

typedef void (*GgOamMethodFunc) (GgOamConnection  *self,
                                 GgJsonRpcRequest *request,
                                 JsonObject       *params);

struct _GgOamConnection {
  GObject parent_instance;

  GgBus *bus;
  GgOamSettings settings;
  GgFramedStream *stream;
  GgJsonRpcPeer *peer;
  GPtrArray *method_names;

  GHashTable *sessions;        /* id -> GgOamSession */
  GPtrArray *session_order;    /* GgOamSession, creation order */
  guint64 next_session;

  GHashTable *worlds;          /* id -> GgOamWorld */
  GPtrArray *world_order;      /* char * ids, creation order */
  guint64 next_world;
  GHashTable *subscriptions;   /* id -> GgOamSubscription */
  GPtrArray *subscription_order;
  guint64 next_subscription;

  GHashTable *npcs;            /* id -> GgOamNpc */
  GPtrArray *npc_order;
  guint64 next_npc;

  GHashTable *work;            /* GCancellable of concurrent work (decisions, content, barks) */
  GHashTable *request_work;    /* GCancellable (weak) -> request id key, for request/cancel */
  gboolean cancel_on_close;    /* daemon: a disconnect cancels the client's work */
  gboolean shut_down;
  gboolean input_closed;
  gboolean finishing;
  gboolean finished;
};

GgOamConnection *gg_oam_connection_new        (GgBus               *bus,
                                               const GgOamSettings *settings,
                                               GIOStream           *stream);
GgOamConnection *gg_oam_connection_new_split  (GgBus               *bus,
                                               const GgOamSettings *settings,
                                               GInputStream        *input,
                                               GOutputStream       *output);
void             gg_oam_connection_start      (GgOamConnection *self);
void             gg_oam_connection_shutdown   (GgOamConnection *self);
gboolean         gg_oam_connection_is_finished (GgOamConnection *self);
void             gg_oam_connection_add_method (GgOamConnection *self,
                                               const char      *method,
                                               GgOamMethodFunc  func);
GgModel         *gg_oam_connection_create_model (GgOamConnection *self,
                                                 JsonObject      *params,
                                                 char           **out_name,
                                                 GError         **error);
GCancellable    *gg_oam_connection_begin_work (GgOamConnection *self);
void             gg_oam_tag_cancellable       (GCancellable    *cancellable);
void             gg_oam_report_lifecycle      (GgOamConnection *self,
                                               const char      *name,
                                               const char      *id,
                                               GCancellable    *work,
                                               const GError    *error);
void             gg_oam_connection_end_work   (GgOamConnection *self,
                                               GCancellable    *cancellable);
void             gg_oam_connection_notify     (GgOamConnection *self,
                                               const char      *method,
                                               JsonObject      *params);

/* Method sets, one file each. */
void gg_oam_core_methods_register     (GgOamConnection *self);
void gg_oam_session_methods_register  (GgOamConnection *self);
void gg_oam_decision_methods_register (GgOamConnection *self);
void gg_oam_content_methods_register  (GgOamConnection *self);
void gg_oam_world_methods_register    (GgOamConnection *self);
void gg_oam_npc_methods_register      (GgOamConnection *self);
void gg_oam_request_methods_register  (GgOamConnection *self);

/* The request a thread is dispatching: its handler runs now. */
typedef struct {
  GgOamConnection *connection;
  GgJsonRpcRequest *request;
  const char *correlation;     /* the bus tap's id, when it is observed */
  const char *session;
} GgOamDispatch;

const GgOamDispatch *gg_oam_dispatch_current (void);

/* The work of each request, for request/cancel (gg-oam-request-work.c). */
void gg_oam_request_work_track          (GCancellable    *cancellable);
void gg_oam_request_work_clear          (GgOamConnection *conn);

/* A one-shot source on the thread-default context (0 ms: an idle). */
void gg_oam_schedule (guint          interval_ms,
                      GSourceFunc    func,
                      gpointer       data,
                      GDestroyNotify notify);

/* Shared between the method sets. */
typedef struct _GgOamWorld GgOamWorld;
GgOamWorld *gg_oam_connection_lookup_world (GgOamConnection *conn,
                                            const char      *id,
                                            GError         **error);
void gg_oam_subscription_free         (gpointer data);

void gg_oam_sessions_cancel_all       (GgOamConnection *self);
void gg_oam_npcs_cancel_all           (GgOamConnection *self);

G_END_DECLS

/* gg-oam-session.h: one agent session of a client.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-oam-connection.h"
#include "gg-oam-options.h"
#include "gg-oam-queue.h"

G_BEGIN_DECLS

#define GG_TYPE_OAM_SESSION (gg_oam_session_get_type ())
G_DECLARE_FINAL_TYPE (GgOamSession, gg_oam_session, GG, OAM_SESSION, GObject)

struct _GgOamSession {
  GObject parent_instance;

  char *id;
  char *model_name;
  GgModel *model;
  char *instructions;
  char *context_note;
  JsonArray *tools;          /* normalized definitions */
  JsonArray *targets;        /* the `targets` option's entries (gg-oam-targets.c) */
  JsonArray *history;        /* neutral entries */
  GgOamTurnOptions options;
  char *created_at;
  GgOamQueue *queue;
  JsonArray *progress;       /* the running turn's entries so far, or NULL */
};

char *gg_oam_now_iso8601            (void);
char *gg_oam_compose_instructions   (const char *instructions,
                                     const char *note);
void  gg_oam_append_entries         (JsonArray *history,
                                     JsonArray *entries);
JsonObject *gg_oam_turn_event_params (const char *key,
                                      const char *value,
                                      JsonNode   *request_id,
                                      JsonObject *event);

/* gg-oam-session.c and gg-oam-session-ops.c: one queued session request */
typedef struct {
  GgOamConnection *conn;     /* strong */
  GgOamSession *session;     /* strong */
  JsonObject *params;        /* the request's params (ref) */
  JsonNode *request_id;
  GPtrArray *warnings;
  JsonNode *schema;          /* generation schema */
  gboolean stream;
  gboolean choice_overridden;
  GgAgentTurn *turn;
  /* compaction */
  JsonArray *recent;
} SessionOp;

SessionOp    *gg_oam_session_op_new   (GgOamConnection  *conn,
                                       GgOamSession     *session,
                                       GgJsonRpcRequest *request,
                                       JsonObject       *params);
void          gg_oam_session_op_free  (SessionOp *data);
void          gg_oam_session_push     (GgOamSession     *session,
                                       GgJsonRpcRequest *request,
                                       GgOamOpFunc       run,
                                       SessionOp        *data);
GgOamSession *gg_oam_session_lookup   (GgOamConnection *conn,
                                       JsonObject      *params,
                                       GError         **error);
JsonNode     *gg_oam_session_result   (GgOamSession *session);
guint         gg_oam_split_recent     (JsonArray *history,
                                       gint64     keep);

void gg_oam_session_reset            (GgOamConnection *conn, GgJsonRpcRequest *request, JsonObject *params);
void gg_oam_session_set_instructions (GgOamConnection *conn, GgJsonRpcRequest *request, JsonObject *params);
void gg_oam_session_set_context_note (GgOamConnection *conn, GgJsonRpcRequest *request, JsonObject *params);
void gg_oam_session_set_tools        (GgOamConnection *conn, GgJsonRpcRequest *request, JsonObject *params);
void gg_oam_session_compact          (GgOamConnection *conn, GgJsonRpcRequest *request, JsonObject *params);

G_END_DECLS

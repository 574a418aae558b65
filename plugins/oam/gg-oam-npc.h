/* gg-oam-npc.h: NPCs: persona, memory, options, prompting and save states.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-oam-connection.h"
#include "gg-oam-queue.h"
#include "gg-oam-tools.h"

G_BEGIN_DECLS

#define GG_OAM_READ_WORLD_TOOL "read_world_state"
#define GG_OAM_UPDATE_WORLD_TOOL "update_world_state"
#define GG_OAM_REMEMBER_FACT_TOOL "remember_fact"
#define GG_OAM_CHANGE_RELATIONSHIP_TOOL "change_relationship"

#define GG_TYPE_OAM_NPC (gg_oam_npc_get_type ())
G_DECLARE_FINAL_TYPE (GgOamNpc, gg_oam_npc, GG, OAM_NPC, GObject)

struct _GgOamNpc {
  GObject parent_instance;

  char *id;
  char *model_name;
  GgModel *model;
  JsonObject *persona;       /* normalized, every field */
  JsonObject *options;       /* normalized, every option */
  JsonObject *given_options; /* what the client sent (merge-patch base) */
  JsonArray *tool_defs;      /* client tool definitions as given */
  JsonArray *tools;          /* normalized client tools */
  GgOamWorld *world;         /* strong, or NULL */
  char *world_id;
  GPtrArray *facts;          /* char * */
  gint64 relationship;
  char *summary;
  JsonArray *history;        /* neutral entries */
  gint64 turn_count;
  gint64 turns_since_compaction;
  guint fallback_index;
  char *created_at;
  GgOamQueue *queue;
};

/* gg-oam-npc.c */
JsonObject *gg_oam_npc_parse_persona   (JsonObject *given,
                                        const char *prefix,
                                        GPtrArray  *warnings,
                                        GError    **error);
gboolean    gg_oam_npc_parse_memory    (GgOamNpc   *npc,
                                        JsonObject *memory,
                                        const char *prefix,
                                        GError    **error);
JsonArray  *gg_oam_npc_local_tools     (GgOamNpc *npc);
JsonArray  *gg_oam_npc_all_tools       (GgOamNpc *npc);
gboolean    gg_oam_npc_check_tools     (GgOamNpc  *npc,
                                        GError   **error);
char       *gg_oam_npc_instructions    (GgOamNpc *npc,
                                        gboolean  text_format);
char       *gg_oam_npc_prompt          (GgOamNpc   *npc,
                                        const char *line,
                                        const char *context);
JsonNode   *gg_oam_npc_memory_json     (GgOamNpc *npc);
JsonNode   *gg_oam_npc_state           (GgOamNpc *npc);
const char *gg_oam_npc_next_fallback   (GgOamNpc *npc);

/* gg-oam-npc-options.c: the options table, emotions, option accessors */
JsonObject *gg_oam_npc_parse_options   (JsonObject          *given,
                                        const GgOamSettings *settings,
                                        GPtrArray           *warnings,
                                        GError             **error);
gboolean    gg_oam_npc_emotion_is_known (const char *name);
const char *gg_oam_npc_option_string   (GgOamNpc   *npc,
                                        const char *name);
gint64      gg_oam_npc_option_int      (GgOamNpc   *npc,
                                        const char *name);
JsonArray  *gg_oam_npc_targets         (GgOamNpc *npc);
gboolean    gg_oam_npc_option_bool     (GgOamNpc   *npc,
                                        const char *name);

/* gg-oam-npc-reply.c: the reply asked for, accepted and read */
JsonNode   *gg_oam_npc_reply_schema    (GgOamNpc *npc);
JsonNode   *gg_oam_npc_reply_accept_schema (void);
void        gg_oam_npc_reply_read      (GgOamNpc    *npc,
                                        JsonObject  *reply,
                                        const char **emotion,
                                        const char **line,
                                        JsonArray  **player_options,
                                        gboolean    *ends_conversation);
gboolean    gg_oam_npc_parse_text_reply (GgOamNpc   *npc,
                                         const char *text,
                                         char      **emotion,
                                         char      **line);

/* gg-oam-npc-tools.c: the built-in world and memory tools */
gboolean    gg_oam_npc_is_local_tool   (GgOamNpc   *npc,
                                        const char *name);
void        gg_oam_npc_run_local_tool  (GgOamNpc         *npc,
                                        GgToolInvocation *invocation);

/* gg-oam-npc-methods.c, -create.c, -update.c and -talk.c: the methods and
 * one queued NPC request */
typedef struct {
  GgOamConnection *conn;
  GgOamNpc *npc;
  JsonObject *params;
  JsonNode *request_id;
  /* talk */
  gboolean stream;
  gboolean structured;
  gboolean retrying;
  char *line;
  char *context;
  GgAgentTurn *turn;
  GgOamToolContext *tools;
  JsonArray *target_tools;   /* the `targets` option's tools this turn */
  JsonArray *records;
  GString *shown;            /* the line the client has seen */
  char *emotion_sent;        /* the emotion the client has seen */
  JsonArray *old;            /* compaction: summarized entries */
  JsonArray *recent;
  GPtrArray *warnings;       /* unknown members of the request */
} NpcOp;

NpcOp      *gg_oam_npc_op_new          (GgOamConnection  *conn,
                                        GgOamNpc         *npc,
                                        GgJsonRpcRequest *request,
                                        JsonObject       *params);
void        gg_oam_npc_op_free         (NpcOp *data);
void        gg_oam_npc_push            (GgOamNpc         *npc,
                                        GgJsonRpcRequest *request,
                                        GgOamOpFunc       run,
                                        NpcOp            *data);
gboolean    gg_oam_npc_start_or_cancel (GgOamOp *op);
GgOamNpc   *gg_oam_npc_lookup          (GgOamConnection *conn,
                                        JsonObject      *params,
                                        GError         **error);
JsonObject *gg_oam_npc_result          (GgOamNpc *npc);
JsonNode   *gg_oam_npc_object_node     (JsonObject *object);
void        gg_oam_npc_return_object   (GgJsonRpcRequest *request,
                                        JsonObject       *object);
void        gg_oam_npc_create          (GgOamConnection  *conn,
                                        GgJsonRpcRequest *request,
                                        JsonObject       *params);
void        gg_oam_npc_restore         (GgOamConnection  *conn,
                                        GgJsonRpcRequest *request,
                                        JsonObject       *params);
void        gg_oam_npc_state_get       (GgOamConnection  *conn,
                                        GgJsonRpcRequest *request,
                                        JsonObject       *params);
void        gg_oam_npc_update          (GgOamConnection  *conn,
                                        GgJsonRpcRequest *request,
                                        JsonObject       *params);
void        gg_oam_npc_reset           (GgOamConnection  *conn,
                                        GgJsonRpcRequest *request,
                                        JsonObject       *params);
void        gg_oam_npc_talk            (GgOamConnection  *conn,
                                        GgJsonRpcRequest *request,
                                        JsonObject       *params);
void        gg_oam_npc_bark            (GgOamConnection  *conn,
                                        GgJsonRpcRequest *request,
                                        JsonObject       *params);

/* shared with the other method sets */
char  *gg_oam_npc_describe      (GgOamConnection *conn,
                                 const char      *npc,
                                 GError         **error);
guint  gg_oam_npcs_count_world  (GgOamConnection *conn,
                                 GgOamWorld      *world);

G_END_DECLS

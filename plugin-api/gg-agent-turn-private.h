/* gg-agent-turn-private.h: the state of one agent turn, shared by
 * gg-agent-turn.c (object, API, completion), gg-agent-output.c (its
 * events) and gg-agent-step.c (model steps, trimming, tool rounds). Not
 * API, not exported.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-agent-turn.h"
#include "gg-schema.h"

G_BEGIN_DECLS

typedef enum {
  TURN_IDLE,      /* created, not run yet */
  TURN_RUNNING,
  TURN_FINISHING, /* outcome decided; the task returns from an idle */
  TURN_DONE,
} TurnState;

/* One call of the current tool round. */
typedef struct {
  GgAgentTurn *turn;              /* unowned: the turn owns the round */
  JsonObject *call;               /* {id, name, arguments} */
  JsonObject *tool;               /* its definition, or NULL */
  char *reject;                   /* error text when the call is not run */
  GgToolInvocation *invocation;   /* while handed to the executor */
  char *model_text;               /* the output as the model sees it, once done */
  gint64 started_us;
  GSource *timeout;               /* the call's timeout, if any */
  gint64 timeout_ms;
  gboolean done;
} GgRoundCall;

struct _GgAgentTurn {
  GObject parent_instance;

  /* inputs */
  GgModel *model;
  char *instructions;
  GPtrArray *history;          /* JsonObject entries, oldest first */
  GArray *history_bytes;       /* gsize per history entry (compact JSON) */
  JsonArray *tools;            /* the definitions as given */
  GHashTable *tool_index;      /* name -> JsonObject definition (unowned) */
  GHashTable *model_tools;     /* name -> what the model is shown of it */
  GHashTable *model_tool_bytes;/* name -> its compact JSON size */
  char *prompt;
  JsonNode *output_schema;
  JsonNode *accept_schema;     /* what an answer must match, if not output_schema */
  GgAgentPolicy policy;
  JsonNode *sampling;
  double temperature;
  gint64 max_tokens;
  gboolean stream;

  GgToolExecutor executor;
  gpointer executor_data;
  GDestroyNotify executor_destroy;
  GgAgentEventFunc event_func;
  gpointer event_data;
  GDestroyNotify event_destroy;

  /* run state */
  GMainContext *context;       /* where the turn's sources run */
  TurnState state;
  GTask *task;
  GCancellable *cancellable;
  gulong cancel_id;
  GError *failure;             /* the outcome when failing */
  JsonObject *result;          /* the outcome when succeeding */
  gboolean succeeded;
  GgSchema *schema;            /* compiled accept_schema or output_schema */

  JsonArray *new_entries;
  gsize new_bytes;
  JsonArray *steps;
  JsonArray *records;
  GgUsage usage;
  gint64 step_index;
  gint64 completed_rounds;
  gint64 calls_made;
  guint next_call_id;
  gboolean tool_ran;
  gint64 attempt;
  gboolean force_none;         /* respond_directly was chosen */
  guint trim_start;            /* history entries hidden from the model */

  /* the current step */
  GgToolMode mode;
  GHashTable *visible;         /* name -> definition, this step */
  JsonArray *request_tools;
  gsize request_tools_bytes;   /* compact JSON size of request_tools */

  /* the text the event consumer has seen */
  GString *shown;
  gboolean step_streamed;
  /* schema turns: the JSON streamed this step, the last `partial` value */
  GString *partial_text;
  JsonNode *partial;

  /* the current tool round */
  GPtrArray *round;            /* GgRoundCall, in call order */
  guint outstanding;
  gboolean dispatching;
  gboolean respond_directly;
};

/* gg-agent-output.c */
void      _gg_agent_turn_emit          (GgAgentTurn *self,
                                        JsonObject  *event);
void      _gg_agent_turn_emit_text     (GgAgentTurn *self,
                                        const char  *delta,
                                        gboolean     is_reset);
void      _gg_agent_turn_emit_partial  (GgAgentTurn *self,
                                        JsonNode    *value);
void      _gg_agent_turn_on_delta      (const char *delta,
                                        gboolean    is_reset,
                                        gpointer    user_data);

/* gg-agent-turn.c */
void      _gg_agent_turn_fail          (GgAgentTurn *self,
                                        GError      *error);
void      _gg_agent_turn_answer        (GgAgentTurn  *self,
                                        GgModelReply *reply);
gsize     _gg_agent_entry_bytes        (JsonObject *entry);
GSource  *_gg_agent_turn_attach        (GgAgentTurn    *self,
                                        GSource        *source,
                                        GSourceFunc     func,
                                        gpointer        data,
                                        GDestroyNotify  notify);
void      _gg_agent_clear_source       (GSource **source);
void      _gg_agent_turn_add_entry     (GgAgentTurn *self,
                                        JsonObject  *entry);

/* gg-agent-entry-sizes.c */
void      _gg_agent_entry_sizes        (GObject   *owner,
                                        GPtrArray *entries,
                                        GArray    *sizes);

/* gg-agent-step.c */
void      _gg_agent_turn_start_step    (GgAgentTurn *self);
void      _gg_agent_turn_run_round     (GgAgentTurn *self,
                                        JsonArray   *tool_calls);
void      _gg_agent_turn_abandon_round (GgAgentTurn *self,
                                        const char  *reason);
void      _gg_round_call_free          (GgRoundCall *rc);

G_END_DECLS

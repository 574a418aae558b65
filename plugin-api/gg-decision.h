/* gg-decision.h: one decision: a model picks one of N options and says why
 * and how sure it is, through an output schema (oam's decision/decide, the
 * a2g decision service).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "gg-agent-turn.h"
#include "gg-model.h"

G_BEGIN_DECLS

/**
 * GgDecisionFormat:
 * @reason_key: the answer member holding the one-sentence reason
 *   (`"reasoning"` in oam, `"reason"` in A2G); generated first
 * @option_key: the member holding the chosen option id, an enum of the
 *   options (`"optionID"`, `"action"`); generated second
 * @reason_max_length: `maxLength` of the reason, 0 for none
 * @schema_retries: how often an answer outside the schema is asked for
 *   again before the decision fails (oam 0, A2G 1)
 *
 * The shape of the structured answer: `{reason, option, "confidence"}`,
 * confidence an integer 0 to 100.
 */
typedef struct {
  const char *reason_key;
  const char *option_key;
  gint64 reason_max_length;
  guint schema_retries;
  /*< private >*/
  gpointer reserved[4];
} GgDecisionFormat;

/**
 * GgDecisionResult:
 * @option: the chosen option id
 * @reason: the model's reason ("" when there was no model call)
 * @confidence: 0 to 100 (100 for a single option)
 * @forced: %TRUE when there was one option and no model call
 * @tool_calls: (nullable): the turn's tool call records
 * @usage: (nullable): the turn's usage object (`inputTokens`, …)
 * @attempts: model turns run (0 when forced)
 */
typedef struct {
  char *option;
  char *reason;
  gint64 confidence;
  gboolean forced;
  JsonArray *tool_calls;
  JsonObject *usage;
  guint attempts;
  /*< private >*/
  gpointer reserved[4];
} GgDecisionResult;

void gg_decision_result_free (GgDecisionResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgDecisionResult, gg_decision_result_free)

/**
 * GgDecisionTurnFunc:
 * @turn: a turn the decision just made, not started yet
 * @user_data: data given to gg_decision_set_turn_func()
 *
 * Lets the caller set up each turn (tool executor, events) before it runs.
 */
typedef void (*GgDecisionTurnFunc) (GgAgentTurn *turn,
                                    gpointer     user_data);

#define GG_TYPE_DECISION (gg_decision_get_type ())
G_DECLARE_FINAL_TYPE (GgDecision, gg_decision, GG, DECISION, GObject)

JsonNode   *gg_decision_schema          (JsonArray              *options,
                                         const GgDecisionFormat *format);
GgDecision *gg_decision_new             (GgModel                *model,
                                         const char             *instructions,
                                         const char             *prompt,
                                         JsonArray              *options,
                                         const GgDecisionFormat *format);
void        gg_decision_set_tools       (GgDecision          *self,
                                         JsonArray           *tools,
                                         const GgAgentPolicy *policy);
void        gg_decision_set_temperature (GgDecision *self,
                                         double      temperature);
void        gg_decision_set_turn_func   (GgDecision         *self,
                                         GgDecisionTurnFunc  func,
                                         gpointer            user_data,
                                         GDestroyNotify      destroy);
gboolean    gg_decision_is_forced       (GgDecision *self);
void        gg_decision_run_async       (GgDecision          *self,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data);
GgDecisionResult *gg_decision_run_finish (GgDecision    *self,
                                          GAsyncResult  *result,
                                          GError       **error);

G_END_DECLS

/* gg-agent-turn.h: the tool-calling loop every front end shares.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined (GAMEGATE_INSIDE) && !defined (GAMEGATE_COMPILATION)
#error "Only <gamegate.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "gg-model.h"
#include "gg-tool-invocation.h"

G_BEGIN_DECLS

/**
 * GgToolChoiceKind:
 * @GG_TOOL_CHOICE_AUTO: the model may call tools or answer
 * @GG_TOOL_CHOICE_NONE: tools are hidden on the first step; the model answers
 * @GG_TOOL_CHOICE_REQUIRED: the first step must call a tool
 * @GG_TOOL_CHOICE_EXPLICIT: the first step must call a tool or the built-in
 *   %GG_RESPOND_DIRECTLY_TOOL
 * @GG_TOOL_CHOICE_TOOL: the first step must call the policy's forced_tool
 *
 * How the first step of a turn may use tools (oam's `toolChoice`); later
 * steps may always call tools or answer.
 *
 * Since: 1.0
 */
typedef enum {
  GG_TOOL_CHOICE_AUTO,
  GG_TOOL_CHOICE_NONE,
  GG_TOOL_CHOICE_REQUIRED,
  GG_TOOL_CHOICE_EXPLICIT,
  GG_TOOL_CHOICE_TOOL,
} GgToolChoiceKind;

/**
 * GG_RESPOND_DIRECTLY_TOOL:
 *
 * The name of the built-in tool of %GG_TOOL_CHOICE_EXPLICIT: calling it
 * answers without a game tool.
 *
 * Since: 1.0
 */
#define GG_RESPOND_DIRECTLY_TOOL "respond_directly"

/**
 * GgAgentPolicy:
 * @tool_choice: how the first step may use tools (later steps: allowed)
 * @forced_tool: the tool name for %GG_TOOL_CHOICE_TOOL
 * @max_tool_rounds: model steps that may call tools (oam default 4)
 * @max_tool_calls: tool calls per turn; extra calls get an error output (12)
 * @tool_timeout_ms: time an executor has per call, 0 = forever (120 s);
 *   a tool's own `timeoutSeconds` wins
 * @max_attempts: tries of a step failing with a transient error, never after a tool ran (2)
 * @enabled_tools: (nullable): names visible to the model, %NULL = all
 * @trim_history: hide the oldest turns when the context would overflow
 * @reserved_response_tokens: kept free for the answer when trimming (1024)
 *
 * The tool policy of one agent turn (oam's turn options). Fill it with
 * gg_agent_policy_init(), which sets the defaults shown in parentheses.
 *
 * Since: 1.0
 */
typedef struct {
  GgToolChoiceKind tool_choice;
  char *forced_tool;
  gint64 max_tool_rounds;
  gint64 max_tool_calls;
  gint64 tool_timeout_ms;
  gint64 max_attempts;
  char **enabled_tools;
  gboolean trim_history;
  gint64 reserved_response_tokens;
  /*< private >*/
  gpointer reserved[4];
} GgAgentPolicy;

void gg_agent_policy_init  (GgAgentPolicy       *policy);
void gg_agent_policy_copy  (GgAgentPolicy       *dest,
                            const GgAgentPolicy *src);
void gg_agent_policy_clear (GgAgentPolicy *policy);

/**
 * GgToolExecutor:
 * @invocation: (transfer full): the call to run; answer it once
 * @user_data: data given to gg_agent_turn_new()
 *
 * Runs one tool call (oam: a `tool/call` request to the client; MCP/GABP:
 * a bus target). Several calls of one step are handed over back to back and
 * may complete in any order.
 *
 * Since: 1.0
 */
typedef void (*GgToolExecutor) (GgToolInvocation *invocation,
                                gpointer          user_data);

/**
 * GgAgentEventFunc:
 * @event: (transfer none): an oam-shaped event object: `modelStep` {step},
 *   `text` {delta, text, isReset} (turns without an output schema),
 *   `partial` {value} (schema turns: the structured output generated so
 *   far, each time it changes; the last one is the answer),
 *   `toolCallStarted` {call, execution, target?} (`execution` is the
 *   definition's `execution`, default `"client"`; `target` its bus target),
 *   `toolCallCompleted` {record}; valid for the call, reference it to keep
 *   it; its members are shared with the result and the transcript, so do
 *   not modify them
 * @user_data: data given to gg_agent_turn_set_event_func()
 *
 * Receives the turn's events in the order they happened, all before the
 * turn completes. It may cancel the turn; nothing is reported after that.
 *
 * Since: 1.0
 */
typedef void (*GgAgentEventFunc) (JsonObject *event,
                                  gpointer    user_data);

/**
 * GgAgentTurn:
 *
 * One agent turn: model steps and tool calls until the model answers, with
 * oam's tool policy, ordered events, retries and history trimming. Every
 * front end runs its agents through it.
 *
 * Since: 1.0
 */
#define GG_TYPE_AGENT_TURN (gg_agent_turn_get_type ())
G_DECLARE_FINAL_TYPE (GgAgentTurn, gg_agent_turn, GG, AGENT_TURN, GObject)

GgAgentTurn *gg_agent_turn_new              (GgModel             *model,
                                             const char          *instructions,
                                             JsonArray           *history,
                                             JsonArray           *tools,
                                             const char          *prompt,
                                             JsonNode            *output_schema,
                                             const GgAgentPolicy *policy);
void         gg_agent_turn_set_executor     (GgAgentTurn    *self,
                                             GgToolExecutor  executor,
                                             gpointer        user_data,
                                             GDestroyNotify  destroy);
void         gg_agent_turn_set_event_func   (GgAgentTurn      *self,
                                             GgAgentEventFunc  func,
                                             gpointer          user_data,
                                             GDestroyNotify    destroy);
void         gg_agent_turn_set_sampling     (GgAgentTurn *self,
                                             JsonNode    *sampling,
                                             double       temperature,
                                             gint64       max_tokens);
void         gg_agent_turn_set_accept_schema (GgAgentTurn *self,
                                              JsonNode    *schema);
void         gg_agent_turn_set_streaming    (GgAgentTurn *self,
                                             gboolean     stream);
void         gg_agent_turn_run_async        (GgAgentTurn         *self,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
JsonObject  *gg_agent_turn_run_finish       (GgAgentTurn   *self,
                                             GAsyncResult  *result,
                                             GError       **error);
JsonArray   *gg_agent_turn_get_new_entries  (GgAgentTurn *self);

G_END_DECLS

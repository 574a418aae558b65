/* gg-agent-output.c: what an agent turn shows while it runs: its events
 * (through the turn's event function, never once the outcome is decided),
 * the model's text as `text` events that always add up to the answer,
 * and, in a schema turn, the JSON streamed so far as `partial` values.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-agent-turn-private.h"
#include "gg-json.h"
#include "gg-json-partial-private.h"

/* Takes @event. Nothing is reported once the outcome is decided. */
void
_gg_agent_turn_emit (GgAgentTurn *self,
                     JsonObject  *event)
{
  if (self->state == TURN_RUNNING && self->event_func != NULL)
    self->event_func (event, self->event_data);
  json_object_unref (event);
}

/* Emits `text` {delta, text, isReset}: @delta added to (or, reset, in
 * place of) what was shown. */
void
_gg_agent_turn_emit_text (GgAgentTurn *self,
                          const char  *delta,
                          gboolean     is_reset)
{
  JsonObject *event;

  if (is_reset)
    g_string_assign (self->shown, delta);
  else
    g_string_append (self->shown, delta);

  event = json_object_new ();
  json_object_set_string_member (event, "type", "text");
  json_object_set_string_member (event, "delta", delta);
  json_object_set_string_member (event, "text", self->shown->str);
  json_object_set_boolean_member (event, "isReset", is_reset);
  _gg_agent_turn_emit (self, event);
}

/* Emits `partial` {value} when @value (taken) differs from the last one. */
void
_gg_agent_turn_emit_partial (GgAgentTurn *self,
                             JsonNode    *value)
{
  JsonObject *event;

  if (self->partial != NULL && gg_json_equal (self->partial, value))
    {
      json_node_unref (value);
      return;
    }
  g_clear_pointer (&self->partial, json_node_unref);
  self->partial = value;
  event = json_object_new ();
  json_object_set_string_member (event, "type", "partial");
  json_object_set_member (event, "value", json_node_ref (value));
  _gg_agent_turn_emit (self, event);
}

/* Past this much JSON text, re-reading it for every delta would cost more
 * than the partial values are worth; the final value still arrives. */
#define PARTIAL_TEXT_LIMIT (256 * 1024)

/* A schema turn's delta: JSON text, shown as the value it holds so far. */
static void
on_schema_delta (GgAgentTurn *self,
                 const char  *delta,
                 gboolean     is_reset)
{
  JsonNode *value;

  if (is_reset || !self->step_streamed)
    g_string_truncate (self->partial_text, 0);
  self->step_streamed = TRUE;
  if (self->partial_text->len > PARTIAL_TEXT_LIMIT)
    return;
  g_string_append (self->partial_text, delta);
  value = _gg_json_partial_parse (self->partial_text->str, self->partial_text->len,
                                  GG_JSON_DEFAULT_MAX_DEPTH);
  if (value != NULL)
    _gg_agent_turn_emit_partial (self, value);
}

/* A delta from the model. The first delta of a step replaces text shown by
 * an earlier step or attempt, so the events always add up to the answer. */
void
_gg_agent_turn_on_delta (const char *delta,
                         gboolean    is_reset,
                         gpointer    user_data)
{
  GgAgentTurn *self = user_data;

  if (self->state != TURN_RUNNING || delta == NULL)
    return;
  if (self->output_schema != NULL)
    {
      on_schema_delta (self, delta, is_reset);
      return;
    }
  if (!self->step_streamed && self->shown->len > 0)
    is_reset = TRUE;
  self->step_streamed = TRUE;
  if (!is_reset && *delta == '\0')
    return;
  _gg_agent_turn_emit_text (self, delta, is_reset);
}

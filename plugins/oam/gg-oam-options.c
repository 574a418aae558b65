/* gg-oam-options.c: the `options` of session/create (and their per-turn
 * overrides) mapped onto GgAgentPolicy and the sampling settings.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "gg-oam-options.h"
#include "gg-oam-params.h"

/**
 * gg_oam_turn_options_init:
 * @options: options to fill with oam's defaults
 * @tool_timeout_ms: the front end's default tool timeout
 */
void
gg_oam_turn_options_init (GgOamTurnOptions *options,
                          gint64            tool_timeout_ms)
{
  gg_agent_policy_init (&options->policy);
  options->policy.tool_timeout_ms = tool_timeout_ms;
  options->sampling = NULL;
  options->temperature = -1.0;
  options->max_tokens = 0;
}

/**
 * gg_oam_turn_options_copy:
 * @dest: uninitialized options
 * @src: options to copy
 */
void
gg_oam_turn_options_copy (GgOamTurnOptions       *dest,
                          const GgOamTurnOptions *src)
{
  gg_agent_policy_copy (&dest->policy, &src->policy);
  dest->sampling = src->sampling != NULL ? json_node_copy (src->sampling) : NULL;
  dest->temperature = src->temperature;
  dest->max_tokens = src->max_tokens;
}

/**
 * gg_oam_turn_options_clear:
 * @options: options to release
 */
void
gg_oam_turn_options_clear (GgOamTurnOptions *options)
{
  g_free (options->policy.forced_tool);
  options->policy.forced_tool = NULL;
  g_strfreev (options->policy.enabled_tools);
  options->policy.enabled_tools = NULL;
  g_clear_pointer (&options->sampling, json_node_unref);
}

/**
 * gg_oam_parse_tool_choice:
 * @kind: (inout): the choice; unchanged when the member is absent
 * @forced: (inout): the tool of `{"tool": name}`
 *
 * Reads `"auto"`/`"none"`/`"required"`/`"explicit"`/`{"tool": name}`.
 */
gboolean
gg_oam_parse_tool_choice (JsonObject        *object,
                          const char        *prefix,
                          const char        *name,
                          GgToolChoiceKind  *kind,
                          char             **forced,
                          GError           **error)
{
  JsonNode *node = gg_oam_param (object, name);
  g_autofree char *full = gg_oam_param_name (prefix, name);

  if (node == NULL)
    return TRUE;
  if (json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *value = json_node_get_string (node);

      if (g_str_equal (value, "auto"))
        *kind = GG_TOOL_CHOICE_AUTO;
      else if (g_str_equal (value, "none"))
        *kind = GG_TOOL_CHOICE_NONE;
      else if (g_str_equal (value, "required"))
        *kind = GG_TOOL_CHOICE_REQUIRED;
      else if (g_str_equal (value, "explicit"))
        *kind = GG_TOOL_CHOICE_EXPLICIT;
      else
        goto bad;
      g_clear_pointer (forced, g_free);
      return TRUE;
    }
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonNode *tool = json_object_get_member (json_node_get_object (node), "tool");

      if (tool == NULL || json_node_get_value_type (tool) != G_TYPE_STRING ||
          json_object_get_size (json_node_get_object (node)) != 1)
        goto bad;
      *kind = GG_TOOL_CHOICE_TOOL;
      g_free (*forced);
      *forced = g_strdup (json_node_get_string (tool));
      return TRUE;
    }

bad:
  g_propagate_error (error, gg_oam_invalid_params ("'%s' must be \"auto\", \"none\", \"required\", "
                                                   "\"explicit\" or {\"tool\": name}", full));
  return FALSE;
}

/**
 * gg_oam_parse_sampling:
 * @out: (out) (transfer full): the sampling value, or %NULL when absent
 *
 * Reads `"greedy"`, `{"topK": n, "seed"?}` or `{"topP": p, "seed"?}`.
 */
gboolean
gg_oam_parse_sampling (JsonObject  *object,
                       const char  *prefix,
                       const char  *name,
                       JsonNode   **out,
                       GError     **error)
{
  JsonNode *node = gg_oam_param (object, name);
  g_autofree char *full = gg_oam_param_name (prefix, name);
  JsonObject *sampling;
  gint64 top_k, seed;
  double top_p;

  *out = NULL;
  if (node == NULL)
    return TRUE;
  if (json_node_get_value_type (node) == G_TYPE_STRING &&
      g_str_equal (json_node_get_string (node), "greedy"))
    {
      *out = json_node_copy (node);
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    goto bad;
  sampling = json_node_get_object (node);
  if ((gg_oam_param (sampling, "topK") != NULL) == (gg_oam_param (sampling, "topP") != NULL))
    goto bad;
  if (!gg_oam_param_int (sampling, full, "topK", 1, G_MAXINT64, 1, &top_k, error) ||
      !gg_oam_param_double (sampling, full, "topP", 0.0, 1.0, 1.0, &top_p, error) ||
      !gg_oam_param_int (sampling, full, "seed", 0, G_MAXINT64, 0, &seed, error))
    return FALSE;
  *out = json_node_copy (node);
  return TRUE;

bad:
  g_propagate_error (error, gg_oam_invalid_params ("'%s' must be \"greedy\", {\"topK\": n, \"seed\"?} "
                                                   "or {\"topP\": p, \"seed\"?}", full));
  return FALSE;
}

static const char * const session_option_names[] = {
  "toolChoice", "maxToolRounds", "maxToolCalls", "enabledTools", "temperature",
  "maxResponseTokens", "sampling", "toolTimeoutSeconds", "trimHistory",
  "reservedResponseTokens", "maxAttempts", "targets", NULL
};

/**
 * gg_oam_turn_options_parse:
 * @options: (inout): defaults in, parsed options out
 * @object: (nullable): session/create's `options`
 * @prefix: its name ("options")
 * @warnings: (nullable): unknown options are reported here
 * @error: -32602 naming the option
 */
gboolean
gg_oam_turn_options_parse (GgOamTurnOptions *options,
                           JsonObject       *object,
                           const char       *prefix,
                           GPtrArray        *warnings,
                           GError          **error)
{
  GgAgentPolicy *policy = &options->policy;
  gint64 reserved;
  JsonNode *sampling = NULL;

  if (object == NULL)
    return TRUE;
  if (warnings != NULL)
    gg_oam_warn_unknown (object, prefix, session_option_names, warnings);
  if (!gg_oam_parse_tool_choice (object, prefix, "toolChoice", &policy->tool_choice,
                                 &policy->forced_tool, error) ||
      !gg_oam_param_int (object, prefix, "maxToolRounds", 0, G_MAXINT32, policy->max_tool_rounds,
                         &policy->max_tool_rounds, error) ||
      !gg_oam_param_int (object, prefix, "maxToolCalls", 0, G_MAXINT32, policy->max_tool_calls,
                         &policy->max_tool_calls, error) ||
      !gg_oam_param_double (object, prefix, "temperature", 0.0, INFINITY, options->temperature,
                            &options->temperature, error) ||
      !gg_oam_param_int (object, prefix, "maxResponseTokens", 1, G_MAXINT32, options->max_tokens,
                         &options->max_tokens, error) ||
      !gg_oam_parse_sampling (object, prefix, "sampling", &sampling, error) ||
      !gg_oam_param_seconds (object, prefix, "toolTimeoutSeconds", policy->tool_timeout_ms,
                             &policy->tool_timeout_ms, error) ||
      !gg_oam_param_bool (object, prefix, "trimHistory", policy->trim_history,
                          &policy->trim_history, error) ||
      !gg_oam_param_int (object, prefix, "reservedResponseTokens", 0, G_MAXINT32,
                         policy->reserved_response_tokens, &reserved, error) ||
      !gg_oam_param_int (object, prefix, "maxAttempts", 1, 100, policy->max_attempts,
                         &policy->max_attempts, error))
    return FALSE;
  policy->reserved_response_tokens = reserved;
  if (sampling != NULL)
    {
      g_clear_pointer (&options->sampling, json_node_unref);
      options->sampling = sampling;
    }
  if (gg_oam_param (object, "enabledTools") != NULL)
    {
      char **enabled = NULL;

      if (!gg_oam_param_strv (object, prefix, "enabledTools", &enabled, error))
        return FALSE;
      g_strfreev (policy->enabled_tools);
      policy->enabled_tools = enabled;
    }
  return TRUE;
}

/**
 * gg_oam_policy_parse_overrides:
 * @policy: (inout): the session's policy, overridden in place
 * @params: session/respond's params
 * @out_choice_overridden: (out) (optional): whether `toolChoice` was given
 *
 * Reads the per-turn `toolChoice`, `maxToolRounds`, `maxToolCalls` and
 * `enabledTools`.
 */
gboolean
gg_oam_policy_parse_overrides (GgAgentPolicy *policy,
                               JsonObject    *params,
                               gboolean      *out_choice_overridden,
                               GError       **error)
{
  if (out_choice_overridden != NULL)
    *out_choice_overridden = gg_oam_param (params, "toolChoice") != NULL;
  if (!gg_oam_parse_tool_choice (params, NULL, "toolChoice", &policy->tool_choice,
                                 &policy->forced_tool, error) ||
      !gg_oam_param_int (params, NULL, "maxToolRounds", 0, G_MAXINT32, policy->max_tool_rounds,
                         &policy->max_tool_rounds, error) ||
      !gg_oam_param_int (params, NULL, "maxToolCalls", 0, G_MAXINT32, policy->max_tool_calls,
                         &policy->max_tool_calls, error))
    return FALSE;
  if (gg_oam_param (params, "enabledTools") != NULL)
    {
      char **enabled = NULL;

      if (!gg_oam_param_strv (params, NULL, "enabledTools", &enabled, error))
        return FALSE;
      g_strfreev (policy->enabled_tools);
      policy->enabled_tools = enabled;
    }
  return TRUE;
}

/**
 * gg_oam_turn_apply_options:
 * @turn: an agent turn
 * @options: the sampling settings to apply
 */
void
gg_oam_turn_apply_options (GgAgentTurn            *turn,
                           const GgOamTurnOptions *options)
{
  gg_agent_turn_set_sampling (turn, options->sampling, options->temperature, options->max_tokens);
}

/* gg-oam-transcript.c: the transcript form of session/transcript and
 * session/create's `history`, modelled on FoundationModels' Codable
 * Transcript:
 *
 *   {"type": "FoundationModels.Transcript", "version": "1.1",
 *    "transcript": {"entries": [
 *      {"id", "role": "instructions", "segments": [...], "toolDefinitions": [...]},
 *      {"id", "role": "user", "segments": [{"type": "text", "id", "text"}]},
 *      {"id", "role": "response", "segments": [...]},
 *      {"id", "role": "toolCalls", "toolCalls": [{"id", "toolName", "arguments"}]},
 *      {"id", "role": "toolOutput", "toolCallID", "toolName", "segments": [...]}]}}
 *
 * and the neutral entries of GgModelRequest the agent turn works with.
 * Entry ids are positional, so a transcript is reproducible.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-oam-errors.h"
#include "gg-oam-params.h"
#include "gg-oam-transcript.h"

#define TRANSCRIPT_TYPE "FoundationModels.Transcript"
#define TRANSCRIPT_VERSION "1.1"

static JsonArray *
text_segments (const char *entry_id,
               const char *text)
{
  JsonArray *segments = json_array_new ();
  JsonObject *segment = json_object_new ();
  g_autofree char *id = g_strdup_printf ("%s-0", entry_id);

  json_object_set_string_member (segment, "type", "text");
  json_object_set_string_member (segment, "id", id);
  json_object_set_string_member (segment, "text", text != NULL ? text : "");
  json_array_add_object_element (segments, segment);
  return segments;
}

static JsonObject *
build_entry (JsonObject *entry,
             guint       index)
{
  g_autofree char *id = g_strdup_printf ("e%u", index);
  const char *role = json_object_get_string_member_with_default (entry, "role", "");
  JsonObject *out = json_object_new ();

  json_object_set_string_member (out, "id", id);
  if (g_str_equal (role, "user"))
    {
      json_object_set_string_member (out, "role", "user");
      json_object_set_array_member (out, "segments",
                                    text_segments (id, json_object_get_string_member_with_default (entry, "text", "")));
    }
  else if (g_str_equal (role, "assistant") && json_object_has_member (entry, "toolCalls"))
    {
      JsonArray *calls = json_object_get_array_member (entry, "toolCalls");
      JsonArray *out_calls = json_array_new ();

      json_object_set_string_member (out, "role", "toolCalls");
      for (guint i = 0; calls != NULL && i < json_array_get_length (calls); i++)
        {
          JsonObject *call = json_array_get_object_element (calls, i);
          JsonObject *out_call = json_object_new ();
          JsonNode *arguments = json_object_get_member (call, "arguments");

          json_object_set_string_member (out_call, "id", json_object_get_string_member_with_default (call, "id", ""));
          json_object_set_string_member (out_call, "toolName", json_object_get_string_member_with_default (call, "name", ""));
          if (arguments != NULL)
            json_object_set_member (out_call, "arguments", json_node_copy (arguments));
          else
            json_object_set_object_member (out_call, "arguments", json_object_new ());
          json_array_add_object_element (out_calls, out_call);
        }
      json_object_set_array_member (out, "toolCalls", out_calls);
    }
  else if (g_str_equal (role, "assistant"))
    {
      json_object_set_string_member (out, "role", "response");
      json_object_set_array_member (out, "segments",
                                    text_segments (id, json_object_get_string_member_with_default (entry, "text", "")));
    }
  else
    {
      json_object_set_string_member (out, "role", "toolOutput");
      json_object_set_string_member (out, "toolCallID", json_object_get_string_member_with_default (entry, "callId", ""));
      json_object_set_string_member (out, "toolName", json_object_get_string_member_with_default (entry, "name", ""));
      json_object_set_array_member (out, "segments",
                                    text_segments (id, json_object_get_string_member_with_default (entry, "output", "")));
    }
  return out;
}

/**
 * gg_oam_transcript_build:
 * @instructions: (nullable): the session's instructions
 * @tools: (nullable): its normalized tool definitions
 * @entries: (nullable): neutral entries, oldest first
 *
 * Returns: (transfer full): the `{"type","version","transcript"}` object
 */
JsonNode *
gg_oam_transcript_build (const char *instructions,
                         JsonArray  *tools,
                         JsonArray  *entries)
{
  JsonObject *root = json_object_new ();
  JsonObject *transcript = json_object_new ();
  JsonArray *out = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  if (instructions != NULL || (tools != NULL && json_array_get_length (tools) > 0))
    {
      JsonObject *entry = json_object_new ();
      JsonArray *definitions = json_array_new ();

      json_object_set_string_member (entry, "id", "instructions");
      json_object_set_string_member (entry, "role", "instructions");
      json_object_set_array_member (entry, "segments",
                                    instructions != NULL ? text_segments ("instructions", instructions)
                                                         : json_array_new ());
      for (guint i = 0; tools != NULL && i < json_array_get_length (tools); i++)
        {
          JsonObject *tool = json_array_get_object_element (tools, i);
          JsonObject *definition = json_object_new ();

          json_object_set_string_member (definition, "name", json_object_get_string_member (tool, "name"));
          if (json_object_has_member (tool, "description"))
            json_object_set_string_member (definition, "description",
                                           json_object_get_string_member (tool, "description"));
          json_object_set_member (definition, "parameters",
                                  json_node_copy (json_object_get_member (tool, "parameters")));
          json_array_add_object_element (definitions, definition);
        }
      json_object_set_array_member (entry, "toolDefinitions", definitions);
      json_array_add_object_element (out, entry);
    }
  for (guint i = 0; entries != NULL && i < json_array_get_length (entries); i++)
    json_array_add_object_element (out, build_entry (json_array_get_object_element (entries, i), i));

  json_object_set_array_member (transcript, "entries", out);
  json_object_set_string_member (root, "type", TRANSCRIPT_TYPE);
  json_object_set_string_member (root, "version", TRANSCRIPT_VERSION);
  json_object_set_object_member (root, "transcript", transcript);
  json_node_take_object (node, root);
  return node;
}

/* The text of an entry's segments, joined; structured segments as JSON. */
static gboolean
segments_text (JsonObject  *entry,
               const char  *param,
               char       **out,
               GError     **error)
{
  JsonArray *segments;
  g_autoptr(GString) text = g_string_new (NULL);

  if (!gg_oam_param_array (entry, param, "segments", FALSE, &segments, error))
    return FALSE;
  for (guint i = 0; segments != NULL && i < json_array_get_length (segments); i++)
    {
      JsonNode *node = json_array_get_element (segments, i);
      g_autofree char *segment_param = g_strdup_printf ("%s.segments[%u]", param, i);
      JsonObject *segment;
      const char *type, *value;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_propagate_error (error, gg_oam_invalid_params ("'%s' must be an object", segment_param));
          return FALSE;
        }
      segment = json_node_get_object (node);
      if (!gg_oam_param_string (segment, segment_param, "type", FALSE, &type, error))
        return FALSE;
      if (type == NULL || g_str_equal (type, "text"))
        {
          if (!gg_oam_param_string (segment, segment_param, "text", TRUE, &value, error))
            return FALSE;
          g_string_append (text, value);
        }
      else if (g_str_equal (type, "structure") && gg_oam_param (segment, "content") != NULL)
        {
          g_autofree char *json = gg_json_to_string (gg_oam_param (segment, "content"));
          g_string_append (text, json);
        }
      else
        {
          g_propagate_error (error, gg_oam_error_new (GG_OAM_INVALID_REQUEST, NULL,
                                                      "Unsupported transcript content at '%s'",
                                                      segment_param));
          return FALSE;
        }
    }
  *out = g_string_free (g_steal_pointer (&text), FALSE);
  return TRUE;
}

static gboolean
parse_tool_calls (JsonObject *entry,
                  const char *param,
                  JsonArray  *entries,
                  GError    **error)
{
  JsonArray *calls;
  JsonArray *out_calls;
  JsonObject *out;

  if (!gg_oam_param_array (entry, param, "toolCalls", TRUE, &calls, error))
    return FALSE;
  out_calls = json_array_new ();
  out = json_object_new ();
  json_object_set_string_member (out, "role", "assistant");
  json_object_set_array_member (out, "toolCalls", out_calls);
  json_array_add_object_element (entries, out);
  for (guint i = 0; i < json_array_get_length (calls); i++)
    {
      JsonNode *node = json_array_get_element (calls, i);
      g_autofree char *call_param = g_strdup_printf ("%s.toolCalls[%u]", param, i);
      JsonObject *call, *out_call;
      const char *id, *name;
      JsonNode *arguments;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_propagate_error (error, gg_oam_invalid_params ("'%s' must be an object", call_param));
          return FALSE;
        }
      call = json_node_get_object (node);
      if (!gg_oam_param_string (call, call_param, "id", TRUE, &id, error))
        return FALSE;
      if (!gg_oam_param_string (call, call_param, "toolName", FALSE, &name, error))
        return FALSE;
      if (name == NULL && !gg_oam_param_string (call, call_param, "name", TRUE, &name, error))
        return FALSE;
      out_call = json_object_new ();
      json_object_set_string_member (out_call, "id", id);
      json_object_set_string_member (out_call, "name", name);
      arguments = gg_oam_param (call, "arguments");
      if (arguments != NULL && json_node_get_value_type (arguments) == G_TYPE_STRING)
        {
          /* FoundationModels stores arguments as JSON text. */
          g_autoptr(GError) parse_error = NULL;
          JsonNode *parsed = gg_json_parse (json_node_get_string (arguments), -1,
                                            GG_JSON_DEFAULT_MAX_DEPTH, &parse_error);
          if (parsed == NULL)
            {
              json_object_unref (out_call);
              g_propagate_error (error, gg_oam_invalid_params ("'%s.arguments': %s", call_param,
                                                               parse_error->message));
              return FALSE;
            }
          json_object_set_member (out_call, "arguments", parsed);
        }
      else if (arguments != NULL)
        json_object_set_member (out_call, "arguments", json_node_copy (arguments));
      else
        json_object_set_object_member (out_call, "arguments", json_object_new ());
      json_array_add_object_element (out_calls, out_call);
    }
  return TRUE;
}

/**
 * gg_oam_transcript_parse:
 * @history: the `history` parameter: the transcript object, the whole
 *   session/transcript result, or just `{"entries": [...]}`
 * @param: its name for messages
 * @out_has_instructions: (out): whether the transcript saved instructions
 * @out_instructions: (out) (transfer full): those instructions
 * @out_tools: (out) (transfer full): saved tool definitions (raw)
 * @out_entries: (out) (transfer full): the neutral entries
 * @error: -32602 for malformed input, -32011 for unsupported content
 */
gboolean
gg_oam_transcript_parse (JsonNode   *history,
                         const char *param,
                         gboolean   *out_has_instructions,
                         char      **out_instructions,
                         JsonArray **out_tools,
                         JsonArray **out_entries,
                         GError    **error)
{
  g_autoptr(JsonArray) entries = json_array_new ();
  g_autoptr(JsonArray) tools = json_array_new ();
  g_autofree char *instructions = NULL;
  gboolean has_instructions = FALSE;
  JsonObject *object;
  JsonArray *items;
  JsonObject *inner;

  if (!JSON_NODE_HOLDS_OBJECT (history))
    {
      g_propagate_error (error, gg_oam_invalid_params ("'%s' must be an object", param));
      return FALSE;
    }
  object = json_node_get_object (history);
  /* The whole session/transcript result. */
  if (gg_oam_param (object, "transcript") != NULL && gg_oam_param (object, "session") != NULL)
    {
      if (!gg_oam_param_object (object, param, "transcript", TRUE, &object, error))
        return FALSE;
    }
  if (gg_oam_param (object, "type") != NULL)
    {
      const char *type;

      if (!gg_oam_param_string (object, param, "type", FALSE, &type, error))
        return FALSE;
      if (!g_str_equal (type, TRANSCRIPT_TYPE))
        {
          g_propagate_error (error, gg_oam_error_new (GG_OAM_INVALID_REQUEST, NULL,
                                                      "Unsupported transcript type '%s'", type));
          return FALSE;
        }
    }
  if (gg_oam_param (object, "transcript") != NULL)
    {
      if (!gg_oam_param_object (object, param, "transcript", TRUE, &inner, error))
        return FALSE;
      object = inner;
    }
  if (!gg_oam_param_array (object, param, "entries", TRUE, &items, error))
    return FALSE;

  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      JsonNode *node = json_array_get_element (items, i);
      g_autofree char *entry_param = g_strdup_printf ("%s.entries[%u]", param, i);
      JsonObject *entry;
      const char *role;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_propagate_error (error, gg_oam_invalid_params ("'%s' must be an object", entry_param));
          return FALSE;
        }
      entry = json_node_get_object (node);
      if (!gg_oam_param_string (entry, entry_param, "role", TRUE, &role, error))
        return FALSE;

      if (g_str_equal (role, "instructions"))
        {
          JsonArray *definitions;

          g_clear_pointer (&instructions, g_free);
          if (!segments_text (entry, entry_param, &instructions, error))
            return FALSE;
          has_instructions = TRUE;
          if (*instructions == '\0')
            g_clear_pointer (&instructions, g_free);
          if (!gg_oam_param_array (entry, entry_param, "toolDefinitions", FALSE, &definitions, error))
            return FALSE;
          g_clear_pointer (&tools, json_array_unref);
          tools = json_array_new ();
          for (guint j = 0; definitions != NULL && j < json_array_get_length (definitions); j++)
            json_array_add_element (tools, json_node_copy (json_array_get_element (definitions, j)));
        }
      else if (g_str_equal (role, "user") || g_str_equal (role, "prompt") ||
               g_str_equal (role, "response"))
        {
          g_autofree char *text = NULL;
          JsonObject *out;

          if (!segments_text (entry, entry_param, &text, error))
            return FALSE;
          out = json_object_new ();
          json_object_set_string_member (out, "role", g_str_equal (role, "response") ? "assistant" : "user");
          json_object_set_string_member (out, "text", text);
          json_array_add_object_element (entries, out);
        }
      else if (g_str_equal (role, "toolCalls"))
        {
          if (!parse_tool_calls (entry, entry_param, entries, error))
            return FALSE;
        }
      else if (g_str_equal (role, "toolOutput"))
        {
          g_autofree char *text = NULL;
          const char *call_id, *name;
          JsonObject *out;

          if (!gg_oam_param_string (entry, entry_param, "toolCallID", TRUE, &call_id, error) ||
              !gg_oam_param_string (entry, entry_param, "toolName", TRUE, &name, error) ||
              !segments_text (entry, entry_param, &text, error))
            return FALSE;
          out = json_object_new ();
          json_object_set_string_member (out, "role", "tool");
          json_object_set_string_member (out, "callId", call_id);
          json_object_set_string_member (out, "name", name);
          json_object_set_string_member (out, "output", text);
          json_array_add_object_element (entries, out);
        }
      else
        {
          g_propagate_error (error, gg_oam_error_new (GG_OAM_INVALID_REQUEST, NULL,
                                                      "Unsupported transcript entry role '%s' at '%s'",
                                                      role, entry_param));
          return FALSE;
        }
    }

  *out_has_instructions = has_instructions;
  *out_instructions = g_steal_pointer (&instructions);
  *out_tools = g_steal_pointer (&tools);
  *out_entries = g_steal_pointer (&entries);
  return TRUE;
}

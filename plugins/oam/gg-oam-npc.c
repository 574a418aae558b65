/* gg-oam-npc.c: an NPC's persona, memory and how its turns are prompted
 * (oam spec section 6 and the reference's GAMES notes): the instructions,
 * the per-turn prompt and the save state. Its options are in
 * gg-oam-npc-options.c, its reply in gg-oam-npc-reply.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-oam-errors.h"
#include "gg-oam-npc.h"
#include "gg-oam-options.h"
#include "gg-oam-params.h"
#include "gg-oam-targets.h"
#include "gg-oam-tools.h"
#include "gg-oam-transcript.h"
#include "gg-oam-world.h"

#define STATE_VERSION 1

G_DEFINE_FINAL_TYPE (GgOamNpc, gg_oam_npc, G_TYPE_OBJECT)

static void
gg_oam_npc_finalize (GObject *object)
{
  GgOamNpc *self = GG_OAM_NPC (object);

  g_clear_pointer (&self->queue, gg_oam_queue_free);
  g_free (self->id);
  g_free (self->model_name);
  g_clear_object (&self->model);
  g_clear_pointer (&self->persona, json_object_unref);
  g_clear_pointer (&self->options, json_object_unref);
  g_clear_pointer (&self->given_options, json_object_unref);
  g_clear_pointer (&self->tool_defs, json_array_unref);
  g_clear_pointer (&self->tools, json_array_unref);
  g_clear_object (&self->world);
  g_free (self->world_id);
  g_clear_pointer (&self->facts, g_ptr_array_unref);
  g_free (self->summary);
  g_clear_pointer (&self->history, json_array_unref);
  g_free (self->created_at);
  G_OBJECT_CLASS (gg_oam_npc_parent_class)->finalize (object);
}

static void
gg_oam_npc_class_init (GgOamNpcClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_oam_npc_finalize;
}

static void
gg_oam_npc_init (GgOamNpc *self)
{
  self->queue = gg_oam_queue_new ();
  self->facts = g_ptr_array_new_with_free_func (g_free);
  self->history = json_array_new ();
  self->tools = json_array_new ();
  self->tool_defs = json_array_new ();
  self->given_options = json_object_new ();
}

/* ---- persona ----------------------------------------------------------- */

static const char * const persona_strings[] = {
  "name", "role", "personality", "speakingStyle", "backstory", NULL
};
static const char * const persona_lists[] = { "goals", "knowledge", "secrets", NULL };
static const char * const persona_fields[] = {
  "name", "role", "personality", "speakingStyle", "backstory", "goals", "knowledge",
  "secrets", "defaultEmotion", "maxSentences", NULL
};

static JsonArray *
strv_to_array (char **strv)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    json_array_add_string_element (array, strv[i]);
  return array;
}

/**
 * gg_oam_npc_parse_persona:
 * @given: the client's persona object
 * @prefix: its name ("persona", "state.persona")
 * @warnings: unknown fields are reported here
 * @error: -32602 naming the field
 *
 * Returns: (transfer full): the persona with every field, or %NULL
 */
JsonObject *
gg_oam_npc_parse_persona (JsonObject *given,
                          const char *prefix,
                          GPtrArray  *warnings,
                          GError    **error)
{
  g_autoptr(JsonObject) persona = json_object_new ();
  const char *value, *emotion;
  gint64 sentences;

  gg_oam_warn_unknown (given, prefix, persona_fields, warnings);
  for (guint i = 0; persona_strings[i] != NULL; i++)
    {
      if (!gg_oam_param_string (given, prefix, persona_strings[i], i == 0, &value, error))
        return NULL;
      if (i == 0 && *value == '\0')
        {
          g_propagate_error (error, gg_oam_invalid_params ("'%s.name' must not be empty", prefix));
          return NULL;
        }
      json_object_set_string_member (persona, persona_strings[i], value != NULL ? value : "");
    }
  for (guint i = 0; persona_lists[i] != NULL; i++)
    {
      g_auto(GStrv) list = NULL;

      if (!gg_oam_param_strv (given, prefix, persona_lists[i], &list, error))
        return NULL;
      json_object_set_array_member (persona, persona_lists[i], strv_to_array (list));
    }
  if (!gg_oam_param_string (given, prefix, "defaultEmotion", FALSE, &emotion, error) ||
      !gg_oam_param_int (given, prefix, "maxSentences", 1, 20, 2, &sentences, error))
    return NULL;
  if (emotion != NULL && !gg_oam_npc_emotion_is_known (emotion))
    {
      g_propagate_error (error, gg_oam_invalid_params ("'%s.defaultEmotion': unknown emotion '%s'",
                                                       prefix, emotion));
      return NULL;
    }
  json_object_set_string_member (persona, "defaultEmotion", emotion != NULL ? emotion : "neutral");
  json_object_set_int_member (persona, "maxSentences", sentences);
  return g_steal_pointer (&persona);
}

/* ---- memory ------------------------------------------------------------ */

/**
 * gg_oam_npc_parse_memory:
 * @memory: (nullable): `{"facts", "relationship", "summary"?}`
 *
 * Replaces the NPC's memory with @memory (validated first).
 */
gboolean
gg_oam_npc_parse_memory (GgOamNpc   *npc,
                         JsonObject *memory,
                         const char *prefix,
                         GError    **error)
{
  g_auto(GStrv) facts = NULL;
  const char *summary;
  gint64 relationship;
  gint64 max_facts = gg_oam_npc_option_int (npc, "maxFacts");
  guint n, first;
  if (!gg_oam_param_strv (memory, prefix, "facts", &facts, error) ||
      !gg_oam_param_int (memory, prefix, "relationship", -100, 100, 0, &relationship, error) ||
      !gg_oam_param_string (memory, prefix, "summary", FALSE, &summary, error))
    return FALSE;
  g_ptr_array_set_size (npc->facts, 0);
  n = facts != NULL ? g_strv_length (facts) : 0;
  first = max_facts > 0 && n > (guint) max_facts ? n - (guint) max_facts : 0;
  for (guint i = first; i < n && (gint64) npc->facts->len < max_facts; i++)
    g_ptr_array_add (npc->facts, g_strdup (facts[i]));
  npc->relationship = relationship;
  g_free (npc->summary);
  npc->summary = g_strdup (summary);
  return TRUE;
}

/**
 * gg_oam_npc_memory_json:
 *
 * Returns: (transfer full): `{"facts", "relationship", "summary"?}`
 */
JsonNode *
gg_oam_npc_memory_json (GgOamNpc *npc)
{
  JsonObject *memory = json_object_new ();
  JsonArray *facts = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  for (guint i = 0; i < npc->facts->len; i++)
    json_array_add_string_element (facts, g_ptr_array_index (npc->facts, i));
  json_object_set_array_member (memory, "facts", facts);
  json_object_set_int_member (memory, "relationship", npc->relationship);
  if (npc->summary != NULL)
    json_object_set_string_member (memory, "summary", npc->summary);
  json_node_take_object (node, memory);
  return node;
}

/* ---- tools ------------------------------------------------------------- */

static JsonObject *
local_tool (const char *name,
            const char *description,
            const char *parameters_json)
{
  JsonObject *tool = json_object_new ();
  JsonNode *parameters = gg_json_parse (parameters_json, -1, GG_JSON_DEFAULT_MAX_DEPTH, NULL);

  json_object_set_string_member (tool, "name", name);
  json_object_set_string_member (tool, "description", description);
  json_object_set_member (tool, "parameters", parameters);
  return tool;
}

static gboolean
has_memory_tool (GgOamNpc   *npc,
                 const char *name)
{
  JsonArray *memory = json_object_get_array_member (npc->options, "memoryTools");

  for (guint i = 0; i < json_array_get_length (memory); i++)
    if (g_str_equal (json_array_get_string_element (memory, i), name))
      return TRUE;
  return FALSE;
}

/**
 * gg_oam_npc_local_tools:
 *
 * Returns: (transfer full): the built-in world and memory tools the NPC has
 */
JsonArray *
gg_oam_npc_local_tools (GgOamNpc *npc)
{
  JsonArray *tools = json_array_new ();

  if (npc->world != NULL && json_array_get_length (json_object_get_array_member (npc->options, "worldReadable")) > 0)
    json_array_add_object_element (tools, local_tool (GG_OAM_READ_WORLD_TOOL,
      "Read the game's world state at a dot path (\"player.gold\"; \"\" for everything). Use it to check facts.",
      "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"description\":\"A dot path\"}},\"required\":[\"path\"]}"));
  if (npc->world != NULL && json_array_get_length (json_object_get_array_member (npc->options, "worldWritable")) > 0)
    json_array_add_object_element (tools, local_tool (GG_OAM_UPDATE_WORLD_TOOL,
      "Change the game's world state at a dot path. The value keeps the type already stored.",
      "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"description\":\"A dot path\"},\"value\":{\"type\":\"string\",\"description\":\"The new value\"}},\"required\":[\"path\",\"value\"]}"));
  if (has_memory_tool (npc, "rememberFact"))
    json_array_add_object_element (tools, local_tool (GG_OAM_REMEMBER_FACT_TOOL,
      "Remember a short fact about the player or the world for later conversations.",
      "{\"type\":\"object\",\"properties\":{\"fact\":{\"type\":\"string\"}},\"required\":[\"fact\"]}"));
  if (has_memory_tool (npc, "changeRelationship"))
    json_array_add_object_element (tools, local_tool (GG_OAM_CHANGE_RELATIONSHIP_TOOL,
      "Change how much you like the player, by a small amount (negative: less).",
      "{\"type\":\"object\",\"properties\":{\"delta\":{\"type\":\"integer\"},\"reason\":{\"type\":\"string\"}},\"required\":[\"delta\"]}"));
  return tools;
}

/**
 * gg_oam_npc_all_tools:
 *
 * Returns: (transfer full): client tools, then the built-in ones
 */
JsonArray *
gg_oam_npc_all_tools (GgOamNpc *npc)
{
  g_autoptr(JsonArray) local = gg_oam_npc_local_tools (npc);
  JsonArray *all = json_array_new ();

  for (guint i = 0; i < json_array_get_length (npc->tools); i++)
    json_array_add_element (all, json_node_copy (json_array_get_element (npc->tools, i)));
  for (guint i = 0; i < json_array_get_length (local); i++)
    json_array_add_element (all, json_node_copy (json_array_get_element (local, i)));
  return all;
}

/**
 * gg_oam_npc_check_tools:
 *
 * Client tools must not shadow built-in ones, and `groundingTool` (or a
 * `{"tool"}` toolChoice) must name a tool the NPC has.
 */
gboolean
gg_oam_npc_check_tools (GgOamNpc  *npc,
                        GError   **error)
{
  g_autoptr(JsonArray) local = gg_oam_npc_local_tools (npc);
  g_autoptr(JsonArray) all = gg_oam_npc_all_tools (npc);
  const char *grounding = gg_oam_npc_option_string (npc, "groundingTool");
  JsonNode *choice = json_object_get_member (npc->options, "toolChoice");

  for (guint i = 0; i < json_array_get_length (local); i++)
    {
      const char *name = json_object_get_string_member (json_array_get_object_element (local, i), "name");

      if (gg_oam_tools_has (npc->tools, name))
        {
          g_propagate_error (error, gg_oam_invalid_params ("'tools': duplicate tool name '%s' (a built-in tool)",
                                                           name));
          return FALSE;
        }
    }
  /* A tool that a `targets` entry may offer is known when a turn starts. */
  if (grounding != NULL && !gg_oam_tools_has (all, grounding) &&
      !gg_oam_targets_may_offer (gg_oam_npc_targets (npc), grounding))
    {
      g_propagate_error (error, gg_oam_invalid_params ("'options.groundingTool': the NPC has no tool '%s'",
                                                       grounding));
      return FALSE;
    }
  if (choice != NULL && JSON_NODE_HOLDS_OBJECT (choice))
    {
      const char *tool = json_object_get_string_member (json_node_get_object (choice), "tool");

      if (!gg_oam_tools_has (all, tool) && !gg_oam_targets_may_offer (gg_oam_npc_targets (npc), tool))
        {
          g_propagate_error (error, gg_oam_invalid_params ("'options.toolChoice': the NPC has no tool '%s'",
                                                           tool));
          return FALSE;
        }
    }
  return TRUE;
}

/* ---- prompting --------------------------------------------------------- */

static void
append_list (GString    *text,
             const char *label,
             JsonArray  *list)
{
  if (list == NULL || json_array_get_length (list) == 0)
    return;
  g_string_append_printf (text, "\n%s: ", label);
  for (guint i = 0; i < json_array_get_length (list); i++)
    g_string_append_printf (text, "%s%s", i > 0 ? "; " : "", json_array_get_string_element (list, i));
  g_string_append_c (text, '.');
}

static void
append_field (GString    *text,
              const char *label,
              const char *value)
{
  if (value != NULL && *value != '\0')
    g_string_append_printf (text, "\n%s: %s", label, value);
}

/**
 * gg_oam_npc_instructions:
 * @text_format: whether the reply is plain text (`[emotion] line`)
 *
 * Returns: (transfer full): the instructions of a turn: persona, rules,
 *   unlocked secrets and the memory note
 */
char *
gg_oam_npc_instructions (GgOamNpc *npc,
                         gboolean  text_format)
{
  GString *text = g_string_new (NULL);
  JsonObject *p = npc->persona;
  const char *name = json_object_get_string_member (p, "name");
  const char *role = json_object_get_string_member (p, "role");
  JsonArray *secrets = json_object_get_array_member (p, "secrets");
  JsonNode *unlock = json_object_get_member (npc->options, "secretsUnlockAtRelationship");
  const char *extra = gg_oam_npc_option_string (npc, "extraInstructions");
  gboolean secrets_in = FALSE, guard_secrets = FALSE;

  if (*role != '\0')
    g_string_append_printf (text, "You play %s, %s, a character in a video game.", name, role);
  else
    g_string_append_printf (text, "You play %s, a character in a video game.", name);
  append_field (text, "Personality", json_object_get_string_member (p, "personality"));
  append_field (text, "Speaking style", json_object_get_string_member (p, "speakingStyle"));
  append_field (text, "Backstory", json_object_get_string_member (p, "backstory"));
  append_list (text, "Goals", json_object_get_array_member (p, "goals"));
  append_list (text, "You know", json_object_get_array_member (p, "knowledge"));
  if (json_array_get_length (secrets) > 0)
    {
      if (JSON_NODE_HOLDS_NULL (unlock))
        secrets_in = guard_secrets = TRUE;
      else if (npc->relationship >= json_node_get_int (unlock))
        secrets_in = TRUE;
    }
  if (secrets_in)
    append_list (text, "Secrets", secrets);

  g_string_append_printf (text, "\nRules:\n- Speak only as %s, in the first person.", name);
  g_string_append (text, "\n- Never say you are an AI or a language model.");
  g_string_append_printf (text, "\n- Answer in at most %" G_GINT64_FORMAT " sentences.",
                          json_object_get_int_member (p, "maxSentences"));
  g_string_append (text, "\n- Use your tools to check facts instead of inventing them.");
  if (guard_secrets)
    g_string_append (text, "\n- Keep your secrets unless the player has truly earned your trust.");
  if (has_memory_tool (npc, "rememberFact"))
    g_string_append (text, "\n- Call remember_fact when you learn something worth remembering.");
  if (has_memory_tool (npc, "changeRelationship"))
    g_string_append (text, "\n- Call change_relationship when the player treats you well or badly.");
  if (text_format)
    {
      JsonArray *allowed = json_object_get_array_member (npc->options, "emotions");

      g_string_append (text, "\n- Start your reply with your emotion in brackets, one of: ");
      for (guint i = 0; i < json_array_get_length (allowed); i++)
        g_string_append_printf (text, "%s[%s]", i > 0 ? ", " : "", json_array_get_string_element (allowed, i));
      g_string_append (text, ". Example: [neutral] Good day.");
    }
  if (extra != NULL)
    g_string_append_printf (text, "\n%s", extra);

  /* The memory note, every turn. */
  g_string_append_printf (text, "\n\nYour memory:\nRelationship with the player: %" G_GINT64_FORMAT
                          " (-100 hostile .. 100 devoted).", npc->relationship);
  for (guint i = 0; i < npc->facts->len; i++)
    g_string_append_printf (text, "\n- %s", (const char *) g_ptr_array_index (npc->facts, i));
  if (npc->summary != NULL)
    g_string_append_printf (text, "\nEarlier: %s", npc->summary);
  return g_string_free (text, FALSE);
}

/**
 * gg_oam_npc_prompt:
 * @line: what the player says ("" = nothing)
 * @context: (nullable): the situation, this turn only
 *
 * Returns: (transfer full): `Game state:` lines, a `Situation:` line and the
 *   `Player:` line
 */
char *
gg_oam_npc_prompt (GgOamNpc   *npc,
                   const char *line,
                   const char *context)
{
  GString *text = g_string_new (NULL);
  JsonArray *paths = json_object_get_array_member (npc->options, "worldContextPaths");

  if (npc->world != NULL && json_array_get_length (paths) > 0)
    {
      g_string_append (text, "Game state:");
      for (guint i = 0; i < json_array_get_length (paths); i++)
        {
          const char *path = json_array_get_string_element (paths, i);
          gboolean exists = FALSE;
          g_autoptr(JsonNode) value = gg_oam_world_get (npc->world, path, &exists, NULL);
          g_autofree char *shown = value != NULL ? gg_json_to_string (value) : g_strdup ("(unknown)");

          g_string_append_printf (text, "\n%s: %s", path, shown);
        }
      g_string_append (text, "\n");
    }
  if (context != NULL && *context != '\0')
    g_string_append_printf (text, "Situation: %s\n", context);
  if (line != NULL && *line != '\0')
    g_string_append_printf (text, "Player: %s", line);
  else
    g_string_append (text, "Player: (The player says nothing.)");
  return g_string_free (text, FALSE);
}

/**
 * gg_oam_npc_next_fallback:
 *
 * Returns: (transfer none): the next fallback line, rotating
 */
const char *
gg_oam_npc_next_fallback (GgOamNpc *npc)
{
  JsonArray *lines = json_object_get_array_member (npc->options, "fallbackLines");
  const char *line = json_array_get_string_element (lines, npc->fallback_index % json_array_get_length (lines));

  npc->fallback_index++;
  return line;
}

/**
 * gg_oam_npc_state:
 *
 * Returns: (transfer full): the save state of npc/state
 */
JsonNode *
gg_oam_npc_state (GgOamNpc *npc)
{
  JsonObject *state = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_int_member (state, "version", STATE_VERSION);
  json_object_set_object_member (state, "persona", json_object_ref (npc->persona));
  json_object_set_member (state, "memory", gg_oam_npc_memory_json (npc));
  json_object_set_member (state, "transcript", gg_oam_transcript_build (NULL, NULL, npc->history));
  json_object_set_string_member (state, "npc", npc->id);
  json_object_set_object_member (state, "options", json_object_ref (npc->options));
  json_object_set_array_member (state, "tools", json_array_ref (npc->tool_defs));
  if (npc->world_id != NULL)
    json_object_set_string_member (state, "world", npc->world_id);
  json_node_take_object (node, state);
  return node;
}

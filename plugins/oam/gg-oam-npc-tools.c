/* gg-oam-npc-tools.c: an NPC's built-in tools, run inside the bridge:
 * read_world_state and update_world_state (within worldReadable and
 * worldWritable), remember_fact and change_relationship. Mistakes come back
 * to the model as error outputs that name what is valid.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "gg-oam-npc.h"
#include "gg-oam-world.h"

/* Large values are shortened for the small model's context. */
#define MAX_VALUE_CHARS 1500

gboolean
gg_oam_npc_is_local_tool (GgOamNpc   *npc,
                          const char *name)
{
  return g_str_equal (name, GG_OAM_READ_WORLD_TOOL) || g_str_equal (name, GG_OAM_UPDATE_WORLD_TOOL) ||
         g_str_equal (name, GG_OAM_REMEMBER_FACT_TOOL) || g_str_equal (name, GG_OAM_CHANGE_RELATIONSHIP_TOOL);
}

static void
return_text (GgToolInvocation *invocation,
             const char       *text,
             gboolean          is_error)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);

  json_node_set_string (node, text);
  gg_tool_invocation_return_output (invocation, node, is_error);
}

static const char *
argument_string (GgToolInvocation *invocation,
                 const char       *name)
{
  JsonNode *arguments = gg_tool_invocation_get_arguments (invocation);
  JsonNode *value;

  if (arguments == NULL || !JSON_NODE_HOLDS_OBJECT (arguments))
    return NULL;
  value = json_object_get_member (json_node_get_object (arguments), name);
  return value != NULL && json_node_get_value_type (value) == G_TYPE_STRING ? json_node_get_string (value) : NULL;
}

/* Whether @path is at or inside one of @allowed ("" allows everything). */
static gboolean
path_allowed (JsonArray  *allowed,
              const char *path)
{
  for (guint i = 0; i < json_array_get_length (allowed); i++)
    {
      const char *prefix = json_array_get_string_element (allowed, i);
      gsize length = strlen (prefix);

      if (*prefix == '\0' || g_ascii_strcasecmp (path, prefix) == 0 ||
          (g_ascii_strncasecmp (path, prefix, length) == 0 && path[length] == '.'))
        return TRUE;
    }
  return FALSE;
}

static char *
allowed_list (JsonArray *allowed)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (allowed); i++)
    {
      const char *path = json_array_get_string_element (allowed, i);
      g_string_append_printf (text, "%s'%s'", i > 0 ? ", " : "", *path == '\0' ? "(everything)" : path);
    }
  return g_string_free (text, FALSE);
}

/* Resolves @path against the state with case-insensitive keys, so the
 * model's "Player.Gold" finds "player.gold". */
static char *
resolve_path (GgOamWorld *world,
              const char *path)
{
  g_autoptr(JsonNode) node = gg_oam_world_snapshot (world);
  g_auto(GStrv) parts = NULL;
  GString *resolved;
  JsonNode *current = node;

  if (*path == '\0')
    return g_strdup ("");
  parts = g_strsplit (path, ".", -1);
  resolved = g_string_new (NULL);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *segment = parts[i];

      if (current != NULL && JSON_NODE_HOLDS_OBJECT (current))
        {
          JsonObject *object = json_node_get_object (current);
          g_autoptr(GList) members = json_object_get_members (object);
          const char *match = NULL;

          for (GList *l = members; l != NULL; l = l->next)
            if (g_strcmp0 (l->data, segment) == 0)
              match = l->data;
          for (GList *l = members; match == NULL && l != NULL; l = l->next)
            if (g_ascii_strcasecmp (l->data, segment) == 0)
              match = l->data;
          if (match != NULL)
            segment = match;
          current = match != NULL ? json_object_get_member (object, match) : NULL;
        }
      else if (current != NULL && JSON_NODE_HOLDS_ARRAY (current))
        {
          char *end = NULL;
          guint64 index = g_ascii_strtoull (segment, &end, 10);
          JsonArray *array = json_node_get_array (current);

          current = end != segment && *end == '\0' && index < json_array_get_length (array) ?
                    json_array_get_element (array, (guint) index) : NULL;
        }
      else
        current = NULL;
      g_string_append_printf (resolved, "%s%s", i > 0 ? "." : "", segment);
    }
  return g_string_free (resolved, FALSE);
}

static void
read_world (GgOamNpc         *npc,
            GgToolInvocation *invocation)
{
  JsonArray *readable = json_object_get_array_member (npc->options, "worldReadable");
  const char *path = argument_string (invocation, "path");
  g_autofree char *resolved = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) value = NULL;
  gboolean exists = FALSE;

  if (path == NULL)
    path = "";
  if (!path_allowed (readable, path))
    {
      g_autofree char *list = allowed_list (readable);
      g_autofree char *message = g_strdup_printf ("'%s' is not readable. Readable paths: %s.", path, list);
      return_text (invocation, message, TRUE);
      return;
    }
  resolved = resolve_path (npc->world, path);
  value = gg_oam_world_get (npc->world, resolved, &exists, &error);
  if (value == NULL || !exists)
    {
      g_autoptr(JsonNode) root = gg_oam_world_snapshot (npc->world);
      g_autoptr(GList) keys = json_object_get_members (json_node_get_object (root));
      GString *list = g_string_new (NULL);
      g_autofree char *message = NULL;

      for (GList *l = keys; l != NULL; l = l->next)
        g_string_append_printf (list, "%s'%s'", l == keys ? "" : ", ", (const char *) l->data);
      message = g_strdup_printf ("Nothing at '%s'. Top-level paths: %s.", path, list->str);
      g_string_free (list, TRUE);
      return_text (invocation, message, TRUE);
      return;
    }
  text = gg_json_to_string (value);
  if (g_utf8_strlen (text, -1) > MAX_VALUE_CHARS)
    {
      char *cut = g_utf8_offset_to_pointer (text, MAX_VALUE_CHARS);
      g_autofree char *shortened = NULL;

      *cut = '\0';
      shortened = g_strdup_printf ("%s… (shortened; read a deeper path)", text);
      return_text (invocation, shortened, FALSE);
      return;
    }
  gg_tool_invocation_return_output (invocation, value, FALSE);
}

/* Keeps the type already stored: a number stays a number. */
static JsonNode *
coerce (JsonNode   *old_value,
        JsonNode   *given,
        const char *path,
        char      **problem)
{
  const char *text = json_node_get_value_type (given) == G_TYPE_STRING ? json_node_get_string (given) : NULL;

  if (old_value == NULL || !JSON_NODE_HOLDS_VALUE (old_value) || text == NULL)
    return json_node_copy (given);
  switch (json_node_get_value_type (old_value))
    {
    case G_TYPE_INT64:
      {
        char *end = NULL;
        gint64 number = g_ascii_strtoll (text, &end, 10);
        JsonNode *node;

        if (end == text || *end != '\0')
          {
            double d = g_ascii_strtod (text, &end);

            if (end == text || *end != '\0')
              {
                *problem = g_strdup_printf ("'%s' holds a number; '%s' is not one.", path, text);
                return NULL;
              }
            node = json_node_new (JSON_NODE_VALUE);
            json_node_set_double (node, d);
            return node;
          }
        node = json_node_new (JSON_NODE_VALUE);
        json_node_set_int (node, number);
        return node;
      }
    case G_TYPE_DOUBLE:
      {
        char *end = NULL;
        double d = g_ascii_strtod (text, &end);
        JsonNode *node;

        if (end == text || *end != '\0')
          {
            *problem = g_strdup_printf ("'%s' holds a number; '%s' is not one.", path, text);
            return NULL;
          }
        node = json_node_new (JSON_NODE_VALUE);
        json_node_set_double (node, d);
        return node;
      }
    case G_TYPE_BOOLEAN:
      {
        JsonNode *node;

        if (g_ascii_strcasecmp (text, "true") != 0 && g_ascii_strcasecmp (text, "false") != 0)
          {
            *problem = g_strdup_printf ("'%s' holds true or false; '%s' is neither.", path, text);
            return NULL;
          }
        node = json_node_new (JSON_NODE_VALUE);
        json_node_set_boolean (node, g_ascii_strcasecmp (text, "true") == 0);
        return node;
      }
    default:
      return json_node_copy (given);
    }
}

static void
update_world (GgOamNpc         *npc,
              GgToolInvocation *invocation)
{
  JsonArray *writable = json_object_get_array_member (npc->options, "worldWritable");
  JsonNode *arguments = gg_tool_invocation_get_arguments (invocation);
  const char *path = argument_string (invocation, "path");
  JsonNode *given = arguments != NULL && JSON_NODE_HOLDS_OBJECT (arguments) ?
                    json_object_get_member (json_node_get_object (arguments), "value") : NULL;
  g_autofree char *resolved = NULL;
  g_autofree char *problem = NULL;
  g_autoptr(JsonNode) old_value = NULL;
  g_autoptr(JsonNode) value = NULL;
  g_autoptr(GError) error = NULL;
  gboolean exists = FALSE;

  if (path == NULL || *path == '\0' || given == NULL)
    {
      return_text (invocation, "Give a 'path' and a 'value'.", TRUE);
      return;
    }
  if (!path_allowed (writable, path))
    {
      g_autofree char *list = allowed_list (writable);
      g_autofree char *message = g_strdup_printf ("'%s' is not writable. Writable paths: %s.", path, list);
      return_text (invocation, message, TRUE);
      return;
    }
  resolved = resolve_path (npc->world, path);
  old_value = gg_oam_world_get (npc->world, resolved, &exists, NULL);
  value = coerce (exists ? old_value : NULL, given, resolved, &problem);
  if (value == NULL)
    {
      return_text (invocation, problem, TRUE);
      return;
    }
  if (!gg_oam_world_set (npc->world, resolved, value, &error))
    {
      g_autofree char *message = g_strdup_printf ("Cannot set '%s': %s", resolved, error->message);
      return_text (invocation, message, TRUE);
      return;
    }
  {
    g_autofree char *shown = gg_json_to_string (value);
    g_autofree char *message = g_strdup_printf ("Set %s to %s.", resolved, shown);
    return_text (invocation, message, FALSE);
  }
}

static void
remember_fact (GgOamNpc         *npc,
               GgToolInvocation *invocation)
{
  const char *fact = argument_string (invocation, "fact");
  gint64 max_facts = gg_oam_npc_option_int (npc, "maxFacts");

  if (fact == NULL || *fact == '\0')
    {
      return_text (invocation, "Give the 'fact' to remember.", TRUE);
      return;
    }
  if (max_facts == 0)
    {
      return_text (invocation, "There is no room for facts.", TRUE);
      return;
    }
  while ((gint64) npc->facts->len >= max_facts)
    g_ptr_array_remove_index (npc->facts, 0);
  g_ptr_array_add (npc->facts, g_strdup (fact));
  return_text (invocation, "Remembered.", FALSE);
}

static void
change_relationship (GgOamNpc         *npc,
                     GgToolInvocation *invocation)
{
  JsonNode *arguments = gg_tool_invocation_get_arguments (invocation);
  JsonNode *delta_node = arguments != NULL && JSON_NODE_HOLDS_OBJECT (arguments) ?
                         json_object_get_member (json_node_get_object (arguments), "delta") : NULL;
  gint64 limit = gg_oam_npc_option_int (npc, "maxRelationshipChange");
  gint64 delta;
  g_autofree char *message = NULL;

  if (delta_node == NULL || !JSON_NODE_HOLDS_VALUE (delta_node) ||
      (json_node_get_value_type (delta_node) != G_TYPE_INT64 &&
       json_node_get_value_type (delta_node) != G_TYPE_DOUBLE))
    {
      return_text (invocation, "Give 'delta' as a whole number.", TRUE);
      return;
    }
  delta = json_node_get_value_type (delta_node) == G_TYPE_INT64 ? json_node_get_int (delta_node)
          : (gint64) CLAMP (json_node_get_double (delta_node), -1000.0, 1000.0);
  delta = CLAMP (delta, -limit, limit);
  npc->relationship = CLAMP (npc->relationship + delta, -100, 100);
  message = g_strdup_printf ("Relationship is now %" G_GINT64_FORMAT ".", npc->relationship);
  return_text (invocation, message, FALSE);
}

/**
 * gg_oam_npc_run_local_tool:
 * @invocation: (transfer none): a call of a built-in tool; answered at once
 */
void
gg_oam_npc_run_local_tool (GgOamNpc         *npc,
                           GgToolInvocation *invocation)
{
  const char *name = gg_tool_invocation_get_name (invocation);

  if (g_str_equal (name, GG_OAM_READ_WORLD_TOOL) && npc->world != NULL)
    read_world (npc, invocation);
  else if (g_str_equal (name, GG_OAM_UPDATE_WORLD_TOOL) && npc->world != NULL)
    update_world (npc, invocation);
  else if (g_str_equal (name, GG_OAM_REMEMBER_FACT_TOOL))
    remember_fact (npc, invocation);
  else if (g_str_equal (name, GG_OAM_CHANGE_RELATIONSHIP_TOOL))
    change_relationship (npc, invocation);
  else
    return_text (invocation, "This tool is not available.", TRUE);
}

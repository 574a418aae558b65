/* gg-scripted-step.c: one step of a model script: parsing and checking it,
 * template substitution and splitting text into streamed pieces.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-scripted.h"

/* oam: `null` members are treated as absent. */
static JsonNode *
member (JsonObject *object,
        const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return NULL;
  return node;
}

static gboolean
is_string (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
}

/* An integer in [min, max]; integral doubles ("3.0") count. */
static gboolean
get_integer (JsonNode *node,
             gint64    min,
             gint64    max,
             gint64   *out)
{
  GType type;

  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    {
      gint64 value = json_node_get_int (node);
      if (value < min || value > max)
        return FALSE;
      *out = value;
      return TRUE;
    }
  if (type == G_TYPE_DOUBLE)
    {
      double value = json_node_get_double (node);
      /* The range check also rules out NaN and infinities. */
      if (!(value >= (double) min && value <= (double) max) || value != (double) (gint64) value)
        return FALSE;
      *out = (gint64) value;
      return TRUE;
    }
  return FALSE;
}

/**
 * gg_scripted_step_free:
 * @step: (transfer full) (nullable): a step
 */
void
gg_scripted_step_free (GgScriptedStep *step)
{
  if (step == NULL)
    return;
  g_free (step->text);
  g_clear_pointer (&step->tool_calls, json_array_unref);
  g_clear_pointer (&step->json, json_node_unref);
  g_free (step->message);
  g_free (step);
}

static gboolean
parse_tool_calls (GgScriptedStep  *step,
                  JsonNode        *node,
                  const char      *where,
                  GError         **error)
{
  JsonArray *array;

  if (!JSON_NODE_HOLDS_ARRAY (node) || json_array_get_length (json_node_get_array (node)) == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "%s.toolCalls: must be a non-empty array", where);
      return FALSE;
    }
  array = json_node_get_array (node);
  step->tool_calls = json_array_new ();
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      JsonObject *given;
      JsonObject *call;
      JsonNode *value;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "%s.toolCalls[%u]: must be an object", where, i);
          return FALSE;
        }
      given = json_node_get_object (element);
      call = json_object_new ();
      json_array_add_object_element (step->tool_calls, call);

      value = member (given, "name");
      if (value == NULL || !is_string (value) || *json_node_get_string (value) == '\0')
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "%s.toolCalls[%u].name: must be a non-empty string", where, i);
          return FALSE;
        }
      json_object_set_string_member (call, "name", json_node_get_string (value));

      value = member (given, "arguments");
      if (value != NULL && !JSON_NODE_HOLDS_OBJECT (value))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "%s.toolCalls[%u].arguments: must be an object", where, i);
          return FALSE;
        }
      if (value != NULL)
        json_object_set_member (call, "arguments", json_node_copy (value));

      value = member (given, "id");
      if (value != NULL && (!is_string (value) || *json_node_get_string (value) == '\0'))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "%s.toolCalls[%u].id: must be a non-empty string", where, i);
          return FALSE;
        }
      if (value != NULL)
        json_object_set_string_member (call, "id", json_node_get_string (value));
    }
  return TRUE;
}

/**
 * gg_scripted_step_parse:
 * @node: the step's JSON
 * @where: how error messages name it ("model.steps[2]", "model.fallback")
 * @error: return location for a %G_IO_ERROR_INVALID_ARGUMENT naming the
 *   bad member
 *
 * Returns: (transfer full) (nullable): the step, or %NULL with @error set
 */
GgScriptedStep *
gg_scripted_step_parse (JsonNode    *node,
                        const char  *where,
                        GError     **error)
{
  static const char *const kinds[] = { "text", "toolCalls", "json", "template", "error" };
  g_autoptr(GgScriptedStep) step = g_new0 (GgScriptedStep, 1);
  JsonObject *object;
  JsonNode *value;
  guint found = 0;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s: must be an object", where);
      return NULL;
    }
  object = json_node_get_object (node);

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (member (object, kinds[i]) != NULL)
      {
        step->kind = (GgScriptedStepKind) i;
        found++;
      }
  if (found == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s: unknown step kind", where);
      return NULL;
    }
  if (found > 1)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "%s: more than one step kind (use exactly one of text, toolCalls, json, template, error)",
                   where);
      return NULL;
    }

  value = member (object, kinds[step->kind]);
  switch (step->kind)
    {
    case GG_SCRIPTED_STEP_TEXT:
    case GG_SCRIPTED_STEP_TEMPLATE:
      if (!is_string (value))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "%s.%s: must be a string", where, kinds[step->kind]);
          return NULL;
        }
      step->text = g_strdup (json_node_get_string (value));
      break;
    case GG_SCRIPTED_STEP_TOOL_CALLS:
      if (!parse_tool_calls (step, value, where, error))
        return NULL;
      break;
    case GG_SCRIPTED_STEP_JSON:
      step->json = json_node_copy (value);
      break;
    case GG_SCRIPTED_STEP_ERROR:
      if (!is_string (value))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "%s.error: must be a string", where);
          return NULL;
        }
      if (!gg_model_error_from_name (json_node_get_string (value), &step->error))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "%s.error: unknown error code '%s'", where, json_node_get_string (value));
          return NULL;
        }
      value = member (object, "message");
      if (value != NULL && !is_string (value))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "%s.message: must be a string", where);
          return NULL;
        }
      step->message = value != NULL ? g_strdup (json_node_get_string (value)) : NULL;
      break;
    default:
      g_assert_not_reached ();
    }

  step->chunks = 1;
  value = member (object, "chunks");
  if (value != NULL)
    {
      gint64 chunks;

      if (!get_integer (value, 1, G_MAXUINT32, &chunks))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "%s.chunks: must be a positive integer", where);
          return NULL;
        }
      step->chunks = (guint) chunks;
    }

  value = member (object, "delayMs");
  if (value != NULL)
    {
      gint64 delay;

      if (!get_integer (value, 0, GG_SCRIPTED_MAX_DELAY_MS, &delay))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "%s.delayMs: must be a non-negative integer (at most %d)",
                       where, GG_SCRIPTED_MAX_DELAY_MS);
          return NULL;
        }
      step->delay_ms = (guint) delay;
    }

  return g_steal_pointer (&step);
}

/* A string member of a transcript entry; the history may hold anything. */
static const char *
entry_string (JsonObject *entry,
              const char *name)
{
  JsonNode *node = json_object_get_member (entry, name);

  if (node == NULL || !is_string (node))
    return NULL;
  return json_node_get_string (node);
}

/* The index of the last user entry, or -1. */
static gint
last_user_entry (JsonArray *transcript)
{
  for (gint i = (gint) json_array_get_length (transcript) - 1; i >= 0; i--)
    {
      JsonNode *node = json_array_get_element (transcript, i);

      if (JSON_NODE_HOLDS_OBJECT (node) &&
          g_strcmp0 (entry_string (json_node_get_object (node), "role"), "user") == 0)
        return i;
    }
  return -1;
}

/**
 * gg_scripted_expand_template:
 * @template_text: the template
 * @request: the step's request
 *
 * Substitutes `{prompt}` (the latest user prompt), `{toolOutput}` (the latest
 * tool output of this turn) and `{toolOutputs}` (all of this turn, one per
 * line). Other braces stay as they are.
 *
 * Returns: (transfer full): the answer text
 */
char *
gg_scripted_expand_template (const char     *template_text,
                             GgModelRequest *request)
{
  JsonArray *transcript = request->transcript;
  gint user = transcript != NULL ? last_user_entry (transcript) : -1;
  const char *prompt = "";
  const char *latest = "";
  g_autoptr(GString) outputs = g_string_new (NULL);
  GString *result = g_string_new (NULL);
  const char *p = template_text;

  if (user >= 0)
    prompt = entry_string (json_array_get_object_element (transcript, user), "text");
  if (transcript != NULL)
    for (guint i = (guint) (user + 1); i < json_array_get_length (transcript); i++)
      {
        JsonNode *node = json_array_get_element (transcript, i);
        JsonObject *entry;

        if (!JSON_NODE_HOLDS_OBJECT (node))
          continue;
        entry = json_node_get_object (node);
        if (g_strcmp0 (entry_string (entry, "role"), "tool") != 0)
          continue;
        latest = entry_string (entry, "output");
        if (latest == NULL)
          latest = "";
        if (outputs->len > 0)
          g_string_append_c (outputs, '\n');
        g_string_append (outputs, latest);
      }
  if (prompt == NULL)
    prompt = "";

  while (*p != '\0')
    {
      if (g_str_has_prefix (p, "{prompt}"))
        {
          g_string_append (result, prompt);
          p += strlen ("{prompt}");
        }
      else if (g_str_has_prefix (p, "{toolOutputs}"))
        {
          g_string_append (result, outputs->str);
          p += strlen ("{toolOutputs}");
        }
      else if (g_str_has_prefix (p, "{toolOutput}"))
        {
          g_string_append (result, latest);
          p += strlen ("{toolOutput}");
        }
      else
        g_string_append_c (result, *p++);
    }
  return g_string_free (result, FALSE);
}

/**
 * gg_scripted_split_text:
 * @text: the text to stream
 * @chunks: how many pieces to aim for (at least 1)
 *
 * Splits @text on word boundaries into about @chunks pieces (fewer when it
 * has fewer words); each word keeps its trailing spaces, so the pieces
 * concatenate to @text exactly.
 *
 * Returns: (transfer full) (element-type utf8): the pieces, none for ""
 */
GPtrArray *
gg_scripted_split_text (const char *text,
                        guint       chunks)
{
  GPtrArray *pieces = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) starts = g_array_new (FALSE, FALSE, sizeof (gsize));
  gsize length = strlen (text);
  gsize i = 0;
  guint words;
  guint count;

  if (length == 0)
    return pieces;

  /* A word starts where a non-space follows a space; leading spaces stay
   * with the first word. */
  g_array_append_val (starts, i);
  for (i = 1; i < length; i++)
    if (!g_ascii_isspace (text[i]) && g_ascii_isspace (text[i - 1]))
      g_array_append_val (starts, i);

  words = starts->len;
  count = MAX (1, MIN (chunks, words));
  for (guint k = 0; k < count; k++)
    {
      guint first = (guint) (((guint64) k * words) / count);
      guint last = (guint) (((guint64) (k + 1) * words) / count);
      gsize from = g_array_index (starts, gsize, first);
      gsize to = last < words ? g_array_index (starts, gsize, last) : length;

      g_ptr_array_add (pieces, g_strndup (text + from, to - from));
    }
  return pieces;
}

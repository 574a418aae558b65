/* refgame-commands.c: command table and argument typing for /command.
 *
 * Arguments arrive as strings; each command declares what it takes, and a
 * request is typed (or refused) when it is queued, so the game thread only
 * ever applies well-formed commands.  Unknown extra parameters are reported
 * back as "ignored" rather than refused: a bridge may add its own.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "refgame-commands.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (rg-command-error-quark, rg_command_error)

#define MAX_SAFE_INT G_GINT64_CONSTANT (9007199254740991)  /* 2^53 - 1: exact in JSON */
#define MAX_JSON_DEPTH 16

typedef enum {
  ARG_NUMBER,
  ARG_BOOLEAN,
  ARG_INTEGER,
  ARG_KIND,
  ARG_CRATE,
} ArgType;

typedef struct {
  const char *name;
  ArgType     type;
  gboolean    required;
  gint64      min;       /* ARG_INTEGER bounds; ARG_NUMBER bounds in world units */
  gint64      max;
} ArgSpec;

typedef struct {
  const char *name;
  ArgSpec     args[3];
} CommandSpec;

static const CommandSpec commands[] = {
  { "spawn",     { { "kind", ARG_KIND }, { "crate", ARG_CRATE } } },
  { "drop",      { { "x", ARG_NUMBER, FALSE, -1000, 1000 }, { "settle", ARG_BOOLEAN } } },
  { "move",      { { "dx", ARG_NUMBER, FALSE, -1000, 1000 } } },
  { "pause",     { { NULL } } },
  { "resume",    { { NULL } } },
  { "restart",   { { NULL } } },
  { "set_seed",  { { "seed", ARG_INTEGER, TRUE, 0, MAX_SAFE_INT } } },
  { "set_score", { { "score", ARG_INTEGER, TRUE, -MAX_SAFE_INT, MAX_SAFE_INT } } },
  { "close",     { { NULL } } },
};

static const char * const known_names[] = {
  "spawn", "drop", "move", "pause", "resume", "restart", "set_seed", "set_score", "close", NULL
};

static const char * const kind_names[] = { "wood", "steel", "ice", NULL };

G_STATIC_ASSERT (G_N_ELEMENTS (known_names) == G_N_ELEMENTS (commands) + 1);

/**
 * rg_commands_known:
 *
 * Returns: (transfer none): the command names /command accepts, %NULL-terminated.
 */
const char * const *
rg_commands_known (void)
{
  return known_names;
}

/**
 * rg_command_error_code:
 * @error: an error from rg_commands_parse()
 *
 * Returns: the short machine-readable code /command answers with.
 */
const char *
rg_command_error_code (const GError *error)
{
  if (error->domain == RG_COMMAND_ERROR)
    switch ((RgCommandError) error->code)
      {
      case RG_COMMAND_ERROR_MISSING_CMD: return "missing_cmd";
      case RG_COMMAND_ERROR_UNKNOWN_COMMAND: return "unknown_command";
      case RG_COMMAND_ERROR_MISSING_ARGUMENT: return "missing_argument";
      case RG_COMMAND_ERROR_INVALID_ARGUMENT: return "invalid_argument";
      }
  return "bad_request";
}

static gboolean
parse_number (const char *text,
              double      min,
              double      max,
              double     *out)
{
  char *end = NULL;
  double v;

  if (*text == '\0' || g_ascii_isspace (*text))
    return FALSE;
  v = g_ascii_strtod (text, &end);
  if (end == text || *end != '\0' || !isfinite (v) || v < min || v > max)
    return FALSE;
  *out = v;
  return TRUE;
}

static gboolean
parse_boolean (const char *text,
               gboolean   *out)
{
  if (g_str_equal (text, "true") || g_str_equal (text, "1"))
    *out = TRUE;
  else if (g_str_equal (text, "false") || g_str_equal (text, "0"))
    *out = FALSE;
  else
    return FALSE;
  return TRUE;
}

/* json-glib's parser recurses; bound the nesting before handing text to it. */
static gboolean
json_depth_ok (const char *text)
{
  int depth = 0;
  gboolean in_string = FALSE;

  for (const char *p = text; *p != '\0'; p++)
    {
      if (in_string)
        {
          if (*p == '\\' && p[1] != '\0')
            p++;
          else if (*p == '"')
            in_string = FALSE;
        }
      else if (*p == '"')
        in_string = TRUE;
      else if (*p == '{' || *p == '[')
        {
          if (++depth > MAX_JSON_DEPTH)
            return FALSE;
        }
      else if (*p == '}' || *p == ']')
        depth--;
    }
  return TRUE;
}

static gboolean
crate_member_ok (JsonObject  *crate,
                 const char  *member,
                 GError     **error)
{
  JsonNode *node = json_object_get_member (crate, member);

  if (g_str_equal (member, "kind"))
    {
      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING &&
          g_strv_contains (kind_names, json_node_get_string (node)))
        return TRUE;
      g_set_error (error, RG_COMMAND_ERROR, RG_COMMAND_ERROR_INVALID_ARGUMENT,
                   "crate.kind must be one of wood, steel, ice");
      return FALSE;
    }
  if (g_str_equal (member, "width"))
    {
      GType t = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
      double w = (t == G_TYPE_DOUBLE || t == G_TYPE_INT64) ? json_node_get_double (node) : -1;

      if (w >= 0.2 && w <= 1.0)
        return TRUE;
      g_set_error (error, RG_COMMAND_ERROR, RG_COMMAND_ERROR_INVALID_ARGUMENT,
                   "crate.width must be a number from 0.2 to 1");
      return FALSE;
    }
  g_set_error (error, RG_COMMAND_ERROR, RG_COMMAND_ERROR_INVALID_ARGUMENT,
               "crate has no member '%s' (it takes kind and width)", member);
  return FALSE;
}

static JsonNode *
parse_crate (const char  *text,
             GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) local_error = NULL;
  JsonNode *root;
  JsonObject *crate;
  g_autoptr(GList) members = NULL;

  if (!json_depth_ok (text) || !json_parser_load_from_data (parser, text, -1, &local_error))
    {
      g_set_error (error, RG_COMMAND_ERROR, RG_COMMAND_ERROR_INVALID_ARGUMENT,
                   "crate must be a JSON-encoded object");
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, RG_COMMAND_ERROR, RG_COMMAND_ERROR_INVALID_ARGUMENT,
                   "crate must be a JSON-encoded object");
      return NULL;
    }
  crate = json_node_get_object (root);
  members = json_object_get_members (crate);
  for (GList *l = members; l != NULL; l = l->next)
    if (!crate_member_ok (crate, l->data, error))
      return NULL;
  return json_node_copy (root);
}

static JsonNode *
type_argument (const ArgSpec  *spec,
               const char     *text,
               GError        **error)
{
  double number;
  gboolean boolean;
  gint64 integer;

  switch (spec->type)
    {
    case ARG_NUMBER:
      if (parse_number (text, (double) spec->min, (double) spec->max, &number))
        return json_node_init_double (json_node_alloc (), number);
      g_set_error (error, RG_COMMAND_ERROR, RG_COMMAND_ERROR_INVALID_ARGUMENT,
                   "%s must be a number from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT,
                   spec->name, spec->min, spec->max);
      return NULL;
    case ARG_BOOLEAN:
      if (parse_boolean (text, &boolean))
        return json_node_init_boolean (json_node_alloc (), boolean);
      g_set_error (error, RG_COMMAND_ERROR, RG_COMMAND_ERROR_INVALID_ARGUMENT,
                   "%s must be true or false", spec->name);
      return NULL;
    case ARG_INTEGER:
      if (g_ascii_string_to_signed (text, 10, spec->min, spec->max, &integer, NULL))
        return json_node_init_int (json_node_alloc (), integer);
      g_set_error (error, RG_COMMAND_ERROR, RG_COMMAND_ERROR_INVALID_ARGUMENT,
                   "%s must be an integer from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT,
                   spec->name, spec->min, spec->max);
      return NULL;
    case ARG_KIND:
      if (g_strv_contains (kind_names, text))
        return json_node_init_string (json_node_alloc (), text);
      g_set_error (error, RG_COMMAND_ERROR, RG_COMMAND_ERROR_INVALID_ARGUMENT,
                   "%s must be one of wood, steel, ice", spec->name);
      return NULL;
    case ARG_CRATE:
      return parse_crate (text, error);
    }
  g_return_val_if_reached (NULL);
}

static gint
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

/**
 * rg_commands_parse:
 * @params: decoded query parameters (from rg_query_parse())
 * @out_name: (out): the command name
 * @out_ignored: (out): parameter names the command does not take, sorted
 * @error: RG_COMMAND_ERROR on a refusal
 *
 * Types a /command request against the command table.
 *
 * Returns: (transfer full): the typed arguments, or %NULL.
 */
JsonObject *
rg_commands_parse (GHashTable  *params,
                   char       **out_name,
                   GPtrArray  **out_ignored,
                   GError     **error)
{
  const char *name = g_hash_table_lookup (params, "cmd");
  const CommandSpec *spec = NULL;
  g_autoptr(JsonObject) args = json_object_new ();
  g_autoptr(GPtrArray) ignored = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter iter;
  gpointer key, value;

  if (name == NULL || *name == '\0')
    {
      g_set_error (error, RG_COMMAND_ERROR, RG_COMMAND_ERROR_MISSING_CMD,
                   "the command name goes in the 'cmd' query parameter");
      return NULL;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (commands[i].name, name))
      spec = &commands[i];
  if (spec == NULL)
    {
      g_set_error (error, RG_COMMAND_ERROR, RG_COMMAND_ERROR_UNKNOWN_COMMAND,
                   "unknown command '%s'", name);
      return NULL;
    }

  for (const ArgSpec *a = spec->args; a < spec->args + G_N_ELEMENTS (spec->args) && a->name; a++)
    {
      const char *text = g_hash_table_lookup (params, a->name);
      JsonNode *node;

      if (text == NULL)
        {
          if (a->required)
            {
              g_set_error (error, RG_COMMAND_ERROR, RG_COMMAND_ERROR_MISSING_ARGUMENT,
                           "%s needs the argument '%s'", spec->name, a->name);
              return NULL;
            }
          continue;
        }
      node = type_argument (a, text, error);
      if (node == NULL)
        return NULL;
      json_object_set_member (args, a->name, node);
    }

  g_hash_table_iter_init (&iter, params);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (!g_str_equal (key, "cmd") && !json_object_has_member (args, key))
      g_ptr_array_add (ignored, g_strdup (key));
  g_ptr_array_sort (ignored, compare_names);

  *out_name = g_strdup (spec->name);
  *out_ignored = g_steal_pointer (&ignored);
  return g_steal_pointer (&args);
}

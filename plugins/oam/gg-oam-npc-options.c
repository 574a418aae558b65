/* gg-oam-npc-options.c: an NPC's `options` (oam spec section 6), as one
 * table: each option's name, kind, range and default, in the order the
 * normalised options object lists them (npc/state shows that object, and
 * the first bad option in that order is the one an error names). The few
 * options with rules of their own (toolChoice, memoryTools) have a parser
 * each; everything else is read by its kind. Also the allowed emotions
 * and the accessors of a parsed NPC's options.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "gg-oam-errors.h"
#include "gg-oam-npc.h"
#include "gg-oam-options.h"
#include "gg-oam-params.h"
#include "gg-oam-targets.h"

#define PREFIX "options"

static const char * const emotions[] = {
  "neutral", "happy", "sad", "angry", "afraid", "surprised", "suspicious", "amused",
  "disgusted", "excited", "curious", "confused", "worried", "grateful", "annoyed", "proud", NULL
};

static const char * const default_fallback_lines[] = {
  "Hm. Let's talk about something else.",
  "I'd rather not say.",
  "Another time, perhaps.",
  NULL
};

static const char * const reply_formats[] = { "automatic", "structured", "text", NULL };
static const char * const everything[] = { "", NULL };
static const char * const nothing[] = { NULL };

typedef enum {
  OPTION_INT,          /* min..max, default; `null_allowed`: an explicit null stays null */
  OPTION_INT_OR_NULL,  /* min..max; absent is null */
  OPTION_DOUBLE_OR_NULL, /* min..infinity; absent is null */
  OPTION_SECONDS,      /* seconds; default: the front end's tool timeout */
  OPTION_BOOL,
  OPTION_CHOICE,       /* one of `choices`, the first by default */
  OPTION_STRING_OR_NULL,
  OPTION_STRINGS,      /* a list, `defaults` when absent; `choices` limit the items */
  OPTION_CUSTOM,
} OptionKind;

typedef struct Option Option;
typedef gboolean (*OptionParser) (const Option        *option,
                                  JsonObject          *given,
                                  const GgOamSettings *settings,
                                  JsonObject          *out,
                                  GError             **error);

struct Option {
  const char *name;
  OptionKind kind;
  gint64 min, max, default_value;
  gboolean null_allowed;              /* OPTION_INT */
  const char * const *choices;        /* OPTION_CHOICE, OPTION_STRINGS */
  const char * const *defaults;       /* OPTION_STRINGS */
  gboolean non_empty;                 /* OPTION_STRINGS */
  const char *item;                   /* OPTION_STRINGS with choices: "emotion" */
  OptionParser parse;                 /* OPTION_CUSTOM */
};

static gboolean parse_tool_choice  (const Option *, JsonObject *, const GgOamSettings *, JsonObject *, GError **);
static gboolean parse_memory_tools (const Option *, JsonObject *, const GgOamSettings *, JsonObject *, GError **);
static gboolean parse_targets      (const Option *, JsonObject *, const GgOamSettings *, JsonObject *, GError **);

#define INT(n, lo, hi, def)        { .name = n, .kind = OPTION_INT, .min = lo, .max = hi, .default_value = def }
#define STRINGS(n, def)            { .name = n, .kind = OPTION_STRINGS, .defaults = def }

static const Option options[] = {
  { .name = "replyFormat", .kind = OPTION_CHOICE, .choices = reply_formats },
  { .name = "groundingTool", .kind = OPTION_STRING_OR_NULL },
  { .name = "toolChoice", .kind = OPTION_CUSTOM, .parse = parse_tool_choice },
  INT ("maxToolRounds", 0, G_MAXINT32, 2),
  INT ("maxToolCalls", 0, G_MAXINT32, 6),
  { .name = "toolTimeoutSeconds", .kind = OPTION_SECONDS },
  STRINGS ("worldReadable", everything),
  STRINGS ("worldWritable", nothing),
  STRINGS ("worldContextPaths", nothing),
  { .name = "memoryTools", .kind = OPTION_CUSTOM, .parse = parse_memory_tools },
  INT ("maxFacts", 0, 1000, 12),
  INT ("maxRelationshipChange", 0, 200, 10),
  /* An explicit null means "always include, with a rule to guard them". */
  { .name = "secretsUnlockAtRelationship", .kind = OPTION_INT, .min = -100, .max = 100,
    .default_value = 50, .null_allowed = TRUE },
  { .name = "emotions", .kind = OPTION_STRINGS, .defaults = emotions, .choices = emotions,
    .non_empty = TRUE, .item = "emotion" },
  INT ("playerOptionCount", 0, 4, 3),
  { .name = "canEndConversation", .kind = OPTION_BOOL, .default_value = TRUE },
  { .name = "extraInstructions", .kind = OPTION_STRING_OR_NULL },
  INT ("compactAfterTurns", 0, G_MAXINT32, 8),
  INT ("keepRecentTurns", 0, G_MAXINT32, 2),
  { .name = "fallbackOnGuardrail", .kind = OPTION_BOOL, .default_value = TRUE },
  { .name = "fallbackLines", .kind = OPTION_STRINGS, .defaults = default_fallback_lines, .non_empty = TRUE },
  { .name = "temperature", .kind = OPTION_DOUBLE_OR_NULL },
  { .name = "maximumResponseTokens", .kind = OPTION_INT_OR_NULL, .min = 1, .max = G_MAXINT32 },
  INT ("barkMaximumTokens", 1, G_MAXINT32, 48),
  /* gamegate extension: tools of games on the bus (gg-oam-targets.c). */
  { .name = "targets", .kind = OPTION_CUSTOM, .parse = parse_targets },
};

#undef INT
#undef STRINGS

/* toolChoice: as everywhere (gg_oam_parse_tool_choice()), kept as given;
 * "explicit" by default. Whether a forced tool exists is checked once the
 * NPC's tools are known (gg_oam_npc_check_tools()). */
static gboolean
parse_tool_choice (const Option        *option,
                   JsonObject          *given,
                   const GgOamSettings *settings,
                   JsonObject          *out,
                   GError             **error)
{
  JsonNode *node = gg_oam_param (given, option->name);
  GgToolChoiceKind kind;
  g_autofree char *forced = NULL;

  if (node == NULL)
    {
      json_object_set_string_member (out, option->name, "explicit");
      return TRUE;
    }
  if (!gg_oam_parse_tool_choice (given, PREFIX, option->name, &kind, &forced, error))
    return FALSE;
  json_object_set_member (out, option->name, json_node_copy (node));
  return TRUE;
}

/* targets: kept normalized when given; absent, the NPC has none (and its
 * options do not list the member, as before the extension). */
static gboolean
parse_targets (const Option        *option,
               JsonObject          *given,
               const GgOamSettings *settings,
               JsonObject          *out,
               GError             **error)
{
  g_autoptr(JsonArray) targets = NULL;

  if (gg_oam_param (given, option->name) == NULL)
    return TRUE;
  targets = gg_oam_targets_parse (given, PREFIX, error);
  if (targets == NULL)
    return FALSE;
  json_object_set_array_member (out, option->name, g_steal_pointer (&targets));
  return TRUE;
}

/* memoryTools: a list of memory tools, "all" or "none" (the default). */
static gboolean
parse_memory_tools (const Option        *option,
                    JsonObject          *given,
                    const GgOamSettings *settings,
                    JsonObject          *out,
                    GError             **error)
{
  JsonNode *node = gg_oam_param (given, option->name);
  JsonArray *memory = json_array_new ();

  json_object_set_array_member (out, option->name, memory);
  if (node != NULL && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      if (g_str_equal (json_node_get_string (node), "all"))
        {
          json_array_add_string_element (memory, "rememberFact");
          json_array_add_string_element (memory, "changeRelationship");
        }
      else if (!g_str_equal (json_node_get_string (node), "none"))
        {
          g_propagate_error (error, gg_oam_invalid_params ("'options.memoryTools' must be a list, "
                                                           "\"all\" or \"none\""));
          return FALSE;
        }
    }
  else if (node != NULL)
    {
      g_auto(GStrv) list = NULL;

      if (!gg_oam_param_strv (given, PREFIX, option->name, &list, error))
        return FALSE;
      for (guint i = 0; list[i] != NULL; i++)
        {
          if (!g_str_equal (list[i], "rememberFact") && !g_str_equal (list[i], "changeRelationship"))
            {
              g_propagate_error (error, gg_oam_invalid_params ("'options.memoryTools[%u]': unknown memory "
                                                               "tool '%s'", i, list[i]));
              return FALSE;
            }
          json_array_add_string_element (memory, list[i]);
        }
    }
  return TRUE;
}

/* "must be "a", "b" or "c"" */
static char *
choices_text (const char * const *choices)
{
  GString *text = g_string_new (NULL);
  guint n = g_strv_length ((char **) choices);

  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "%s\"%s\"", i == 0 ? "" : i + 1 == n ? " or " : ", ", choices[i]);
  return g_string_free (text, FALSE);
}

static gboolean
parse_strings (const Option *option,
               JsonObject   *given,
               JsonObject   *out,
               GError      **error)
{
  g_auto(GStrv) list = NULL;
  const char * const *items;
  JsonArray *array = json_array_new ();

  json_object_set_array_member (out, option->name, array);
  if (!gg_oam_param_strv (given, PREFIX, option->name, &list, error))
    return FALSE;
  items = list != NULL ? (const char * const *) list : option->defaults;
  for (guint i = 0; items[i] != NULL; i++)
    json_array_add_string_element (array, items[i]);
  if (option->non_empty && items[0] == NULL)
    {
      g_propagate_error (error, gg_oam_invalid_params ("'options.%s' must not be empty", option->name));
      return FALSE;
    }
  for (guint i = 0; option->choices != NULL && items[i] != NULL; i++)
    if (!g_strv_contains (option->choices, items[i]))
      {
        g_propagate_error (error, gg_oam_invalid_params ("'options.%s[%u]': unknown %s '%s'",
                                                         option->name, i, option->item, items[i]));
        return FALSE;
      }
  return TRUE;
}

static gboolean
parse_option (const Option        *option,
              JsonObject          *given,
              const GgOamSettings *settings,
              JsonObject          *out,
              GError             **error)
{
  const char *name = option->name;
  gint64 value;
  double number;
  gboolean flag;
  const char *text;

  switch (option->kind)
    {
    case OPTION_INT:
      if (option->null_allowed && given != NULL && json_object_has_member (given, name) &&
          JSON_NODE_HOLDS_NULL (json_object_get_member (given, name)))
        {
          json_object_set_null_member (out, name);
          return TRUE;
        }
      if (!gg_oam_param_int (given, PREFIX, name, option->min, option->max, option->default_value,
                             &value, error))
        return FALSE;
      json_object_set_int_member (out, name, value);
      return TRUE;

    case OPTION_INT_OR_NULL:
      if (!gg_oam_param_int (given, PREFIX, name, option->min, option->max, 0, &value, error))
        return FALSE;
      if (value > 0)
        json_object_set_int_member (out, name, value);
      else
        json_object_set_null_member (out, name);
      return TRUE;

    case OPTION_DOUBLE_OR_NULL:
      if (!gg_oam_param_double (given, PREFIX, name, 0.0, INFINITY, -1.0, &number, error))
        return FALSE;
      if (number >= 0.0)
        json_object_set_double_member (out, name, number);
      else
        json_object_set_null_member (out, name);
      return TRUE;

    case OPTION_SECONDS:
      if (!gg_oam_param_seconds (given, PREFIX, name, settings->tool_timeout_ms, &value, error))
        return FALSE;
      json_object_set_double_member (out, name, (double) value / 1000.0);
      return TRUE;

    case OPTION_BOOL:
      if (!gg_oam_param_bool (given, PREFIX, name, option->default_value != 0, &flag, error))
        return FALSE;
      json_object_set_boolean_member (out, name, flag);
      return TRUE;

    case OPTION_CHOICE:
      if (!gg_oam_param_string (given, PREFIX, name, FALSE, &text, error))
        return FALSE;
      if (text == NULL)
        text = option->choices[0];
      if (!g_strv_contains (option->choices, text))
        {
          g_autofree char *allowed = choices_text (option->choices);
          g_propagate_error (error, gg_oam_invalid_params ("'options.%s' must be %s", name, allowed));
          return FALSE;
        }
      json_object_set_string_member (out, name, text);
      return TRUE;

    case OPTION_STRING_OR_NULL:
      if (!gg_oam_param_string (given, PREFIX, name, FALSE, &text, error))
        return FALSE;
      if (text != NULL)
        json_object_set_string_member (out, name, text);
      else
        json_object_set_null_member (out, name);
      return TRUE;

    case OPTION_STRINGS:
      return parse_strings (option, given, out, error);

    case OPTION_CUSTOM:
    default:
      return option->parse (option, given, settings, out, error);
    }
}

/**
 * gg_oam_npc_parse_options:
 * @given: (nullable): the client's options
 * @settings: the front end's defaults (tool timeout)
 * @warnings: unknown options are reported here
 * @error: -32602 naming the option
 *
 * Returns: (transfer full): every option with its value, or %NULL
 */
JsonObject *
gg_oam_npc_parse_options (JsonObject          *given,
                          const GgOamSettings *settings,
                          GPtrArray           *warnings,
                          GError             **error)
{
  g_autoptr(JsonObject) out = json_object_new ();
  const char *names[G_N_ELEMENTS (options) + 1];

  for (gsize i = 0; i < G_N_ELEMENTS (options); i++)
    names[i] = options[i].name;
  names[G_N_ELEMENTS (options)] = NULL;
  gg_oam_warn_unknown (given, PREFIX, names, warnings);

  for (gsize i = 0; i < G_N_ELEMENTS (options); i++)
    if (!parse_option (&options[i], given, settings, out, error))
      return NULL;
  return g_steal_pointer (&out);
}

/** gg_oam_npc_emotion_is_known: Returns: whether @name is an emotion oam knows */
gboolean
gg_oam_npc_emotion_is_known (const char *name)
{
  return name != NULL && g_strv_contains (emotions, name);
}

const char *
gg_oam_npc_option_string (GgOamNpc   *npc,
                          const char *name)
{
  JsonNode *node = json_object_get_member (npc->options, name);

  return node != NULL && json_node_get_value_type (node) == G_TYPE_STRING ? json_node_get_string (node) : NULL;
}

gint64
gg_oam_npc_option_int (GgOamNpc   *npc,
                       const char *name)
{
  JsonNode *node = json_object_get_member (npc->options, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return 0;
  if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    return (gint64) json_node_get_double (node);
  return json_node_get_int (node);
}

/* The `targets` option's entries, or %NULL. */
JsonArray *
gg_oam_npc_targets (GgOamNpc *npc)
{
  JsonNode *node = json_object_get_member (npc->options, "targets");

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) && json_array_get_length (json_node_get_array (node)) > 0 ?
         json_node_get_array (node) : NULL;
}

gboolean
gg_oam_npc_option_bool (GgOamNpc   *npc,
                        const char *name)
{
  return json_object_get_boolean_member_with_default (npc->options, name, FALSE);
}

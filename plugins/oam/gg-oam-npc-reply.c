/* gg-oam-npc-reply.c: what an NPC turn answers with. The reply schema
 * the model is asked for (emotion, line, exactly playerOptionCount
 * player_options, ends_conversation), the looser shape a reply is accepted
 * in, and the rules that turn an accepted reply into npc/talk's result:
 * a good line the player is waiting for is never thrown away because a
 * detail around it missed the request (plugins/oam/README.md, "NPC reply
 * rules"). Also the plain-text `[emotion] line` form.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-oam-npc.h"

/**
 * gg_oam_npc_reply_schema:
 *
 * Returns: (transfer full): emotion, line, player_options,
 *   ends_conversation, in that order, so the tone is chosen first
 */
JsonNode *
gg_oam_npc_reply_schema (GgOamNpc *npc)
{
  JsonObject *schema = json_object_new ();
  JsonObject *properties = json_object_new ();
  JsonArray *required = json_array_new ();
  JsonObject *emotion = json_object_new ();
  JsonObject *line = json_object_new ();
  gint64 options = gg_oam_npc_option_int (npc, "playerOptionCount");
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (emotion, "type", "string");
  json_object_set_array_member (emotion, "enum",
                                json_array_ref (json_object_get_array_member (npc->options, "emotions")));
  json_object_set_object_member (properties, "emotion", emotion);
  json_array_add_string_element (required, "emotion");
  json_object_set_string_member (line, "type", "string");
  json_object_set_string_member (line, "description", "What you say, in character");
  json_object_set_object_member (properties, "line", line);
  json_array_add_string_element (required, "line");
  if (options > 0)
    {
      JsonObject *list = json_object_new ();
      JsonObject *items = json_object_new ();

      json_object_set_string_member (items, "type", "string");
      json_object_set_string_member (list, "type", "array");
      json_object_set_string_member (list, "description", "Short replies the player could say next");
      json_object_set_object_member (list, "items", items);
      json_object_set_int_member (list, "minItems", options);
      json_object_set_int_member (list, "maxItems", options);
      json_object_set_object_member (properties, "player_options", list);
      json_array_add_string_element (required, "player_options");
    }
  if (gg_oam_npc_option_bool (npc, "canEndConversation"))
    {
      JsonObject *ends = json_object_new ();

      json_object_set_string_member (ends, "type", "boolean");
      json_object_set_object_member (properties, "ends_conversation", ends);
      json_array_add_string_element (required, "ends_conversation");
    }
  json_object_set_string_member (schema, "type", "object");
  json_object_set_string_member (schema, "title", "Reply");
  json_object_set_object_member (schema, "properties", properties);
  json_object_set_array_member (schema, "required", required);
  json_object_set_boolean_member (schema, "additionalProperties", FALSE);
  json_node_take_object (node, schema);
  return node;
}

/**
 * gg_oam_npc_parse_text_reply:
 * @text: a plain-text reply, `[emotion] line`
 * @emotion: (out) (transfer full): the emotion (the default when missing
 *   or not allowed)
 * @line: (out) (transfer full): the line
 *
 * Returns: whether a complete tag was found
 */
gboolean
gg_oam_npc_parse_text_reply (GgOamNpc   *npc,
                             const char *text,
                             char      **emotion,
                             char      **line)
{
  JsonArray *allowed = json_object_get_array_member (npc->options, "emotions");
  const char *p = text;
  const char *close;
  gboolean found = FALSE;

  while (g_ascii_isspace (*p))
    p++;
  *emotion = NULL;
  if (*p == '[' && (close = strchr (p, ']')) != NULL)
    {
      g_autofree char *tag = g_ascii_strdown (p + 1, close - p - 1);

      g_strstrip (tag);
      for (guint i = 0; i < json_array_get_length (allowed); i++)
        if (g_str_equal (json_array_get_string_element (allowed, i), tag))
          *emotion = g_strdup (tag);
      p = close + 1;
      while (g_ascii_isspace (*p))
        p++;
      found = TRUE;
    }
  if (*emotion == NULL)
    *emotion = g_strdup (json_object_get_string_member (npc->persona, "defaultEmotion"));
  *line = g_strdup (p);
  return found;
}


/**
 * gg_oam_npc_reply_accept_schema:
 *
 * What a structured reply must be to be used at all: an object with a
 * string `line`. Every other field is read by gg_oam_npc_reply_read(),
 * which repairs what does not match the reply schema.
 *
 * Returns: (transfer full): the acceptance schema of a turn
 */
JsonNode *
gg_oam_npc_reply_accept_schema (void)
{
  JsonObject *schema = json_object_new ();
  JsonObject *properties = json_object_new ();
  JsonObject *line = json_object_new ();
  JsonArray *required = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (line, "type", "string");
  json_object_set_object_member (properties, "line", line);
  json_array_add_string_element (required, "line");
  json_object_set_string_member (schema, "type", "object");
  json_object_set_object_member (schema, "properties", properties);
  json_object_set_array_member (schema, "required", required);
  json_node_take_object (node, schema);
  return node;
}

static gboolean
is_allowed_emotion (GgOamNpc   *npc,
                    const char *name)
{
  JsonArray *allowed = json_object_get_array_member (npc->options, "emotions");

  for (guint i = 0; name != NULL && i < json_array_get_length (allowed); i++)
    if (g_str_equal (json_array_get_string_element (allowed, i), name))
      return TRUE;
  return FALSE;
}

static const char *
string_member (JsonObject *object,
               const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/**
 * gg_oam_npc_reply_read:
 * @reply: a structured reply that matched gg_oam_npc_reply_accept_schema()
 * @emotion: (out) (transfer none): the reply's emotion if the NPC has it,
 *   else the persona's default emotion
 * @line: (out) (transfer none): the line
 * @player_options: (out) (transfer full): the non-blank strings of
 *   `player_options`, in order, cut to `playerOptionCount`; fewer (or none)
 *   are kept as they are
 * @ends_conversation: (out): `ends_conversation` when it is `true` and the
 *   NPC may end conversations, else %FALSE
 */
void
gg_oam_npc_reply_read (GgOamNpc    *npc,
                       JsonObject  *reply,
                       const char **emotion,
                       const char **line,
                       JsonArray  **player_options,
                       gboolean    *ends_conversation)
{
  gint64 count = gg_oam_npc_option_int (npc, "playerOptionCount");
  JsonNode *options = json_object_get_member (reply, "player_options");
  JsonNode *ends = json_object_get_member (reply, "ends_conversation");

  *emotion = string_member (reply, "emotion");
  if (!is_allowed_emotion (npc, *emotion))
    *emotion = json_object_get_string_member (npc->persona, "defaultEmotion");
  *line = string_member (reply, "line");
  if (*line == NULL)
    *line = "";
  *player_options = json_array_new ();
  if (options != NULL && JSON_NODE_HOLDS_ARRAY (options))
    {
      JsonArray *given = json_node_get_array (options);

      for (guint i = 0; i < json_array_get_length (given) &&
                        (gint64) json_array_get_length (*player_options) < count; i++)
        {
          JsonNode *item = json_array_get_element (given, i);
          const char *text;

          if (!JSON_NODE_HOLDS_VALUE (item) || json_node_get_value_type (item) != G_TYPE_STRING)
            continue;
          text = json_node_get_string (item);
          while (g_ascii_isspace (*text))
            text++;
          if (*text != '\0')
            json_array_add_string_element (*player_options, json_node_get_string (item));
        }
    }
  *ends_conversation = ends != NULL && JSON_NODE_HOLDS_VALUE (ends) &&
                       json_node_get_value_type (ends) == G_TYPE_BOOLEAN &&
                       json_node_get_boolean (ends) &&
                       gg_oam_npc_option_bool (npc, "canEndConversation");
}

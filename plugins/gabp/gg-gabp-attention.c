/* gg-gabp-attention.c: the attention gate.
 *
 * The mod summarises what can invalidate an agent's assumptions into one
 * attention item (attention/current, attention/opened|updated|cleared). A
 * blocking item stops ordinary tool calls at gamegate until the agent acks
 * it; tools tagged as observation or diagnostics still run, as in GABS.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-gabp-attention.h"

struct _GgGabpAttention
{
  GObject parent_instance;

  JsonObject *current;  /* an open item, or NULL */
};

G_DEFINE_FINAL_TYPE (GgGabpAttention, gg_gabp_attention, G_TYPE_OBJECT)

static const char *const bypass_tags[] = {
  "diagnostic", "read-only", "health", "lifecycle", "observation", "status",
  "telemetry", "attention-bypass", NULL,
};

static void
gg_gabp_attention_finalize (GObject *object)
{
  GgGabpAttention *self = GG_GABP_ATTENTION (object);

  g_clear_pointer (&self->current, json_object_unref);
  G_OBJECT_CLASS (gg_gabp_attention_parent_class)->finalize (object);
}

static void
gg_gabp_attention_class_init (GgGabpAttentionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_gabp_attention_finalize;
}

static void
gg_gabp_attention_init (GgGabpAttention *self)
{
}

/** gg_gabp_attention_new: Returns: (transfer full): a gate with nothing open. */
GgGabpAttention *
gg_gabp_attention_new (void)
{
  return g_object_new (GG_TYPE_GABP_ATTENTION, NULL);
}

/**
 * gg_gabp_attention_set_current:
 * @self: the gate
 * @attention: (nullable): an attention object (from attention/current or
 *   an ack's `currentAttention`), or JSON null
 *
 * Replaces the open item; a null or cleared item opens the gate.
 */
void
gg_gabp_attention_set_current (GgGabpAttention *self,
                               JsonNode        *attention)
{
  JsonObject *object;

  g_clear_pointer (&self->current, json_object_unref);
  if (attention == NULL || !JSON_NODE_HOLDS_OBJECT (attention))
    return;
  object = json_node_get_object (attention);
  if (g_strcmp0 (json_object_get_string_member_with_default (object, "state", "open"), "open") != 0)
    return;
  self->current = json_object_ref (object);
}

/**
 * gg_gabp_attention_handle_event:
 * @self: the gate
 * @channel: an event channel
 * @payload: its payload
 *
 * Follows attention/opened, attention/updated and attention/cleared; other
 * channels are ignored.
 */
void
gg_gabp_attention_handle_event (GgGabpAttention *self,
                                const char      *channel,
                                JsonNode        *payload)
{
  if (g_str_equal (channel, "attention/opened") || g_str_equal (channel, "attention/updated"))
    gg_gabp_attention_set_current (self, payload);
  else if (g_str_equal (channel, "attention/cleared"))
    {
      const char *id = NULL;

      if (payload != NULL && JSON_NODE_HOLDS_OBJECT (payload))
        id = json_object_get_string_member_with_default (json_node_get_object (payload),
                                                         "attentionId", NULL);
      /* Clearing another item than the open one changes nothing. */
      if (self->current == NULL || id == NULL ||
          g_strcmp0 (json_object_get_string_member_with_default (self->current, "attentionId", ""), id) == 0)
        g_clear_pointer (&self->current, json_object_unref);
    }
}

/** gg_gabp_attention_get_current: Returns: (transfer none) (nullable): the open item. */
JsonObject *
gg_gabp_attention_get_current (GgGabpAttention *self)
{
  return self->current;
}

/** gg_gabp_attention_is_blocking: Returns: %TRUE while a blocking item is open. */
gboolean
gg_gabp_attention_is_blocking (GgGabpAttention *self)
{
  return self->current != NULL &&
         json_object_get_boolean_member_with_default (self->current, "blocking", FALSE);
}

/**
 * gg_gabp_attention_tags_bypass:
 * @tags: (nullable): a tool's tags
 *
 * Returns: %TRUE when a tag lets the tool through a blocking item
 */
gboolean
gg_gabp_attention_tags_bypass (JsonArray *tags)
{
  for (guint i = 0; tags != NULL && i < json_array_get_length (tags); i++)
    {
      JsonNode *tag = json_array_get_element (tags, i);

      if (JSON_NODE_HOLDS_VALUE (tag) && json_node_get_value_type (tag) == G_TYPE_STRING &&
          g_strv_contains (bypass_tags, json_node_get_string (tag)))
        return TRUE;
    }
  return FALSE;
}

/**
 * gg_gabp_attention_check:
 * @self: the gate
 * @tool: the tool about to be called
 * @tags: (nullable): its tags
 * @error: return location for a %GG_TARGET_ERROR_BLOCKED error
 *
 * Returns: %TRUE when @tool may run now
 */
gboolean
gg_gabp_attention_check (GgGabpAttention *self,
                         const char      *tool,
                         JsonArray       *tags,
                         GError         **error)
{
  if (!gg_gabp_attention_is_blocking (self) || gg_gabp_attention_tags_bypass (tags))
    return TRUE;
  g_set_error (error, GG_TARGET_ERROR, GG_TARGET_ERROR_BLOCKED,
               "blocking attention item %s is open (%s); acknowledge it with "
               "gamegate/attention_ack before calling %s",
               json_object_get_string_member_with_default (self->current, "attentionId", "?"),
               json_object_get_string_member_with_default (self->current, "summary", ""),
               tool);
  return FALSE;
}

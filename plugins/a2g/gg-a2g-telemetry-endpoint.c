/* gg-a2g-telemetry-endpoint.c: POST /v1/telemetry: the latest scalar state of a
 * session's entities, from which the store derives the situation context
 * the model sees (nearby, members, population), within that session only.
 *
 * Kept per entry: `type` and `faction` (strings of at most 32 characters),
 * `pos` (2 or 3 numbers), and other numbers, booleans and strings of at
 * most 32 characters. Anything else is dropped and counted.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-endpoints.h"

#define MAX_SCALAR_STRING 32

typedef struct {
  GgA2gExchange *ex;
  gint64 received;
  gint64 dropped;
} Put;

static void
on_kept (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Put *put = user_data;
  g_autoptr(GgA2gExchange) ex = put->ex;
  g_autoptr(GError) error = NULL;
  gint64 kept = gg_a2g_store_telemetry_put_finish (GG_A2G_STORE (source), result, &error);
  g_autoptr(JsonObject) reply = NULL;

  if (kept < 0)
    {
      g_free (put);
      gg_a2g_exchange_reply_error (ex, error);
      return;
    }
  reply = gg_a2g_reply_new ();
  json_object_set_boolean_member (reply, "ok", TRUE);
  json_object_set_int_member (reply, "accepted", kept);
  /* Entities past max-tracked-entities count as dropped too. */
  json_object_set_int_member (reply, "dropped", put->dropped + (put->received - kept));
  g_free (put);
  gg_a2g_exchange_reply (ex, 200, reply);
}

static gboolean
is_short_string (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING &&
         g_utf8_strlen (json_node_get_string (node), -1) <= MAX_SCALAR_STRING;
}

static gboolean
is_number (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && (json_node_get_value_type (node) == G_TYPE_INT64 ||
                                          json_node_get_value_type (node) == G_TYPE_DOUBLE);
}

/**
 * gg_a2g_handle_telemetry:
 * @ex: an authenticated POST /v1/telemetry
 */
void
gg_a2g_handle_telemetry (GgA2gExchange *ex)
{
  JsonNode *node = json_object_get_member (ex->body, "entities");
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func ((GDestroyNotify) gg_a2g_telemetry_free);
  JsonArray *array;
  Put *put;
  gint64 dropped = 0;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "entities: must be an array");
      return;
    }
  array = json_node_get_array (node);
  if (json_array_get_length (array) > GG_A2G_MAX_ENTITIES)
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "entities: at most 16 entities per request");
      return;
    }
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      g_autoptr(GgA2gTelemetry) entry = NULL;
      JsonObjectIter iter;
      const char *name;
      JsonNode *value;
      const char *id;

      if (!JSON_NODE_HOLDS_OBJECT (item))
        {
          gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "entities[%u]: must be an object", i);
          return;
        }
      id = gg_a2g_json_string (json_node_get_object (item), "entity");
      if (!gg_a2g_id_valid (id))
        {
          gg_a2g_exchange_fail (ex, GG_A2G_ERROR_INVALID, "entities[%u].entity: must match ^[a-z][a-z0-9_:.-]{0,63}$", i);
          return;
        }
      entry = g_new0 (GgA2gTelemetry, 1);
      entry->entity = g_strdup (id);
      entry->scalars = json_object_new ();
      json_object_iter_init_ordered (&iter, json_node_get_object (item));
      while (json_object_iter_next_ordered (&iter, &name, &value))
        {
          if (strcmp (name, "entity") == 0)
            continue;
          if (strcmp (name, "pos") == 0)
            {
              JsonArray *pos = JSON_NODE_HOLDS_ARRAY (value) ? json_node_get_array (value) : NULL;
              guint n = pos != NULL ? json_array_get_length (pos) : 0;
              gboolean ok = n == 2 || n == 3;

              for (guint d = 0; ok && d < n; d++)
                ok = is_number (json_array_get_element (pos, d));
              if (!ok)
                {
                  dropped++;
                  continue;
                }
              entry->has_pos = TRUE;
              entry->dims = n;
              for (guint d = 0; d < n; d++)
                entry->pos[d] = json_node_get_double (json_array_get_element (pos, d));
              continue;
            }
          if ((strcmp (name, "type") == 0 || strcmp (name, "faction") == 0) && is_short_string (value))
            {
              if (name[0] == 't')
                entry->type = g_strdup (json_node_get_string (value));
              else
                entry->faction = g_strdup (json_node_get_string (value));
              continue;
            }
          if (strlen (name) <= 64 && JSON_NODE_HOLDS_VALUE (value) &&
              (is_number (value) || json_node_get_value_type (value) == G_TYPE_BOOLEAN || is_short_string (value)))
            {
              json_object_set_member (entry->scalars, name, json_node_copy (value));
              continue;
            }
          dropped++;
        }
      g_ptr_array_add (entries, g_steal_pointer (&entry));
    }
  put = g_new0 (Put, 1);
  put->ex = gg_a2g_exchange_ref (ex);
  put->received = entries->len;
  put->dropped = dropped;
  gg_a2g_store_telemetry_put_async (ex->service->store, ex->session->client_id, entries,
                                    (guint) ex->service->settings.max_tracked_entities, ex->cancellable,
                                    on_kept, put);
}

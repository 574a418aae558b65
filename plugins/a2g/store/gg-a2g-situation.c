/* gg-a2g-situation.c: the situation context derived from one session's
 * telemetry (nearby, members, population), for every store.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "gg-a2g-situation.h"

typedef struct {
  GgA2gTelemetry *entry;
  double distance;
} Near;

static int
compare_near (gconstpointer a,
              gconstpointer b)
{
  const Near *x = a, *y = b;

  if (x->distance != y->distance)
    return x->distance < y->distance ? -1 : 1;
  return strcmp (x->entry->entity, y->entry->entity);
}

static int
compare_telemetry (gconstpointer a,
                   gconstpointer b)
{
  const GgA2gTelemetry *x = *(GgA2gTelemetry * const *) a, *y = *(GgA2gTelemetry * const *) b;

  return strcmp (x->entity, y->entity);
}

/**
 * gg_a2g_situation_build:
 * @entries: (element-type GgA2gTelemetry): a session's telemetry, one per entity
 * @entity: the entity deciding
 * @radius: how far `nearby` reaches
 *
 * Returns: (transfer full) (nullable): {nearby, members, population}, NULL without telemetry
 */
JsonObject *
gg_a2g_situation_build (GPtrArray  *entries,
                        const char *entity,
                        double      radius)
{
  GgA2gTelemetry *me;
  g_autoptr(GArray) near = NULL;
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(GHashTable) population = NULL;
  g_autoptr(GList) types = NULL;
  JsonObject *result, *counts;
  JsonArray *nearby, *members;
  GgA2gTelemetry *other;

  if (entries->len == 0)
    return NULL;
  me = NULL;
  for (guint i = 0; i < entries->len; i++)
    if (strcmp (((GgA2gTelemetry *) g_ptr_array_index (entries, i))->entity, entity) == 0)
      me = g_ptr_array_index (entries, i);
  near = g_array_new (FALSE, FALSE, sizeof (Near));
  all = g_ptr_array_new ();
  population = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < entries->len; i++)
    {
      other = g_ptr_array_index (entries, i);
      g_ptr_array_add (all, other);
      if (other->type != NULL)
        g_hash_table_insert (population, other->type,
                             GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (population, other->type)) + 1));
      if (me != NULL && other != me && me->has_pos && other->has_pos)
        {
          double sum = 0;
          Near item = { other, 0 };

          for (guint d = 0; d < MAX (me->dims, other->dims); d++)
            sum += (me->pos[d] - other->pos[d]) * (me->pos[d] - other->pos[d]);
          item.distance = sqrt (sum);
          if (item.distance <= radius)
            g_array_append_val (near, item);
        }
    }
  g_array_sort (near, compare_near);
  g_ptr_array_sort (all, compare_telemetry);
  result = json_object_new ();
  nearby = json_array_new ();
  for (guint i = 0; i < near->len && i < 8; i++)
    {
      Near *item = &g_array_index (near, Near, i);
      JsonObject *object = json_object_new ();

      json_object_set_string_member (object, "entity", item->entry->entity);
      if (item->entry->type != NULL)
        json_object_set_string_member (object, "type", item->entry->type);
      if (item->entry->faction != NULL)
        json_object_set_string_member (object, "faction", item->entry->faction);
      json_object_set_double_member (object, "distance", round (item->distance * 10) / 10);
      json_array_add_object_element (nearby, object);
    }
  members = json_array_new ();
  for (guint i = 0; me != NULL && me->faction != NULL && i < all->len; i++)
    {
      other = g_ptr_array_index (all, i);
      if (other != me && g_strcmp0 (other->faction, me->faction) == 0 && json_array_get_length (members) < 16)
        json_array_add_string_element (members, other->entity);
    }
  counts = json_object_new ();
  types = g_hash_table_get_keys (population);
  types = g_list_sort (types, (GCompareFunc) strcmp);
  for (GList *l = types; l != NULL; l = l->next)
    json_object_set_int_member (counts, l->data, GPOINTER_TO_UINT (g_hash_table_lookup (population, l->data)));
  json_object_set_array_member (result, "nearby", nearby);
  json_object_set_array_member (result, "members", members);
  json_object_set_object_member (result, "population", counts);
  return result;
}

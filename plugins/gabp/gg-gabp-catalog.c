/* gg-gabp-catalog.c: asks every target on the bus for its tools (all at
 * once) and turns them into GABP tool descriptors. A target that cannot
 * answer right now (a game that is starting) is left out, not an error.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-gabp-catalog.h"
#include "gg-gabp-names.h"

typedef struct {
  char *target_id;
  char *tool;
} Entry;

struct _GgGabpCatalog
{
  GObject parent_instance;

  JsonArray  *tools;
  GHashTable *entries;  /* GABP name -> Entry */
};

G_DEFINE_FINAL_TYPE (GgGabpCatalog, gg_gabp_catalog, G_TYPE_OBJECT)

static void
entry_free (Entry *entry)
{
  g_free (entry->target_id);
  g_free (entry->tool);
  g_free (entry);
}

static void
gg_gabp_catalog_finalize (GObject *object)
{
  GgGabpCatalog *self = GG_GABP_CATALOG (object);

  json_array_unref (self->tools);
  g_hash_table_unref (self->entries);
  G_OBJECT_CLASS (gg_gabp_catalog_parent_class)->finalize (object);
}

static void
gg_gabp_catalog_class_init (GgGabpCatalogClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gg_gabp_catalog_finalize;
}

static void
gg_gabp_catalog_init (GgGabpCatalog *self)
{
  self->tools = json_array_new ();
  self->entries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) entry_free);
}

typedef struct {
  GPtrArray *targets;  /* GgTarget, in bus order */
  GPtrArray *lists;    /* JsonArray or NULL, same order */
  guint      pending;
} BuildData;

static void
json_array_unref_nullable (gpointer array)
{
  if (array != NULL)
    json_array_unref (array);
}

static void
build_data_free (BuildData *data)
{
  g_ptr_array_unref (data->targets);
  g_ptr_array_unref (data->lists);
  g_free (data);
}

static const char *
member_string (JsonObject *object,
               const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static void
add_tool (GgGabpCatalog *self,
          const char    *target_id,
          JsonObject    *tool)
{
  const char *name = member_string (tool, "name");
  const char *title = member_string (tool, "title");
  const char *description = member_string (tool, "description");
  JsonNode *parameters = json_object_get_member (tool, "parameters");
  JsonNode *output = json_object_get_member (tool, "outputSchema");
  JsonNode *tags = json_object_get_member (tool, "tags");
  g_autofree char *base = NULL;
  g_autofree char *gabp_name = NULL;
  JsonObject *out;
  Entry *entry;

  if (name == NULL || name[0] == '\0')
    return;
  base = gg_gabp_name_for_tool (target_id, name);
  gabp_name = g_strdup (base);
  for (guint n = 2; g_hash_table_contains (self->entries, gabp_name); n++)
    {
      g_free (gabp_name);
      gabp_name = g_strdup_printf ("%s-%u", base, n);
    }

  out = json_object_new ();
  json_object_set_string_member (out, "name", gabp_name);
  json_object_set_string_member (out, "title", title != NULL && title[0] != '\0' ? title : name);
  if (description != NULL && description[0] != '\0')
    json_object_set_string_member (out, "description", description);
  else
    {
      g_autofree char *text = g_strdup_printf ("%s of %s", name, target_id);
      json_object_set_string_member (out, "description", text);
    }
  json_object_set_member (out, "inputSchema",
                          parameters != NULL && JSON_NODE_HOLDS_OBJECT (parameters)
                            ? json_node_copy (parameters) : json_from_string ("{\"type\":\"object\"}", NULL));
  json_object_set_member (out, "outputSchema",
                          output != NULL && JSON_NODE_HOLDS_OBJECT (output)
                            ? json_node_copy (output) : json_from_string ("{}", NULL));
  if (tags != NULL && JSON_NODE_HOLDS_ARRAY (tags))
    {
      JsonArray *in_tags = json_node_get_array (tags);
      JsonArray *out_tags = json_array_new ();
      g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint i = 0; i < json_array_get_length (in_tags); i++)
        {
          JsonNode *tag = json_array_get_element (in_tags, i);
          const char *text;

          if (!JSON_NODE_HOLDS_VALUE (tag) || json_node_get_value_type (tag) != G_TYPE_STRING)
            continue;
          text = json_node_get_string (tag);
          if (g_hash_table_add (seen, (gpointer) text))
            json_array_add_string_element (out_tags, text);
        }
      json_object_set_array_member (out, "tags", out_tags);
    }
  json_array_add_object_element (self->tools, out);

  entry = g_new0 (Entry, 1);
  entry->target_id = g_strdup (target_id);
  entry->tool = g_strdup (name);
  g_hash_table_insert (self->entries, g_steal_pointer (&gabp_name), entry);
}

static void
maybe_finish (GTask *task)
{
  BuildData *data = g_task_get_task_data (task);
  g_autoptr(GgGabpCatalog) self = NULL;

  if (data->pending > 0)
    return;
  self = g_object_new (GG_TYPE_GABP_CATALOG, NULL);
  for (guint i = 0; i < data->targets->len; i++)
    {
      JsonArray *tools = g_ptr_array_index (data->lists, i);
      const char *target_id = gg_target_get_id (g_ptr_array_index (data->targets, i));

      for (guint j = 0; tools != NULL && j < json_array_get_length (tools); j++)
        {
          JsonNode *tool = json_array_get_element (tools, j);
          if (JSON_NODE_HOLDS_OBJECT (tool))
            add_tool (self, target_id, json_node_get_object (tool));
        }
    }
  g_task_return_pointer (task, g_steal_pointer (&self), g_object_unref);
}

typedef struct {
  GTask *task;
  guint  index;
} ListData;

static void
on_tools_listed (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  ListData *list = user_data;
  g_autoptr(GTask) task = list->task;
  BuildData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  JsonArray *tools = gg_target_list_tools_finish (GG_TARGET (source), result, &error);

  if (tools == NULL)
    g_debug ("%s left out of the GABP tool list: %s", gg_target_get_id (GG_TARGET (source)), error->message);
  else
    {
      g_ptr_array_index (data->lists, list->index) = tools;
    }
  g_free (list);
  data->pending--;
  maybe_finish (task);
}

/**
 * gg_gabp_catalog_build_async:
 * @bus: the bus
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the catalog
 * @user_data: for @callback
 *
 * Lists the tools of every target on @bus.
 */
void
gg_gabp_catalog_build_async (GgBus               *bus,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  BuildData *data = g_new0 (BuildData, 1);

  data->targets = gg_bus_list_targets (bus);
  data->lists = g_ptr_array_new_full (data->targets->len, json_array_unref_nullable);
  g_ptr_array_set_size (data->lists, data->targets->len);
  data->pending = data->targets->len;
  g_task_set_task_data (task, data, (GDestroyNotify) build_data_free);
  for (guint i = 0; i < data->targets->len; i++)
    {
      ListData *list = g_new0 (ListData, 1);

      list->task = g_object_ref (task);
      list->index = i;
      gg_target_list_tools_async (g_ptr_array_index (data->targets, i), cancellable,
                                  on_tools_listed, list);
    }
  maybe_finish (task);
}

/** gg_gabp_catalog_build_finish: Returns: (transfer full): the catalog. */
GgGabpCatalog *
gg_gabp_catalog_build_finish (GAsyncResult  *result,
                              GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/** gg_gabp_catalog_get_tools: Returns: (transfer none): the GABP tool descriptors. */
JsonArray *
gg_gabp_catalog_get_tools (GgGabpCatalog *self)
{
  return self->tools;
}

/**
 * gg_gabp_catalog_lookup:
 * @self: a catalog
 * @gabp_name: a GABP tool name
 * @target_id: (out): the target's id
 * @tool: (out): the tool's name on the bus
 *
 * Returns: %TRUE when @gabp_name is in the catalog
 */
gboolean
gg_gabp_catalog_lookup (GgGabpCatalog  *self,
                        const char     *gabp_name,
                        const char    **target_id,
                        const char    **tool)
{
  Entry *entry = g_hash_table_lookup (self->entries, gabp_name);

  if (entry == NULL)
    return FALSE;
  *target_id = entry->target_id;
  *tool = entry->tool;
  return TRUE;
}

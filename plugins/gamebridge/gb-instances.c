/* gb-instances.c: list_instances: the registry entries checked against
 * /health, a bounded sweep of the scan range, and every other target on the
 * bus, in the shape of spec section 4:
 * `{registryDir, live[], stale[], notAGame[], free[]}`.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-instances.h"

#define SCAN_CONCURRENCY 64

typedef struct {
  GbBridge *bridge;
  GHashTable *registry;     /* port -> GbRegistryEntry */
  JsonArray *problems;
  GHashTable *scanned;      /* ports of the scan range */
  GArray *ports;            /* everything probed */
  GPtrArray *probes;
  JsonArray *live;
  guint pending;
} List;

static void
list_free (List *list)
{
  g_hash_table_unref (list->registry);
  json_array_unref (list->problems);
  g_hash_table_unref (list->scanned);
  g_array_unref (list->ports);
  g_clear_pointer (&list->probes, g_ptr_array_unref);
  json_array_unref (list->live);
  g_free (list);
}

static JsonObject *
live_entry (List    *list,
            GbProbe *probe)
{
  GbRegistryEntry *entry = g_hash_table_lookup (list->registry, GUINT_TO_POINTER (probe->port));
  gboolean scanned = g_hash_table_contains (list->scanned, GUINT_TO_POINTER (probe->port));
  JsonObject *o = json_object_new ();

  json_object_set_int_member (o, "port", probe->port);
  json_object_set_string_member (o, "discovery", entry != NULL && scanned ? "both" : entry != NULL ? "registry"
                                 : scanned ? "scan" : "bridge");
  if (json_object_has_member (probe->health, "frame"))
    json_object_set_member (o, "frame", json_node_copy (json_object_get_member (probe->health, "frame")));
  if (entry != NULL)
    {
      if (entry->name != NULL)
        json_object_set_string_member (o, "game", entry->name);
      if (entry->version != NULL)
        json_object_set_string_member (o, "version", entry->version);
      if (entry->protocol >= 0)
        json_object_set_int_member (o, "protocol", entry->protocol);
      if (entry->pid > 0)
        json_object_set_int_member (o, "pid", entry->pid);
      if (entry->cwd != NULL)
        json_object_set_string_member (o, "cwd", entry->cwd);
    }
  if (!json_object_has_member (o, "pid") && gb_launcher_owns (list->bridge->launcher, probe->port))
    json_object_set_int_member (o, "pid", gb_launcher_get_pid (list->bridge->launcher, probe->port));
  json_object_set_boolean_member (o, "launchedByThisBridge", gb_launcher_owns (list->bridge->launcher, probe->port));
  return o;
}

static void
finish (GTask *task)
{
  List *list = g_task_get_task_data (task);
  GbBridge *bridge = list->bridge;
  JsonObject *r = json_object_new ();
  JsonArray *stale = json_array_new ();
  JsonArray *not_a_game = json_array_new ();
  JsonArray *free_ports = json_array_new ();
  g_autoptr(GPtrArray) targets = gg_bus_list_targets (bridge->bus);
  GHashTable *live_ports = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < list->probes->len; i++)
    {
      GbProbe *probe = g_ptr_array_index (list->probes, i);
      GbRegistryEntry *entry = g_hash_table_lookup (list->registry, GUINT_TO_POINTER (probe->port));

      if (probe->kind == GB_PROBE_LIVE)
        g_hash_table_add (live_ports, GUINT_TO_POINTER (probe->port));
      else if (probe->kind == GB_PROBE_NOT_A_GAME)
        {
          JsonObject *o = json_object_new ();

          json_object_set_int_member (o, "port", probe->port);
          json_object_set_string_member (o, "reason", probe->reason);
          json_array_add_object_element (not_a_game, o);
        }
      else if (g_hash_table_contains (list->scanned, GUINT_TO_POINTER (probe->port)))
        json_array_add_int_element (free_ports, probe->port);
      if (entry != NULL && probe->kind != GB_PROBE_LIVE)
        {
          JsonObject *o = json_object_new ();

          json_object_set_int_member (o, "port", entry->port);
          if (entry->name != NULL)
            json_object_set_string_member (o, "game", entry->name);
          if (entry->pid > 0)
            json_object_set_int_member (o, "pid", entry->pid);
          if (entry->started != NULL)
            json_object_set_string_member (o, "started", entry->started);
          json_object_set_string_member (o, "file", entry->file);
          json_object_set_string_member (o, "reason", probe->kind == GB_PROBE_FREE
                                         ? "nothing answers on its port" : "its port is held by something else");
          json_array_add_object_element (stale, o);
        }
    }
  for (guint i = 0; i < json_array_get_length (list->problems); i++)
    json_array_add_element (stale, json_node_copy (json_array_get_element (list->problems, i)));

  /* Targets other plugins put on the bus (GABP mods): callable by `instance`. */
  for (guint i = 0; i < targets->len; i++)
    {
      GgTarget *target = g_ptr_array_index (targets, i);
      g_autoptr(JsonObject) info = NULL;
      JsonObject *o;
      g_autoptr(GList) names = NULL;

      if (GB_IS_HTTP_TARGET (target))
        continue;
      info = gg_target_get_info (target);
      o = json_object_new ();
      json_object_set_string_member (o, "instance", gg_target_get_id (target));
      json_object_set_string_member (o, "discovery", "bus");
      names = json_object_get_members (info);
      for (GList *l = names; l != NULL; l = l->next)
        if (!json_object_has_member (o, l->data) && !g_str_equal (l->data, "id"))
          json_object_set_member (o, l->data, json_node_copy (json_object_get_member (info, l->data)));
      if (!json_object_has_member (o, "status"))
        json_object_set_string_member (o, "status", "live");
      json_array_add_object_element (list->live, o);
    }

  if (bridge->registry_dir != NULL)
    json_object_set_string_member (r, "registryDir", bridge->registry_dir);
  else
    json_object_set_null_member (r, "registryDir");
  json_object_set_array_member (r, "live", json_array_ref (list->live));
  json_object_set_array_member (r, "stale", stale);
  json_object_set_array_member (r, "notAGame", not_a_game);
  json_object_set_array_member (r, "free", free_ports);
  g_hash_table_unref (live_ports);
  g_task_return_pointer (task, r, (GDestroyNotify) json_object_unref);
}

typedef struct {
  GTask *task;
  JsonObject *entry;
  GbConnector *connector;
} LiveRef;

static void
live_done (LiveRef *ref)
{
  List *list = g_task_get_task_data (ref->task);

  json_object_unref (ref->entry);
  g_object_unref (ref->connector);
  if (--list->pending == 0)
    finish (ref->task);
  g_object_unref (ref->task);
  g_free (ref);
}

static void
on_live_state (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  LiveRef *ref = user_data;
  g_autoptr(JsonNode) state = gb_connector_state_finish (GB_CONNECTOR (source), result, NULL);
  JsonNode *screen = state != NULL ? gg_json_path_get (state, "ui.screen", NULL) : NULL;

  if (screen != NULL)
    json_object_set_member (ref->entry, "screen", gg_json_copy (screen));
  live_done (ref);
}

static void
on_live_manifest (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  LiveRef *ref = user_data;
  g_autoptr(GbManifest) manifest = gb_connector_manifest_finish (GB_CONNECTOR (source), result, NULL);

  if (manifest != NULL)
    {
      json_object_set_string_member (ref->entry, "status",
                                     g_str_equal (manifest->source, "fallback") ? "live-no-manifest" : "live");
      json_object_set_string_member (ref->entry, "manifest", manifest->source);
      if (manifest->game_name != NULL)
        json_object_set_string_member (ref->entry, "game", manifest->game_name);
      if (manifest->game_version != NULL)
        json_object_set_string_member (ref->entry, "version", manifest->game_version);
      if (manifest->protocol >= 0)
        json_object_set_int_member (ref->entry, "protocol", manifest->protocol);
      json_object_set_array_member (ref->entry, "toolsets", gb_manifest_toolset_names (manifest));
    }
  else
    json_object_set_string_member (ref->entry, "status", "live");
  gb_connector_state_async (ref->connector, g_task_get_cancellable (ref->task), on_live_state, ref);
}

static void
on_swept (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  GTask *task = user_data;
  List *list = g_task_get_task_data (task);
  GError *error = NULL;

  list->probes = gb_scan_finish (result, &error);
  if (list->probes == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  list->pending = 1;
  for (guint i = 0; i < list->probes->len; i++)
    {
      GbProbe *probe = g_ptr_array_index (list->probes, i);
      LiveRef *ref;

      if (probe->kind != GB_PROBE_LIVE)
        continue;
      ref = g_new0 (LiveRef, 1);
      ref->task = g_object_ref (task);
      ref->entry = live_entry (list, probe);
      json_array_add_object_element (list->live, json_object_ref (ref->entry));
      ref->connector = g_object_ref (gb_http_target_get_connector (gb_bridge_ensure_target (list->bridge, probe->port)));
      list->pending++;
      gb_connector_manifest_async (ref->connector, FALSE, g_task_get_cancellable (task), on_live_manifest, ref);
    }
  if (--list->pending == 0)
    finish (task);
  g_object_unref (task);
}

static void
add_port (List  *list,
          guint  port)
{
  for (guint i = 0; i < list->ports->len; i++)
    if (g_array_index (list->ports, guint, i) == port)
      return;
  g_array_append_val (list->ports, port);
}

void
gb_instances_list_async (GbBridge            *self,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  List *list = g_new0 (List, 1);
  g_autoptr(GArray) launched = gb_launcher_list_ports (self->launcher);
  GHashTableIter iter;
  gpointer key;

  list->bridge = self;
  list->problems = json_array_new ();
  list->registry = self->registry_dir != NULL ? gb_registry_read (self->registry_dir, list->problems)
                                              : g_hash_table_new (NULL, NULL);
  list->scanned = g_hash_table_new (NULL, NULL);
  list->ports = g_array_new (FALSE, FALSE, sizeof (guint));
  list->live = json_array_new ();
  g_task_set_task_data (task, list, (GDestroyNotify) list_free);

  for (guint i = 0; self->scan_ports != NULL && i < self->scan_ports->len; i++)
    {
      g_hash_table_add (list->scanned, GUINT_TO_POINTER (g_array_index (self->scan_ports, guint, i)));
      add_port (list, g_array_index (self->scan_ports, guint, i));
    }
  g_hash_table_iter_init (&iter, list->registry);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    add_port (list, GPOINTER_TO_UINT (key));
  for (guint i = 0; i < launched->len; i++)
    add_port (list, g_array_index (launched, guint, i));
  /* Refused ports answer at once; --timeout bounds a port that hangs. */
  gb_scan_async (self->session, list->ports, (guint) self->options.timeout_ms,
                 SCAN_CONCURRENCY, cancellable, on_swept, task);
}

JsonObject *
gb_instances_list_finish (GbBridge      *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

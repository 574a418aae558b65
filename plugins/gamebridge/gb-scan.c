/* gb-scan.c: scan ranges ("7777,7800-7810") and a bounded port sweep.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "gb-connector.h"
#include "gb-errors.h"
#include "gb-scan.h"

static gboolean
parse_port (const char *text,
            guint      *out)
{
  guint64 value;

  if (!g_ascii_string_to_unsigned (g_strstrip ((char *) text), 10, 1, 65535, &value, NULL))
    return FALSE;
  *out = (guint) value;
  return TRUE;
}

/**
 * gb_scan_parse_range:
 * @spec: comma-separated ports and inclusive ranges
 * @error: BridgeUsageError on a malformed spec or more than 512 ports
 *
 * Returns: (transfer full): the ports (guint), duplicates removed, in order
 */
GArray *
gb_scan_parse_range (const char  *spec,
                     GError     **error)
{
  g_autoptr(GArray) ports = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  g_auto(GStrv) parts = NULL;

  if (spec == NULL || strlen (spec) > 4096)
    {
      gb_error_usage (error, "A scan range is a list like 7777,7800-7810");
      return NULL;
    }
  parts = g_strsplit (spec, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_auto(GStrv) ends = g_strsplit (parts[i], "-", 3);
      guint first, last;

      if (g_strv_length (ends) == 1 && parse_port (ends[0], &first))
        last = first;
      else if (g_strv_length (ends) == 2 && parse_port (ends[0], &first) && parse_port (ends[1], &last) &&
               first <= last)
        ;
      else
        {
          gb_error_usage (error, "Bad scan range '%.64s': expected ports and ranges like 7777,7800-7810",
                          parts[i]);
          return NULL;
        }
      if (last - first + 1 > GB_MAX_SCAN_PORTS)
        {
          gb_error_usage (error, "The scan range covers more than %d ports", GB_MAX_SCAN_PORTS);
          return NULL;
        }
      for (guint p = first; p <= last; p++)
        {
          if (g_hash_table_contains (seen, GUINT_TO_POINTER (p)))
            continue;
          if (ports->len >= GB_MAX_SCAN_PORTS)
            {
              gb_error_usage (error, "The scan range covers more than %d ports", GB_MAX_SCAN_PORTS);
              return NULL;
            }
          g_hash_table_add (seen, GUINT_TO_POINTER (p));
          g_array_append_val (ports, p);
        }
    }
  if (ports->len == 0)
    {
      gb_error_usage (error, "The scan range is empty");
      return NULL;
    }
  return g_steal_pointer (&ports);
}

void
gb_probe_free (GbProbe *probe)
{
  g_clear_pointer (&probe->health, json_object_unref);
  g_free (probe->reason);
  g_free (probe);
}

typedef struct {
  SoupSession *session;
  GArray *ports;
  GPtrArray *probes;
  guint timeout_ms;
  guint concurrency;
  guint next;
  guint running;
  guint done;
} Sweep;

static void
sweep_free (Sweep *sweep)
{
  g_object_unref (sweep->session);
  g_array_unref (sweep->ports);
  g_ptr_array_unref (sweep->probes);
  g_free (sweep);
}

static void sweep_next (GTask *task);

typedef struct {
  GTask *task;
  guint index;
} ProbeRef;

static void
on_probe_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  ProbeRef *ref = user_data;
  GTask *task = ref->task;
  Sweep *sweep = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  JsonObject *health = gb_connector_health_finish (GB_CONNECTOR (source), result, &error);
  GbProbe *probe = g_new0 (GbProbe, 1);

  probe->port = g_array_index (sweep->ports, guint, ref->index);
  if (health != NULL)
    {
      probe->kind = GB_PROBE_LIVE;
      probe->health = health;
    }
  else if (g_error_matches (error, GB_ERROR, GB_ERROR_NOT_A_GAME_SURFACE))
    {
      const char *colon = strstr (error->message, "game: ");

      probe->kind = GB_PROBE_NOT_A_GAME;
      probe->reason = colon != NULL ? g_strndup (colon + 6, strcspn (colon + 6, "\n")) : g_strdup (error->message);
      if (g_str_has_suffix (probe->reason, "."))
        probe->reason[strlen (probe->reason) - 1] = '\0';
    }
  else if (g_error_matches (error, GB_ERROR, GB_ERROR_HTTP_STATUS))
    {
      probe->kind = GB_PROBE_NOT_A_GAME;
      probe->reason = g_strdup (error->message);
    }
  else
    probe->kind = GB_PROBE_FREE;
  g_ptr_array_index (sweep->probes, ref->index) = probe;
  g_free (ref);
  sweep->running--;
  sweep->done++;
  sweep_next (task);
  g_object_unref (task);
}

static void
sweep_next (GTask *task)
{
  Sweep *sweep = g_task_get_task_data (task);

  if (sweep->done == sweep->ports->len)
    {
      g_task_return_pointer (task, g_ptr_array_ref (sweep->probes), (GDestroyNotify) g_ptr_array_unref);
      return;
    }
  while (sweep->running < sweep->concurrency && sweep->next < sweep->ports->len)
    {
      g_autoptr(GbConnector) connector =
        gb_connector_new (sweep->session, g_array_index (sweep->ports, guint, sweep->next),
                          sweep->timeout_ms, NULL, NULL);
      ProbeRef *ref = g_new0 (ProbeRef, 1);

      ref->task = g_object_ref (task);
      ref->index = sweep->next++;
      sweep->running++;
      gb_connector_health_async (connector, sweep->timeout_ms, g_task_get_cancellable (task), on_probe_done, ref);
    }
}

/**
 * gb_scan_async:
 * @session: the HTTP session
 * @ports: (element-type guint): the ports to probe
 * @timeout_ms: per probe
 * @concurrency: at most this many probes at once
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with every probe done
 * @user_data: data for @callback
 *
 * Health-checks every port.
 */
void
gb_scan_async (SoupSession         *session,
               GArray              *ports,
               guint                timeout_ms,
               guint                concurrency,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  Sweep *sweep = g_new0 (Sweep, 1);

  sweep->session = g_object_ref (session);
  sweep->ports = g_array_ref (ports);
  sweep->probes = g_ptr_array_new_full (ports->len, (GDestroyNotify) gb_probe_free);
  g_ptr_array_set_size (sweep->probes, ports->len);
  sweep->timeout_ms = timeout_ms;
  sweep->concurrency = MAX (concurrency, 1);
  g_task_set_task_data (task, sweep, (GDestroyNotify) sweep_free);
  sweep_next (task);
}

GPtrArray *
gb_scan_finish (GAsyncResult  *result,
                GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

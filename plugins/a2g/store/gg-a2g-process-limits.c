/* gg-a2g-process-limits.c: the process store's rate buckets (token
 * buckets that refill continuously) and token budgets (a limit per
 * window, with reservations that count until they are settled with what
 * was really used).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "gg-a2g-process-private.h"

typedef struct {
  double tokens;
  gint64 last_us;
} Bucket;

typedef struct {
  gint64 used;
  gint64 reserved;
  gint64 limit;
  gint64 window_s;
  gint64 window_start_us;
  char *window;
} Budget;

typedef struct {
  GPtrArray *scopes;     /* char* */
  gint64 amount;
} Reservation;

static void
budget_free (Budget *budget)
{
  g_free (budget->window);
  g_free (budget);
}

static void
reservation_free (Reservation *reservation)
{
  g_ptr_array_unref (reservation->scopes);
  g_free (reservation);
}

static void
rate_take (GgA2gStore          *store,
           const char          *name,
           double               rate,
           double               burst,
           GCancellable        *cancellable,
           GAsyncReadyCallback  callback,
           gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  Bucket *bucket;
  gint64 now = g_get_monotonic_time ();

  if (rate <= 0)
    {
      RETURN_INT (0);
      return;
    }
  bucket = g_hash_table_lookup (self->buckets, name);
  if (bucket == NULL)
    {
      bucket = g_new0 (Bucket, 1);
      bucket->tokens = MAX (burst, 1);
      bucket->last_us = now;
      g_hash_table_insert (self->buckets, g_strdup (name), bucket);
    }
  bucket->tokens = MIN (MAX (burst, 1), bucket->tokens + rate * (double) (now - bucket->last_us) / G_USEC_PER_SEC);
  bucket->last_us = now;
  if (bucket->tokens >= 1)
    {
      bucket->tokens -= 1;
      RETURN_INT (0);
      return;
    }
  RETURN_INT ((gssize) MAX (1, ceil ((1 - bucket->tokens) / rate * 1000)));
}

static Budget *
budget_current (GgA2gProcessStore      *self,
                const GgA2gBudgetLimit *limit,
                gint64                  now)
{
  Budget *budget = g_hash_table_lookup (self->budgets, limit->scope);

  if (budget == NULL)
    {
      budget = g_new0 (Budget, 1);
      budget->window_start_us = now;
      g_hash_table_insert (self->budgets, g_strdup (limit->scope), budget);
    }
  budget->limit = limit->limit;
  budget->window_s = MAX (limit->window_s, 1);
  if (g_strcmp0 (budget->window, limit->window) != 0)
    {
      g_free (budget->window);
      budget->window = g_strdup (limit->window);
    }
  if (now >= budget->window_start_us + budget->window_s * G_USEC_PER_SEC)
    {
      budget->used = 0;
      budget->window_start_us = now;
    }
  return budget;
}

static void
budget_reserve (GgA2gStore             *store,
                const GgA2gBudgetLimit *limits,
                guint                   n_limits,
                gint64                  amount,
                GCancellable           *cancellable,
                GAsyncReadyCallback     callback,
                gpointer                user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  gint64 now = g_get_monotonic_time ();
  Reservation *reservation;
  gint64 *id;

  for (guint i = 0; i < n_limits; i++)
    {
      Budget *budget = budget_current (self, &limits[i], now);

      if (budget->limit > 0 && budget->used + budget->reserved + amount > budget->limit)
        {
          RETURN_INT (0);
          return;
        }
    }
  reservation = g_new0 (Reservation, 1);
  reservation->scopes = g_ptr_array_new_with_free_func (g_free);
  reservation->amount = amount;
  for (guint i = 0; i < n_limits; i++)
    {
      Budget *budget = g_hash_table_lookup (self->budgets, limits[i].scope);

      budget->reserved += amount;
      g_ptr_array_add (reservation->scopes, g_strdup (limits[i].scope));
    }
  id = g_new (gint64, 1);
  *id = ++self->next_reservation;
  g_hash_table_insert (self->reservations, id, reservation);
  RETURN_INT ((gssize) *id);
}

static void
budget_settle (GgA2gStore          *store,
               gint64               id,
               gint64               used,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  Reservation *reservation = g_hash_table_lookup (self->reservations, &id);

  if (reservation == NULL)
    {
      RETURN_BOOLEAN (FALSE);
      return;
    }
  for (guint i = 0; i < reservation->scopes->len; i++)
    {
      Budget *budget = g_hash_table_lookup (self->budgets, g_ptr_array_index (reservation->scopes, i));

      if (budget == NULL)
        continue;
      budget->reserved = MAX (0, budget->reserved - reservation->amount);
      budget->used += MAX (used, 0);
    }
  g_hash_table_remove (self->reservations, &id);
  RETURN_BOOLEAN (TRUE);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static void
budget_list (GgA2gStore          *store,
             const char          *prefix,
             GCancellable        *cancellable,
             GAsyncReadyCallback  callback,
             gpointer             user_data)
{
  GgA2gProcessStore *self = GG_A2G_PROCESS_STORE (store);
  JsonArray *list = json_array_new ();
  g_autoptr(GPtrArray) scopes = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key;
  gint64 now = g_get_monotonic_time ();

  g_hash_table_iter_init (&iter, self->budgets);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (g_str_has_prefix (key, prefix))
      g_ptr_array_add (scopes, key);
  g_ptr_array_sort (scopes, compare_strings);
  for (guint i = 0; i < scopes->len; i++)
    {
      Budget *budget = g_hash_table_lookup (self->budgets, g_ptr_array_index (scopes, i));
      JsonObject *item = json_object_new ();

      if (now >= budget->window_start_us + budget->window_s * G_USEC_PER_SEC)
        {
          budget->used = 0;
          budget->window_start_us = now;
        }
      json_object_set_string_member (item, "scope", g_ptr_array_index (scopes, i));
      json_object_set_int_member (item, "used", budget->used);
      json_object_set_int_member (item, "limit", budget->limit);
      json_object_set_string_member (item, "window", budget->window);
      json_array_add_object_element (list, item);
    }
  RETURN_POINTER (list, json_array_unref);
}

/** _gg_a2g_process_limits_init: @self: the store, being made */
void
_gg_a2g_process_limits_init (GgA2gProcessStore *self)
{
  self->buckets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->budgets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) budget_free);
  self->reservations = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                              (GDestroyNotify) reservation_free);
}

/** _gg_a2g_process_limits_iface_init: @iface: the store interface to fill */
void
_gg_a2g_process_limits_iface_init (GgA2gStoreInterface *iface)
{
  iface->rate_take = rate_take;
  iface->budget_reserve = budget_reserve;
  iface->budget_settle = budget_settle;
  iface->budget_list = budget_list;
}

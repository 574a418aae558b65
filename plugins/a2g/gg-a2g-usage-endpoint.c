/* gg-a2g-usage-endpoint.c: GET /v1/usage: the service's counters and the
 * games' budgets (a game's API key reads its own game's budget only). Who
 * may read it outside the local profile: gg_a2g_access_check_reader().
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-endpoints.h"

typedef struct {
  GgA2gExchange *ex;
  gint64 sessions;
  char *game;              /* nullable: the API key's game, whose budget alone is shown */
  JsonArray *budgets;
} Usage;

/* Only @game's own row (`game:<id>`, exactly) of @budgets. */
static void
keep_game_budget (JsonArray  *budgets,
                  const char *game)
{
  g_autofree char *scope = g_strconcat ("game:", game, NULL);

  for (guint i = json_array_get_length (budgets); i > 0; i--)
    if (g_strcmp0 (gg_a2g_json_string (json_array_get_object_element (budgets, i - 1), "scope"), scope) != 0)
      json_array_remove_element (budgets, i - 1);
}

static void
usage_free (Usage *usage)
{
  gg_a2g_exchange_unref (usage->ex);
  g_clear_pointer (&usage->budgets, json_array_unref);
  g_free (usage->game);
  g_free (usage);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Usage, usage_free)

/* The counts are the service's: every replica's, this one's flushed first. */
static void
on_flushed (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(Usage) usage = user_data;
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(GError) error = NULL;
  GgA2gCounts totals;

  (void) source;
  if (!gg_a2g_stats_flush_finish (result, &totals, &error))
    {
      /* The shared store is out of reach: no figures rather than one replica's. */
      gg_a2g_exchange_reply_error (usage->ex, error);
      return;
    }
  reply = gg_a2g_reply_new ();
  json_object_set_int_member (reply, "sessions", usage->sessions);
  gg_a2g_counts_add_json (&totals, reply);
  json_object_set_array_member (reply, "budgets", g_steal_pointer (&usage->budgets));
  gg_a2g_exchange_reply (usage->ex, 200, reply);
}

static void
on_budgets (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(Usage) usage = user_data;
  g_autoptr(GError) error = NULL;
  GgA2gService *service = usage->ex->service;

  usage->budgets = gg_a2g_store_budget_list_finish (GG_A2G_STORE (source), result, &error);
  if (usage->budgets == NULL)
    {
      gg_a2g_exchange_reply_error (usage->ex, error);
      return;
    }
  if (usage->game != NULL)
    keep_game_budget (usage->budgets, usage->game);
  if (service == NULL)
    return;
  gg_a2g_stats_flush_async (service->stats, on_flushed, g_steal_pointer (&usage));
}

static void
on_counted (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(Usage) usage = user_data;
  g_autoptr(GError) error = NULL;
  GCancellable *cancellable = usage->ex->cancellable;

  usage->sessions = gg_a2g_store_session_count_finish (GG_A2G_STORE (source), result, &error);
  if (usage->sessions < 0)
    {
      gg_a2g_exchange_reply_error (usage->ex, error);
      return;
    }
  gg_a2g_store_budget_list_async (GG_A2G_STORE (source), "game:", cancellable, on_budgets, g_steal_pointer (&usage));
}

/**
 * gg_a2g_handle_usage:
 * @ex: a GET /v1/usage
 */
void
gg_a2g_handle_usage (GgA2gExchange *ex)
{
  Usage *usage = g_new0 (Usage, 1);

  usage->ex = gg_a2g_exchange_ref (ex);
  usage->game = g_strdup (gg_a2g_access_get_reader_game (ex->msg));
  gg_a2g_store_session_count_async (ex->service->store, ex->cancellable, on_counted, usage);
}

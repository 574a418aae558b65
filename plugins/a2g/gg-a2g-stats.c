/* gg-a2g-stats.c: decision counters, their flushes to the store and the
 * decisions per second (see gg-a2g-stats.h).
 *
 * Every count is in exactly one of three places: `pending` (counted here,
 * not sent yet), `sending` (sent in a flush not answered yet) or the
 * store's totals (`shared`, as the last answer said). A flush that fails
 * puts its counts back into `pending`, so the next one sends them again.
 * The service-wide view is shared + sending + pending.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-stats.h"

#define FLUSH_INTERVAL_S 1
#define N_COUNTS (sizeof (GgA2gCounts) / sizeof (gint64))
#define N_SAMPLES (GG_A2G_RATE_SECONDS + 2)

static const char * const source_names[] = { "model", "cache", "memory", "forced" };
static const char * const fallback_names[] = {
  "busy", "budget", "timeout", "unavailable", "invalid", "low_confidence", "error"
};
/* The store's names of GgA2gCounts' members, in their order. */
static const char * const counter_names[] = {
  "decisions.model", "decisions.cache", "decisions.memory", "decisions.forced",
  "fallbacks.busy", "fallbacks.budget", "fallbacks.timeout", "fallbacks.unavailable", "fallbacks.invalid",
  "fallbacks.low_confidence", "fallbacks.error",
  "tokens.input", "tokens.output", "cache.hits", "cache.misses",
};
G_STATIC_ASSERT (G_N_ELEMENTS (counter_names) == N_COUNTS);
G_STATIC_ASSERT (G_N_ELEMENTS (source_names) == GG_A2G_N_SOURCES);
G_STATIC_ASSERT (G_N_ELEMENTS (fallback_names) == GG_A2G_N_FALLBACKS);

/* The service's decisions by source at one (monotonic) second. */
typedef struct {
  gint64 second;           /* 0: none */
  gint64 decisions[GG_A2G_N_SOURCES];
} Sample;

struct _GgA2gStats {
  GgA2gStore *store;
  GgA2gCounts pending;
  GgA2gCounts sending;
  GgA2gCounts shared;
  gboolean have_shared;
  Sample samples[N_SAMPLES];
  guint timer_id;
  guint flushing;          /* flushes not answered yet */
  gboolean freed;          /* by its owner; alive while flushes are out */
};

typedef struct {
  GgA2gStats *stats;       /* a reference */
  GgA2gCounts delta;
  GTask *task;             /* nullable: nobody waits for the totals */
} Flush;

/** gg_a2g_source_name: Returns: the protocol name of @source */
const char *
gg_a2g_source_name (GgA2gSource source)
{
  return source_names[source];
}

/** gg_a2g_fallback_name: Returns: the FALLBACK code of @code */
const char *
gg_a2g_fallback_name (GgA2gFallback code)
{
  return fallback_names[code];
}

static gint64 *
counts_at (GgA2gCounts *counts)
{
  return (gint64 *) counts;
}

static void
counts_add (GgA2gCounts       *to,
            const GgA2gCounts *counts,
            gint64             sign)
{
  const gint64 *from = (const gint64 *) counts;

  for (gsize i = 0; i < N_COUNTS; i++)
    counts_at (to)[i] += sign * from[i];
}

static gint64
counts_decisions (const GgA2gCounts *counts)
{
  gint64 sum = 0;

  for (guint i = 0; i < GG_A2G_N_SOURCES; i++)
    sum += counts->decisions[i];
  for (guint i = 0; i < GG_A2G_N_FALLBACKS; i++)
    sum += counts->fallbacks[i];
  return sum;
}

static void
stats_clear (GgA2gStats *stats)
{
  gint64 lost = counts_decisions (&stats->pending);

  /* Not silently: the operator sees how many the service-wide counts miss. */
  if (lost > 0)
    g_warning ("a2g: %" G_GINT64_FORMAT " decisions were not added to the service's counters "
               "(the shared store was unreachable)", lost);
  g_clear_object (&stats->store);
}

static void
stats_release (GgA2gStats *stats)
{
  g_rc_box_release_full (stats, (GDestroyNotify) stats_clear);
}

static void
record_sample (GgA2gStats *stats)
{
  gint64 second = g_get_monotonic_time () / G_USEC_PER_SEC;
  Sample *sample = &stats->samples[second % N_SAMPLES];

  sample->second = second;
  memcpy (sample->decisions, stats->shared.decisions, sizeof sample->decisions);
}

static void
on_added (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  Flush *flush = user_data;
  GgA2gStats *stats = flush->stats;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) totals = gg_a2g_store_counters_add_finish (GG_A2G_STORE (source), result, &error);

  stats->flushing--;
  counts_add (&stats->sending, &flush->delta, -1);
  if (totals == NULL)
    {
      /* Kept for the next flush. */
      counts_add (&stats->pending, &flush->delta, 1);
      if (flush->task != NULL)
        g_task_return_error (flush->task, g_steal_pointer (&error));
    }
  else
    {
      for (gsize i = 0; i < N_COUNTS; i++)
        counts_at (&stats->shared)[i] = json_object_get_int_member_with_default (totals, counter_names[i], 0);
      stats->have_shared = TRUE;
      record_sample (stats);
      if (flush->task != NULL)
        g_task_return_pointer (flush->task, g_memdup2 (&stats->shared, sizeof stats->shared), g_free);
    }
  g_clear_object (&flush->task);
  stats_release (stats);
  g_free (flush);
}

/**
 * gg_a2g_stats_flush_async:
 * @stats: the counters
 * @callback: (nullable): gets the service's totals (gg_a2g_stats_flush_finish())
 * @user_data: for @callback
 *
 * Adds what this process counted since the last flush to the store's
 * counters and reads the service's totals back (one store operation).
 */
void
gg_a2g_stats_flush_async (GgA2gStats          *stats,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  Flush *flush = g_new0 (Flush, 1);
  GgA2gCounter deltas[N_COUNTS];
  guint n = 0;

  flush->stats = g_rc_box_acquire (stats);
  flush->delta = stats->pending;
  memset (&stats->pending, 0, sizeof stats->pending);
  counts_add (&stats->sending, &flush->delta, 1);
  if (callback != NULL)
    flush->task = g_task_new (NULL, NULL, callback, user_data);
  for (gsize i = 0; i < N_COUNTS; i++)
    if (counts_at (&flush->delta)[i] != 0)
      deltas[n++] = (GgA2gCounter) { counter_names[i], counts_at (&flush->delta)[i] };
  stats->flushing++;
  gg_a2g_store_counters_add_async (stats->store, deltas, n, NULL, on_added, flush);
}

/**
 * gg_a2g_stats_flush_finish:
 * @result: the result
 * @totals: (out caller-allocates): the service's totals, this process's
 *   counts up to the flush included
 * @error: GG_A2G_ERROR_UNAVAILABLE when the store did not answer
 *
 * Returns: whether @totals were read
 */
gboolean
gg_a2g_stats_flush_finish (GAsyncResult  *result,
                           GgA2gCounts   *totals,
                           GError       **error)
{
  g_autofree GgA2gCounts *counts = g_task_propagate_pointer (G_TASK (result), error);

  if (counts == NULL)
    return FALSE;
  *totals = *counts;
  return TRUE;
}

static gboolean
on_timer (gpointer user_data)
{
  GgA2gStats *stats = user_data;
  GgA2gCounts zero = { 0 };

  /* Only with something to add, or to learn the totals a first time. */
  if (memcmp (&stats->pending, &zero, sizeof zero) != 0 || !stats->have_shared)
    gg_a2g_stats_flush_async (stats, NULL, NULL);
  return G_SOURCE_CONTINUE;
}

/**
 * gg_a2g_stats_new:
 * @store: the store whose counters these are added to
 *
 * Returns: (transfer full): counters flushing about once a second
 */
GgA2gStats *
gg_a2g_stats_new (GgA2gStore *store)
{
  GgA2gStats *stats = g_rc_box_new0 (GgA2gStats);

  stats->store = g_object_ref (store);
  stats->timer_id = g_timeout_add_seconds (FLUSH_INTERVAL_S, on_timer, stats);
  return stats;
}

/**
 * gg_a2g_stats_free:
 * @stats: (transfer full): the counters
 *
 * Stops the periodic flushes; flushes in progress still finish (their
 * counts go back to pending when they fail, and are reported lost).
 */
void
gg_a2g_stats_free (GgA2gStats *stats)
{
  if (stats == NULL)
    return;
  g_clear_handle_id (&stats->timer_id, g_source_remove);
  stats->freed = TRUE;
  stats_release (stats);
}

/** gg_a2g_stats_flushing: Returns: the flushes not answered yet */
guint
gg_a2g_stats_flushing (GgA2gStats *stats)
{
  return stats->flushing;
}

/** gg_a2g_stats_decision: counts one decision of @source */
void
gg_a2g_stats_decision (GgA2gStats *stats,
                       GgA2gSource source)
{
  stats->pending.decisions[source]++;
}

/** gg_a2g_stats_fallback: counts one FALLBACK */
void
gg_a2g_stats_fallback (GgA2gStats   *stats,
                       GgA2gFallback code)
{
  stats->pending.fallbacks[code]++;
}

/** gg_a2g_stats_tokens: adds a model call's usage */
void
gg_a2g_stats_tokens (GgA2gStats *stats,
                     gint64      input,
                     gint64      output)
{
  stats->pending.input_tokens += MAX (input, 0);
  stats->pending.output_tokens += MAX (output, 0);
}

/** gg_a2g_stats_cache: counts one cache lookup */
void
gg_a2g_stats_cache (GgA2gStats *stats,
                    gboolean    hit)
{
  if (hit)
    stats->pending.cache_hits++;
  else
    stats->pending.cache_misses++;
}

/**
 * gg_a2g_stats_view:
 * @stats: the counters
 * @counts: (out caller-allocates): the service's totals as the store last
 *   said, with what this process counted since
 */
void
gg_a2g_stats_view (GgA2gStats  *stats,
                   GgA2gCounts *counts)
{
  *counts = stats->shared;
  counts_add (counts, &stats->sending, 1);
  counts_add (counts, &stats->pending, 1);
}

/**
 * gg_a2g_counts_add_json:
 * @counts: totals
 * @object: where to add `decisions`, `fallbacks` and `tokens`
 */
void
gg_a2g_counts_add_json (const GgA2gCounts *counts,
                        JsonObject        *object)
{
  JsonObject *decisions = json_object_new ();
  JsonObject *fallbacks = json_object_new ();
  JsonObject *tokens = json_object_new ();

  for (guint i = 0; i < GG_A2G_N_SOURCES; i++)
    json_object_set_int_member (decisions, source_names[i], counts->decisions[i]);
  for (guint i = 0; i < GG_A2G_N_FALLBACKS; i++)
    json_object_set_int_member (fallbacks, fallback_names[i], counts->fallbacks[i]);
  json_object_set_int_member (tokens, "input", counts->input_tokens);
  json_object_set_int_member (tokens, "output", counts->output_tokens);
  json_object_set_object_member (object, "decisions", decisions);
  json_object_set_object_member (object, "fallbacks", fallbacks);
  json_object_set_object_member (object, "tokens", tokens);
}

/**
 * gg_a2g_stats_rates:
 * @stats: the counters
 *
 * The service's decisions per second by source over the last ten
 * seconds, from the totals the store answered: the newest against the
 * newest at least ten seconds older (or the oldest there is).
 *
 * Returns: (transfer full): {"model": rate, ...}
 */
JsonObject *
gg_a2g_stats_rates (GgA2gStats *stats)
{
  JsonObject *rates = json_object_new ();
  gint64 now = g_get_monotonic_time () / G_USEC_PER_SEC;
  const Sample *newest = NULL, *base = NULL, *oldest = NULL;

  for (guint i = 0; i < N_SAMPLES; i++)
    {
      const Sample *sample = &stats->samples[i];

      if (sample->second == 0 || sample->second <= now - N_SAMPLES)
        continue;
      if (newest == NULL || sample->second > newest->second)
        newest = sample;
      if (oldest == NULL || sample->second < oldest->second)
        oldest = sample;
      if (sample->second <= now - GG_A2G_RATE_SECONDS && (base == NULL || sample->second > base->second))
        base = sample;
    }
  if (base == NULL)
    base = oldest;
  for (guint s = 0; s < GG_A2G_N_SOURCES; s++)
    {
      gint64 done = newest != NULL ? newest->decisions[s] - base->decisions[s] : 0;

      json_object_set_double_member (rates, source_names[s], (double) MAX (done, 0) / GG_A2G_RATE_SECONDS);
    }
  return rates;
}

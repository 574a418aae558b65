/* gg-a2g-stats.c: decision counters and rates.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-stats.h"

static const char * const source_names[] = { "model", "cache", "memory", "forced" };
static const char * const fallback_names[] = {
  "busy", "budget", "timeout", "unavailable", "invalid", "low_confidence", "error"
};

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

static guint64 *
slot (GgA2gStats *stats)
{
  gint64 second = g_get_monotonic_time () / G_USEC_PER_SEC;
  guint index = (guint) (second % GG_A2G_RATE_SECONDS);

  if (stats->slot_second[index] != second)
    {
      for (guint i = 0; i < GG_A2G_N_SOURCES; i++)
        stats->slots[index][i] = 0;
      stats->slot_second[index] = second;
    }
  return stats->slots[index];
}

/** gg_a2g_stats_decision: counts one decision of @source */
void
gg_a2g_stats_decision (GgA2gStats *stats,
                       GgA2gSource source)
{
  stats->decisions[source]++;
  slot (stats)[source]++;
}

/** gg_a2g_stats_fallback: counts one FALLBACK */
void
gg_a2g_stats_fallback (GgA2gStats   *stats,
                       GgA2gFallback code)
{
  stats->fallbacks[code]++;
}

/** gg_a2g_stats_tokens: adds a model call's usage */
void
gg_a2g_stats_tokens (GgA2gStats *stats,
                     gint64      input,
                     gint64      output)
{
  stats->input_tokens += (guint64) MAX (input, 0);
  stats->output_tokens += (guint64) MAX (output, 0);
}

/** gg_a2g_stats_cache: counts one cache lookup */
void
gg_a2g_stats_cache (GgA2gStats *stats,
                    gboolean    hit)
{
  if (hit)
    stats->cache_hits++;
  else
    stats->cache_misses++;
}

/**
 * gg_a2g_stats_add_counts:
 * @stats: the counters
 * @object: where to add `decisions`, `fallbacks` and `tokens`
 */
void
gg_a2g_stats_add_counts (GgA2gStats *stats,
                         JsonObject *object)
{
  JsonObject *decisions = json_object_new ();
  JsonObject *fallbacks = json_object_new ();
  JsonObject *tokens = json_object_new ();

  for (guint i = 0; i < GG_A2G_N_SOURCES; i++)
    json_object_set_int_member (decisions, source_names[i], (gint64) stats->decisions[i]);
  for (guint i = 0; i < GG_A2G_N_FALLBACKS; i++)
    json_object_set_int_member (fallbacks, fallback_names[i], (gint64) stats->fallbacks[i]);
  json_object_set_int_member (tokens, "input", (gint64) stats->input_tokens);
  json_object_set_int_member (tokens, "output", (gint64) stats->output_tokens);
  json_object_set_object_member (object, "decisions", decisions);
  json_object_set_object_member (object, "fallbacks", fallbacks);
  json_object_set_object_member (object, "tokens", tokens);
}

/**
 * gg_a2g_stats_rates:
 * @stats: the counters
 *
 * Returns: (transfer full): decisions per second by source over the last
 *   ten seconds
 */
JsonObject *
gg_a2g_stats_rates (GgA2gStats *stats)
{
  JsonObject *rates = json_object_new ();
  gint64 now = g_get_monotonic_time () / G_USEC_PER_SEC;

  for (guint s = 0; s < GG_A2G_N_SOURCES; s++)
    {
      guint64 sum = 0;

      for (guint i = 0; i < GG_A2G_RATE_SECONDS; i++)
        if (stats->slot_second[i] > now - GG_A2G_RATE_SECONDS && stats->slot_second[i] <= now)
          sum += stats->slots[i][s];
      json_object_set_double_member (rates, source_names[s], (double) sum / GG_A2G_RATE_SECONDS);
    }
  return rates;
}

/* gg-a2g-stats.h: this process's decision counters (by source, fallbacks
 * by code, tokens, cache hits) and the decisions per second of the last
 * ten seconds, for /v1/usage and the console.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum {
  GG_A2G_SOURCE_MODEL,
  GG_A2G_SOURCE_CACHE,
  GG_A2G_SOURCE_MEMORY,
  GG_A2G_SOURCE_FORCED,
  GG_A2G_N_SOURCES
} GgA2gSource;

typedef enum {
  GG_A2G_FALLBACK_BUSY,
  GG_A2G_FALLBACK_BUDGET,
  GG_A2G_FALLBACK_TIMEOUT,
  GG_A2G_FALLBACK_UNAVAILABLE,
  GG_A2G_FALLBACK_INVALID,
  GG_A2G_FALLBACK_LOW_CONFIDENCE,
  GG_A2G_FALLBACK_ERROR,
  GG_A2G_N_FALLBACKS
} GgA2gFallback;

#define GG_A2G_RATE_SECONDS 10

typedef struct {
  guint64 decisions[GG_A2G_N_SOURCES];
  guint64 fallbacks[GG_A2G_N_FALLBACKS];
  guint64 input_tokens, output_tokens;
  guint64 cache_hits, cache_misses;
  guint64 slots[GG_A2G_RATE_SECONDS][GG_A2G_N_SOURCES];
  gint64 slot_second[GG_A2G_RATE_SECONDS];
} GgA2gStats;

const char *gg_a2g_source_name     (GgA2gSource source);
const char *gg_a2g_fallback_name   (GgA2gFallback code);
void        gg_a2g_stats_decision  (GgA2gStats *stats,
                                    GgA2gSource source);
void        gg_a2g_stats_fallback  (GgA2gStats   *stats,
                                    GgA2gFallback code);
void        gg_a2g_stats_tokens    (GgA2gStats *stats,
                                    gint64      input,
                                    gint64      output);
void        gg_a2g_stats_cache     (GgA2gStats *stats,
                                    gboolean    hit);
void        gg_a2g_stats_add_counts (GgA2gStats *stats,
                                     JsonObject *object);
JsonObject *gg_a2g_stats_rates     (GgA2gStats *stats);

G_END_DECLS

/* gg-a2g-stats.h: the decision counters of /v1/usage and the console (by
 * source, fallbacks by code, tokens, cache hits), service-wide through
 * the store, and the decisions per second of the last ten seconds.
 *
 * A decision is counted here, in this process, at once; what was counted
 * is added to the store's counters about once a second (and when
 * /v1/usage asks, and at shutdown) in one operation that also reads every
 * replica's totals back, so that replicas sharing Redis answer the same
 * service-wide figures without a store round trip per decision. What the
 * store did not take (unreachable) is kept and sent again.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "gg-a2g-store.h"

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

/* A set of counts: totals, or what was counted since the last flush. */
typedef struct {
  gint64 decisions[GG_A2G_N_SOURCES];
  gint64 fallbacks[GG_A2G_N_FALLBACKS];
  gint64 input_tokens, output_tokens;
  gint64 cache_hits, cache_misses;
} GgA2gCounts;

typedef struct _GgA2gStats GgA2gStats;

const char *gg_a2g_source_name     (GgA2gSource source);
const char *gg_a2g_fallback_name   (GgA2gFallback code);

GgA2gStats *gg_a2g_stats_new       (GgA2gStore *store);
void        gg_a2g_stats_free      (GgA2gStats *stats);
void        gg_a2g_stats_decision  (GgA2gStats *stats,
                                    GgA2gSource source);
void        gg_a2g_stats_fallback  (GgA2gStats   *stats,
                                    GgA2gFallback code);
void        gg_a2g_stats_tokens    (GgA2gStats *stats,
                                    gint64      input,
                                    gint64      output);
void        gg_a2g_stats_cache     (GgA2gStats *stats,
                                    gboolean    hit);
void        gg_a2g_stats_flush_async  (GgA2gStats          *stats,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data);
gboolean    gg_a2g_stats_flush_finish (GAsyncResult  *result,
                                       GgA2gCounts   *totals,
                                       GError       **error);
guint       gg_a2g_stats_flushing  (GgA2gStats *stats);
void        gg_a2g_stats_view      (GgA2gStats  *stats,
                                    GgA2gCounts *counts);
void        gg_a2g_counts_add_json (const GgA2gCounts *counts,
                                    JsonObject        *object);
JsonObject *gg_a2g_stats_rates     (GgA2gStats *stats);

G_END_DECLS

/* bench-stats.h: latency percentiles of the gamebridge benchmarks
 * (bench-gamebridge.c, bench-mcp-http.c): samples in µs, figures in ms.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

static inline int
bench_compare_us (gconstpointer a,
                  gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* @us must be sorted (g_array_sort (us, bench_compare_us)). */
static inline double
bench_percentile_ms (GArray *us,
                     double  p)
{
  return g_array_index (us, gint64, (guint) (p * (us->len - 1))) / 1000.0;
}

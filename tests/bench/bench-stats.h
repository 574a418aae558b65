/* bench-stats.h: what the benchmarks measure alike: latency percentiles
 * (samples in µs, figures in ms) and a process's CPU time from /proc.
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

/* The first field of a schedstat file: nanoseconds on a CPU; 0 if unread. */
static inline guint64
bench_schedstat_ns (const char *path)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  return g_ascii_strtoull (text, NULL, 10);
}

/* CPU time all threads of process @pid have used so far, in nanoseconds
 * (from /proc: time actually on a CPU, so a loaded machine does not count). */
static inline guint64
bench_process_cpu_ns (int pid)
{
  g_autofree char *dir_path = g_strdup_printf ("/proc/%d/task", pid);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;
  guint64 total = 0;

  if (dir == NULL)
    return 0;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_strdup_printf ("%s/%s/schedstat", dir_path, name);

      total += bench_schedstat_ns (path);
    }
  return total;
}

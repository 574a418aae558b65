/* gg-main-context-private.h: timers and watches on the thread-default main
 * context (not API).
 *
 * g_timeout_add() and g_child_watch_add() attach to the global default
 * context, which is the host's own loop when gamegate runs inside another
 * program (libgamegate-oam's bridges each run a context of their own on a
 * thread of their own). Everything libgamegate schedules goes to the
 * context of the thread that asked, and is removed through its GSource,
 * since g_source_remove() only searches the global default context.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Attaches @source with @func to the thread-default context; returns it
 * (transfer full) for _gg_source_clear(). */
static inline GSource *
_gg_source_attach_here (GSource       *source,
                        GSourceFunc    func,
                        gpointer       data,
                        GDestroyNotify notify)
{
  g_source_set_callback (source, func, data, notify);
  g_source_attach (source, g_main_context_get_thread_default ());
  return source;
}

/* A timeout of @interval_ms on the thread-default context. */
static inline GSource *
_gg_timeout_add_here (guint       interval_ms,
                      GSourceFunc func,
                      gpointer    data)
{
  return _gg_source_attach_here (g_timeout_source_new (interval_ms), func, data, NULL);
}

/* Destroys and drops a source from _gg_timeout_add_here() (NULL is fine).
 * A callback returning G_SOURCE_REMOVE calls it on its own source too. */
static inline void
_gg_source_clear (GSource **source)
{
  if (*source == NULL)
    return;
  g_source_destroy (*source);
  g_clear_pointer (source, g_source_unref);
}

G_END_DECLS

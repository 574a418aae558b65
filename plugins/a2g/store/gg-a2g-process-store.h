/* gg-a2g-process-store.h: the GgA2gStore of one process (the local
 * profile, and any service without a shared store): every piece of a2g
 * state in this process's memory.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-a2g-store.h"

G_BEGIN_DECLS

#define GG_A2G_TYPE_PROCESS_STORE (gg_a2g_process_store_get_type ())
G_DECLARE_FINAL_TYPE (GgA2gProcessStore, gg_a2g_process_store, GG, A2G_PROCESS_STORE, GObject)

GgA2gProcessStore *gg_a2g_process_store_new (guint  cache_entries,
                                             gint64 cache_ttl_s);

G_END_DECLS

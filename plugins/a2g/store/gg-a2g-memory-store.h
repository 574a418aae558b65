/* gg-a2g-memory-store.h: the in-memory GgA2gStore of one process (the
 * local profile, and the embedded default without a shared store).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-a2g-store.h"

G_BEGIN_DECLS

#define GG_A2G_TYPE_MEMORY_STORE (gg_a2g_memory_store_get_type ())
G_DECLARE_FINAL_TYPE (GgA2gMemoryStore, gg_a2g_memory_store, GG, A2G_MEMORY_STORE, GObject)

GgA2gMemoryStore *gg_a2g_memory_store_new (guint  cache_entries,
                                           gint64 cache_ttl_s);

G_END_DECLS

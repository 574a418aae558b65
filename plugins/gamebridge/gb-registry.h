/* gb-registry.h: the self-registration entries of spec section 2 (plugin-
 * internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

typedef struct {
  guint  port;
  gint64 pid;       /* 0 = unknown */
  char  *name;
  char  *version;
  gint64 protocol;  /* -1 = unknown */
  char  *host;
  char  *started;
  char  *cwd;
  char  *file;
} GbRegistryEntry;

void       gb_registry_entry_free (GbRegistryEntry *entry);
/* Reads @dir: entries by port (later `started` wins) and the unreadable
 * files as {"file","error"} objects appended to @problems. */
GHashTable *gb_registry_read      (const char *dir,
                                   JsonArray  *problems);

G_END_DECLS

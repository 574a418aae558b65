/* gg-config-private.h: what the getters (gg-config.c) and the loader
 * (gg-config-load.c) of #GgConfig share inside libgamegate. Not installed,
 * not exported.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-config.h"

G_BEGIN_DECLS

typedef struct {
  char *group;
  char *key;        /* NULL for a group header */
  char *origin;     /* file name, or "command line" */
  guint line;       /* 0 when the value did not come from a file */
  gboolean read;
} GgConfigEntry;

/* A key a getter read (gg-config-report.c), set or not. */
typedef struct {
  char *group;
  char *key;
  char *default_value;  /* as text; NULL when the getter passed none */
  char *env_variable;   /* set by gg_config_get_env() when the variable is */
} GgConfigRead;

struct _GgConfig {
  GObject parent_instance;

  GKeyFile *keyfile;
  char *origin;
  GHashTable *entries;  /* "group\nkey" or "group" -> GgConfigEntry (borrowed) */
  GPtrArray *order;     /* GgConfigEntry, first-seen order (owned) */
  GHashTable *reads;    /* "group\nkey" -> GgConfigRead (borrowed) */
  GPtrArray *read_order; /* GgConfigRead, first-read order (owned) */
};

/* The key of GgConfig.entries: "group\nkey", or "group" for a header. */
char          *_gg_config_entry_id   (const char *group,
                                      const char *key);
/* Records (or refreshes) where a group (@key NULL) or key was last set. */
GgConfigEntry *_gg_config_remember   (GgConfig   *self,
                                      const char *group,
                                      const char *key,
                                      const char *origin,
                                      guint       line);
/* A copy of @text (@length bytes, or -1) cut for an error message, with
 * invalid UTF-8 repaired. */
char          *_gg_config_quote_text (const char *text,
                                      gssize      length);

/* What the effective configuration (gg-config-report.c) knows of reads. */
void           _gg_config_read_free  (gpointer    data);
void           _gg_config_note_read  (GgConfig   *self,
                                      const char *group,
                                      const char *key,
                                      const char *default_value);

/* Names a key file may use: the checks of the loader, also applied to
 * gg_config_set_value(). */
char          *_gg_config_shown_value (const char *key,
                                       const char *value);
gboolean       _gg_config_is_group_name (const char *group);
gboolean       _gg_config_is_key_name   (const char *key);

G_END_DECLS

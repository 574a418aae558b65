/* gb-options.h: the options of `gamegate mcp`: command line, environment,
 * config (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

#define GB_DEFAULT_PORT        7777
#define GB_DEFAULT_TIMEOUT_MS  5000
#define GB_DEFAULT_SCAN_RANGE  "7777,7800-7810"

typedef struct {
  int       port;          /* 0 = not given */
  char     *scan_range;
  gboolean  no_scan;
  gboolean  no_registry;
  char     *registry_dir;
  char     *config;
  char     *launch_hint;
  char     *manifest;
  gboolean  eager;
  int       timeout_ms;    /* 0 = not given */
} GbOptions;

void      gb_options_clear            (GbOptions *options);
GOptionEntry *gb_options_entries      (GbOptions *options);
gboolean  gb_options_resolve          (GbOptions  *options,
                                       GError    **error);
char     *gb_options_default_registry_dir (void);

G_END_DECLS

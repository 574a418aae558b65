/* gg-cli.h: the command line of `gamegate` (host only).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-host.h"

G_BEGIN_DECLS

typedef struct {
  char *config_file;
  char **plugin_dirs;
  char **set_values;  /* --set GROUP.KEY=VALUE */
  gboolean verbose;
  gboolean version;
  gboolean help;
  gboolean print_config;  /* --print-config: show the effective configuration */
  char *command;  /* the subcommand, or NULL for the daemon */
} GgCliOptions;

void     gg_cli_options_clear  (GgCliOptions *options);
gboolean gg_cli_parse_global   (const char * const *argv,
                                GgCliOptions       *options,
                                GError            **error);
gboolean gg_cli_parse_full     (const char * const *argv,
                                GgBus              *bus,
                                GgFrontend         *frontend,
                                GgCliOptions       *options,
                                char              **help,
                                GError            **error);
void     gg_cli_print_plugins  (GgHost *host);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (GgCliOptions, gg_cli_options_clear)

G_END_DECLS

/* gb-launch-config.h: the launch declaration (gamebridge.json) of spec
 * section 3 (plugin-internal).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

typedef struct {
  char   *file;
  char   *dir;         /* the file's directory */
  char   *name;
  char   *command;     /* or argv */
  char  **argv;
  char   *cwd;         /* absolute */
  char  **env;         /* KEY=VALUE */
  guint   port_first;
  guint   port_last;
  guint   ready_timeout_ms;
} GbLaunchConfig;

void            gb_launch_config_free  (GbLaunchConfig *config);
char           *gb_launch_config_find  (const char *start_dir);
GbLaunchConfig *gb_launch_config_load  (const char  *path,
                                        GError     **error);
char           *gb_launch_config_describe_command (GbLaunchConfig *config,
                                                   guint           port);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GbLaunchConfig, gb_launch_config_free)

G_END_DECLS

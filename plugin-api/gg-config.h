/* gg-config.h: the gateway's key file, one group per plugin, with errors
 * that name the file and line.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined (GAMEGATE_INSIDE) && !defined (GAMEGATE_COMPILATION)
#error "Only <gamegate.h> can be included directly."
#endif

#include <glib-object.h>

G_BEGIN_DECLS

#define GG_CONFIG_ERROR (gg_config_error_quark ())
GQuark gg_config_error_quark (void);

/**
 * GgConfigError:
 * @GG_CONFIG_ERROR_PARSE: the file is not a valid key file
 * @GG_CONFIG_ERROR_INVALID_VALUE: a key holds a value its plugin cannot use
 *
 * Errors of the %GG_CONFIG_ERROR domain; their messages name the file and
 * line (`file:line: [group] key: what`). A plugin's setup returning one stops
 * the host with exit status 2.
 *
 * Since: 1.0
 */
typedef enum {
  GG_CONFIG_ERROR_PARSE,
  GG_CONFIG_ERROR_INVALID_VALUE,
} GgConfigError;

/**
 * GgConfig:
 *
 * The host's configuration: one key file (`gamegate.conf`), one group per
 * plugin, with `--set GROUP.KEY=VALUE` on top. Plugins read their group with
 * the typed getters, which report bad values with the file and line.
 *
 * Since: 1.0
 */
#define GG_TYPE_CONFIG (gg_config_get_type ())
G_DECLARE_FINAL_TYPE (GgConfig, gg_config, GG, CONFIG, GObject)

GgConfig   *gg_config_new             (void);
gboolean    gg_config_load_file       (GgConfig   *self,
                                       const char *path,
                                       GError    **error);
gboolean    gg_config_load_data       (GgConfig   *self,
                                       const char *data,
                                       const char *origin,
                                       GError    **error);
const char *gg_config_get_origin      (GgConfig *self);
gboolean    gg_config_has_key         (GgConfig   *self,
                                       const char *group,
                                       const char *key);
void        gg_config_set_value       (GgConfig   *self,
                                       const char *group,
                                       const char *key,
                                       const char *value);
char       *gg_config_get_string      (GgConfig   *self,
                                       const char *group,
                                       const char *key,
                                       const char *default_value);
char      **gg_config_get_string_list (GgConfig   *self,
                                       const char *group,
                                       const char *key);
gboolean    gg_config_get_int         (GgConfig   *self,
                                       const char *group,
                                       const char *key,
                                       gint64      min,
                                       gint64      max,
                                       gint64      default_value,
                                       gint64     *out_value,
                                       GError    **error);
gboolean    gg_config_get_double      (GgConfig   *self,
                                       const char *group,
                                       const char *key,
                                       double      min,
                                       double      max,
                                       double      default_value,
                                       double     *out_value,
                                       GError    **error);
gboolean    gg_config_get_boolean     (GgConfig   *self,
                                       const char *group,
                                       const char *key,
                                       gboolean    default_value,
                                       gboolean   *out_value,
                                       GError    **error);
void        gg_config_set_invalid     (GgConfig   *self,
                                       const char *group,
                                       const char *key,
                                       GError    **error,
                                       const char *format,
                                       ...) G_GNUC_PRINTF (5, 6);
char      **gg_config_list_unread     (GgConfig *self);
char      **gg_config_list_groups     (GgConfig *self);
char      **gg_config_list_keys       (GgConfig   *self,
                                       const char *group);
char       *gg_config_get_location    (GgConfig   *self,
                                       const char *group,
                                       const char *key);
const char *gg_config_get_env         (GgConfig   *self,
                                       const char *group,
                                       const char *key,
                                       const char *variable);
char       *gg_config_dump_effective  (GgConfig *self);

G_END_DECLS

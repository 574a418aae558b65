/* gg-host.h: what the host's modes share, and what libgamegate-oam's
 * in-process host shares with them (host only, not API).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

#include "gg-plugin-loader.h"

G_BEGIN_DECLS

/* Exit statuses of `gamegate`. */
enum {
  GG_EXIT_OK = 0,
  GG_EXIT_FAILURE = 1,  /* a run-time failure */
  GG_EXIT_USAGE = 2,    /* a bad command line or configuration */
};

/* How long plugins get to close what they opened at shutdown. */
#define GG_HOST_SHUTDOWN_TIMEOUT_MS 5000

typedef struct {
  GgBus *bus;
  GgConfig *config;
  GgPluginLoader *loader;
  char *notify_socket;  /* $NOTIFY_SOCKET, or NULL */
  char *tap_socket;     /* [gateway] tap-socket: NULL for the default, "" for none */
  guint tap_drain_timeout_ms; /* [gateway] tap-drain-timeout-ms */
} GgHost;

/* The host's own configuration group. */
#define GG_HOST_GATEWAY_GROUP "gateway"

gboolean gg_host_load_config            (GgConfig    *config,
                                         const char  *option_file,
                                         GError     **error);
gboolean gg_host_apply_default_model    (GgHost  *host,
                                         GError **error);
void     gg_host_add_plugin_directories (GgHost             *host,
                                         const char * const *extra);
void     gg_host_warn_about_config      (GgHost             *host,
                                         const char * const *disabled);

int gg_daemon_run (GgHost *host);
int gg_stdio_run  (GgHost     *host,
                   GgFrontend *frontend);

G_END_DECLS

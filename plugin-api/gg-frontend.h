/* gg-frontend.h: a protocol front end: one client on stdio, or a listener in
 * daemon mode.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined (GAMEGATE_INSIDE) && !defined (GAMEGATE_COMPILATION)
#error "Only <gamegate.h> can be included directly."
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * GgFrontend:
 *
 * A protocol front end a plugin adds with gg_plugin_add_frontend(): it
 * serves one client on stdio (`gamegate <name>`) and listens on its own
 * socket in daemon mode (`gamegate serve`).
 *
 * Since: 1.0
 */
#define GG_TYPE_FRONTEND (gg_frontend_get_type ())
G_DECLARE_INTERFACE (GgFrontend, gg_frontend, GG, FRONTEND, GObject)

/**
 * GgFrontendInterface:
 * @get_name: the subcommand, `gamegate <name>` ("oam", "mcp")
 * @get_summary: one translated line for `gamegate --help`
 * @get_option_group: (transfer full) (nullable): options of `gamegate <name>`,
 *   parsed before @run_stdio_async is called
 * @run_stdio_async: serve one client on @stdio; completes when the client is
 *   gone (end of input, `shutdown`) or @cancellable is cancelled (SIGINT,
 *   SIGTERM), after every request seen has been answered
 * @run_stdio_finish: finishes @run_stdio_async; the default propagates the
 *   boolean of a #GTask whose source object is the front end
 * @start_daemon: start listening on the front end's socket(s)
 * @stop_async: stop accepting, cancel running work with its proper errors
 *   and close every connection; completes when that is done
 * @stop_finish: finishes @stop_async; the same default as @run_stdio_finish
 *
 * Since: 1.0
 */
struct _GgFrontendInterface {
  GTypeInterface g_iface;

  const char   *(*get_name)         (GgFrontend *self);
  const char   *(*get_summary)      (GgFrontend *self);
  GOptionGroup *(*get_option_group) (GgFrontend *self);
  void          (*run_stdio_async)  (GgFrontend          *self,
                                     GIOStream           *stdio,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data);
  gboolean      (*run_stdio_finish) (GgFrontend    *self,
                                     GAsyncResult  *result,
                                     GError       **error);
  gboolean      (*start_daemon)     (GgFrontend  *self,
                                     GError     **error);
  void          (*stop_async)       (GgFrontend          *self,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data);
  gboolean      (*stop_finish)      (GgFrontend    *self,
                                     GAsyncResult  *result,
                                     GError       **error);
  /*< private >*/
  gpointer padding[8];
};

const char   *gg_frontend_get_name         (GgFrontend *self);
const char   *gg_frontend_get_summary      (GgFrontend *self);
GOptionGroup *gg_frontend_get_option_group (GgFrontend *self);
void          gg_frontend_run_stdio_async  (GgFrontend          *self,
                                            GIOStream           *stdio,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
gboolean      gg_frontend_run_stdio_finish (GgFrontend    *self,
                                            GAsyncResult  *result,
                                            GError       **error);
gboolean      gg_frontend_start_daemon     (GgFrontend  *self,
                                            GError     **error);
void          gg_frontend_stop_async       (GgFrontend          *self,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
gboolean      gg_frontend_stop_finish      (GgFrontend    *self,
                                            GAsyncResult  *result,
                                            GError       **error);

G_END_DECLS

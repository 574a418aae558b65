/* gg-frontend.c: the GgFrontend interface.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-frontend.h"

G_DEFINE_INTERFACE (GgFrontend, gg_frontend, G_TYPE_OBJECT)

/* What almost every front end writes: its async operations complete
 * through a GTask returning a boolean. */
static gboolean
propagate_task_boolean (GgFrontend    *self,
                        GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
gg_frontend_default_init (GgFrontendInterface *iface)
{
  iface->run_stdio_finish = propagate_task_boolean;
  iface->stop_finish = propagate_task_boolean;
}

/**
 * gg_frontend_get_name:
 * @self: a #GgFrontend
 *
 * Gets the front end's name, which is also its subcommand.
 *
 * Returns: (transfer none): the subcommand that runs this front end on stdio
 *
 * Since: 1.0
 */
const char *
gg_frontend_get_name (GgFrontend *self)
{
  g_return_val_if_fail (GG_IS_FRONTEND (self), NULL);
  return GG_FRONTEND_GET_IFACE (self)->get_name (self);
}

/**
 * gg_frontend_get_summary:
 * @self: a #GgFrontend
 *
 * Gets the front end's one-line description.
 *
 * Returns: (transfer none): one line for `gamegate --help`
 *
 * Since: 1.0
 */
const char *
gg_frontend_get_summary (GgFrontend *self)
{
  GgFrontendInterface *iface;

  g_return_val_if_fail (GG_IS_FRONTEND (self), NULL);

  iface = GG_FRONTEND_GET_IFACE (self);
  return iface->get_summary != NULL ? iface->get_summary (self) : "";
}

/**
 * gg_frontend_get_option_group:
 * @self: a #GgFrontend
 *
 * Gets the command-line options of the front end's subcommand.
 *
 * Returns: (transfer full) (nullable): the options of `gamegate <name>`
 *
 * Since: 1.0
 */
GOptionGroup *
gg_frontend_get_option_group (GgFrontend *self)
{
  GgFrontendInterface *iface;

  g_return_val_if_fail (GG_IS_FRONTEND (self), NULL);

  iface = GG_FRONTEND_GET_IFACE (self);
  return iface->get_option_group != NULL ? iface->get_option_group (self) : NULL;
}

/**
 * gg_frontend_run_stdio_async:
 * @self: a #GgFrontend
 * @stdio: the client's streams (stdin/stdout)
 * @cancellable: (nullable): cancelled on SIGINT/SIGTERM
 * @callback: called when the client is gone and everything is answered
 * @user_data: data for @callback
 *
 * Serves one client on @stdio.
 *
 * Since: 1.0
 */
void
gg_frontend_run_stdio_async (GgFrontend          *self,
                             GIOStream           *stdio,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  GgFrontendInterface *iface;

  g_return_if_fail (GG_IS_FRONTEND (self));
  g_return_if_fail (G_IS_IO_STREAM (stdio));

  iface = GG_FRONTEND_GET_IFACE (self);
  if (iface->run_stdio_async == NULL)
    {
      g_task_report_new_error (self, callback, user_data, gg_frontend_run_stdio_async,
                               G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               "Front end '%s' cannot serve on stdio",
                               gg_frontend_get_name (self));
      return;
    }
  iface->run_stdio_async (self, stdio, cancellable, callback, user_data);
}

/**
 * gg_frontend_run_stdio_finish:
 * @self: a #GgFrontend
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Finishes gg_frontend_run_stdio_async().
 *
 * Returns: %TRUE when the client was served to its end
 *
 * Since: 1.0
 */
gboolean
gg_frontend_run_stdio_finish (GgFrontend    *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (GG_IS_FRONTEND (self), FALSE);

  if (g_async_result_is_tagged (result, gg_frontend_run_stdio_async))
    return g_task_propagate_boolean (G_TASK (result), error);
  return GG_FRONTEND_GET_IFACE (self)->run_stdio_finish (self, result, error);
}

/**
 * gg_frontend_start_daemon:
 * @self: a #GgFrontend
 * @error: return location for a #GError
 *
 * Starts the front end's listeners for daemon mode. A front end without a
 * daemon mode succeeds doing nothing.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gg_frontend_start_daemon (GgFrontend  *self,
                          GError     **error)
{
  GgFrontendInterface *iface;

  g_return_val_if_fail (GG_IS_FRONTEND (self), FALSE);

  iface = GG_FRONTEND_GET_IFACE (self);
  return iface->start_daemon == NULL || iface->start_daemon (self, error);
}

/**
 * gg_frontend_stop_async:
 * @self: a #GgFrontend
 * @cancellable: (nullable): a #GCancellable
 * @callback: called once everything is stopped
 * @user_data: data for @callback
 *
 * Stops accepting, cancels running work with its proper errors and closes
 * every connection.
 *
 * Since: 1.0
 */
void
gg_frontend_stop_async (GgFrontend          *self,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  GgFrontendInterface *iface;

  g_return_if_fail (GG_IS_FRONTEND (self));

  iface = GG_FRONTEND_GET_IFACE (self);
  if (iface->stop_async == NULL)
    {
      g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
      g_task_set_source_tag (task, gg_frontend_stop_async);
      g_task_return_boolean (task, TRUE);
      return;
    }
  iface->stop_async (self, cancellable, callback, user_data);
}

/**
 * gg_frontend_stop_finish:
 * @self: a #GgFrontend
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Finishes gg_frontend_stop_async().
 *
 * Returns: %TRUE when the front end stopped cleanly
 *
 * Since: 1.0
 */
gboolean
gg_frontend_stop_finish (GgFrontend    *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (GG_IS_FRONTEND (self), FALSE);

  if (g_async_result_is_tagged (result, gg_frontend_stop_async))
    return g_task_propagate_boolean (G_TASK (result), error);
  return GG_FRONTEND_GET_IFACE (self)->stop_finish (self, result, error);
}

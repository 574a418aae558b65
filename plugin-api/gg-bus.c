/* gg-bus.c: the registry and router: targets, front ends, and the
 * orderly shutdown every plugin takes part in. The model factories and
 * the default model are in gg-bus-models.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-bus.h"
#include "gg-bus-private.h"
#include "gg-bus-observer-private.h"
#include "gg-main-context-private.h"

G_DEFINE_FINAL_TYPE (GgBus, gg_bus, G_TYPE_OBJECT)

/* On a target: the name its plugin reports under, for the bus tap. */
static GQuark
target_plugin_quark (void)
{
  return g_quark_from_static_string ("gg-bus-target-plugin");
}

enum {
  SIGNAL_TARGET_ADDED,
  SIGNAL_TARGET_REMOVED,
  SIGNAL_TARGET_EVENT,
  SIGNAL_SHUTDOWN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
on_target_event (GgTarget   *target,
                 const char *channel,
                 guint64     seq,
                 JsonNode   *payload,
                 GgBus      *self)
{
  if (G_UNLIKELY (gg_bus_is_observed (self)))
    {
      JsonObject *object = json_object_new ();
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
      GgBusRecord record = {
        .kind = "target-event",
        .plugin = g_object_get_qdata (G_OBJECT (target), target_plugin_quark ()),
        .target = gg_target_get_id (target),
        .name = channel,
        .duration_us = -1,
        .payload = node,
      };

      json_object_set_int_member (object, "seq", (gint64) seq);
      json_object_set_member (object, "event", json_node_copy (payload));
      json_node_take_object (node, object);
      gg_bus_report (self, &record);
    }
  g_signal_emit (self, signals[SIGNAL_TARGET_EVENT], 0, target, channel, seq, payload);
}

static void
forget_target (GgBus    *self,
               GgTarget *target)
{
  g_signal_handlers_disconnect_by_func (target, on_target_event, self);
  g_object_set_qdata (G_OBJECT (target), target_plugin_quark (), NULL);
  _gg_bus_unmark_owned (target);
}

static void
gg_bus_dispose (GObject *object)
{
  GgBus *self = GG_BUS (object);

  if (self->targets != NULL)
    for (guint i = 0; i < self->targets->len; i++)
      forget_target (self, g_ptr_array_index (self->targets, i));
  g_clear_pointer (&self->targets, g_ptr_array_unref);
  g_clear_pointer (&self->frontends, g_ptr_array_unref);
  _gg_bus_models_clear (self);
  _gg_source_clear (&self->shutdown_timeout);
  g_clear_object (&self->shutdown_task);

  G_OBJECT_CLASS (gg_bus_parent_class)->dispose (object);
}

static void
gg_bus_class_init (GgBusClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = gg_bus_dispose;

  /**
   * GgBus::target-added:
   * @self: the bus
   * @target: the new #GgTarget
   *
   * A target was added with gg_bus_add_target().
   *
   * Since: 1.0
   */
  signals[SIGNAL_TARGET_ADDED] =
    g_signal_new ("target-added", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, GG_TYPE_TARGET);

  /**
   * GgBus::target-removed:
   * @self: the bus
   * @target: the #GgTarget that went away
   *
   * A target was removed with gg_bus_remove_target().
   *
   * Since: 1.0
   */
  signals[SIGNAL_TARGET_REMOVED] =
    g_signal_new ("target-removed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, GG_TYPE_TARGET);

  /**
   * GgBus::target-event:
   * @self: the bus
   * @target: the #GgTarget the event came from
   * @channel: the event channel
   * @seq: the event's sequence number in @channel
   * @payload: (transfer none): the event's JSON payload; valid during the
   *   emission only, so copy what you keep and do not modify it
   *
   * Every target's events, forwarded synchronously, so they keep the order
   * the target emitted them in.
   *
   * Since: 1.0
   */
  signals[SIGNAL_TARGET_EVENT] =
    g_signal_new ("target-event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 4, GG_TYPE_TARGET,
                  G_TYPE_STRING, G_TYPE_UINT64,
                  JSON_TYPE_NODE | G_SIGNAL_TYPE_STATIC_SCOPE);

  /**
   * GgBus::shutdown:
   * @self: the bus
   *
   * The process is shutting down. Handlers that need time call
   * gg_bus_hold() now and gg_bus_release() when they are done.
   *
   * Since: 1.0
   */
  signals[SIGNAL_SHUTDOWN] =
    g_signal_new ("shutdown", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
gg_bus_init (GgBus *self)
{
  self->targets = g_ptr_array_new_with_free_func (g_object_unref);
  self->frontends = g_ptr_array_new_with_free_func (g_object_unref);
  _gg_bus_models_init (self);
}

/**
 * gg_bus_new:
 *
 * Creates a bus. A process has one; tests may make several.
 *
 * Returns: (transfer full): a new #GgBus
 *
 * Since: 1.0
 */
GgBus *
gg_bus_new (void)
{
  return g_object_new (GG_TYPE_BUS, NULL);
}

/* Targets -------------------------------------------------------------- */

/**
 * gg_bus_add_target:
 * @self: a #GgBus
 * @target: a target a connector found
 * @error: return location for a #GError
 *
 * Adds @target owned by no plugin in particular: gg_bus_add_target_full()
 * with no @plugin. A plugin's connector uses gg_bus_add_target_full().
 *
 * Returns: %TRUE when the target was added
 *
 * Since: 1.0
 */
gboolean
gg_bus_add_target (GgBus     *self,
                   GgTarget  *target,
                   GError   **error)
{
  return gg_bus_add_target_full (self, target, NULL, error);
}

/**
 * gg_bus_add_target_full:
 * @self: a #GgBus
 * @target: a target a connector found
 * @plugin: (nullable): the name the plugin that owns @target reports its
 *   bus records under (as given to gg_bus_new_correlation()), e.g. `gabp`
 * @error: return location for a #GError
 *
 * Adds @target, forwards its events as #GgBus::target-event and emits
 * #GgBus::target-added. The bus tap names @plugin on the records of the
 * target's events. An id already on the bus fails with
 * %G_IO_ERROR_EXISTS.
 *
 * Returns: %TRUE when the target was added
 *
 * Since: 1.0
 */
gboolean
gg_bus_add_target_full (GgBus       *self,
                        GgTarget    *target,
                        const char  *plugin,
                        GError     **error)
{
  g_return_val_if_fail (GG_IS_BUS (self), FALSE);
  g_return_val_if_fail (GG_IS_TARGET (target), FALSE);

  const char *id = gg_target_get_id (target);
  if (gg_bus_lookup_target (self, id) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   "A target with id '%s' is already on the bus", id);
      return FALSE;
    }

  g_ptr_array_add (self->targets, g_object_ref (target));
  g_object_set_qdata_full (G_OBJECT (target), target_plugin_quark (), g_strdup (plugin), g_free);
  g_signal_connect_object (target, "event", G_CALLBACK (on_target_event), self, 0);
  _gg_bus_mark_owned (self, target);
  g_debug ("target added: %s", id);
  g_signal_emit (self, signals[SIGNAL_TARGET_ADDED], 0, target);
  return TRUE;
}

/**
 * gg_bus_remove_target:
 * @self: a #GgBus
 * @target: a target on the bus
 *
 * Removes @target and emits #GgBus::target-removed. Removing a target that
 * is not on the bus does nothing.
 *
 * Since: 1.0
 */
void
gg_bus_remove_target (GgBus    *self,
                      GgTarget *target)
{
  guint index;

  g_return_if_fail (GG_IS_BUS (self));
  g_return_if_fail (GG_IS_TARGET (target));

  if (!g_ptr_array_find (self->targets, target, &index))
    return;

  g_autoptr(GgTarget) keep = g_object_ref (target);
  forget_target (self, target);
  g_ptr_array_remove_index (self->targets, index);
  g_debug ("target removed: %s", gg_target_get_id (target));
  g_signal_emit (self, signals[SIGNAL_TARGET_REMOVED], 0, target);
}

/**
 * gg_bus_lookup_target:
 * @self: a #GgBus
 * @id: a target id
 *
 * Looks a target up by its id.
 *
 * Returns: (transfer none) (nullable): the target with @id
 *
 * Since: 1.0
 */
GgTarget *
gg_bus_lookup_target (GgBus      *self,
                      const char *id)
{
  g_return_val_if_fail (GG_IS_BUS (self), NULL);
  g_return_val_if_fail (id != NULL, NULL);

  for (guint i = 0; i < self->targets->len; i++)
    {
      GgTarget *target = g_ptr_array_index (self->targets, i);
      if (g_str_equal (gg_target_get_id (target), id))
        return target;
    }
  return NULL;
}

/**
 * gg_bus_list_targets:
 * @self: a #GgBus
 *
 * Lists the targets on the bus.
 *
 * Returns: (transfer container) (element-type GgTarget): the targets, in the
 *   order they were added
 *
 * Since: 1.0
 */
GPtrArray *
gg_bus_list_targets (GgBus *self)
{
  g_return_val_if_fail (GG_IS_BUS (self), NULL);

  GPtrArray *list = g_ptr_array_new_full (self->targets->len, g_object_unref);
  for (guint i = 0; i < self->targets->len; i++)
    g_ptr_array_add (list, g_object_ref (g_ptr_array_index (self->targets, i)));
  return list;
}

/* Models --------------------------------------------------------------- */

/**
 * gg_bus_add_frontend:
 * @self: a #GgBus
 * @frontend: a front end
 * @error: return location for a #GError
 *
 * Registers @frontend. Its name becomes a subcommand: 1-64 of a-z, 0-9 and
 * '-', not starting with '-' (%G_IO_ERROR_INVALID_ARGUMENT), and unique,
 * "serve", "plugins" and "tap" being taken by gamegate itself (%G_IO_ERROR_EXISTS).
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gg_bus_add_frontend (GgBus       *self,
                     GgFrontend  *frontend,
                     GError     **error)
{
  g_return_val_if_fail (GG_IS_BUS (self), FALSE);
  g_return_val_if_fail (GG_IS_FRONTEND (frontend), FALSE);

  const char *name = gg_frontend_get_name (frontend);
  /* The name is a subcommand: one word a shell passes as is, never taken
   * for an option, and not one of gamegate's own commands. */
  if (name == NULL || *name == '\0' || *name == '-' || strlen (name) > 64 ||
      strspn (name, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen (name))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Front end name '%s' is not 1-64 of a-z, 0-9 and '-' (not first)",
                   name != NULL ? name : "");
      return FALSE;
    }
  if (g_str_equal (name, "serve") || g_str_equal (name, "plugins") || g_str_equal (name, "tap") ||
      gg_bus_lookup_frontend (self, name) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   "A front end or command named '%s' already exists", name);
      return FALSE;
    }
  g_ptr_array_add (self->frontends, g_object_ref (frontend));
  return TRUE;
}

/**
 * gg_bus_lookup_frontend:
 * @self: a #GgBus
 * @name: a front end name ("oam")
 *
 * Looks a front end up by its name.
 *
 * Returns: (transfer none) (nullable): the front end called @name
 *
 * Since: 1.0
 */
GgFrontend *
gg_bus_lookup_frontend (GgBus      *self,
                        const char *name)
{
  g_return_val_if_fail (GG_IS_BUS (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i < self->frontends->len; i++)
    {
      GgFrontend *frontend = g_ptr_array_index (self->frontends, i);
      if (g_strcmp0 (gg_frontend_get_name (frontend), name) == 0)
        return frontend;
    }
  return NULL;
}

/**
 * gg_bus_list_frontends:
 * @self: a #GgBus
 *
 * Lists the front ends, in the order they were added.
 *
 * Returns: (transfer container) (element-type GgFrontend): the front ends,
 *   in registration order
 *
 * Since: 1.0
 */
GPtrArray *
gg_bus_list_frontends (GgBus *self)
{
  g_return_val_if_fail (GG_IS_BUS (self), NULL);

  GPtrArray *list = g_ptr_array_new_full (self->frontends->len, g_object_unref);
  for (guint i = 0; i < self->frontends->len; i++)
    g_ptr_array_add (list, g_object_ref (g_ptr_array_index (self->frontends, i)));
  return list;
}

/* Undoing a failed plugin setup ---------------------------------------- */

guint
_gg_bus_get_n_frontends (GgBus *self)
{
  return self->frontends->len;
}

/* Drops the front ends registered after the first @n. */
void
_gg_bus_truncate_frontends (GgBus *self,
                            guint  n)
{
  if (n < self->frontends->len)
    g_ptr_array_set_size (self->frontends, n);
}

/* Shutdown ------------------------------------------------------------- */

static void
complete_shutdown (GgBus    *self,
                   gboolean  timed_out)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->shutdown_task);

  _gg_source_clear (&self->shutdown_timeout);
  if (task == NULL)
    return;
  if (timed_out)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                             "%u plugin task(s) did not finish shutting down in time",
                             self->hold_count);
  else
    g_task_return_boolean (task, TRUE);
}

static gboolean
on_shutdown_timeout (gpointer user_data)
{
  GgBus *self = user_data;

  complete_shutdown (self, TRUE);
  return G_SOURCE_REMOVE;
}

/**
 * gg_bus_hold:
 * @self: a #GgBus
 *
 * Keeps a pending gg_bus_shutdown_async() from completing until the matching
 * gg_bus_release().
 *
 * Since: 1.0
 */
void
gg_bus_hold (GgBus *self)
{
  g_return_if_fail (GG_IS_BUS (self));
  self->hold_count++;
}

/**
 * gg_bus_release:
 * @self: a #GgBus
 *
 * Drops a hold taken with gg_bus_hold().
 *
 * Since: 1.0
 */
void
gg_bus_release (GgBus *self)
{
  g_return_if_fail (GG_IS_BUS (self));
  g_return_if_fail (self->hold_count > 0);

  if (--self->hold_count == 0 && self->shutdown_task != NULL)
    complete_shutdown (self, FALSE);
}

/**
 * gg_bus_is_shutting_down:
 * @self: a #GgBus
 *
 * Tells whether the shutdown began.
 *
 * Returns: %TRUE once gg_bus_shutdown_async() was called
 *
 * Since: 1.0
 */
gboolean
gg_bus_is_shutting_down (GgBus *self)
{
  g_return_val_if_fail (GG_IS_BUS (self), FALSE);
  return self->shutting_down;
}

/**
 * gg_bus_shutdown_async:
 * @self: a #GgBus
 * @timeout_ms: how long to wait for holders, 0 = forever
 * @callback: called when every holder released the bus, or on timeout
 * @user_data: data for @callback
 *
 * Emits #GgBus::shutdown and waits for the plugins to finish their cleanup.
 *
 * Since: 1.0
 */
void
gg_bus_shutdown_async (GgBus               *self,
                       guint                timeout_ms,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_return_if_fail (GG_IS_BUS (self));

  GTask *task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, gg_bus_shutdown_async);
  if (self->shutdown_task != NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_PENDING,
                               "The bus is already shutting down");
      g_object_unref (task);
      return;
    }

  self->shutdown_task = task;
  self->shutting_down = TRUE;
  gg_bus_hold (self); /* so a handler that holds and releases at once cannot complete us early */
  g_signal_emit (self, signals[SIGNAL_SHUTDOWN], 0);
  if (timeout_ms > 0 && self->shutdown_task != NULL)
    self->shutdown_timeout = _gg_timeout_add_here (timeout_ms, on_shutdown_timeout, self);
  gg_bus_release (self);
}

/**
 * gg_bus_shutdown_finish:
 * @self: a #GgBus
 * @result: the #GAsyncResult
 * @error: return location for a #GError (%G_IO_ERROR_TIMED_OUT)
 *
 * Finishes gg_bus_shutdown_async().
 *
 * Returns: %TRUE when every plugin finished its cleanup in time
 *
 * Since: 1.0
 */
gboolean
gg_bus_shutdown_finish (GgBus         *self,
                        GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (GG_IS_BUS (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

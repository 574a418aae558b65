/* gg-bus-observer.c: the bus tap's core: observers of a bus, the records
 * reporting sites hand them, correlation ids carried by cancellables, and
 * the wrapped calls libgamegate's own reporting sites (tool calls to
 * targets, model steps) use to report a result when it is finished.
 *
 * With no observer attached anywhere, a reporting site costs one integer
 * load (_gg_bus_any_observer()): nothing is built or allocated.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <time.h>

#include "gg-bus.h"
#include "gg-bus-observer-private.h"
#include "gg-json.h"

gint _gg_bus_n_observers = 0;

typedef struct {
  guint id;
  GgBusObserverFunc func;     /* NULL once removed while dispatching */
  gpointer user_data;
  GDestroyNotify destroy;
} Observer;

typedef struct {
  GArray *observers;          /* Observer */
  guint next_id;
  guint64 next_correlation;
  guint dispatching;
  guint n_live;
} Observers;

typedef struct {
  char *plugin;
  char *session;
  char *id;
} Correlation;

struct _GgBusPending {
  GgBus *bus;
  char *result_kind;
  char *plugin;
  char *session;
  char *target;
  char *name;
  char *correlation;
  gint64 started_us;
  GAsyncReadyCallback callback;
  gpointer user_data;
  gboolean reported;
};

/* Atomic: buses of several threads (the oam C ABI's bridges) ask at once. */
#define DEFINE_STATIC_QUARK(name, string) \
  static GQuark name##_quark (void) \
  { \
    static gint quark; \
    GQuark value = (GQuark) g_atomic_int_get (&quark); \
    if (G_UNLIKELY (value == 0)) \
      { \
        value = g_quark_from_static_string (string); \
        g_atomic_int_set (&quark, (gint) value); \
      } \
    return value; \
  }

DEFINE_STATIC_QUARK (observers, "gg-bus-observers")
DEFINE_STATIC_QUARK (owner, "gg-bus-owner")
DEFINE_STATIC_QUARK (correlation, "gg-bus-correlation")
DEFINE_STATIC_QUARK (pending, "gg-bus-pending")

static void
observer_clear (Observer *observer)
{
  if (observer->destroy != NULL)
    observer->destroy (observer->user_data);
  observer->destroy = NULL;
  observer->func = NULL;
}

static void
observers_free (gpointer data)
{
  Observers *observers = data;

  for (guint i = 0; i < observers->observers->len; i++)
    {
      Observer *observer = &g_array_index (observers->observers, Observer, i);
      if (observer->func != NULL)
        g_atomic_int_add (&_gg_bus_n_observers, -1);
      observer_clear (observer);
    }
  g_array_unref (observers->observers);
  g_free (observers);
}

static Observers *
get_observers (GgBus    *self,
               gboolean  create)
{
  Observers *observers = g_object_get_qdata (G_OBJECT (self), observers_quark ());

  if (observers == NULL && create)
    {
      observers = g_new0 (Observers, 1);
      observers->observers = g_array_new (FALSE, TRUE, sizeof (Observer));
      observers->next_id = 1;
      observers->next_correlation = 1;
      g_object_set_qdata_full (G_OBJECT (self), observers_quark (), observers, observers_free);
    }
  return observers;
}

/**
 * gg_bus_add_observer:
 * @self: a #GgBus
 * @func: receives every record reported on @self
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data when the observer is removed
 *
 * Attaches an observer: from now on the bus's reporting sites build
 * records for it. Observers are called in the order they were added.
 *
 * Returns: the observer's id for gg_bus_remove_observer(), never 0
 *
 * Since: 1.0
 */
guint
gg_bus_add_observer (GgBus             *self,
                     GgBusObserverFunc  func,
                     gpointer           user_data,
                     GDestroyNotify     destroy)
{
  g_return_val_if_fail (GG_IS_BUS (self), 0);
  g_return_val_if_fail (func != NULL, 0);

  Observers *observers = get_observers (self, TRUE);
  Observer observer = { observers->next_id++, func, user_data, destroy };

  g_array_append_val (observers->observers, observer);
  observers->n_live++;
  g_atomic_int_inc (&_gg_bus_n_observers);
  return observer.id;
}

static void
compact (Observers *observers)
{
  for (guint i = observers->observers->len; i > 0; i--)
    if (g_array_index (observers->observers, Observer, i - 1).func == NULL)
      g_array_remove_index (observers->observers, i - 1);
}

/**
 * gg_bus_remove_observer:
 * @self: a #GgBus
 * @id: what gg_bus_add_observer() returned
 *
 * Detaches an observer and frees its data. It receives no record after
 * this, even when removed from within a record it is receiving. An
 * unknown @id does nothing.
 *
 * Since: 1.0
 */
void
gg_bus_remove_observer (GgBus *self,
                        guint  id)
{
  g_return_if_fail (GG_IS_BUS (self));

  Observers *observers = get_observers (self, FALSE);
  if (observers == NULL)
    return;
  for (guint i = 0; i < observers->observers->len; i++)
    {
      Observer *observer = &g_array_index (observers->observers, Observer, i);
      if (observer->id == id && observer->func != NULL)
        {
          Observer removed = *observer;

          observer->func = NULL;
          observer->destroy = NULL;
          observers->n_live--;
          g_atomic_int_add (&_gg_bus_n_observers, -1);
          if (observers->dispatching == 0)
            compact (observers);
          observer_clear (&removed);
          return;
        }
    }
}

/**
 * gg_bus_is_observed:
 * @self: a #GgBus
 *
 * Tells whether any observer is attached. Reporting sites check this
 * first, so that nobody listening costs nothing.
 *
 * Returns: %TRUE when records reported on @self reach an observer
 *
 * Since: 1.0
 */
gboolean
gg_bus_is_observed (GgBus *self)
{
  if (!_gg_bus_any_observer ())
    return FALSE;
  g_return_val_if_fail (GG_IS_BUS (self), FALSE);

  Observers *observers = get_observers (self, FALSE);
  return observers != NULL && observers->n_live > 0;
}

/* Copies @payload, masks its secrets and cuts it to
 * GG_BUS_RECORD_PAYLOAD_MAX bytes of JSON. */
static void
set_payload (JsonObject *record,
             JsonNode   *payload)
{
  g_autoptr(JsonNode) copy = gg_json_copy (payload);
  g_autofree char *text = NULL;
  gsize length;

  gg_json_mask_secrets (copy);
  text = json_to_string (copy, FALSE);
  length = strlen (text);
  if (length <= GG_BUS_RECORD_PAYLOAD_MAX)
    {
      json_object_set_member (record, "payload", g_steal_pointer (&copy));
      return;
    }
  /* Cut at a character boundary. */
  const char *end = text + GG_BUS_RECORD_PAYLOAD_MAX;
  while (end > text && ((guchar) *end & 0xC0) == 0x80)
    end--;
  g_autofree char *cut = g_strndup (text, (gsize) (end - text));
  json_object_set_string_member (record, "payload", cut);
  json_object_set_boolean_member (record, "truncated", TRUE);
}

/* UTC, ISO 8601 with milliseconds, into @buffer (no allocation: this runs
 * for every record). */
static const char *
format_now (char   *buffer,
            gsize   size)
{
  gint64 now = g_get_real_time ();
  time_t seconds = (time_t) (now / G_USEC_PER_SEC);
  struct tm tm;

  gmtime_r (&seconds, &tm);
  g_snprintf (buffer, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
              tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int) (now % G_USEC_PER_SEC) / 1000);
  return buffer;
}

/**
 * gg_bus_report:
 * @self: a #GgBus
 * @record: what happened
 *
 * Hands @record to every observer of @self as a JSON object (see
 * #GgBusObserverFunc), stamped with the time. Does nothing when nobody
 * observes; callers that have to build a payload check
 * gg_bus_is_observed() first.
 *
 * Since: 1.0
 */
void
gg_bus_report (GgBus             *self,
               const GgBusRecord *record)
{
  if (!gg_bus_is_observed (self))
    return;
  g_return_if_fail (record != NULL && record->kind != NULL);

  Observers *observers = get_observers (self, FALSE);
  g_autoptr(JsonObject) object = json_object_new ();
  char time[32];

  json_object_set_string_member (object, "kind", record->kind);
  json_object_set_int_member (object, "mono", g_get_monotonic_time ());
  json_object_set_string_member (object, "time", format_now (time, sizeof time));
  if (record->plugin != NULL)
    json_object_set_string_member (object, "plugin", record->plugin);
  if (record->target != NULL)
    json_object_set_string_member (object, "target", record->target);
  if (record->session != NULL)
    json_object_set_string_member (object, "session", record->session);
  if (record->name != NULL)
    json_object_set_string_member (object, "name", record->name);
  if (record->correlation != NULL)
    json_object_set_string_member (object, "correlation", record->correlation);
  if (record->duration_us >= 0)
    json_object_set_int_member (object, "durationUs", record->duration_us);
  json_object_set_boolean_member (object, "ok", record->error == NULL);
  if (record->error != NULL)
    json_object_set_string_member (object, "error", record->error->message);
  if (record->payload != NULL)
    set_payload (object, record->payload);

  g_object_ref (self);
  observers->dispatching++;
  for (guint i = 0; i < observers->observers->len; i++)
    {
      Observer *observer = &g_array_index (observers->observers, Observer, i);
      if (observer->func != NULL)
        observer->func (self, object, observer->user_data);
    }
  if (--observers->dispatching == 0)
    compact (observers);
  g_object_unref (self);
}

/* Correlation ------------------------------------------------------------ */

/**
 * gg_bus_new_correlation:
 * @self: a #GgBus
 * @plugin: the front end making it ("mcp")
 *
 * Makes a correlation id for one front-end request or turn: `@plugin-N`,
 * N counting from 1 on @self.
 *
 * Returns: (transfer full): a new id
 *
 * Since: 1.0
 */
char *
gg_bus_new_correlation (GgBus      *self,
                        const char *plugin)
{
  g_return_val_if_fail (GG_IS_BUS (self), NULL);
  g_return_val_if_fail (plugin != NULL, NULL);

  Observers *observers = get_observers (self, TRUE);
  return g_strdup_printf ("%s-%" G_GUINT64_FORMAT, plugin, observers->next_correlation++);
}

static void
correlation_free (gpointer data)
{
  Correlation *correlation = data;

  g_free (correlation->plugin);
  g_free (correlation->session);
  g_free (correlation->id);
  g_free (correlation);
}

/**
 * gg_bus_set_correlation:
 * @cancellable: the cancellable of a request's work
 * @plugin: (nullable): the front end the request came to
 * @session: (nullable): the session, NPC or connection it belongs to
 * @id: (nullable): its correlation id, %NULL to clear it
 *
 * Tags @cancellable: the tool calls and model steps run with it (and the
 * tool calls of a #GgAgentTurn run with it) report @plugin, @session and
 * @id in their records.
 *
 * Since: 1.0
 */
void
gg_bus_set_correlation (GCancellable *cancellable,
                        const char   *plugin,
                        const char   *session,
                        const char   *id)
{
  g_return_if_fail (G_IS_CANCELLABLE (cancellable));

  Correlation *correlation = NULL;
  if (id != NULL)
    {
      correlation = g_new0 (Correlation, 1);
      correlation->plugin = g_strdup (plugin);
      correlation->session = g_strdup (session);
      correlation->id = g_strdup (id);
    }
  g_object_set_qdata_full (G_OBJECT (cancellable), correlation_quark (), correlation,
                           correlation != NULL ? correlation_free : NULL);
}

/**
 * gg_bus_get_correlation:
 * @cancellable: (nullable): a cancellable
 * @plugin: (out) (optional) (transfer none) (nullable): the front end
 * @session: (out) (optional) (transfer none) (nullable): the session
 *
 * Reads what gg_bus_set_correlation() put on @cancellable.
 *
 * Returns: (transfer none) (nullable): the correlation id
 *
 * Since: 1.0
 */
const char *
gg_bus_get_correlation (GCancellable  *cancellable,
                        const char   **plugin,
                        const char   **session)
{
  Correlation *correlation = cancellable != NULL ?
                             g_object_get_qdata (G_OBJECT (cancellable), correlation_quark ()) : NULL;

  if (plugin != NULL)
    *plugin = correlation != NULL ? correlation->plugin : NULL;
  if (session != NULL)
    *session = correlation != NULL ? correlation->session : NULL;
  return correlation != NULL ? correlation->id : NULL;
}

/**
 * gg_bus_copy_correlation:
 * @from: (nullable): a cancellable, tagged or not
 * @to: the cancellable of work @from's work starts
 *
 * Tags @to as @from is tagged (nothing when @from is not), for work that
 * runs with a cancellable of its own.
 *
 * Since: 1.0
 */
void
gg_bus_copy_correlation (GCancellable *from,
                         GCancellable *to)
{
  const char *plugin, *session;
  const char *id = gg_bus_get_correlation (from, &plugin, &session);

  g_return_if_fail (G_IS_CANCELLABLE (to));
  if (id != NULL)
    gg_bus_set_correlation (to, plugin, session, id);
}

/* Owned objects ---------------------------------------------------------- */

static void
weak_ref_free (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}

void
_gg_bus_mark_owned (GgBus    *self,
                    gpointer  object)
{
  GWeakRef *ref = g_new0 (GWeakRef, 1);

  g_weak_ref_init (ref, self);
  g_object_set_qdata_full (object, owner_quark (), ref, weak_ref_free);
}

void
_gg_bus_unmark_owned (gpointer object)
{
  g_object_set_qdata (object, owner_quark (), NULL);
}

GgBus *
_gg_bus_ref_observing (gpointer object)
{
  GWeakRef *ref;
  GgBus *bus;

  if (!_gg_bus_any_observer ())
    return NULL;
  ref = g_object_get_qdata (object, owner_quark ());
  bus = ref != NULL ? g_weak_ref_get (ref) : NULL;
  if (bus != NULL && !gg_bus_is_observed (bus))
    g_clear_object (&bus);
  return bus;
}

/* Pending calls ---------------------------------------------------------- */

static void
pending_free (GgBusPending *pending)
{
  g_object_unref (pending->bus);
  g_free (pending->result_kind);
  g_free (pending->plugin);
  g_free (pending->session);
  g_free (pending->target);
  g_free (pending->name);
  g_free (pending->correlation);
  g_free (pending);
}

GgBusPending *
_gg_bus_pending_new (GgBus               *bus,
                     const char          *result_kind,
                     const char          *target,
                     const char          *name,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  GgBusPending *pending = g_new0 (GgBusPending, 1);
  const char *plugin = NULL, *session = NULL;
  const char *correlation = gg_bus_get_correlation (cancellable, &plugin, &session);

  pending->bus = g_object_ref (bus);
  pending->result_kind = g_strdup (result_kind);
  pending->plugin = g_strdup (plugin);
  pending->session = g_strdup (session);
  pending->target = g_strdup (target);
  pending->name = g_strdup (name);
  pending->correlation = g_strdup (correlation);
  pending->started_us = g_get_monotonic_time ();
  pending->callback = callback;
  pending->user_data = user_data;
  return pending;
}

void
_gg_bus_pending_report_start (GgBusPending *pending,
                              const char   *kind,
                              JsonNode     *payload)
{
  GgBusRecord record = {
    .kind = kind,
    .plugin = pending->plugin,
    .session = pending->session,
    .target = pending->target,
    .name = pending->name,
    .correlation = pending->correlation,
    .duration_us = -1,
    .payload = payload,
  };

  gg_bus_report (pending->bus, &record);
}

static void
on_pending_done (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GgBusPending *pending = user_data;

  g_object_set_qdata (G_OBJECT (result), pending_quark (), pending);
  if (pending->callback != NULL)
    pending->callback (source, result, pending->user_data);
  g_object_set_qdata (G_OBJECT (result), pending_quark (), NULL);
  pending_free (pending);
}

void
_gg_bus_pending_wrap (GgBusPending         *pending,
                      GAsyncReadyCallback  *callback,
                      gpointer             *user_data)
{
  *callback = on_pending_done;
  *user_data = pending;
}

GgBusPending *
_gg_bus_pending_lookup (GAsyncResult *result)
{
  if (!_gg_bus_any_observer () || result == NULL)
    return NULL;
  return g_object_get_qdata (G_OBJECT (result), pending_quark ());
}

void
_gg_bus_pending_report_result (GgBusPending *pending,
                               const GError *error,
                               JsonNode     *payload)
{
  if (pending->reported)
    return;
  pending->reported = TRUE;

  GgBusRecord record = {
    .kind = pending->result_kind,
    .plugin = pending->plugin,
    .session = pending->session,
    .target = pending->target,
    .name = pending->name,
    .correlation = pending->correlation,
    .duration_us = g_get_monotonic_time () - pending->started_us,
    .error = error,
    .payload = payload,
  };

  gg_bus_report (pending->bus, &record);
}

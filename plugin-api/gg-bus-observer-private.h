/* gg-bus-observer-private.h: what the central reporting sites of
 * libgamegate (target tool calls, model steps, target events) share with
 * the observer code; not API, not exported.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gg-bus.h"

G_BEGIN_DECLS

/* Observers attached to any bus of the process: the zero-cost test every
 * reporting site makes first. */
extern gint _gg_bus_n_observers;

static inline gboolean
_gg_bus_any_observer (void)
{
  return G_UNLIKELY (g_atomic_int_get (&_gg_bus_n_observers) > 0);
}

/* The bus owns @object (a target or model it created or was given). */
void   _gg_bus_mark_owned          (GgBus    *self,
                                    gpointer  object);
void   _gg_bus_unmark_owned        (gpointer  object);
/* The bus owning @object when it is observed, referenced; else NULL. */
GgBus *_gg_bus_ref_observing       (gpointer  object);

/* A call (tool call, model step) reported when it starts and when the
 * caller finishes it: the callback is wrapped so that the finish function
 * can find the call on the GAsyncResult it is given. */
typedef struct _GgBusPending GgBusPending;

GgBusPending *_gg_bus_pending_new     (GgBus               *bus,
                                       const char          *result_kind,
                                       const char          *target,
                                       const char          *name,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data);
void          _gg_bus_pending_report_start (GgBusPending *pending,
                                            const char   *kind,
                                            JsonNode     *payload);
/* The callback and data to hand the real call. */
void          _gg_bus_pending_wrap    (GgBusPending         *pending,
                                       GAsyncReadyCallback  *callback,
                                       gpointer             *user_data);
/* From a finish function: the pending call @result completes, or NULL. */
GgBusPending *_gg_bus_pending_lookup  (GAsyncResult *result);
/* Reports the result once (later calls do nothing); takes nothing. */
void          _gg_bus_pending_report_result (GgBusPending *pending,
                                             const GError *error,
                                             JsonNode     *payload);

G_END_DECLS

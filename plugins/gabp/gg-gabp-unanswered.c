/* gg-gabp-unanswered.c: the mod-side server answers every message it can
 * (an error echoing the id, even one that is not a UUID). What cannot be
 * answered (no id, not JSON, over the size limit, a broken response or
 * event) is logged here at warning level, naming what was wrong, so that
 * a mod author sees why their bridge hears nothing: the first problem of
 * a connection at once, later ones at most once a minute per connection
 * with a count, and no more than ten warnings a minute from all
 * connections together (a bridge reconnecting in a loop cannot flood the
 * log). Everything else goes to the debug log.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-gabp-unanswered.h"

#define CONNECTION_INTERVAL_US (60 * G_USEC_PER_SEC)
#define GLOBAL_WINDOW_US       (60 * G_USEC_PER_SEC)
#define GLOBAL_MAX_WARNINGS    10

/* All sessions run on the main-loop thread. */
static gint64 window_start;
static guint  window_warnings;
static guint  window_suppressed;

static gboolean
global_budget_take (gint64 now)
{
  if (window_start == 0 || now - window_start >= GLOBAL_WINDOW_US)
    {
      if (window_suppressed > 0)
        g_warning ("GABP server: %u more warnings about unanswered bridge messages were suppressed",
                   window_suppressed);
      window_start = now;
      window_warnings = 0;
      window_suppressed = 0;
    }
  if (window_warnings >= GLOBAL_MAX_WARNINGS)
    {
      window_suppressed++;
      return FALSE;
    }
  window_warnings++;
  return TRUE;
}

/**
 * gg_gabp_unanswered_note:
 * @state: the connection's record
 * @what: what the message was ("a message that is not JSON")
 * @why: what was wrong with it
 *
 * Records one message that got no answer, and warns about it if the
 * limits allow.
 */
void
gg_gabp_unanswered_note (GgGabpUnanswered *state,
                         const char       *what,
                         const char       *why)
{
  gint64 now = g_get_monotonic_time ();
  gboolean first = state->problems == 0;

  state->problems++;
  state->unreported++;
  g_debug ("GABP server: unanswered %s: %s", what, why);
  if (!first && now - state->last_warning < CONNECTION_INTERVAL_US)
    return;
  if (!global_budget_take (now))
    return;
  if (first)
    g_warning ("GABP server: a bridge sent %s, which cannot be answered: %s", what, why);
  else
    g_warning ("GABP server: a bridge sent %u more messages that cannot be answered, "
               "the last %s: %s", state->unreported, what, why);
  state->unreported = 0;
  state->last_warning = now;
}

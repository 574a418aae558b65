/* gg-gabp-unanswered.h: telling a mod author why their bridge got no
 * answer, without letting a broken bridge flood the log.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One per connection; zero-initialised. */
typedef struct {
  guint  problems;       /* messages of this connection left unanswered */
  guint  unreported;     /* of those, how many no warning has named yet */
  gint64 last_warning;   /* monotonic time of this connection's last warning */
} GgGabpUnanswered;

void gg_gabp_unanswered_note (GgGabpUnanswered *state,
                              const char       *what,
                              const char       *why);

G_END_DECLS

/* gg-a2g-replay-stream.h: a connection whose first bytes, read already,
 * are read again (see gg-a2g-replay-stream.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define GG_TYPE_A2G_REPLAY_STREAM (gg_a2g_replay_stream_get_type ())
G_DECLARE_FINAL_TYPE (GgA2gReplayStream, gg_a2g_replay_stream, GG, A2G_REPLAY_STREAM, GIOStream)

GIOStream *gg_a2g_replay_stream_new (GIOStream *base,
                                     GBytes    *replayed);

G_END_DECLS

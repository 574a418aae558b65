/* gg-test-model.h: a fake GgModel that plays scripted JSON actions, shared by
 * the unit tests of the agent loop and the benchmarks, so that they exercise
 * the loop without any model plugin.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

/* Plays one JSON action per step: {"text", "deltas"?, "usage"?},
 * {"toolCalls", "usage"?}, {"json"}, {"error": code} or {"hang": true}
 * (until cancelled); "usage" is [input, cached input, output]. Past the last
 * action it answers "(fake exhausted)". Keeps every request it was given. */
#define GG_TEST_TYPE_FAKE_MODEL (gg_test_fake_model_get_type ())
G_DECLARE_FINAL_TYPE (GgTestFakeModel, gg_test_fake_model, GG_TEST, FAKE_MODEL, GObject)

struct _GgTestFakeModel {
  GObject parent_instance;
  JsonArray *actions;
  guint next;              /* index of the next action to play */
  gint64 context_size;     /* what get_context_size() reports (8192) */
  GPtrArray *requests;     /* GgModelRequest *, in the order received */
};

/* @actions: a JSON array of actions (the test fails if it does not parse). */
GgTestFakeModel *gg_test_fake_model_new         (const char      *actions);
/* The @i-th request the model was given (the test fails if there is none). */
GgModelRequest  *gg_test_fake_model_get_request (GgTestFakeModel *model,
                                                 guint            i);

G_END_DECLS

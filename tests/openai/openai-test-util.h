/* openai-test-util.h: helpers of the model-openai test programs.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "fake-openai-server.h"
#include "gg-test-util.h"

G_BEGIN_DECLS

typedef struct {
  GgBus *bus;
  FakeOpenai *fake;
  char *base_url;
} Fixture;

typedef struct {
  GgModelReply *reply;
  GError *error;
  gboolean done;
  GString *deltas;
  guint n_deltas;
  GCancellable *cancel_on_delta;
  guint cancel_after;
} StepResult;

gboolean        ot_load_plugin         (GgBus       *bus,
                                        const char  *config_text,
                                        GError     **error);
void            ot_fixture_setup_with  (Fixture    *fixture,
                                        const char *extra_config);
void            ot_fixture_setup       (Fixture       *fixture,
                                        gconstpointer  data);
void            ot_fixture_teardown    (Fixture       *fixture,
                                        gconstpointer  data);
GgModel        *ot_create_model        (Fixture    *fixture,
                                        const char *spec_json);
void            ot_on_delta            (const char *delta,
                                        gboolean    is_reset,
                                        gpointer    user_data);
void            ot_on_step_done        (GObject      *source,
                                        GAsyncResult *res,
                                        gpointer      user_data);
void            ot_step_result_clear   (StepResult *result);
void            ot_run_step            (GgModel        *model,
                                        GgModelRequest *request,
                                        GCancellable   *cancellable,
                                        StepResult     *result);
GgModelRequest *ot_text_request        (const char *prompt,
                                        gboolean    stream);
void            ot_wait_until          (gboolean (*check) (gpointer),
                                        gpointer   data);

/* Adds a test with the fake-server fixture; @config is extra
 * `[model-openai]` lines. */
#define OT_ADD(path, func, config) \
  g_test_add ("/openai/" path, Fixture, config, ot_fixture_setup, func, ot_fixture_teardown)

G_END_DECLS

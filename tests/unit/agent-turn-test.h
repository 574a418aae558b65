/* agent-turn-test.h: what the agent-turn test programs share: JSON
 * helpers, the scripted model plugin on a bus, and one turn run with a
 * recording event function and a scriptable executor (the global `run`).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

#include "gg-test-model.h"
#include "gg-test-plugin.h"

G_BEGIN_DECLS

/* ---- JSON helpers ------------------------------------------------------ */

JsonNode    *parse          (const char *json);
JsonArray   *parse_array    (const char *json);
/* Compact JSON with every `durationSeconds` zeroed: timings vary. */
char        *object_string  (JsonObject *object);
char        *array_string   (JsonArray  *array);

/* ---- the real scripted model ------------------------------------------- */

extern GgBus *bus;

void         load_scripted_plugin (void);
GgModel     *scripted             (const char *spec);

/* ---- running a turn ---------------------------------------------------- */

typedef enum {
  EXEC_IMMEDIATE, /* answer from `outputs` at once */
  EXEC_HOLD,      /* keep the invocation for the test */
} ExecMode;

typedef struct {
  GPtrArray *events;        /* compact JSON strings */
  ExecMode exec_mode;
  JsonObject *outputs;      /* name -> {"output", "isError"?} or {"error": msg} */
  GPtrArray *held;          /* GgToolInvocation */
  GCancellable *cancel_on;  /* cancelled by the event named in cancel_event */
  const char *cancel_event;
  guint cancel_at_event;    /* cancel_on is cancelled by this event (1-based) */
  guint done_count;
  gboolean done;
  JsonObject *result;
  GError *error;
  guint events_at_done;
} Run;

extern Run run;

void         run_reset      (void);
void         on_event       (JsonObject       *event,
                             gpointer          user_data);
void         executor       (GgToolInvocation *invocation,
                             gpointer          user_data);
void         on_turn_done   (GObject          *source,
                             GAsyncResult     *result,
                             gpointer          user_data);
GgAgentTurn *turn_new       (GgModel             *model,
                             const char          *tools,
                             const char          *prompt,
                             const GgAgentPolicy *policy);
void         start          (GgAgentTurn  *turn,
                             GCancellable *cancellable);
void         wait_done      (void);
void         run_turn       (GgAgentTurn  *turn,
                             GCancellable *cancellable);
/* Spins the loop briefly: settles idles and proves nothing more comes. */
void         settle         (guint ms);
void         assert_events  (const char *const *expected);
void         assert_result  (const char *expected);
void         assert_entries (GgAgentTurn *turn,
                             const char  *expected);
/* The JSON of the steps' toolCallingMode and enabledTools only. */
char        *modes_string   (void);
/* Answers a held invocation with a string output. */
void         answer_text    (GgToolInvocation *invocation,
                             const char       *text,
                             gboolean          is_error);
/* Frees what `run` holds, at the end of a program. */
void         run_clear      (void);

#define TOOLS_GATE \
  "[{\"name\":\"open_gate\",\"description\":\"Open a gate\",\"parameters\":{\"type\":\"object\"," \
  "\"properties\":{\"gate\":{\"type\":\"string\"}}},\"execution\":\"client\"}]"
#define TOOLS_THREE \
  "[{\"name\":\"look\",\"description\":\"Look\"},{\"name\":\"open_gate\",\"description\":\"Open\"}," \
  "{\"name\":\"ring_bell\",\"description\":\"Ring\"}]"

G_END_DECLS

/* gg-scripted.h: the scripted model's pieces (oam spec section 10), shared
 * by the files of the model-scripted plugin only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

typedef enum {
  GG_SCRIPTED_STEP_TEXT,
  GG_SCRIPTED_STEP_TOOL_CALLS,
  GG_SCRIPTED_STEP_JSON,
  GG_SCRIPTED_STEP_TEMPLATE,
  GG_SCRIPTED_STEP_ERROR,
} GgScriptedStepKind;

/* The longest delay a step may ask for: one day, like oam's timeouts. */
#define GG_SCRIPTED_MAX_DELAY_MS 86400000

typedef struct {
  GgScriptedStepKind kind;
  char *text;             /* TEXT: the answer; TEMPLATE: the template */
  guint chunks;           /* TEXT, TEMPLATE: pieces to stream it in */
  JsonArray *tool_calls;  /* TOOL_CALLS: [{name, arguments?, id?}] */
  JsonNode *json;         /* JSON */
  GgModelError error;     /* ERROR */
  char *message;          /* ERROR: the message, or NULL */
  guint delay_ms;
} GgScriptedStep;

GgScriptedStep *gg_scripted_step_parse       (JsonNode    *node,
                                              const char  *where,
                                              GError     **error);
void            gg_scripted_step_free        (GgScriptedStep *step);
char           *gg_scripted_expand_template  (const char     *template_text,
                                              GgModelRequest *request);
GPtrArray      *gg_scripted_split_text       (const char *text,
                                              guint       chunks);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GgScriptedStep, gg_scripted_step_free)

#define GG_TYPE_SCRIPTED_MODEL (gg_scripted_model_get_type ())
G_DECLARE_FINAL_TYPE (GgScriptedModel, gg_scripted_model, GG, SCRIPTED_MODEL, GObject)

GgModel *gg_scripted_model_new (JsonObject  *spec,
                                GError     **error);

G_END_DECLS

/* gabp-bridge-test.h: what the GABP bridge test programs share: a bridge
 * client connected to the reference mod (its own process) as a bus target,
 * with its events recorded, and calling its tools.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <string.h>

#include "gabp-test-util.h"
#include "gg-gabp-launcher.h"
#include "gg-gabp-target.h"

G_BEGIN_DECLS

typedef struct {
  GgTestServer       *mod;
  GgGabpSchemas *schemas;
  GgGabpClient  *client;
  GgGabpTarget  *target;
  GgBus         *bus;
  GPtrArray     *events;   /* "channel#seq" in arrival order */
} Fixture;

typedef struct {
  gboolean  done;
  JsonNode *result;
  GError   *error;
} Call;

void on_target_event (GgTarget   *target,
                      const char *channel,
                      guint64     seq,
                      JsonNode   *payload,
                      Fixture    *f);
gboolean target_ready (gpointer data);
void fixture_connect (Fixture    *f,
                      guint16     port,
                      const char *token);
void fixture_setup (Fixture *f, gconstpointer data);
void fixture_teardown (Fixture *f, gconstpointer data);
void on_called (GObject *source, GAsyncResult *result, gpointer data);
gboolean call_done (gpointer data);
JsonNode *call_tool (GgGabpTarget *target,
                     const char   *name,
                     const char   *args,
                     GError      **error);
char *node_string (JsonNode *node);
void on_listed (GObject *source, GAsyncResult *result, gpointer data);

G_END_DECLS

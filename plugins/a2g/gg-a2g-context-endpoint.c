/* gg-a2g-context-endpoint.c: POST /v1/context: a session's scope chain,
 * profile assignments and free-form texts (allowed in the local profile),
 * answered with the chain and the context hash every cache key includes.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-context.h"
#include "gg-a2g-endpoints.h"

typedef struct {
  GgA2gExchange *ex;
  GgA2gContext *context;
} Update;

static void
on_context_set (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Update *update = user_data;
  g_autoptr(GgA2gExchange) ex = update->ex;
  g_autoptr(GgA2gContext) context = update->context;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) reply = NULL;
  JsonArray *chain;

  g_free (update);
  if (!gg_a2g_store_session_set_context_finish (GG_A2G_STORE (source), result, &error))
    {
      gg_a2g_exchange_reply_error (ex, error);
      return;
    }
  reply = gg_a2g_reply_new ();
  json_object_set_boolean_member (reply, "ok", TRUE);
  chain = json_array_new ();
  for (guint i = 0; i < json_array_get_length (context->chain); i++)
    json_array_add_string_element (chain, json_object_get_string_member (
                                     json_array_get_object_element (context->chain, i), "scope"));
  json_object_set_array_member (reply, "scope_chain", chain);
  json_object_set_string_member (reply, "context_hash", context->hash);
  gg_a2g_exchange_reply (ex, 200, reply);
}

/**
 * gg_a2g_handle_context:
 * @ex: an authenticated POST /v1/context
 */
void
gg_a2g_handle_context (GgA2gExchange *ex)
{
  GgA2gManifest *manifest = ex->session->manifest;
  g_autoptr(GError) error = NULL;
  GgA2gContext *context;
  Update *update;

  if (manifest == NULL)
    {
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_UNAVAILABLE, "The session's manifest is not loaded.");
      return;
    }
  if (ex->service->settings.profile == GG_A2G_PROFILE_CLIENT && json_object_has_member (ex->body, "texts"))
    {
      /* Client profile: only the manifest's registered scopes and profiles. */
      gg_a2g_exchange_fail (ex, GG_A2G_ERROR_FORBIDDEN, "Free-form texts are not allowed in this profile.");
      return;
    }
  context = gg_a2g_context_update (manifest, ex->session->context, ex->body, &error);
  if (context == NULL)
    {
      gg_a2g_exchange_reply_error (ex, error);
      return;
    }
  update = g_new0 (Update, 1);
  update->ex = gg_a2g_exchange_ref (ex);
  update->context = context;
  gg_a2g_store_session_set_context_async (ex->service->store, ex->session->client_id, context, ex->cancellable,
                                          on_context_set, update);
}

/* gg-a2g-health-endpoint.c: GET /health. In the local profile it also says
 * which model and provider decide; other profiles reveal nothing else.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-a2g-endpoints.h"

/**
 * gg_a2g_handle_health:
 * @ex: a GET /health
 */
void
gg_a2g_handle_health (GgA2gExchange *ex)
{
  g_autoptr(JsonObject) reply = gg_a2g_reply_new ();
  GgA2gService *service = ex->service;

  json_object_set_boolean_member (reply, "ok", TRUE);
  if (service->settings.profile != GG_A2G_PROFILE_LOCAL)
    {
      /* Outside local: up, and the a2g version; nothing else. */
      gg_a2g_exchange_reply (ex, 200, reply);
      return;
    }
  json_object_set_string_member (reply, "profile", gg_a2g_profile_name (service->settings.profile));
  json_object_set_string_member (reply, "model", service->model_name);
  json_object_set_string_member (reply, "provider", service->model != NULL ? service->provider : "none");
  gg_a2g_exchange_reply (ex, 200, reply);
}

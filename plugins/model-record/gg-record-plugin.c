/* gg-record-plugin.c: the model-record plugin: the "record" and "replay"
 * model types and `gamegate cassette`.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-record.h"

static GgModel *
create_record_model (JsonObject *spec,
                     gpointer    user_data,
                     GError    **error)
{
  return gg_record_model_new (GG_BUS (user_data), spec, error);
}

static GgModel *
create_replay_model (JsonObject *spec,
                     gpointer    user_data,
                     GError    **error)
{
  return gg_replay_model_new (spec, error);
}

static gboolean
record_setup (GgPlugin *plugin,
              GError  **error)
{
  GgBus *bus = gg_plugin_get_bus (plugin);
  g_autoptr(GgRecordFrontend) frontend = gg_record_frontend_new ();

  if (!gg_bus_register_model_type (bus, "record", create_record_model, bus, NULL, error) ||
      !gg_bus_register_model_type (bus, "replay", create_replay_model, NULL, NULL, error))
    return FALSE;
  gg_plugin_add_frontend (plugin, GG_FRONTEND (frontend));
  return TRUE;
}

GG_PLUGIN_DEFINE ("model-record", PACKAGE_VERSION,
                  "Records a real model's steps into a cassette and replays them deterministically",
                  "LGPL-2.1-or-later", record_setup)

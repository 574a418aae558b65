/* gg-scripted-plugin.c: the model-scripted plugin: registers the "scripted"
 * model type (oam spec section 10).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-scripted.h"

static GgModel *
create_scripted_model (JsonObject *spec,
                       gpointer    user_data,
                       GError    **error)
{
  return gg_scripted_model_new (spec, error);
}

static gboolean
scripted_setup (GgPlugin *plugin,
                GError  **error)
{
  return gg_bus_register_model_type (gg_plugin_get_bus (plugin), "scripted",
                                     create_scripted_model, NULL, NULL, error);
}

GG_PLUGIN_DEFINE ("model-scripted", PACKAGE_VERSION,
                  "Deterministic scripted model for tests, demos and CI",
                  "LGPL-2.1-or-later", scripted_setup)

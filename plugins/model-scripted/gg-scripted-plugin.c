#include <gamegate.h>

static gboolean
scripted_setup (GgPlugin *plugin, GError **error)
{
  return TRUE;
}

GG_PLUGIN_DEFINE ("model-scripted", "0.1.0", "placeholder", "LGPL-2.1-or-later", scripted_setup)

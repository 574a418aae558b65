#include "config.h"
#include <gamegate.h>
static gboolean gabp_setup (GgPlugin *plugin, GError **error) { return TRUE; }
GG_PLUGIN_DEFINE ("gabp", PACKAGE_VERSION, "GABP", "LGPL-2.1-or-later", gabp_setup)

/* gg-config.c: interim; the full implementation lands from the gateway branch. */
#include "config.h"

#include "gg-config.h"

struct _GgConfig {
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (GgConfig, gg_config, G_TYPE_OBJECT)

G_DEFINE_QUARK (gg-config-error-quark, gg_config_error)

static void gg_config_class_init (GgConfigClass *klass) { }
static void gg_config_init (GgConfig *self) { }

GgConfig *
gg_config_new (void)
{
  return g_object_new (GG_TYPE_CONFIG, NULL);
}

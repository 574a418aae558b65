/* gg-model.c: interim; the full implementation lands from the agent branch. */
#include "config.h"

#include "gg-model.h"

G_DEFINE_QUARK (gg-model-error-quark, gg_model_error)

G_DEFINE_INTERFACE (GgModel, gg_model, G_TYPE_OBJECT)

static void
gg_model_default_init (GgModelInterface *iface)
{
}

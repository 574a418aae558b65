/* gg-test-broken-plugin.c: fixture modules, each broken in one way; which
 * way is chosen at build time by one BROKEN_* macro.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gamegate.h>

#ifndef BROKEN_NO_ENTRY
static gboolean
fixture_setup (GgPlugin *plugin,
               GError  **error)
{
#ifdef BROKEN_SETUP_ERROR
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       "the fixture's game engine is not installed");
  return FALSE;
#else
  return TRUE;
#endif
}
#endif

#ifdef BROKEN_NO_ENTRY
/* Exports nothing the host looks for. */
G_MODULE_EXPORT const char *gg_plugin_describe_typo (void);
G_MODULE_EXPORT const char *
gg_plugin_describe_typo (void)
{
  return "no descriptor here";
}
#else

#if defined(BROKEN_ABI_MAJOR)
#define FIXTURE_ABI_MAJOR (GG_ABI_MAJOR + 1)
#else
#define FIXTURE_ABI_MAJOR GG_ABI_MAJOR
#endif

#if defined(BROKEN_ABI_MINOR)
#define FIXTURE_ABI_MINOR (GG_ABI_MINOR + 1)
#else
#define FIXTURE_ABI_MINOR GG_ABI_MINOR
#endif

#if defined(BROKEN_NO_VERSION)
#define FIXTURE_VERSION NULL
#else
#define FIXTURE_VERSION "1.0.0"
#endif

#ifndef FIXTURE_NAME
#error FIXTURE_NAME must be defined
#endif

G_MODULE_EXPORT const GgPluginDescriptor *gg_plugin_describe (void);
G_MODULE_EXPORT const GgPluginDescriptor *
gg_plugin_describe (void)
{
  static const GgPluginDescriptor descriptor = {
    FIXTURE_ABI_MAJOR, FIXTURE_ABI_MINOR, FIXTURE_NAME, FIXTURE_VERSION,
    "A broken fixture", "LGPL-2.1-or-later", fixture_setup, { NULL }
  };
  return &descriptor;
}
#endif

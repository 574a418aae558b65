/* gg-test-plugin.h: loading a plugin module from the build tree the way the
 * host does, for tests that drive a plugin in-process on their own bus.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>

G_BEGIN_DECLS

/* The path of @module_name ("model-scripted") + ".so" in the first directory
 * of $GAMEGATE_PLUGIN_PATH that holds it (the build tree's plugin
 * directories under `meson test`), or NULL. */
char                     *gg_test_find_plugin (const char *module_name);

/* Opens the module found by gg_test_find_plugin(), checks its descriptor and
 * that it names itself @module_name, creates the plugin on @bus with @config
 * (may be NULL) and runs its setup. The test fails if the module is missing
 * or broken; a failed setup returns NULL with @error set. */
const GgPluginDescriptor *gg_test_load_plugin (GgBus      *bus,
                                               const char *module_name,
                                               GgConfig   *config,
                                               GError    **error);

G_END_DECLS

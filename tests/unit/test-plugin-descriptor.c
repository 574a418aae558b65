/* test-plugin-descriptor.c: GG_PLUGIN_DEFINE, the ABI check and setup. */
#include "config.h"

#include <gamegate.h>

static int setup_calls;

static gboolean
good_setup (GgPlugin *plugin,
            GError  **error)
{
  setup_calls++;
  g_assert_true (GG_IS_BUS (gg_plugin_get_bus (plugin)));
  g_assert_true (GG_IS_CONFIG (gg_plugin_get_config (plugin)));
  return TRUE;
}

/* The macro as a plugin uses it. */
GG_PLUGIN_DEFINE ("test-descriptor", "1.2.3", "A plugin for this test", "MIT", good_setup)

static gboolean
failing_setup (GgPlugin *plugin,
               GError  **error)
{
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "the game directory is missing");
  return FALSE;
}

static gboolean
silent_failing_setup (GgPlugin *plugin,
                      GError  **error)
{
  return FALSE;
}

static void
test_macro (void)
{
  const GgPluginDescriptor *descriptor = gg_plugin_describe ();

  g_assert_cmpuint (descriptor->abi_major, ==, GG_ABI_MAJOR);
  g_assert_cmpuint (descriptor->abi_minor, ==, GG_ABI_MINOR);
  g_assert_cmpstr (descriptor->name, ==, "test-descriptor");
  g_assert_cmpstr (descriptor->version, ==, "1.2.3");
  g_assert_cmpstr (descriptor->description, ==, "A plugin for this test");
  g_assert_cmpstr (descriptor->license, ==, "MIT");
  g_assert_true (descriptor->setup == good_setup);
  g_assert_true (gg_plugin_descriptor_check (descriptor, NULL));
  g_assert_true (gg_plugin_describe () == descriptor);
}

static void
test_check_refusals (void)
{
  const GgPluginDescriptor good = *gg_plugin_describe ();
  struct {
    const char *what;
    GgPluginDescriptor descriptor;
    const char *message;
  } cases[] = {
    { "major", { GG_ABI_MAJOR + 1, 0, "x", "1", "d", "MIT", good_setup, { NULL } },
      "built for plugin ABI 2.0, this gamegate provides ABI 1.0" },
    { "old major", { 0, 9, "x", "1", "d", "MIT", good_setup, { NULL } },
      "built for plugin ABI 0.9, this gamegate provides ABI 1.0" },
    { "minor", { GG_ABI_MAJOR, GG_ABI_MINOR + 1, "x", "1", "d", "MIT", good_setup, { NULL } },
      "needs plugin ABI 1.1, newer than this gamegate's 1.0" },
    { "name", { GG_ABI_MAJOR, 0, NULL, "1", "d", "MIT", good_setup, { NULL } },
      "descriptor field 'name' is missing" },
    { "version", { GG_ABI_MAJOR, 0, "x", NULL, "d", "MIT", good_setup, { NULL } },
      "descriptor field 'version' is missing" },
    { "description", { GG_ABI_MAJOR, 0, "x", "1", NULL, "MIT", good_setup, { NULL } },
      "descriptor field 'description' is missing" },
    { "license", { GG_ABI_MAJOR, 0, "x", "1", "d", NULL, good_setup, { NULL } },
      "descriptor field 'license' is missing" },
    { "setup", { GG_ABI_MAJOR, 0, "x", "1", "d", "MIT", NULL, { NULL } },
      "descriptor field 'setup' is missing" },
    { "bad name", { GG_ABI_MAJOR, 0, "Model Scripted", "1", "d", "MIT", good_setup, { NULL } },
      "plugin name 'Model Scripted' is not 1-64 of a-z, 0-9 and '-'" },
    { "empty name", { GG_ABI_MAJOR, 0, "", "1", "d", "MIT", good_setup, { NULL } },
      "plugin name '' is not 1-64 of a-z, 0-9 and '-'" },
  };

  g_assert_true (gg_plugin_descriptor_check (&good, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_test_message ("case: %s", cases[i].what);
      g_assert_false (gg_plugin_descriptor_check (&cases[i].descriptor, &error));
      g_assert_nonnull (error);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }

  g_autoptr(GError) error = NULL;
  g_assert_false (gg_plugin_descriptor_check (NULL, &error));
  g_assert_cmpstr (error->message, ==, "gg_plugin_describe() returned no descriptor");
}

static void
test_setup (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GError) error = NULL;

  setup_calls = 0;
  g_autoptr(GgPlugin) plugin = gg_plugin_new (gg_plugin_describe (), "/plugins/test.so", bus, NULL);
  g_assert_cmpstr (gg_plugin_get_name (plugin), ==, "test-descriptor");
  g_assert_cmpstr (gg_plugin_get_version (plugin), ==, "1.2.3");
  g_assert_cmpstr (gg_plugin_get_description (plugin), ==, "A plugin for this test");
  g_assert_cmpstr (gg_plugin_get_license (plugin), ==, "MIT");
  g_assert_cmpstr (gg_plugin_get_path (plugin), ==, "/plugins/test.so");
  g_assert_true (gg_plugin_get_bus (plugin) == bus);
  g_assert_true (gg_plugin_setup (plugin, &error));
  g_assert_no_error (error);
  g_assert_cmpint (setup_calls, ==, 1);

  static const GgPluginDescriptor failing = {
    GG_ABI_MAJOR, GG_ABI_MINOR, "failing", "1", "d", "MIT", failing_setup, { NULL }
  };
  g_autoptr(GgPlugin) bad = gg_plugin_new (&failing, NULL, bus, NULL);
  g_assert_false (gg_plugin_setup (bad, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_cmpstr (error->message, ==, "the game directory is missing");
  g_clear_error (&error);

  static const GgPluginDescriptor silent = {
    GG_ABI_MAJOR, GG_ABI_MINOR, "silent", "1", "d", "MIT", silent_failing_setup, { NULL }
  };
  g_autoptr(GgPlugin) quiet = gg_plugin_new (&silent, NULL, bus, NULL);
  g_assert_false (gg_plugin_setup (quiet, &error));
  g_assert_cmpstr (error->message, ==, "setup failed without giving a reason");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/plugin/descriptor/macro", test_macro);
  g_test_add_func ("/plugin/descriptor/refusals", test_check_refusals);
  g_test_add_func ("/plugin/setup", test_setup);

  return g_test_run ();
}

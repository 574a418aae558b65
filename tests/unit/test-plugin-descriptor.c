/* test-plugin-descriptor.c: GG_PLUGIN_DEFINE, the ABI check and setup.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
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
    { "empty version", { GG_ABI_MAJOR, 0, "x", "", "d", "MIT", good_setup, { NULL } },
      "descriptor field 'version' is not one non-empty line of UTF-8 text" },
    { "two-line description", { GG_ABI_MAJOR, 0, "x", "1", "d\nrefused: /etc/passwd", "MIT", good_setup, { NULL } },
      "descriptor field 'description' is not one non-empty line of UTF-8 text" },
    { "escape in description", { GG_ABI_MAJOR, 0, "x", "1", "\033[2Jd", "MIT", good_setup, { NULL } },
      "descriptor field 'description' is not one non-empty line of UTF-8 text" },
    { "non-UTF-8 licence", { GG_ABI_MAJOR, 0, "x", "1", "d", "MIT\xff", good_setup, { NULL } },
      "descriptor field 'license' is not one non-empty line of UTF-8 text" },
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

/* A minimal front end, for what a plugin registers. */
#define TEST_TYPE_FRONTEND (test_frontend_get_type ())
G_DECLARE_FINAL_TYPE (TestFrontend, test_frontend, TEST, FRONTEND, GObject)

struct _TestFrontend {
  GObject parent_instance;
};

static const char *
test_frontend_get_name (GgFrontend *frontend)
{
  return "half";
}

static void
test_frontend_iface_init (GgFrontendInterface *iface)
{
  iface->get_name = test_frontend_get_name;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestFrontend, test_frontend, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GG_TYPE_FRONTEND, test_frontend_iface_init))

static void test_frontend_class_init (TestFrontendClass *klass) { }
static void test_frontend_init (TestFrontend *self) { }

static GgModel *
no_model (JsonObject *spec, gpointer user_data, GError **error)
{
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "unused");
  return NULL;
}

static int factory_data_freed;

static void
free_factory_data (gpointer data)
{
  factory_data_freed++;
}

/* Registers a front end and a model type, then fails (or not). */
static gboolean
half_setup (GgPlugin *plugin, GError **error, gboolean fail)
{
  g_autoptr(GgFrontend) frontend = g_object_new (TEST_TYPE_FRONTEND, NULL);

  gg_plugin_add_frontend (plugin, frontend);
  if (!gg_bus_register_model_type (gg_plugin_get_bus (plugin), "half", no_model, &factory_data_freed,
                                   free_factory_data, error))
    return FALSE;
  if (fail)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "the game is not installed");
      return FALSE;
    }
  return TRUE;
}

static gboolean half_failing_setup (GgPlugin *plugin, GError **error) { return half_setup (plugin, error, TRUE); }
static gboolean half_good_setup (GgPlugin *plugin, GError **error) { return half_setup (plugin, error, FALSE); }

/* A plugin that fails its setup leaves nothing on the bus: a front end it
 * registered first would otherwise be started by the daemon. What other
 * plugins registered stays. */
static void
test_failed_setup_rolls_back (void)
{
  g_autoptr(GgBus) bus = gg_bus_new ();
  g_autoptr(GError) error = NULL;
  static const GgPluginDescriptor failing = {
    GG_ABI_MAJOR, GG_ABI_MINOR, "half", "1", "d", "MIT", half_failing_setup, { NULL }
  };
  static const GgPluginDescriptor good = {
    GG_ABI_MAJOR, GG_ABI_MINOR, "half", "1", "d", "MIT", half_good_setup, { NULL }
  };
  g_autoptr(GgPlugin) bad = gg_plugin_new (&failing, NULL, bus, NULL);
  g_autoptr(GgPlugin) fine = gg_plugin_new (&good, NULL, bus, NULL);
  g_autoptr(GPtrArray) frontends = NULL;
  g_auto(GStrv) types = NULL;

  g_assert_true (gg_bus_register_model_type (bus, "other", no_model, NULL, NULL, NULL));
  factory_data_freed = 0;
  g_assert_false (gg_plugin_setup (bad, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_null (gg_bus_lookup_frontend (bus, "half"));
  g_assert_false (gg_bus_has_model_type (bus, "half"));
  g_assert_true (gg_bus_has_model_type (bus, "other"));
  g_assert_cmpint (factory_data_freed, ==, 1);

  /* Nothing left behind that would stop a working setup. */
  g_assert_true (gg_plugin_setup (fine, &error));
  g_assert_no_error (error);
  frontends = gg_bus_list_frontends (bus);
  g_assert_cmpuint (frontends->len, ==, 1);
  types = gg_bus_list_model_types (bus);
  g_assert_cmpuint (g_strv_length (types), ==, 2);
  g_assert_cmpint (factory_data_freed, ==, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/plugin/descriptor/macro", test_macro);
  g_test_add_func ("/plugin/descriptor/refusals", test_check_refusals);
  g_test_add_func ("/plugin/setup", test_setup);
  g_test_add_func ("/plugin/setup-failure-rolls-back", test_failed_setup_rolls_back);

  return g_test_run ();
}

/* gb-launch-config.c: the launch declaration, gamebridge.json (spec section 3).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gb-errors.h"
#include "gb-launch-config.h"

#define MAX_FILE_SIZE          (256 * 1024)
#define DEFAULT_PORT_FIRST     7820
#define DEFAULT_PORT_LAST      7839
#define DEFAULT_READY_MS       180000
#define MAX_READY_MS           3600000
#define MAX_ARGV               1024
#define MAX_ENV                1024

void
gb_launch_config_free (GbLaunchConfig *config)
{
  g_free (config->file);
  g_free (config->dir);
  g_free (config->name);
  g_free (config->command);
  g_strfreev (config->argv);
  g_free (config->cwd);
  g_strfreev (config->env);
  g_free (config);
}

/**
 * gb_launch_config_find:
 * @start_dir: where to start walking up
 *
 * Returns: (transfer full) (nullable): the nearest `gamebridge.json` or
 *   `.gamebridge.json` in @start_dir or one of its parents
 */
char *
gb_launch_config_find (const char *start_dir)
{
  g_autofree char *dir = g_canonicalize_filename (start_dir, NULL);

  for (;;)
    {
      const char *names[] = { "gamebridge.json", ".gamebridge.json" };
      g_autofree char *parent = NULL;

      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        {
          g_autofree char *path = g_build_filename (dir, names[i], NULL);

          if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
            return g_steal_pointer (&path);
        }
      parent = g_path_get_dirname (dir);
      if (g_str_equal (parent, dir))
        return NULL;
      g_free (dir);
      dir = g_steal_pointer (&parent);
    }
}

static gboolean
parse_range (const char *text,
             guint      *first,
             guint      *last)
{
  g_auto(GStrv) ends = g_strsplit (text, "-", 3);
  guint64 a, b;

  if (g_strv_length (ends) == 1 &&
      g_ascii_string_to_unsigned (g_strstrip (ends[0]), 10, 1, 65535, &a, NULL))
    b = a;
  else if (g_strv_length (ends) != 2 ||
           !g_ascii_string_to_unsigned (g_strstrip (ends[0]), 10, 1, 65535, &a, NULL) ||
           !g_ascii_string_to_unsigned (g_strstrip (ends[1]), 10, 1, 65535, &b, NULL) || a > b)
    return FALSE;
  *first = (guint) a;
  *last = (guint) b;
  return TRUE;
}

static gboolean
is_string (JsonNode *n)
{
  return n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING;
}

/**
 * gb_launch_config_load:
 * @path: a launch declaration
 * @error: BridgeUsageError naming the file and the problem
 *
 * Returns: (transfer full): the declaration, cwd made absolute
 */
GbLaunchConfig *
gb_launch_config_load (const char  *path,
                       GError     **error)
{
  g_autoptr(GbLaunchConfig) config = g_new0 (GbLaunchConfig, 1);
  g_autofree char *data = NULL;
  g_autoptr(GError) local = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonObject *o, *launch;
  JsonNode *n;
  gsize len;

  config->file = g_canonicalize_filename (path, NULL);
  config->dir = g_path_get_dirname (config->file);
  if (!g_file_get_contents (config->file, &data, &len, &local))
    {
      gb_error_usage (error, "Cannot read the launch declaration %s: %s", config->file, local->message);
      return NULL;
    }
  if (len > MAX_FILE_SIZE)
    {
      gb_error_usage (error, "The launch declaration %s is larger than %d bytes", config->file, MAX_FILE_SIZE);
      return NULL;
    }
  root = gg_json_parse (data, (gssize) len, 32, &local);
  if (root == NULL)
    {
      gb_error_usage (error, "The launch declaration %s is not valid JSON: %s", config->file, local->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root) ||
      (n = json_object_get_member (json_node_get_object (root), "launch")) == NULL ||
      !JSON_NODE_HOLDS_OBJECT (n))
    {
      gb_error_usage (error, "The launch declaration %s has no \"launch\" object", config->file);
      return NULL;
    }
  o = json_node_get_object (root);
  launch = json_object_get_object_member (o, "launch");
  if (is_string (json_object_get_member (o, "name")))
    config->name = g_strdup (json_object_get_string_member (o, "name"));

  n = json_object_get_member (launch, "argv");
  if (n != NULL && JSON_NODE_HOLDS_ARRAY (n))
    {
      JsonArray *a = json_node_get_array (n);
      GPtrArray *argv = g_ptr_array_new ();

      for (guint i = 0; i < json_array_get_length (a) && i < MAX_ARGV; i++)
        {
          if (!is_string (json_array_get_element (a, i)))
            {
              g_ptr_array_free (argv, TRUE);
              gb_error_usage (error, "%s: launch.argv must be an array of strings", config->file);
              return NULL;
            }
          g_ptr_array_add (argv, g_strdup (json_array_get_string_element (a, i)));
        }
      g_ptr_array_add (argv, NULL);
      config->argv = (char **) g_ptr_array_free (argv, FALSE);
      if (config->argv[0] == NULL || *config->argv[0] == '\0')
        {
          gb_error_usage (error, "%s: launch.argv is empty", config->file);
          return NULL;
        }
    }
  else if (is_string (json_object_get_member (launch, "command")) &&
           *json_object_get_string_member (launch, "command") != '\0')
    config->command = g_strdup (json_object_get_string_member (launch, "command"));
  else
    {
      gb_error_usage (error, "%s: launch needs \"command\" (a shell command) or \"argv\" (an array)", config->file);
      return NULL;
    }

  n = json_object_get_member (launch, "cwd");
  if (n != NULL && !is_string (n))
    {
      gb_error_usage (error, "%s: launch.cwd must be a string", config->file);
      return NULL;
    }
  config->cwd = g_canonicalize_filename (n != NULL ? json_node_get_string (n) : ".", config->dir);

  config->port_first = DEFAULT_PORT_FIRST;
  config->port_last = DEFAULT_PORT_LAST;
  n = json_object_get_member (launch, "portRange");
  if (n != NULL && !(is_string (n) && parse_range (json_node_get_string (n), &config->port_first,
                                                    &config->port_last)))
    {
      gb_error_usage (error, "%s: launch.portRange must look like \"7820-7839\"", config->file);
      return NULL;
    }
  config->ready_timeout_ms = DEFAULT_READY_MS;
  n = json_object_get_member (launch, "readyTimeoutMs");
  if (n != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64 ||
          json_node_get_int (n) < 1 || json_node_get_int (n) > MAX_READY_MS)
        {
          gb_error_usage (error, "%s: launch.readyTimeoutMs must be 1..%d", config->file, MAX_READY_MS);
          return NULL;
        }
      config->ready_timeout_ms = (guint) json_node_get_int (n);
    }

  n = json_object_get_member (launch, "env");
  if (n != NULL)
    {
      g_autoptr(GList) names = NULL;
      GPtrArray *env = g_ptr_array_new ();

      if (!JSON_NODE_HOLDS_OBJECT (n) || json_object_get_size (json_node_get_object (n)) > MAX_ENV)
        {
          g_ptr_array_free (env, TRUE);
          gb_error_usage (error, "%s: launch.env must be an object of strings", config->file);
          return NULL;
        }
      names = json_object_get_members (json_node_get_object (n));
      for (GList *l = names; l != NULL; l = l->next)
        {
          JsonNode *v = json_object_get_member (json_node_get_object (n), l->data);

          if (!is_string (v) || *(const char *) l->data == '\0' || strchr (l->data, '=') != NULL)
            {
              g_ptr_array_free (env, TRUE);
              gb_error_usage (error, "%s: launch.env must map names (without '=') to strings", config->file);
              return NULL;
            }
          g_ptr_array_add (env, g_strdup_printf ("%s=%s", (const char *) l->data, json_node_get_string (v)));
        }
      g_ptr_array_add (env, NULL);
      config->env = (char **) g_ptr_array_free (env, FALSE);
    }
  return g_steal_pointer (&config);
}

/**
 * gb_launch_config_describe_command:
 * @config: a declaration
 * @port: the port substituted
 *
 * Returns: (transfer full): the command line as a person would type it
 */
char *
gb_launch_config_describe_command (GbLaunchConfig *config,
                                   guint           port)
{
  GString *out;

  if (config->command != NULL)
    return gb_substitute_port (config->command, port);
  out = g_string_new (NULL);
  for (guint i = 0; config->argv[i] != NULL; i++)
    {
      g_autofree char *arg = gb_substitute_port (config->argv[i], port);
      g_autofree char *quoted = strpbrk (arg, " \t\n'\"\\$`") != NULL || *arg == '\0'
                                ? g_shell_quote (arg) : g_strdup (arg);

      if (i > 0)
        g_string_append_c (out, ' ');
      g_string_append (out, quoted);
    }
  return g_string_free (out, FALSE);
}

/* test-schema-suite.c: GgSchema against the official JSON-Schema-Test-Suite
 * (Debian package json-schema-test-suite, or GG_JSON_SCHEMA_TEST_SUITE=DIR
 * pointing at a checkout's tests/ directory), one GTest case per file.
 *
 * Groups whose schema needs something GgSchema deliberately does not
 * implement are counted as skipped; that list is below and kept small.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-test-util.h"

/* Keywords outside the supported set: URI-based identification and
 * dynamic scope, unevaluated*, contains counts and content. */
static const char *const unsupported_keywords[] = {
  "$id", "id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef",
  "$recursiveAnchor", "$vocabulary", "unevaluatedProperties", "unevaluatedItems",
  "minContains", "maxContains", "contentMediaType", "contentEncoding", "contentSchema",
};

/* Keywords whose values are data, not schemas. */
static const char *const data_keywords[] = {
  "enum", "const", "default", "examples", "required",
};

/* Keywords whose values map names to schemas. */
static const char *const map_keywords[] = {
  "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies",
};

static const char *const draft7_files[] = {
  "type", "properties", "required", "additionalProperties", "enum", "const", "pattern",
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
  "items", "minItems", "maxItems", "uniqueItems", "anyOf", "oneOf", "allOf", "not", "ref",
  "definitions", "boolean_schema", "optional/format/uuid", "optional/format/date-time",
  /* Beyond the required set, also implemented: */
  "multipleOf", "additionalItems", "contains", "if-then-else", "patternProperties",
  "propertyNames", "minProperties", "maxProperties", "dependencies", "optional/format/date",
  "optional/format/time",
};

static const char *const draft2020_files[] = {
  "type", "properties", "required", "additionalProperties", "enum", "const", "pattern",
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
  "items", "prefixItems", "minItems", "maxItems", "uniqueItems", "anyOf", "oneOf", "allOf",
  "not", "ref", "defs", "boolean_schema", "optional/format/uuid", "optional/format/date-time",
  "multipleOf", "contains", "if-then-else", "patternProperties", "propertyNames",
  "minProperties", "maxProperties", "dependentRequired", "dependentSchemas",
  "optional/format/date", "optional/format/time",
};

typedef struct {
  const char *draft;
  const char *file;
} SuiteFile;

static guint total_files, total_groups, total_passed, total_failed, total_skipped;

static gboolean
in_list (const char        *name,
         const char *const *list,
         gsize              n)
{
  for (gsize i = 0; i < n; i++)
    if (strcmp (name, list[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Returns the reason a schema cannot be run, or NULL. */
static const char *
unsupported (JsonNode *schema)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  if (JSON_NODE_HOLDS_ARRAY (schema))
    {
      JsonArray *array = json_node_get_array (schema);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          const char *why = unsupported (json_array_get_element (array, i));
          if (why != NULL)
            return why;
        }
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (schema))
    return NULL;

  json_object_iter_init (&iter, json_node_get_object (schema));
  while (json_object_iter_next (&iter, &name, &value))
    {
      const char *why = NULL;

      if (in_list (name, unsupported_keywords, G_N_ELEMENTS (unsupported_keywords)))
        return name;
      if (strcmp (name, "$ref") == 0 && JSON_NODE_HOLDS_VALUE (value) &&
          json_node_get_value_type (value) == G_TYPE_STRING &&
          json_node_get_string (value)[0] != '#')
        return "non-local $ref";
      if (in_list (name, data_keywords, G_N_ELEMENTS (data_keywords)))
        continue;
      if (in_list (name, map_keywords, G_N_ELEMENTS (map_keywords)) &&
          JSON_NODE_HOLDS_OBJECT (value))
        {
          JsonObjectIter members;
          const char *key;
          JsonNode *sub;

          json_object_iter_init (&members, json_node_get_object (value));
          while (json_object_iter_next (&members, &key, &sub))
            if ((why = unsupported (sub)) != NULL)
              return why;
          continue;
        }
      if ((why = unsupported (value)) != NULL)
        return why;
    }
  return NULL;
}

static char *
find_suite_dir (void)
{
  const char *env = g_getenv ("GG_JSON_SCHEMA_TEST_SUITE");
  static const char *const dirs[] = {
    "/usr/share/json-schema-test-suite/tests",
    "/usr/local/share/json-schema-test-suite/tests",
  };

  if (env != NULL)
    return g_file_test (env, G_FILE_TEST_IS_DIR) ? g_strdup (env) : NULL;
  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    if (g_file_test (dirs[i], G_FILE_TEST_IS_DIR))
      return g_strdup (dirs[i]);
  return NULL;
}

static void
run_file (gconstpointer data)
{
  const SuiteFile *sf = data;
  g_autofree char *dir = find_suite_dir ();
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GString) failures = g_string_new (NULL);
  gsize length;
  guint passed = 0, failed = 0, skipped = 0, groups = 0;
  JsonArray *array;

  if (dir == NULL)
    {
      g_test_skip ("json-schema-test-suite is not installed");
      return;
    }
  path = g_strdup_printf ("%s/%s/%s.json", dir, sf->draft, sf->file);
  if (!g_file_get_contents (path, &contents, &length, NULL))
    {
      g_autofree char *msg = g_strdup_printf ("%s not found", path);
      g_test_skip (msg);
      return;
    }
  /* Newer suites test strings with NUL ("nul characters in strings").
   * gg_json_parse() refuses \u0000 (strings are C strings), so map it to
   * U+2400 in schemas and data alike: equality tests keep their meaning. */
  {
    g_autoptr(GString) text = g_string_new_len (contents, (gssize) length);

    if (g_string_replace (text, "\\u0000", "\\u2400", 0) > 0)
      {
        g_free (contents);
        length = text->len;
        contents = g_string_free (g_steal_pointer (&text), FALSE);
      }
  }
  root = gg_json_parse (contents, (gssize) length, 0, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (root));
  total_files++;

  array = json_node_get_array (root);
  for (guint g = 0; g < json_array_get_length (array); g++)
    {
      JsonObject *group = json_array_get_object_element (array, g);
      const char *description = json_object_get_string_member (group, "description");
      JsonNode *schema_node = json_object_get_member (group, "schema");
      JsonArray *tests = json_object_get_array_member (group, "tests");
      g_autoptr(JsonNode) schema_copy = json_node_copy (schema_node);
      g_autoptr(GgSchema) schema = NULL;
      g_autoptr(GError) compile_error = NULL;
      const char *why;

      groups++;
      why = unsupported (schema_node);
      if (why != NULL)
        {
          g_test_message ("skipped group \"%s\" (%s)", description, why);
          skipped += json_array_get_length (tests);
          continue;
        }

      /* The directory names the dialect; tell GgSchema. */
      if (strcmp (sf->draft, "draft7") == 0 && JSON_NODE_HOLDS_OBJECT (schema_node) &&
          !json_object_has_member (json_node_get_object (schema_node), "$schema"))
        {
          JsonObject *with_dialect = json_object_new ();
          JsonObjectIter iter;
          const char *name;
          JsonNode *value;

          json_object_set_string_member (with_dialect, "$schema", "http://json-schema.org/draft-07/schema#");
          json_object_iter_init (&iter, json_node_get_object (schema_node));
          while (json_object_iter_next (&iter, &name, &value))
            json_object_set_member (with_dialect, name, json_node_copy (value));
          g_clear_pointer (&schema_copy, json_node_unref);
          schema_copy = json_node_new (JSON_NODE_OBJECT);
          json_node_take_object (schema_copy, with_dialect);
        }

      schema = gg_schema_new (schema_copy, &compile_error);
      for (guint t = 0; t < json_array_get_length (tests); t++)
        {
          JsonObject *test = json_array_get_object_element (tests, t);
          const char *test_description = json_object_get_string_member (test, "description");
          gboolean expected = json_object_get_boolean_member (test, "valid");
          g_autoptr(GError) validate_error = NULL;
          gboolean valid;

          if (schema == NULL)
            {
              failed++;
              g_string_append_printf (failures, "\n  %s / %s: schema refused: %s", description,
                                      test_description, compile_error->message);
              continue;
            }
          valid = gg_schema_validate (schema, json_object_get_member (test, "data"),
                                      &validate_error);
          if (valid != (validate_error == NULL))
            g_error ("inconsistent result for %s / %s", description, test_description);
          if (validate_error != NULL &&
              !g_error_matches (validate_error, GG_SCHEMA_ERROR, GG_SCHEMA_ERROR_INVALID))
            {
              failed++;
              g_string_append_printf (failures, "\n  %s / %s: %s", description, test_description,
                                      validate_error->message);
            }
          else if (valid == expected)
            passed++;
          else
            {
              failed++;
              g_string_append_printf (failures, "\n  %s / %s: expected %s%s%s", description,
                                      test_description, expected ? "valid" : "invalid",
                                      validate_error != NULL ? ", got " : "",
                                      validate_error != NULL ? validate_error->message : "");
            }
        }
    }

  total_groups += groups;
  total_passed += passed;
  total_failed += failed;
  total_skipped += skipped;
  g_test_message ("%s/%s: %u groups, %u passed, %u failed, %u skipped", sf->draft, sf->file,
                  groups, passed, failed, skipped);
  if (failed > 0)
    g_test_fail_printf ("%s/%s: %u failed:%s", sf->draft, sf->file, failed, failures->str);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  int ret;

  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (draft7_files); i++)
    {
      SuiteFile *sf = g_new0 (SuiteFile, 1);
      g_autofree char *name = g_strdup_printf ("/schema-suite/draft7/%s", draft7_files[i]);

      sf->draft = "draft7";
      sf->file = draft7_files[i];
      g_ptr_array_add (files, sf);
      g_test_add_data_func (name, sf, run_file);
    }
  for (guint i = 0; i < G_N_ELEMENTS (draft2020_files); i++)
    {
      SuiteFile *sf = g_new0 (SuiteFile, 1);
      g_autofree char *name = g_strdup_printf ("/schema-suite/draft2020-12/%s", draft2020_files[i]);

      sf->draft = "draft2020-12";
      sf->file = draft2020_files[i];
      g_ptr_array_add (files, sf);
      g_test_add_data_func (name, sf, run_file);
    }

  ret = g_test_run ();

  g_test_message ("json-schema-test-suite: %u files, %u groups, %u passed, %u failed, %u skipped",
                  total_files, total_groups, total_passed, total_failed, total_skipped);
  g_print ("json-schema-test-suite: %u passed, %u failed, %u skipped\n",
           total_passed, total_failed, total_skipped);
  return ret;
}

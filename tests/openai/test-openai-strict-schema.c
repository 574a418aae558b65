/* test-openai-strict-schema.c: generation schemas made strict and answers
 * mapped back.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-openai-private.h"
#include "gg-test-util.h"

static JsonNode *
parse (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = gg_json_parse (json, -1, 512, &error);

  g_assert_no_error (error);
  return node;
}

static char *
strict (const char *schema_json,
        gboolean   *wrapped)
{
  g_autoptr(JsonNode) schema = parse (schema_json);
  g_autofree char *before = gg_json_to_string (schema);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) converted = gg_openai_strict_schema (schema, wrapped, &error);
  g_autofree char *after = gg_json_to_string (schema);

  g_assert_no_error (error);
  /* The caller's schema is never modified. */
  g_assert_cmpstr (before, ==, after);
  g_assert_cmpint (*wrapped, ==, gg_openai_strict_schema_wraps (schema));
  return gg_json_to_string (converted);
}

static char *
unmap (const char *schema_json,
       const char *answer_json)
{
  g_autoptr(JsonNode) schema = parse (schema_json);
  g_autoptr(JsonNode) answer = parse (answer_json);
  g_autoptr(JsonNode) mapped =
    gg_openai_strict_schema_unmap (schema, answer, gg_openai_strict_schema_wraps (schema));

  return mapped != NULL ? gg_json_to_string (mapped) : NULL;
}

static void
test_optional_properties (void)
{
  gboolean wrapped;
  g_autofree char *out = strict (
    "{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\"},"
    "\"mood\":{\"type\":\"string\",\"enum\":[\"calm\",\"angry\"]},"
    "\"age\":{\"type\":[\"integer\"]},"
    "\"kind\":{\"const\":\"npc\"},"
    "\"any\":{},"
    "\"maybe\":{\"type\":[\"string\",\"null\"]}},"
    "\"required\":[\"name\"]}", &wrapped);

  g_assert_false (wrapped);
  g_assert_cmpstr (out, ==,
    "{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\"},"
    "\"mood\":{\"type\":[\"string\",\"null\"],\"enum\":[\"calm\",\"angry\",null]},"
    "\"age\":{\"type\":[\"integer\",\"null\"]},"
    "\"kind\":{\"anyOf\":[{\"const\":\"npc\"},{\"type\":\"null\"}]},"
    "\"any\":{},"
    "\"maybe\":{\"type\":[\"string\",\"null\"]}},"
    "\"required\":[\"name\",\"mood\",\"age\",\"kind\",\"any\",\"maybe\"],"
    "\"additionalProperties\":false}");
}

static void
test_nested (void)
{
  gboolean wrapped;
  g_autofree char *out = strict (
    "{\"properties\":{"
    "\"party\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"hp\":{\"type\":\"integer\"}}}},"
    "\"leader\":{\"$ref\":\"#/$defs/Member\"},"
    "\"pick\":{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"}},\"required\":[\"id\"]}]}},"
    "\"required\":[\"party\",\"pick\"],"
    "\"additionalProperties\":true,"
    "\"$defs\":{\"Member\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}}",
    &wrapped);

  g_assert_false (wrapped);
  g_assert_cmpstr (out, ==,
    "{\"properties\":{"
    "\"party\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"hp\":{\"type\":[\"integer\",\"null\"]}},"
    "\"required\":[\"hp\"],\"additionalProperties\":false}},"
    "\"leader\":{\"anyOf\":[{\"$ref\":\"#/$defs/Member\"},{\"type\":\"null\"}]},"
    "\"pick\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"}},"
    "\"required\":[\"id\"],\"additionalProperties\":false}]}},"
    "\"required\":[\"party\",\"leader\",\"pick\"],"
    "\"additionalProperties\":false,"
    "\"$defs\":{\"Member\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
    "\"required\":[\"name\"],\"additionalProperties\":false}},"
    "\"type\":\"object\"}");
}

static void
test_all_of (void)
{
  gboolean wrapped;
  g_autofree char *out = strict (
    "{\"allOf\":[{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},\"required\":[\"a\"]},"
    "{\"type\":\"object\",\"properties\":{\"b\":{\"type\":\"number\"}}}],\"description\":\"both\"}", &wrapped);

  g_assert_false (wrapped);
  g_assert_cmpstr (out, ==,
    "{\"description\":\"both\",\"properties\":{\"a\":{\"type\":\"string\"},\"b\":{\"type\":[\"number\",\"null\"]}},"
    "\"required\":[\"a\",\"b\"],\"type\":\"object\",\"additionalProperties\":false}");
}

static void
test_wrapped_root (void)
{
  gboolean wrapped;
  g_autofree char *out = strict ("{\"type\":\"string\",\"enum\":[\"attack\",\"flee\"]}", &wrapped);
  g_autofree char *refs = NULL;

  g_assert_true (wrapped);
  g_assert_cmpstr (out, ==,
    "{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"string\",\"enum\":[\"attack\",\"flee\"]}},"
    "\"required\":[\"value\"],\"additionalProperties\":false}");

  /* Definitions move to the new root, where references point. */
  refs = strict ("{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/I\"},\"$defs\":{\"I\":{\"type\":\"integer\"}}}",
                 &wrapped);
  g_assert_true (wrapped);
  g_assert_cmpstr (refs, ==,
    "{\"type\":\"object\",\"$defs\":{\"I\":{\"type\":\"integer\"}},"
    "\"properties\":{\"value\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/I\"}}},"
    "\"required\":[\"value\"],\"additionalProperties\":false}");
}

static void
test_unmap (void)
{
  static const char *schema =
    "{\"type\":\"object\",\"properties\":{"
    "\"line\":{\"type\":\"string\"},"
    "\"emotion\":{\"type\":\"string\"},"
    "\"target\":{\"type\":[\"string\",\"null\"]},"
    "\"items\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/definitions/Item\"}},"
    "\"extra\":{\"anyOf\":[{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\"},\"y\":{\"type\":\"integer\"}}},"
    "                      {\"type\":\"string\"}]}},"
    "\"required\":[\"line\"],"
    "\"definitions\":{\"Item\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"count\":{\"type\":\"integer\"}},\"required\":[\"name\"]}}}";
  g_autofree char *a = unmap (schema, "{\"line\":\"Halt!\",\"emotion\":null,\"target\":null,\"items\":null,\"extra\":null}");
  g_autofree char *b = unmap (schema, "{\"line\":null,\"emotion\":\"angry\",\"target\":\"you\","
                                      "\"items\":[{\"name\":\"key\",\"count\":null},{\"name\":\"map\",\"count\":2}],"
                                      "\"extra\":{\"x\":1,\"y\":null}}");
  g_autofree char *c = unmap (schema, "{\"line\":\"x\",\"extra\":\"plain\",\"unknown\":null}");

  /* Optional nulls go; a null the caller's schema allows stays. */
  g_assert_cmpstr (a, ==, "{\"line\":\"Halt!\",\"target\":null}");
  /* Required members are never touched; nesting through refs and anyOf. */
  g_assert_cmpstr (b, ==, "{\"line\":null,\"emotion\":\"angry\",\"target\":\"you\","
                          "\"items\":[{\"name\":\"key\"},{\"name\":\"map\",\"count\":2}],\"extra\":{\"x\":1}}");
  g_assert_cmpstr (c, ==, "{\"line\":\"x\",\"extra\":\"plain\",\"unknown\":null}");
}

static void
test_unmap_wrapped (void)
{
  g_autofree char *a = unmap ("{\"type\":\"string\"}", "{\"value\":\"flee\"}");
  g_autofree char *b = unmap ("{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"string\"}}}}",
                              "{\"value\":[{\"n\":null},{\"n\":\"x\"}]}");
  g_autofree char *c = unmap ("{\"type\":\"string\"}", "{\"other\":1}");
  g_autofree char *d = unmap ("{\"type\":\"string\"}", "\"flee\"");

  g_assert_cmpstr (a, ==, "\"flee\"");
  g_assert_cmpstr (b, ==, "[{},{\"n\":\"x\"}]");
  g_assert_null (c);
  g_assert_null (d);
}

static void
test_hostile (void)
{
  static const char *bad[][2] = {
    { "[]", "#" },
    { "\"string\"", "#" },
    { "{\"type\":\"object\",\"properties\":{\"a\":5}}", "#/properties/a" },
    { "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"object\",\"properties\":7}}}", "#/properties/a/properties" },
    { "{\"anyOf\":{\"type\":\"string\"}}", "#/anyOf" },
    { "{\"type\":\"array\",\"items\":[1]}", "#/items" },
  };
  GString *deep = g_string_new (NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(JsonNode) schema = parse (bad[i][0]);
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) out = NULL;
      gboolean wrapped;

      out = gg_openai_strict_schema (schema, &wrapped, &error);
      g_assert_null (out);
      g_assert_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_SCHEMA);
      g_assert_cmpstr (json_object_get_string_member (gg_model_error_get_data (error), "schemaPath"),
                       ==, bad[i][1]);
    }

  /* Nesting beyond the limit fails cleanly instead of recursing on. */
  for (int i = 0; i < 200; i++)
    g_string_append (deep, "{\"type\":\"array\",\"items\":");
  g_string_append (deep, "{\"type\":\"string\"}");
  for (int i = 0; i < 200; i++)
    g_string_append_c (deep, '}');
  {
    g_autoptr(JsonNode) schema = parse (deep->str);
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonNode) out = NULL;
    g_autoptr(JsonNode) answer = parse ("{\"value\":[[[[[\"x\"]]]]]}");
    g_autoptr(JsonNode) mapped = NULL;
    gboolean wrapped;

    out = gg_openai_strict_schema (schema, &wrapped, &error);
    g_assert_null (out);
    g_assert_error (error, GG_MODEL_ERROR, GG_MODEL_ERROR_INVALID_SCHEMA);
    mapped = gg_openai_strict_schema_unmap (schema, answer, TRUE);
    g_assert_nonnull (mapped);
  }
  g_string_free (deep, TRUE);

  /* Nonsense types are passed on (the server judges them), not trusted. */
  {
    gboolean wrapped;
    g_autofree char *out = strict ("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":5},"
                                   "\"b\":{\"type\":\"string\",\"enum\":{}}}}", &wrapped);
    g_assert_cmpstr (out, ==, "{\"type\":\"object\",\"properties\":{\"a\":{\"anyOf\":[{\"type\":5},{\"type\":\"null\"}]},"
                              "\"b\":{\"type\":[\"string\",\"null\"],\"enum\":{}}},"
                              "\"required\":[\"a\",\"b\"],\"additionalProperties\":false}");
  }

  /* Self-referencing definitions stop at the depth limit when mapping. */
  {
    g_autoptr(JsonNode) schema = parse ("{\"$ref\":\"#\",\"properties\":{\"a\":{\"type\":\"string\"}}}");
    g_autoptr(JsonNode) answer = parse ("{\"value\":{\"a\":null}}");
    g_autoptr(JsonNode) mapped = gg_openai_strict_schema_unmap (schema, answer, TRUE);
    g_assert_nonnull (mapped);
  }
  {
    g_autoptr(JsonNode) schema = parse ("{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/missing~1x~0\"}}}");
    g_autoptr(JsonNode) answer = parse ("{\"a\":null}");
    g_autoptr(JsonNode) mapped = gg_openai_strict_schema_unmap (schema, answer, FALSE);
    g_autofree char *text = gg_json_to_string (mapped);
    /* An unresolvable reference allows nothing, so the optional null goes. */
    g_assert_cmpstr (text, ==, "{}");
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/openai/strict-schema/optional-properties", test_optional_properties);
  g_test_add_func ("/openai/strict-schema/nested", test_nested);
  g_test_add_func ("/openai/strict-schema/all-of", test_all_of);
  g_test_add_func ("/openai/strict-schema/wrapped-root", test_wrapped_root);
  g_test_add_func ("/openai/strict-schema/unmap", test_unmap);
  g_test_add_func ("/openai/strict-schema/unmap-wrapped", test_unmap_wrapped);
  g_test_add_func ("/openai/strict-schema/hostile", test_hostile);
  return g_test_run ();
}

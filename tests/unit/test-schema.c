/* test-schema.c: GgSchema: compiling, validating, error paths, hostile
 * schemas. The official test suite runs in test-schema-suite.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-test-util.h"

static JsonNode *
parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = gg_json_parse (text, -1, 0, &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}

static GgSchema *
compile_ok (const char *text)
{
  g_autoptr(JsonNode) node = parse (text);
  g_autoptr(GError) error = NULL;
  GgSchema *schema = gg_schema_new (node, &error);

  g_assert_no_error (error);
  g_assert_nonnull (schema);
  return schema;
}

static void
assert_bad_schema (const char *text,
                   const char *schema_path,
                   const char *fragment)
{
  g_autoptr(JsonNode) node = parse (text);
  g_autoptr(GError) error = NULL;
  g_autoptr(GgSchema) schema = gg_schema_new (node, &error);

  if (schema != NULL)
    g_error ("schema accepted: %s", text);
  g_assert_error (error, GG_SCHEMA_ERROR, GG_SCHEMA_ERROR_INVALID_SCHEMA);
  g_assert_cmpstr (gg_schema_error_get_schema_path (error), ==, schema_path);
  g_assert_null (gg_schema_error_get_path (error));
  if (fragment != NULL && strstr (error->message, fragment) == NULL)
    g_error ("message \"%s\" lacks \"%s\"", error->message, fragment);
}

static void
test_invalid_schemas (void)
{
  assert_bad_schema ("1", "#", "object or a boolean");
  assert_bad_schema ("\"string\"", "#", NULL);
  assert_bad_schema ("null", "#", NULL);
  assert_bad_schema ("{\"type\":\"str\"}", "#/type", "unknown type");
  assert_bad_schema ("{\"type\":[\"string\",\"nope\"]}", "#/type", "unknown type");
  assert_bad_schema ("{\"type\":5}", "#/type", NULL);
  assert_bad_schema ("{\"type\":[]}", "#/type", "must not be empty");
  assert_bad_schema ("{\"properties\":[]}", "#/properties", "must be an object");
  assert_bad_schema ("{\"properties\":{\"a\":5}}", "#/properties/a", "object or a boolean");
  assert_bad_schema ("{\"properties\":{\"a/b\":{\"type\":\"x\"}}}", "#/properties/a~1b/type", NULL);
  assert_bad_schema ("{\"properties\":{\"a\":{\"pattern\":\"(\"}}}", "#/properties/a/pattern",
                     "invalid regular expression");
  assert_bad_schema ("{\"pattern\":5}", "#/pattern", NULL);
  assert_bad_schema ("{\"patternProperties\":{\"[\":{}}}", "#/patternProperties/[", NULL);
  assert_bad_schema ("{\"$ref\":\"#/$defs/missing\"}", "#/$ref", "cannot resolve");
  assert_bad_schema ("{\"$ref\":\"http://example.com/s.json\"}", "#/$ref", "local");
  assert_bad_schema ("{\"$ref\":\"#anchor\"}", "#/$ref", NULL);
  assert_bad_schema ("{\"$ref\":\"#/enum/0\",\"enum\":[1]}", "#/$ref", "not point to a schema");
  assert_bad_schema ("{\"$ref\":\"#/a~2b\"}", "#/$ref", NULL);
  assert_bad_schema ("{\"$ref\":\"#/%zz\"}", "#/$ref", NULL);
  assert_bad_schema ("{\"$ref\":5}", "#/$ref", NULL);
  assert_bad_schema ("{\"items\":[{},{\"$ref\":\"#/items/2\"}]}", "#/items/1/$ref", NULL);
  assert_bad_schema ("{\"minLength\":-1}", "#/minLength", "non-negative integer");
  assert_bad_schema ("{\"maxItems\":1.5}", "#/maxItems", NULL);
  assert_bad_schema ("{\"minimum\":\"1\"}", "#/minimum", NULL);
  assert_bad_schema ("{\"multipleOf\":0}", "#/multipleOf", NULL);
  assert_bad_schema ("{\"multipleOf\":-2.5}", "#/multipleOf", NULL);
  assert_bad_schema ("{\"anyOf\":[]}", "#/anyOf", "must not be empty");
  assert_bad_schema ("{\"oneOf\":{}}", "#/oneOf", NULL);
  assert_bad_schema ("{\"allOf\":[true,3]}", "#/allOf/1", NULL);
  assert_bad_schema ("{\"required\":[\"a\",1]}", "#/required", NULL);
  assert_bad_schema ("{\"uniqueItems\":1}", "#/uniqueItems", NULL);
  assert_bad_schema ("{\"enum\":{}}", "#/enum", NULL);
  assert_bad_schema ("{\"not\":[]}", "#/not", NULL);
  assert_bad_schema ("{\"$defs\":{\"x\":{\"minItems\":\"2\"}}}", "#/$defs/x/minItems", NULL);
  assert_bad_schema ("{\"definitions\":{\"x\":{\"format\":1}}}", "#/definitions/x/format", NULL);
  /* A target reached only through $ref is checked too. */
  assert_bad_schema ("{\"$ref\":\"#/x-unknown/s\",\"x-unknown\":{\"s\":{\"type\":\"blob\"}}}",
                     "#/x-unknown/s/type", NULL);
}

static void
test_valid_schemas (void)
{
  static const char *const ok[] = {
    "true", "false", "{}",
    "{\"unknownKeyword\":[1,2,{\"type\":\"nonsense\"}],\"title\":\"x\",\"description\":\"y\"}",
    "{\"$ref\":\"#\"}",
    "{\"$defs\":{\"a b\":{\"type\":\"integer\"}},\"$ref\":\"#/$defs/a%20b\"}",
    "{\"minLength\":2.0,\"maxLength\":1e300}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (ok); i++)
    {
      g_autoptr(GgSchema) schema = compile_ok (ok[i]);
      g_assert_nonnull (gg_schema_get_root (schema));
    }
}

static void
assert_valid (GgSchema   *schema,
              const char *instance)
{
  g_autoptr(JsonNode) node = parse (instance);
  g_autoptr(GError) error = NULL;

  if (!gg_schema_validate (schema, node, &error))
    g_error ("%s should be valid: %s", instance, error->message);
}

/* Checks the failure's message, instance path and schema path. */
static void
assert_invalid (GgSchema   *schema,
                const char *instance,
                const char *message,
                const char *path,
                const char *schema_path)
{
  g_autoptr(JsonNode) node = parse (instance);
  g_autoptr(GError) error = NULL;

  if (gg_schema_validate (schema, node, &error))
    g_error ("%s should be invalid", instance);
  g_assert_error (error, GG_SCHEMA_ERROR, GG_SCHEMA_ERROR_INVALID);
  if (message != NULL)
    g_assert_cmpstr (error->message, ==, message);
  if (path != NULL)
    g_assert_cmpstr (gg_schema_error_get_path (error), ==, path);
  if (schema_path != NULL)
    g_assert_cmpstr (gg_schema_error_get_schema_path (error), ==, schema_path);
}

static void
test_errors (void)
{
  g_autoptr(GgSchema) schema = compile_ok (
    "{\"type\":\"object\","
    " \"required\":[\"party\"],"
    " \"properties\":{"
    "   \"party\":{\"type\":\"array\",\"maxItems\":3,"
    "     \"items\":{\"type\":\"object\",\"required\":[\"name\"],"
    "       \"properties\":{\"name\":{\"type\":\"string\",\"minLength\":1},"
    "                       \"hp\":{\"type\":\"integer\",\"minimum\":0}},"
    "       \"additionalProperties\":false}},"
    "   \"a/b~c\":{\"type\":\"boolean\"}}}");

  assert_valid (schema, "{\"party\":[{\"name\":\"Bo\",\"hp\":3}]}");
  assert_invalid (schema, "{\"party\":[{\"name\":\"\"}]}",
                  "#/party/0/name: must be at least 1 characters", "#/party/0/name",
                  "#/properties/party/items/properties/name/minLength");
  assert_invalid (schema, "[]", "#: must be object", "#", "#/type");
  assert_invalid (schema, "{}", "#: must have required property 'party'", "#", "#/required");
  assert_invalid (schema, "{\"party\":[{\"name\":\"a\"},{\"name\":\"b\",\"hp\":-1}]}",
                  "#/party/1/hp: must be >= 0", "#/party/1/hp",
                  "#/properties/party/items/properties/hp/minimum");
  assert_invalid (schema, "{\"party\":[{\"name\":\"a\",\"hp\":1.5}]}",
                  "#/party/0/hp: must be integer", NULL, NULL);
  assert_invalid (schema, "{\"party\":[{\"name\":\"a\",\"mp\":1}]}",
                  "#/party/0: must not have additional property 'mp'", "#/party/0",
                  "#/properties/party/items/additionalProperties");
  assert_invalid (schema, "{\"party\":[{},{},{},{}]}", "#/party: must have at most 3 items",
                  NULL, "#/properties/party/maxItems");
  /* Pointer escaping of '/' and '~' in both paths. */
  assert_invalid (schema, "{\"party\":[],\"a/b~c\":1}", "#/a~1b~0c: must be boolean",
                  "#/a~1b~0c", "#/properties/a~1b~0c/type");
  /* integer accepts 1.0. */
  assert_valid (schema, "{\"party\":[{\"name\":\"a\",\"hp\":1.0}]}");
}

static void
test_error_copy (void)
{
  g_autoptr(GgSchema) schema = compile_ok ("{\"items\":{\"minimum\":2}}");
  g_autoptr(JsonNode) node = parse ("[3,1]");
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) copy = NULL;
  g_autoptr(GError) other = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "x");

  g_assert_false (gg_schema_validate (schema, node, &error));
  copy = g_error_copy (error);
  g_assert_cmpstr (gg_schema_error_get_path (copy), ==, "#/1");
  g_assert_cmpstr (gg_schema_error_get_schema_path (copy), ==, "#/items/minimum");
  g_assert_null (gg_schema_error_get_path (other));
  g_assert_null (gg_schema_error_get_schema_path (other));
  g_assert_null (gg_schema_error_get_path (NULL));

  /* No error location: still works. */
  g_assert_false (gg_schema_validate (schema, node, NULL));
}

static void
test_keywords (void)
{
  {
    g_autoptr(GgSchema) s = compile_ok ("{\"type\":[\"integer\",\"null\"]}");
    assert_valid (s, "1");
    assert_valid (s, "1.0");
    assert_valid (s, "null");
    assert_invalid (s, "1.5", "#: must be integer or null", NULL, NULL);
    assert_invalid (s, "\"1\"", NULL, NULL, NULL);
  }
  {
    /* Code points, not bytes. */
    g_autoptr(GgSchema) s = compile_ok ("{\"minLength\":2,\"maxLength\":2}");
    assert_valid (s, "\"\xc3\xa9\xf0\x9f\x98\x80\"");
    assert_valid (s, "\"ab\"");
    assert_invalid (s, "\"\xf0\x9f\x98\x80\"", "#: must be at least 2 characters", NULL, NULL);
    assert_invalid (s, "\"abc\"", "#: must be at most 2 characters", NULL, NULL);
    assert_valid (s, "5");
  }
  {
    /* Unanchored search; '$' only at the very end (ECMA-262). */
    g_autoptr(GgSchema) s = compile_ok ("{\"pattern\":\"^[a-z]+$\"}");
    g_autoptr(GgSchema) u = compile_ok ("{\"pattern\":\"b+\"}");
    assert_valid (s, "\"abc\"");
    assert_invalid (s, "\"abc\\n\"", "#: must match the pattern \"^[a-z]+$\"", NULL, "#/pattern");
    assert_valid (u, "\"aabbcc\"");
    assert_invalid (u, "\"ac\"", NULL, NULL, NULL);
  }
  {
    g_autoptr(GgSchema) s = compile_ok (
      "{\"exclusiveMinimum\":0,\"exclusiveMaximum\":10.5,\"multipleOf\":0.5}");
    assert_valid (s, "0.5");
    assert_valid (s, "10");
    assert_invalid (s, "0", "#: must be > 0", NULL, "#/exclusiveMinimum");
    assert_invalid (s, "10.5", "#: must be < 10.5", NULL, NULL);
    assert_invalid (s, "1.25", "#: must be a multiple of 0.5", NULL, "#/multipleOf");
  }
  {
    /* Large integers compare exactly against doubles. */
    g_autoptr(GgSchema) s = compile_ok ("{\"maximum\":9007199254740992.0}");
    assert_valid (s, "9007199254740992");
    assert_invalid (s, "9007199254740993", NULL, NULL, NULL);
  }
  {
    g_autoptr(GgSchema) s = compile_ok ("{\"enum\":[1,\"a\",{\"b\":[null]}],\"uniqueItems\":true}");
    assert_valid (s, "1.0");
    assert_valid (s, "{\"b\":[null]}");
    assert_invalid (s, "{\"b\":[]}", "#: must be one of the allowed values", NULL, "#/enum");
  }
  {
    g_autoptr(GgSchema) s = compile_ok ("{\"uniqueItems\":true}");
    assert_valid (s, "[1,\"1\",[1],{\"a\":1},{\"a\":2}]");
    assert_invalid (s, "[{\"a\":1,\"b\":2},{\"b\":2,\"a\":1.0}]",
                    "#: must not contain duplicates (items 0 and 1 are equal)", NULL, NULL);
    assert_invalid (s, "[1,2,1.0]", NULL, NULL, NULL);
  }
  {
    g_autoptr(GgSchema) s = compile_ok ("{\"const\":{\"a\":[1,2]}}");
    assert_valid (s, "{\"a\":[1.0,2]}");
    assert_invalid (s, "{\"a\":[2,1]}", "#: must be equal to the constant", NULL, "#/const");
  }
  {
    /* Draft-7 tuple form and 2020-12 prefixItems. */
    g_autoptr(GgSchema) tuple = compile_ok (
      "{\"items\":[{\"type\":\"string\"},{\"type\":\"integer\"}],\"additionalItems\":false}");
    g_autoptr(GgSchema) prefix = compile_ok (
      "{\"prefixItems\":[{\"type\":\"string\"}],\"items\":{\"type\":\"integer\"}}");
    assert_valid (tuple, "[\"a\",1]");
    assert_valid (tuple, "[\"a\"]");
    assert_invalid (tuple, "[1]", "#/0: must be string", "#/0", "#/items/0/type");
    assert_invalid (tuple, "[\"a\",1,2]", "#/2: no value is allowed here", "#/2",
                    "#/additionalItems");
    assert_valid (prefix, "[\"a\",1,2]");
    assert_invalid (prefix, "[\"a\",1,\"b\"]", "#/2: must be integer", NULL, "#/items/type");
  }
  {
    g_autoptr(GgSchema) s = compile_ok (
      "{\"anyOf\":[{\"type\":\"string\"},{\"minimum\":5}],"
      " \"oneOf\":[{\"type\":\"integer\"},{\"minimum\":7}],"
      " \"not\":{\"const\":6}}");
    assert_valid (s, "5");
    assert_valid (s, "7.5");
    assert_invalid (s, "4", "#: must match at least one schema in anyOf", NULL, "#/anyOf");
    assert_invalid (s, "8", "#: must match exactly one schema in oneOf (matched several)",
                    NULL, "#/oneOf");
    assert_invalid (s, "5.5", "#: must match exactly one schema in oneOf (matched none)",
                    NULL, NULL);
    assert_invalid (s, "6", "#: must not match the schema in not", NULL, "#/not");
  }
  {
    g_autoptr(GgSchema) s = compile_ok ("{\"allOf\":[{\"type\":\"string\"},{\"maxLength\":1}]}");
    assert_invalid (s, "\"ab\"", "#: must be at most 1 characters", NULL, "#/allOf/1/maxLength");
  }
  {
    g_autoptr(GgSchema) s = compile_ok ("{\"additionalProperties\":{\"type\":\"number\"},"
                                        "\"properties\":{\"id\":{\"type\":\"string\"}}}");
    assert_valid (s, "{\"id\":\"x\",\"hp\":2}");
    assert_invalid (s, "{\"id\":\"x\",\"hp\":\"2\"}", "#/hp: must be number", "#/hp",
                    "#/additionalProperties/type");
  }
  {
    g_autoptr(GgSchema) f = compile_ok ("false");
    g_autoptr(GgSchema) t = compile_ok ("true");
    assert_invalid (f, "1", "#: no value is allowed here", "#", "#");
    assert_valid (t, "{\"anything\":[1]}");
  }
}

static void
test_formats (void)
{
  g_autoptr(GgSchema) dt = compile_ok ("{\"format\":\"date-time\"}");
  g_autoptr(GgSchema) uuid = compile_ok ("{\"format\":\"uuid\"}");
  g_autoptr(GgSchema) other = compile_ok ("{\"format\":\"email\"}");
  static const char *const good_dt[] = {
    "1963-06-19T08:30:06.283185Z", "1963-06-19T08:30:06Z", "1963-06-19t08:30:06z",
    "1937-01-01T12:00:27.87+00:20", "1990-12-31T15:59:50.123-08:00", "2000-02-29T00:00:00Z",
    "1998-12-31T23:59:60Z", "1998-12-31T15:59:60.123-08:00",
    "1985-04-12T00:59:59.999999999999999Z",
  };
  static const char *const bad_dt[] = {
    "1990-02-31T15:59:59.123-08:00", "1990-12-31T15:59:59-24:00", "06/19/1963 08:30:06 PST",
    "2013-350T01:01:01", "1963-06-19", "1963-06-19T08:30:06", "1963-06-19 08:30:06Z",
    "1900-02-29T00:00:00Z", "1998-12-31T23:58:60Z", "1998-12-31T22:59:60Z",
    "1963-06-19T08:30:06.Z", "1963-06-19T24:00:00Z", "1963-13-19T08:30:06Z",
    "1963-06-19T08:30:06+01", "1963-06-19T08:30:06Z ", "1963-06-1\xe0\xa7\xaaT00:00:00Z",
    "1963-06-11T0\xe0\xa7\xaa:00:00Z", "1963-06-19T08:30:06.28123+01:00Z", "1990-12-31T15:60:00Z",
    "1990-12-31T10:00:00+10:60", "1963-6-19T08:30:06.283185Z", "1963-06-1T08:30:06.283185Z",
    "+11963-06-19T08:30:06.283185Z", "1998-12-31T23:59:61Z", "",
  };
  static const char *const good_uuid[] = {
    "2eb8aa08-aa98-11ea-b4aa-73b441d16380", "2EB8AA08-AA98-11EA-B4AA-73B441D16380",
    "00000000-0000-0000-0000-000000000000", "2eb8aa08-AA98-11ea-B4Aa-73B441D16380",
    "99c17cbb-656f-f64a-940f-1a4568f03487",
  };
  static const char *const bad_uuid[] = {
    "2eb8aa08-aa98-11ea-b4aa-73b441d1638", "2eb8aa08aa9811eab4aa73b441d16380",
    "2eb8aa08-aa98-11ea-b4aa-73b441d1638g", "{2eb8aa08-aa98-11ea-b4aa-73b441d16380}",
    "2eb8-aa08-aa98-11ea-b4aa73b441d16380", "2eb8aa08-aa98-11ea-b4ga-73b441d16380",
    "urn:uuid:2eb8aa08-aa98-11ea-b4aa-73b441d16380", "2eb8aa0-8aa98-11e-ab4aa7-3b441d16380", "",
  };

  for (guint i = 0; i < G_N_ELEMENTS (good_dt); i++)
    {
      g_autofree char *json = g_strdup_printf ("\"%s\"", good_dt[i]);
      assert_valid (dt, json);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad_dt); i++)
    {
      g_autofree char *json = g_strdup_printf ("\"%s\"", bad_dt[i]);
      assert_invalid (dt, json, "#: must be a valid date-time", "#", "#/format");
    }
  for (guint i = 0; i < G_N_ELEMENTS (good_uuid); i++)
    {
      g_autofree char *json = g_strdup_printf ("\"%s\"", good_uuid[i]);
      assert_valid (uuid, json);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad_uuid); i++)
    {
      g_autofree char *json = g_strdup_printf ("\"%s\"", bad_uuid[i]);
      assert_invalid (uuid, json, "#: must be a valid uuid", NULL, NULL);
    }
  /* Formats that are not asserted, and non-strings, pass. */
  assert_valid (other, "\"not an email\"");
  assert_valid (dt, "12");
}

static void
test_refs (void)
{
  {
    g_autoptr(GgSchema) s = compile_ok (
      "{\"$defs\":{\"name\":{\"type\":\"string\",\"minLength\":1}},"
      " \"definitions\":{\"hp\":{\"type\":\"integer\"}},"
      " \"properties\":{\"name\":{\"$ref\":\"#/$defs/name\"},"
      "                 \"hp\":{\"$ref\":\"#/definitions/hp\"}}}");
    assert_valid (s, "{\"name\":\"a\",\"hp\":1}");
    /* The schema path points into the referenced schema. */
    assert_invalid (s, "{\"name\":\"\"}", "#/name: must be at least 1 characters", "#/name",
                    "#/$defs/name/minLength");
    assert_invalid (s, "{\"hp\":\"x\"}", NULL, "#/hp", "#/definitions/hp/type");
  }
  {
    /* JSON pointer escapes: ~0, ~1 and %-escapes. */
    g_autoptr(GgSchema) s = compile_ok (
      "{\"$defs\":{\"a~b\":{\"type\":\"integer\"},\"c/d\":{\"type\":\"string\"},"
      "            \"e%f\":{\"type\":\"boolean\"},\"g h\":{\"type\":\"null\"}},"
      " \"properties\":{\"1\":{\"$ref\":\"#/$defs/a~0b\"},\"2\":{\"$ref\":\"#/$defs/c~1d\"},"
      "                 \"3\":{\"$ref\":\"#/$defs/e%25f\"},\"4\":{\"$ref\":\"#/$defs/g%20h\"}}}");
    assert_valid (s, "{\"1\":1,\"2\":\"x\",\"3\":true,\"4\":null}");
    assert_invalid (s, "{\"1\":\"x\"}", NULL, NULL, "#/$defs/a~0b/type");
    assert_invalid (s, "{\"2\":1}", NULL, NULL, "#/$defs/c~1d/type");
    assert_invalid (s, "{\"3\":1}", NULL, NULL, "#/$defs/e%f/type");
    assert_invalid (s, "{\"4\":1}", NULL, NULL, NULL);
  }
  {
    /* A recursive tree schema on a deep instance. */
    g_autoptr(GgSchema) s = compile_ok (
      "{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"integer\"},"
      " \"children\":{\"type\":\"array\",\"items\":{\"$ref\":\"#\"}}},\"additionalProperties\":false}");
    g_autoptr(GString) deep = g_string_new (NULL);
    const guint levels = 60;

    for (guint i = 0; i < levels; i++)
      g_string_append (deep, "{\"value\":1,\"children\":[");
    g_string_append (deep, "{\"value\":2}");
    for (guint i = 0; i < levels; i++)
      g_string_append (deep, "]}");
    assert_valid (s, deep->str);
    assert_invalid (s, "{\"children\":[{\"children\":[{\"value\":\"x\"}]}]}",
                    "#/children/0/children/0/value: must be integer", NULL,
                    "#/properties/value/type");
  }
  {
    /* Draft 7: $ref ignores its siblings; 2020-12: they apply. */
    g_autoptr(GgSchema) d7 = compile_ok (
      "{\"$schema\":\"http://json-schema.org/draft-07/schema#\","
      " \"definitions\":{\"a\":{\"type\":\"array\"}},"
      " \"properties\":{\"x\":{\"$ref\":\"#/definitions/a\",\"maxItems\":1}}}");
    g_autoptr(GgSchema) d2020 = compile_ok (
      "{\"$defs\":{\"a\":{\"type\":\"array\"}},"
      " \"properties\":{\"x\":{\"$ref\":\"#/$defs/a\",\"maxItems\":1}}}");
    assert_valid (d7, "{\"x\":[1,2]}");
    assert_invalid (d2020, "{\"x\":[1,2]}", NULL, "#/x", "#/properties/x/maxItems");
  }
}

static void
assert_limit_hit (const char *schema_text,
                  const char *instance)
{
  g_autoptr(GgSchema) schema = compile_ok (schema_text);
  g_autoptr(JsonNode) node = parse (instance);
  g_autoptr(GError) error = NULL;

  g_assert_false (gg_schema_validate (schema, node, &error));
  g_assert_error (error, GG_SCHEMA_ERROR, GG_SCHEMA_ERROR_INVALID_SCHEMA);
  g_assert_nonnull (gg_schema_error_get_schema_path (error));
}

static void
test_hostile (void)
{
  /* $ref loops that never consume input end with an error, not a crash. */
  assert_limit_hit ("{\"$ref\":\"#\"}", "1");
  assert_limit_hit ("{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},\"b\":{\"$ref\":\"#/$defs/a\"}},"
                    "\"$ref\":\"#/$defs/a\"}", "{}");
  assert_limit_hit ("{\"anyOf\":[{\"type\":\"string\"},{\"$ref\":\"#\"}]}", "1");
  assert_limit_hit ("{\"not\":{\"$ref\":\"#\"}}", "1");
  assert_limit_hit ("{\"properties\":{\"a\":{\"$ref\":\"#/properties/a\"}}}", "{\"a\":1}");

  /* Exponential fan-out stops at the work limit. */
  {
    g_autoptr(GString) s = g_string_new ("{\"$defs\":{");
    for (guint i = 0; i < 40; i++)
      g_string_append_printf (s, "%s\"d%u\":{\"anyOf\":[{\"$ref\":\"#/$defs/d%u\"},"
                                 "{\"$ref\":\"#/$defs/d%u\"}]}",
                              i > 0 ? "," : "", i, i + 1, i + 1);
    g_string_append (s, ",\"d40\":false},\"$ref\":\"#/$defs/d0\"}");
    assert_limit_hit (s->str, "1");
  }

  /* Recursion that consumes input but goes deeper than the validator
   * allows ends with an error too. */
  {
    g_autoptr(GgSchema) s = compile_ok (
      "{\"$defs\":{\"n\":{\"properties\":{\"a\":{\"$ref\":\"#/$defs/n\"}}}},\"$ref\":\"#/$defs/n\"}");
    g_autoptr(GString) deep = g_string_new (NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonNode) node = NULL;

    for (guint i = 0; i < 2000; i++)
      g_string_append (deep, "{\"a\":");
    g_string_append (deep, "1");
    for (guint i = 0; i < 2000; i++)
      g_string_append_c (deep, '}');
    node = gg_json_parse (deep->str, -1, 4096, &error);
    g_assert_no_error (error);
    g_assert_false (gg_schema_validate (s, node, &error));
    g_assert_error (error, GG_SCHEMA_ERROR, GG_SCHEMA_ERROR_INVALID_SCHEMA);
    g_assert_nonnull (strstr (error->message, "nested too deeply"));
  }

  /* A schema nested deeper than the validator allows is refused. */
  {
    g_autoptr(JsonNode) root = json_node_init_object (json_node_alloc (), json_object_new ());
    JsonObject *object = json_node_get_object (root);
    g_autoptr(GError) error = NULL;
    g_autoptr(GgSchema) schema = NULL;

    json_object_unref (object);
    for (guint i = 0; i < 2000; i++)
      {
        JsonObject *inner = json_object_new ();
        json_object_set_object_member (object, "not", inner);
        object = inner;
      }
    schema = gg_schema_new (root, &error);
    g_assert_null (schema);
    g_assert_error (error, GG_SCHEMA_ERROR, GG_SCHEMA_ERROR_INVALID_SCHEMA);
  }

  /* uniqueItems stays linear on long arrays. */
  {
    g_autoptr(GgSchema) s = compile_ok ("{\"uniqueItems\":true}");
    g_autoptr(GString) big = g_string_new ("[");
    g_autoptr(GTimer) timer = g_timer_new ();

    for (guint i = 0; i < 100000; i++)
      g_string_append_printf (big, "%s%u", i > 0 ? "," : "", i);
    g_string_append (big, ",[1],{\"a\":[2]},\"1\",9007199254740993,9007199254740992.0]");
    assert_valid (s, big->str);
    g_string_truncate (big, big->len - 1);
    g_string_append (big, ",{\"a\":[2.0]}]");
    assert_invalid (s, big->str, "#: must not contain duplicates (items 100001 and 100005 are equal)",
                    NULL, NULL);
    g_test_message ("uniqueItems on 100,000 items: %.3f s", g_timer_elapsed (timer, NULL));
  }

  /* ... also for fractions: g_double_hash() hashes (guint) value, so every
   * number in [0, 1) would land in one bucket and the check go quadratic. */
  {
    g_autoptr(GgSchema) s = compile_ok ("{\"uniqueItems\":true}");
    g_autoptr(GString) big = g_string_new ("[");
    g_autoptr(GTimer) timer = g_timer_new ();

    for (guint i = 0; i < 100000; i++)
      g_string_append_printf (big, "%s0.%05u1", i > 0 ? "," : "", i);
    g_string_append (big, ",-0.0,0]");
    assert_invalid (s, big->str, "#: must not contain duplicates (items 100000 and 100001 are equal)",
                    NULL, NULL);
    g_test_message ("uniqueItems on 100,000 fractions: %.3f s", g_timer_elapsed (timer, NULL));
    g_assert_cmpfloat (g_timer_elapsed (timer, NULL), <, 20.0);
  }

  /* A hand-built instance with invalid UTF-8 gets an error, not UB. */
  {
    g_autoptr(GgSchema) s = compile_ok ("{\"pattern\":\"a\",\"minLength\":1}");
    g_autoptr(JsonNode) bad = json_node_init_string (json_node_alloc (), "a\xff");
    g_autoptr(GError) error = NULL;

    g_assert_false (gg_schema_validate (s, bad, &error));
    g_assert_error (error, GG_SCHEMA_ERROR, GG_SCHEMA_ERROR_INVALID);
  }

  /* Catastrophic backtracking is bounded by PCRE's match limit. */
  {
    g_autoptr(GgSchema) s = compile_ok ("{\"pattern\":\"^(a+)+$\"}");
    assert_invalid (s, "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\"",
                    NULL, NULL, NULL);
  }
}

static void
test_schema_is_copied (void)
{
  g_autoptr(JsonNode) node = parse ("{\"type\":\"string\"}");
  g_autoptr(GError) error = NULL;
  g_autoptr(GgSchema) schema = gg_schema_new (node, &error);
  g_autoptr(JsonNode) number = json_node_init_string (json_node_alloc (), "number");
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  g_assert_true (gg_json_path_set (node, "type", number, &error));
  assert_valid (schema, "\"s\"");
  text = gg_json_to_string (gg_schema_get_root (schema));
  g_assert_cmpstr (text, ==, "{\"type\":\"string\"}");
  g_assert_true (json_node_is_immutable (gg_schema_get_root (schema)));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/schema/compile/invalid", test_invalid_schemas);
  g_test_add_func ("/schema/compile/valid", test_valid_schemas);
  g_test_add_func ("/schema/compile/copied", test_schema_is_copied);
  g_test_add_func ("/schema/validate/errors", test_errors);
  g_test_add_func ("/schema/validate/error-copy", test_error_copy);
  g_test_add_func ("/schema/validate/keywords", test_keywords);
  g_test_add_func ("/schema/validate/formats", test_formats);
  g_test_add_func ("/schema/validate/refs", test_refs);
  g_test_add_func ("/schema/validate/hostile", test_hostile);

  return g_test_run ();
}

/* test-gb-manifest.c: the tolerant manifest parser and the command query:
 * every form spec section 1 lists, default folding, and broken, truncated,
 * oversized and hostile manifests.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "gb-bridge.h"

static GbManifest *
parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = gg_json_parse (text, -1, GG_JSON_DEFAULT_MAX_DEPTH, &error);
  GbManifest *m;

  g_assert_no_error (error);
  m = gb_manifest_parse (root, "game", &error);
  g_assert_no_error (error);
  return m;
}

static char *
schema_text (GbManifest *m,
             const char *tool)
{
  const GbTool *t = gb_manifest_find_tool (m, tool);
  g_autoptr(JsonNode) node = NULL;

  g_assert_nonnull (t);
  node = json_node_init_object (json_node_alloc (), t->input_schema);
  return gg_json_to_string (node);
}

static void
test_spec_example (void)
{
  g_autoptr(GbManifest) m = parse (
    "{\"game\": {\"name\": \"Orbital Freight\", \"version\": \"0.9.2\", \"protocol\": 1},"
    " \"toolsets\": [{\"name\": \"play\", \"description\": \"Drive the game the way a player does.\","
    "   \"tools\": [{\"name\": \"drop\", \"description\": \"Release the held crate, aiming first if x is given.\","
    "     \"args\": [{\"name\": \"x\", \"type\": \"number\", \"description\": \"World x, -2..2\", \"required\": true, \"default\": null},"
    "              {\"name\": \"settle\", \"type\": \"boolean\", \"description\": \"Wait for the stack to settle\", \"default\": \"true\"}]}]}],"
    " \"passthrough\": {\"description\": \"Any command.\", \"examples\": [\"set_seed { seed }\", 3]}}");
  g_autofree char *schema = schema_text (m, "drop");

  g_assert_cmpstr (m->game_name, ==, "Orbital Freight");
  g_assert_cmpstr (m->game_version, ==, "0.9.2");
  g_assert_cmpint (m->protocol, ==, 1);
  g_assert_cmpstr (m->source, ==, "game");
  g_assert_cmpuint (m->dropped, ==, 0);
  /* The string default is folded into the description, never emitted as default. */
  g_assert_cmpstr (schema, ==,
                   "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\",\"description\":\"World x, -2..2\"},"
                   "\"settle\":{\"type\":\"boolean\",\"description\":\"Wait for the stack to settle (default true)\"}},"
                   "\"required\":[\"x\"]}");
  g_assert_cmpstr (gb_manifest_find_tool (m, "drop")->command, ==, "drop");
  g_assert_cmpstr (m->passthrough_description, ==, "Any command.");
  g_assert_cmpuint (json_array_get_length (m->passthrough_examples), ==, 1);
}

static void
test_tolerant_forms (void)
{
  g_autoptr(GbManifest) m = parse (
    "{\"toolsets\": {"
    "  \"a\": {\"tools\": ["
    "     {\"name\": \"map_args\", \"args\": {\"k\": {\"type\": \"string\", \"description\": \"K\"}, \"n\": {}}},"
    "     {\"name\": \"plain\", \"params\": [\"seed\", \"level\"]},"
    "     {\"name\": \"arguments_form\", \"arguments\": [{\"name\": \"s\", \"type\": \"integer\", \"default\": 5}]},"
    "     {\"name\": \"own_schema\", \"command\": \"do_it\", \"inputSchema\": {\"type\": \"object\", \"properties\": {\"q\": {\"type\": \"string\", \"default\": \"x\"}}}},"
    "     {\"name\": \"weird_type\", \"args\": [{\"name\": \"w\", \"type\": \"vector3\"}]}]},"
    "  \"b\": {\"description\": \"map of tools\", \"tools\": {\"t1\": {\"description\": \"one\"}, \"t2\": 5}}}}");
  g_autofree char *map_args = schema_text (m, "map_args");
  g_autofree char *plain = schema_text (m, "plain");
  g_autofree char *args = schema_text (m, "arguments_form");
  g_autofree char *own = schema_text (m, "own_schema");
  g_autofree char *weird = schema_text (m, "weird_type");

  g_assert_null (m->game_name);
  g_assert_cmpint (m->protocol, ==, -1);
  g_assert_cmpuint (m->toolsets->len, ==, 2);
  g_assert_cmpstr (map_args, ==, "{\"type\":\"object\",\"properties\":{\"k\":{\"type\":\"string\",\"description\":\"K\"},\"n\":{}}}");
  g_assert_cmpstr (plain, ==, "{\"type\":\"object\",\"properties\":{\"seed\":{},\"level\":{}}}");
  g_assert_cmpstr (args, ==, "{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"integer\",\"description\":\"(default 5)\"}}}");
  /* A tool's own inputSchema is passed through untouched. */
  g_assert_cmpstr (own, ==, "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\",\"default\":\"x\"}}}");
  g_assert_cmpstr (gb_manifest_find_tool (m, "own_schema")->command, ==, "do_it");
  g_assert_cmpstr (weird, ==, "{\"type\":\"object\",\"properties\":{\"w\":{}}}");
  g_assert_nonnull (gb_manifest_find_tool (m, "t1"));
  g_assert_null (gb_manifest_find_tool (m, "t2"));
  g_assert_cmpuint (m->dropped, ==, 1);
  g_assert_nonnull (gb_manifest_find_toolset (m, "b"));
}

static void
test_malformed_dropped (void)
{
  g_autoptr(GbManifest) m = parse (
    "{\"game\": {\"name\": 5, \"protocol\": \"one\"},"
    " \"toolsets\": [5, {\"tools\": []}, {\"name\": \"bridge\", \"tools\": []},"
    "  {\"name\": \"ok\", \"tools\": ["
    "    {\"name\": \"\"}, {\"description\": \"no name\"}, {\"name\": 7}, {\"name\": \"a\\u0001b\"},"
    "    {\"name\": \"bad_args\", \"args\": 5}, {\"name\": \"bad_arg_item\", \"args\": [7]},"
    "    {\"name\": \"dup_arg\", \"args\": [\"x\", \"x\"]}, {\"name\": \"bad_schema\", \"inputSchema\": []},"
    "    {\"name\": \"bad_command\", \"command\": 4},"
    "    {\"name\": \"good\"}, {\"name\": \"good\"}]},"
    "  {\"name\": \"ok\", \"tools\": []}]}");

  g_assert_null (m->game_name);
  g_assert_cmpint (m->protocol, ==, -1);
  g_assert_cmpuint (m->toolsets->len, ==, 1);
  g_assert_nonnull (gb_manifest_find_tool (m, "good"));
  g_assert_cmpuint (((GbToolset *) g_ptr_array_index (m->toolsets, 0))->tools->len, ==, 1);
  g_assert_cmpuint (m->dropped, ==, 14);
}

static void
test_hostile (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) array = gg_json_parse ("[1,2]", -1, 8, NULL);
  GString *big = g_string_new ("{\"toolsets\":[{\"name\":\"x\",\"tools\":[");
  g_autoptr(GbManifest) none = gb_manifest_parse (array, "game", &error);
  g_autoptr(GbManifest) huge = NULL;
  g_autofree char *long_name = g_strnfill (200, 'n');
  g_autofree char *long_text = NULL;
  g_autofree char *long_desc = g_strnfill (10000, 'd');
  g_autoptr(GbManifest) named = NULL;

  g_assert_null (none);
  g_assert_error (error, GB_ERROR, GB_ERROR_USAGE);
  g_assert_null (gb_manifest_parse (NULL, "game", NULL));

  /* More tools than the limit: the rest is dropped, nothing is fatal. */
  for (guint i = 0; i < 3000; i++)
    g_string_append_printf (big, "%s{\"name\":\"t%u\",\"args\":[{\"name\":\"a\",\"default\":\"%u\"}]}", i ? "," : "", i, i);
  g_string_append (big, "]}]}");
  huge = parse (big->str);
  g_assert_cmpuint (((GbToolset *) g_ptr_array_index (huge->toolsets, 0))->tools->len, ==, 2048);
  g_assert_cmpuint (huge->dropped, ==, 3000 - 2048);
  g_string_free (big, TRUE);

  long_text = g_strdup_printf ("{\"toolsets\":[{\"name\":\"x\",\"tools\":[{\"name\":\"%s\"},{\"name\":\"ok\",\"description\":\"%s\"}]}]}",
                               long_name, long_desc);
  named = parse (long_text);
  g_assert_null (gb_manifest_find_tool (named, long_name));
  g_assert_cmpuint (strlen (gb_manifest_find_tool (named, "ok")->description), <=, 4096);
}

static void
test_fallback_and_file (void)
{
  g_autoptr(GbManifest) fallback = gb_manifest_new_fallback ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("gb-manifest-XXXXXX", NULL);
  g_autofree char *good = g_build_filename (dir, "good.json", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.json", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.json", NULL);
  g_autoptr(GbManifest) file = NULL;
  GbManifest *broken;

  g_assert_cmpstr (fallback->source, ==, "fallback");
  g_assert_cmpuint (fallback->toolsets->len, ==, 0);
  g_assert_true (g_str_has_prefix (fallback->passthrough_description, "This game publishes no command list"));

  g_assert_true (g_file_set_contents (good, "{\"toolsets\":[{\"name\":\"s\",\"tools\":[{\"name\":\"t\"}]}]}", -1, NULL));
  g_assert_true (g_file_set_contents (bad, "{\"toolsets\":[", -1, NULL));
  file = gb_manifest_load_file (good, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (file->source, ==, "file");
  g_assert_nonnull (gb_manifest_find_tool (file, "t"));
  broken = gb_manifest_load_file (bad, &error);
  g_assert_null (broken);
  g_assert_error (error, GB_ERROR, GB_ERROR_USAGE);
  g_assert_true (g_str_has_prefix (error->message, "BridgeUsageError: The manifest"));
  g_clear_error (&error);
  g_assert_null (gb_manifest_load_file (missing, &error));
  g_assert_error (error, GB_ERROR, GB_ERROR_USAGE);
  g_unlink (good);
  g_unlink (bad);
  g_rmdir (dir);
}

static void
test_command_query (void)
{
  g_autoptr(JsonNode) args = gg_json_parse ("{\"type\":\"cherry\",\"x\":-1.5,\"n\":3,\"on\":true,\"skip\":null,"
                                            "\"crate\":{\"kind\":\"ice\"},\"odd\":\"a&b=c d\"}", -1, 8, NULL);
  g_autoptr(JsonNode) bad = gg_json_parse ("{\"cmd\":\"x\"}", -1, 8, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *q = gb_command_query ("spawn", json_node_get_object (args), &error);
  g_autofree char *none = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (q, ==, "/command?cmd=spawn&type=cherry&x=-1.5&n=3&on=true"
                   "&crate=%7B%22kind%22%3A%22ice%22%7D&odd=a%26b%3Dc%20d");
  none = gb_command_query ("x", json_node_get_object (bad), &error);
  g_assert_null (none);
  g_assert_error (error, GB_ERROR, GB_ERROR_USAGE);
  g_clear_error (&error);
  g_assert_null (gb_command_query ("", NULL, &error));
  g_assert_error (error, GB_ERROR, GB_ERROR_USAGE);
}

static void
test_error_messages (void)
{
  g_autoptr(GError) offline = NULL;
  g_autoptr(GError) offline_hint = NULL;
  g_autoptr(GError) not_game = NULL;
  g_autoptr(GError) timeout = NULL;
  g_autoptr(GError) status = NULL;
  g_autofree char *body = g_strnfill (500, 'b');

  gb_error_game_offline (&offline_hint, 7809, "./gradlew lwjgl3:run -PdebugPort={port}");
  g_assert_cmpstr (offline_hint->message, ==, "GameOffline: No game is answering on http://127.0.0.1:7809.\n"
                   "Start one with:\n  ./gradlew lwjgl3:run -PdebugPort=7809");
  gb_error_not_a_game (&not_game, 7802, "GET /health returned HTTP 404");
  g_assert_cmpstr (not_game->message, ==,
                   "NotAGameSurface: Something is listening on http://127.0.0.1:7802, but it is not a\n"
                   "debuggable game: GET /health returned HTTP 404.\n"
                   "A drivable game must answer GET /health with {\"ok\":true,\"frame\":N}. Check whether\n"
                   "another process has taken this port.");
  gb_error_command_timeout (&timeout, "restart", 7801, 5000);
  g_assert_cmpstr (timeout->message, ==,
                   "CommandTimeout: Command 'restart' was queued on port 7801 but was not applied\n"
                   "within 5000ms. The game accepted it, so it is probably blocked, frozen, or on a\n"
                   "screen that ignores this command.");
  gb_error_http_status (&status, 7801, "/state", 500, body, strlen (body));
  g_assert_true (g_str_has_prefix (status->message, "HttpStatusError: GET /state on http://127.0.0.1:7801 returned HTTP 500: bbb"));
  g_assert_cmpuint (strlen (status->message), <, 300);
  /* Invalid UTF-8 in a body is replaced, never copied into our answers. */
  g_clear_error (&status);
  gb_error_http_status (&status, 1, "/x", 502, "\xff\xfe ok", 5);
  g_assert_true (g_utf8_validate (status->message, -1, NULL));
  gb_error_game_offline (&offline, 1, NULL);
  g_assert_true (g_str_has_prefix (offline->message, "GameOffline: No game is answering on http://127.0.0.1:1.\n"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gamebridge/manifest/spec-example", test_spec_example);
  g_test_add_func ("/gamebridge/manifest/tolerant-forms", test_tolerant_forms);
  g_test_add_func ("/gamebridge/manifest/malformed-dropped", test_malformed_dropped);
  g_test_add_func ("/gamebridge/manifest/hostile", test_hostile);
  g_test_add_func ("/gamebridge/manifest/fallback-and-file", test_fallback_and_file);
  g_test_add_func ("/gamebridge/manifest/command-query", test_command_query);
  g_test_add_func ("/gamebridge/errors/messages", test_error_messages);
  return g_test_run ();
}

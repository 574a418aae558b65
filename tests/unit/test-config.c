/* test-config.c: GgConfig parsing, typed getters, overrides and unread keys.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "gg-test-util.h"

typedef struct {
  const char *data;
  const char *message;
} SyntaxCase;

static const SyntaxCase syntax_cases[] = {
  { "key=1\n", "t.conf:1: key “key” is outside of any group" },
  { "# c\n\nkey = 1\n", "t.conf:3: key “key” is outside of any group" },
  { "[a]\nk=1\n[b]\n[a]\n", "t.conf:4: duplicate group [a] (first at line 1)" },
  { "[a]\nk=1\nk=2\n", "t.conf:3: duplicate key “k” in [a] (first at line 2)" },
  { "[a]\nk = 1\n  k=2\n", "t.conf:3: duplicate key “k” in [a] (first at line 2)" },
  { "[a]\nk=\xff\xfe\n", "t.conf:2: invalid UTF-8" },
  { "[a]\n\xc3\n", "t.conf:2: invalid UTF-8" },
  { "[a\xe2\x82]\n", "t.conf:1: invalid UTF-8" },
  { "[a]\nnonsense\n", "t.conf:2: expected “key=value”, “[group]” or a comment, got “nonsense”" },
  { "[a]\n  ; ini comment\n", "t.conf:2: expected “key=value”, “[group]” or a comment, got “; ini comment”" },
  { "[a\n", "t.conf:1: group header without a closing “]”" },
  { "[gro", "t.conf:1: group header without a closing “]”" },
  { "[a] x\n", "t.conf:1: unexpected “ x” after the group header" },
  { "[a]]\n", "t.conf:1: unexpected “]” after the group header" },
  { "[]\n", "t.conf:1: invalid group name “”" },
  { "[a[b]\n", "t.conf:1: invalid group name “a[b”" },
  { "[a]\nk y=1\n", "t.conf:2: invalid key name “k y” (use letters, digits, “-”, “_” and “.”)" },
  { "[a]\n=1\n", "t.conf:2: invalid key name “” (use letters, digits, “-”, “_” and “.”)" },
  { "[a]\nName[ru]=x\n", "t.conf:2: invalid key name “Name[ru]” (use letters, digits, “-”, “_” and “.”)" },
  { "[a]\nk=a\\x\n", "t.conf:2: invalid escape sequence “\\x”" },
  { "[a]\nk=a\\\n", "t.conf:2: backslash at the end of the line" },
  { "[a]\nk=a\\\xc3\xa9\n", "t.conf:2: invalid escape sequence “\\é”" },
  { "[a]\nk=\x01\n", "t.conf:2: control character 0x01 in the line" },
  { "[a]\r\nk=1\rx\r\n", "t.conf:2: control character 0x0d in the line" },
  { "[a]\nk=\x7f\n", "t.conf:2: control character 0x7f in the line" },
  { "[a]\n"
    "k=1\n"
    "0123456789012345678901234567890123456789012345678901234567890123456789\n",
    "t.conf:3: expected “key=value”, “[group]” or a comment, got “012345678901234567890123456789012345678901234567…”" },
};

static void
test_syntax_errors (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (syntax_cases); i++)
    {
      g_autoptr(GgConfig) config = gg_config_new ();
      g_autoptr(GError) error = NULL;
      g_auto(GStrv) groups = NULL;

      g_test_message ("case %u: %s", i, syntax_cases[i].message);
      g_assert_false (gg_config_load_data (config, syntax_cases[i].data, "t.conf", &error));
      g_assert_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE);
      g_assert_cmpstr (error->message, ==, syntax_cases[i].message);

      /* Nothing of a bad file is kept. */
      groups = gg_config_list_groups (config);
      g_assert_cmpuint (g_strv_length (groups), ==, 0);
      g_assert_null (gg_config_get_origin (config));
    }
}

static void
test_valid_syntax (void)
{
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *c = NULL;
  g_autofree char *d = NULL;
  g_auto(GStrv) groups = NULL;
  g_auto(GStrv) unread = NULL;

  /* Comments, blank lines, CRLF, spaces around "=", no final newline. */
  g_assert_true (gg_config_load_data (config,
                                      "# leading comment\r\n"
                                      "\r\n"
                                      "  [first]  \r\n"
                                      "   # indented comment\n"
                                      "a-key =   spaced value \t\n"
                                      "b_key=tab\\there\\nline\\s\\\\\\;\n"
                                      "[second.group]\n"
                                      "c=\n"
                                      "d=ünïcødé",
                                      "ok.conf", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (gg_config_get_origin (config), ==, "ok.conf");

  a = gg_config_get_string (config, "first", "a-key", NULL);
  b = gg_config_get_string (config, "first", "b_key", NULL);
  c = gg_config_get_string (config, "second.group", "c", "default");
  d = gg_config_get_string (config, "second.group", "d", NULL);
  g_assert_cmpstr (a, ==, "spaced value");
  g_assert_cmpstr (b, ==, "tab\there\nline \\;");
  g_assert_cmpstr (c, ==, "");
  g_assert_cmpstr (d, ==, "ünïcødé");

  groups = gg_config_list_groups (config);
  g_assert_cmpuint (g_strv_length (groups), ==, 2);
  g_assert_cmpstr (groups[0], ==, "first");
  g_assert_cmpstr (groups[1], ==, "second.group");
  {
    g_auto(GStrv) keys = gg_config_list_keys (config, "first");
    g_auto(GStrv) none = gg_config_list_keys (config, "nope");

    g_assert_cmpuint (g_strv_length (keys), ==, 2);
    g_assert_cmpstr (keys[0], ==, "a-key");
    g_assert_cmpstr (keys[1], ==, "b_key");
    g_assert_cmpuint (g_strv_length (none), ==, 0);
  }

  unread = gg_config_list_unread (config);
  g_assert_cmpuint (g_strv_length (unread), ==, 0);
}

static void
test_bom (void)
{
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;

  g_assert_true (gg_config_load_data (config, "\xef\xbb\xbf[g]\nk=v\n", "bom.conf", &error));
  g_assert_no_error (error);
  value = gg_config_get_string (config, "g", "k", NULL);
  g_assert_cmpstr (value, ==, "v");

  /* Only at the very start. */
  g_assert_false (gg_config_load_data (config, "[g]\n\xef\xbb\xbfk=v\n", "bom.conf", &error));
  g_assert_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE);
  g_assert_cmpstr (error->message, ==,
                   "bom.conf:2: invalid key name “\xef\xbb\xbfk” (use letters, digits, “-”, “_” and “.”)");
}

static void
test_empty (void)
{
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *s = NULL;
  gint64 n = 0;

  g_assert_true (gg_config_load_data (config, "", "empty.conf", &error));
  g_assert_no_error (error);
  s = gg_config_get_string (config, "g", "k", "dflt");
  g_assert_cmpstr (s, ==, "dflt");
  g_assert_true (gg_config_get_int (config, "g", "k", 1, 10, 7, &n, &error));
  g_assert_cmpint (n, ==, 7);
  g_assert_null (gg_config_get_string_list (config, "g", "k"));
  g_assert_false (gg_config_has_key (config, "g", "k"));
}

static void
test_oversized (void)
{
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GError) error = NULL;
  gsize size = 1024 * 1024 + 1;
  g_autofree char *data = g_malloc (size + 1);

  memset (data, '#', size);
  data[size] = '\0';
  g_assert_false (gg_config_load_data (config, data, "big.conf", &error));
  g_assert_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE);
  g_assert_cmpstr (error->message, ==, "big.conf: the file is larger than 1048576 bytes");
}

static void
test_long_lines (void)
{
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) data = g_string_new ("[g]\nlong=");
  g_autofree char *value = NULL;
  gint64 n = 0;

  /* A 100 000-character value is fine as a string, and an error about it
   * quotes only its start. */
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (data, 'x');
  g_string_append_c (data, '\n');
  g_assert_true (gg_config_load_data (config, data->str, "long.conf", &error));
  value = gg_config_get_string (config, "g", "long", NULL);
  g_assert_cmpuint (strlen (value), ==, 100000);
  g_assert_false (gg_config_get_int (config, "g", "long", 0, 10, 0, &n, &error));
  g_assert_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_INVALID_VALUE);
  g_assert_cmpstr (error->message, ==,
                   "long.conf:2: [g] long: expected an integer between 0 and 10, got "
                   "“xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…”");
}

static void
test_file (void)
{
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("gg-config-XXXXXX", &error);
  g_autofree char *good = g_build_filename (dir, "good.conf", NULL);
  g_autofree char *nul = g_build_filename (dir, "nul.conf", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.conf", NULL);
  g_autofree char *expected = NULL;
  g_autofree char *value = NULL;
  g_autofree char *location = NULL;

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (good, "[g]\nk=from-file\n", -1, &error));
  g_assert_true (g_file_set_contents (nul, "[g]\nk=a\0b\n", 10, &error));

  g_assert_false (gg_config_load_file (config, missing, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);

  g_assert_false (gg_config_load_file (config, nul, &error));
  g_assert_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE);
  expected = g_strdup_printf ("%s:2: NUL byte in the line", nul);
  g_assert_cmpstr (error->message, ==, expected);
  g_clear_error (&error);

  /* Endless or huge input is refused after reading just past the limit. */
  g_assert_false (gg_config_load_file (config, "/dev/zero", &error));
  g_assert_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE);
  g_assert_cmpstr (error->message, ==, "/dev/zero: the file is larger than 1048576 bytes");
  g_clear_error (&error);

  g_assert_false (gg_config_load_file (config, dir, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR);
  g_clear_error (&error);

  g_assert_true (gg_config_load_file (config, good, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (gg_config_get_origin (config), ==, good);
  value = gg_config_get_string (config, "g", "k", NULL);
  g_assert_cmpstr (value, ==, "from-file");
  location = gg_config_get_location (config, "g", "k");
  g_clear_pointer (&expected, g_free);
  expected = g_strdup_printf ("%s:2", good);
  g_assert_cmpstr (location, ==, expected);

  g_unlink (good);
  g_unlink (nul);
  g_rmdir (dir);
}

static void
test_layers (void)
{
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *c = NULL;
  g_autofree char *loc_a = NULL;
  g_autofree char *loc_b = NULL;
  g_autofree char *loc_g = NULL;

  g_assert_true (gg_config_load_data (config, "[g]\na=1\nb=1\n", "one.conf", &error));
  g_assert_true (gg_config_load_data (config, "\n[g]\nb=2\n", "two.conf", &error));
  /* A bad third file changes nothing. */
  g_assert_false (gg_config_load_data (config, "[g]\na=3\nbroken\n", "three.conf", &error));
  g_clear_error (&error);

  a = gg_config_get_string (config, "g", "a", NULL);
  b = gg_config_get_string (config, "g", "b", NULL);
  g_assert_cmpstr (a, ==, "1");
  g_assert_cmpstr (b, ==, "2");
  g_assert_cmpstr (gg_config_get_origin (config), ==, "two.conf");

  loc_a = gg_config_get_location (config, "g", "a");
  loc_b = gg_config_get_location (config, "g", "b");
  loc_g = gg_config_get_location (config, "g", NULL);
  g_assert_cmpstr (loc_a, ==, "one.conf:2");
  g_assert_cmpstr (loc_b, ==, "two.conf:3");
  g_assert_cmpstr (loc_g, ==, "two.conf:2");
  g_assert_null (gg_config_get_location (config, "g", "nope"));
  g_assert_null (gg_config_get_location (config, "nope", NULL));

  /* Command-line overrides win and are reported as such. */
  gg_config_set_value (config, "g", "a", "cli");
  gg_config_set_value (config, "new", "x", "99999");
  c = gg_config_get_string (config, "g", "a", NULL);
  g_assert_cmpstr (c, ==, "cli");
  g_clear_pointer (&loc_a, g_free);
  loc_a = gg_config_get_location (config, "g", "a");
  g_assert_cmpstr (loc_a, ==, "command line");
}

/* A refused value is quoted in the error, never a secret: a key naming
 * one shows its value masked, a URL its password masked. */
static void
test_invalid_secret_masked (void)
{
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GError) error = NULL;
  gint64 n = 0;

  g_assert_true (gg_config_load_data (config,
                                      "[g]\n"
                                      "server-token=tok-never-shown\n"
                                      "store=tcp://:pw-never-shown@127.0.0.1:x\n",
                                      "t.conf", &error));
  g_assert_false (gg_config_get_int (config, "g", "server-token", 1, 9, 1, &n, &error));
  g_assert_cmpstr (error->message, ==, "t.conf:2: [g] server-token: expected an integer between 1 and 9, got “********”");
  g_clear_error (&error);
  g_free (gg_config_get_string (config, "g", "store", NULL));
  gg_config_set_invalid (config, "g", "store", &error, "%s", "no port");
  g_assert_cmpstr (error->message, ==, "t.conf:3: [g] store: no port, got “tcp://:********@127.0.0.1:x”");
}

static void
test_int (void)
{
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GError) error = NULL;
  gint64 n = 0;
  static const struct { const char *key; const char *message; } bad[] = {
    { "word", "t.conf:3: [g] word: expected an integer between 1 and 4096, got “abc”" },
    { "zero", "t.conf:4: [g] zero: expected an integer between 1 and 4096, got “0”" },
    { "big", "t.conf:5: [g] big: expected an integer between 1 and 4096, got “4097”" },
    { "huge", "t.conf:6: [g] huge: expected an integer between 1 and 4096, got “99999999999999999999999”" },
    { "float", "t.conf:7: [g] float: expected an integer between 1 and 4096, got “1.5”" },
    { "empty", "t.conf:8: [g] empty: expected an integer between 1 and 4096, got “”" },
    { "hex", "t.conf:9: [g] hex: expected an integer between 1 and 4096, got “0x10”" },
    { "trail", "t.conf:10: [g] trail: expected an integer between 1 and 4096, got “12abc”" },
  };

  g_assert_true (gg_config_load_data (config,
                                      "[g]\n"
                                      "ok = 4096\n"
                                      "word=abc\n"
                                      "zero=0\n"
                                      "big=4097\n"
                                      "huge=99999999999999999999999\n"
                                      "float=1.5\n"
                                      "empty=\n"
                                      "hex=0x10\n"
                                      "trail=12abc\n"
                                      "neg=-5\n",
                                      "t.conf", &error));
  g_assert_true (gg_config_get_int (config, "g", "ok", 1, 4096, 1, &n, &error));
  g_assert_no_error (error);
  g_assert_cmpint (n, ==, 4096);
  g_assert_true (gg_config_get_int (config, "g", "neg", G_MININT64, G_MAXINT64, 0, &n, &error));
  g_assert_cmpint (n, ==, -5);
  g_assert_true (gg_config_get_int (config, "g", "absent", 1, 4096, 33, &n, &error));
  g_assert_cmpint (n, ==, 33);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      n = 42;
      g_assert_false (gg_config_get_int (config, "g", bad[i].key, 1, 4096, 1, &n, &error));
      g_assert_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_INVALID_VALUE);
      g_assert_cmpstr (error->message, ==, bad[i].message);
      g_assert_cmpint (n, ==, 42);
      g_clear_error (&error);
    }

  /* Overrides: the origin is the command line. */
  gg_config_set_value (config, "g", "ok", "nine");
  g_assert_false (gg_config_get_int (config, "g", "ok", 1, 4096, 1, &n, &error));
  g_assert_cmpstr (error->message, ==,
                   "command line: [g] ok: expected an integer between 1 and 4096, got “nine”");
}

static void
test_double (void)
{
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GError) error = NULL;
  double d = 0;
  const char *bad[] = { "nan", "inf", "big", "word", "empty", "space" };

  g_assert_true (gg_config_load_data (config,
                                      "[g]\nok=0.25\nexp=1e-1\nnan=nan\ninf=inf\nbig=2.5\n"
                                      "word=x\nempty=\nspace=\\s1\n",
                                      "t.conf", &error));
  g_assert_true (gg_config_get_double (config, "g", "ok", 0, 2, 1, &d, &error));
  g_assert_cmpfloat (d, ==, 0.25);
  g_assert_true (gg_config_get_double (config, "g", "exp", 0, 2, 1, &d, &error));
  g_assert_cmpfloat_with_epsilon (d, 0.1, 1e-12);
  g_assert_true (gg_config_get_double (config, "g", "none", 0, 2, 1.5, &d, &error));
  g_assert_cmpfloat (d, ==, 1.5);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_false (gg_config_get_double (config, "g", bad[i], 0, 2, 1, &d, &error));
      g_assert_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_INVALID_VALUE);
      g_clear_error (&error);
    }
  g_assert_false (gg_config_get_double (config, "g", "big", 0, 2, 1, &d, &error));
  g_assert_cmpstr (error->message, ==, "t.conf:6: [g] big: expected a number between 0 and 2, got “2.5”");
}

static void
test_boolean (void)
{
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GError) error = NULL;
  gboolean b = FALSE;

  g_assert_true (gg_config_load_data (config, "[g]\nt=true\nf=false\none=1\nzero=0\nyes=yes\n",
                                      "t.conf", &error));
  g_assert_true (gg_config_get_boolean (config, "g", "t", FALSE, &b, &error));
  g_assert_true (b);
  g_assert_true (gg_config_get_boolean (config, "g", "f", TRUE, &b, &error));
  g_assert_false (b);
  g_assert_true (gg_config_get_boolean (config, "g", "one", FALSE, &b, &error));
  g_assert_true (b);
  g_assert_true (gg_config_get_boolean (config, "g", "zero", TRUE, &b, &error));
  g_assert_false (b);
  g_assert_true (gg_config_get_boolean (config, "g", "missing", TRUE, &b, &error));
  g_assert_true (b);
  g_assert_false (gg_config_get_boolean (config, "g", "yes", FALSE, &b, &error));
  g_assert_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_INVALID_VALUE);
  g_assert_cmpstr (error->message, ==, "t.conf:6: [g] yes: expected “true” or “false”, got “yes”");
}

static void
test_string_list (void)
{
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) list = NULL;
  g_auto(GStrv) empty = NULL;
  g_auto(GStrv) one = NULL;

  g_assert_true (gg_config_load_data (config, "[g]\nl=a;b\\;c; d ;\nempty=\none=x\n",
                                      "t.conf", &error));
  list = gg_config_get_string_list (config, "g", "l");
  g_assert_cmpuint (g_strv_length (list), ==, 3);
  g_assert_cmpstr (list[0], ==, "a");
  g_assert_cmpstr (list[1], ==, "b;c");
  g_assert_cmpstr (list[2], ==, " d ");
  empty = gg_config_get_string_list (config, "g", "empty");
  g_assert_nonnull (empty);
  g_assert_cmpuint (g_strv_length (empty), ==, 0);
  one = gg_config_get_string_list (config, "g", "one");
  g_assert_cmpuint (g_strv_length (one), ==, 1);
  g_assert_null (gg_config_get_string_list (config, "g", "missing"));
}

static void
test_unread (void)
{
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) unread = NULL;
  g_auto(GStrv) none = NULL;
  g_autofree char *s = NULL;
  gint64 n;

  g_assert_true (gg_config_load_data (config,
                                      "[a]\nused=1\ntypo=2\n[b]\nchecked=x\n[c]\nlost=1\n",
                                      "t.conf", &error));
  gg_config_set_value (config, "a", "override", "1");
  g_assert_true (gg_config_get_int (config, "a", "used", 0, 9, 0, &n, &error));
  g_assert_true (gg_config_has_key (config, "b", "checked"));
  s = gg_config_get_string (config, "c", "absent", NULL);

  unread = gg_config_list_unread (config);
  g_assert_cmpuint (g_strv_length (unread), ==, 3);
  g_assert_cmpstr (unread[0], ==, "t.conf:3: unknown key 'typo' in [a]");
  g_assert_cmpstr (unread[1], ==, "t.conf:7: unknown key 'lost' in [c]");
  g_assert_cmpstr (unread[2], ==, "command line: unknown key 'override' in [a]");

  /* gg_config_get_location() is not a read; set_invalid() is. */
  g_free (gg_config_get_location (config, "a", "typo"));
  gg_config_set_invalid (config, "a", "typo", NULL, "unused");
  g_free (gg_config_get_string (config, "c", "lost", NULL));
  g_assert_true (gg_config_has_key (config, "a", "override"));
  none = gg_config_list_unread (config);
  g_assert_cmpuint (g_strv_length (none), ==, 0);
}

static void
test_set_invalid (void)
{
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GError) error = NULL;

  gg_config_set_invalid (config, "g", "k", &error, "expected %s", "a path");
  g_assert_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_INVALID_VALUE);
  g_assert_cmpstr (error->message, ==, "[g] k: expected a path");
  g_clear_error (&error);

  g_assert_true (gg_config_load_data (config, "[g]\n\nk=relative/path\n", "t.conf", &error));
  gg_config_set_invalid (config, "g", "k", &error, "expected an absolute path");
  g_assert_cmpstr (error->message, ==,
                   "t.conf:3: [g] k: expected an absolute path, got “relative/path”");
  g_clear_error (&error);

  gg_config_set_invalid (config, "g", "other", &error, "is required");
  g_assert_cmpstr (error->message, ==, "t.conf: [g] other: is required");
}

static void
test_hostile (void)
{
  /* Random bytes and mutations of a valid file never crash and either load
   * or give an error with a line number. */
  static const char base[] = "[gateway]\ndefault-model = scripted\n[x]\nk=\\s1;2\n";
  GRand *rand = g_rand_new_with_seed (1234);

  for (guint round = 0; round < 2000; round++)
    {
      g_autoptr(GgConfig) config = gg_config_new ();
      g_autoptr(GError) error = NULL;
      char data[sizeof base];

      memcpy (data, base, sizeof base);
      for (guint j = 0; j < 3; j++)
        data[g_rand_int_range (rand, 0, sizeof base - 1)] = (char) g_rand_int_range (rand, 1, 256);
      /* Truncate sometimes. */
      if (round % 5 == 0)
        data[g_rand_int_range (rand, 0, sizeof base - 1)] = '\0';
      if (!gg_config_load_data (config, data, "fuzz.conf", &error))
        {
          g_assert_error (error, GG_CONFIG_ERROR, GG_CONFIG_ERROR_PARSE);
          g_assert_true (g_str_has_prefix (error->message, "fuzz.conf:"));
          g_assert_true (g_utf8_validate (error->message, -1, NULL));
        }
      else
        {
          g_auto(GStrv) groups = gg_config_list_groups (config);

          for (guint g = 0; groups[g] != NULL; g++)
            {
              g_autofree char *v = gg_config_get_string (config, groups[g], "k", NULL);
              g_auto(GStrv) l = gg_config_get_string_list (config, groups[g], "k");
            }
        }
    }
  g_rand_free (rand);
}

/* gg_config_set_value() is API: a value that is not UTF-8 must not break the
 * error message quoting it, and invalid names are refused before anything
 * is recorded (GKeyFile would refuse them after). */
static void
test_set_value_checks (void)
{
  g_autoptr(GgConfig) config = gg_config_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) unread = NULL;
  gint64 n = 0;

  gg_config_set_value (config, "g", "n", "\xf0");
  g_assert_false (gg_config_get_int (config, "g", "n", 1, 9, 1, &n, &error));
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  g_assert_cmpstr (error->message, ==,
                   "command line: [g] n: expected an integer between 1 and 9, got “\xef\xbf\xbd”");

  g_test_expect_message ("gamegate", G_LOG_LEVEL_CRITICAL, "*gg_config_set_value*");
  gg_config_set_value (config, "g", "bad key", "1");
  g_test_assert_expected_messages ();
  g_test_expect_message ("gamegate", G_LOG_LEVEL_CRITICAL, "*gg_config_set_value*");
  gg_config_set_value (config, "a]b", "key", "1");
  g_test_assert_expected_messages ();
  g_assert_false (gg_config_has_key (config, "g", "bad key"));
  g_assert_false (gg_config_has_key (config, "a]b", "key"));
  unread = gg_config_list_unread (config);
  g_assert_cmpuint (g_strv_length (unread), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/config/syntax-errors", test_syntax_errors);
  g_test_add_func ("/config/valid-syntax", test_valid_syntax);
  g_test_add_func ("/config/empty", test_empty);
  g_test_add_func ("/config/bom", test_bom);
  g_test_add_func ("/config/oversized", test_oversized);
  g_test_add_func ("/config/long-lines", test_long_lines);
  g_test_add_func ("/config/file", test_file);
  g_test_add_func ("/config/layers", test_layers);
  g_test_add_func ("/config/int", test_int);
  g_test_add_func ("/config/double", test_double);
  g_test_add_func ("/config/boolean", test_boolean);
  g_test_add_func ("/config/string-list", test_string_list);
  g_test_add_func ("/config/unread", test_unread);
  g_test_add_func ("/config/set-invalid", test_set_invalid);
  g_test_add_func ("/config/invalid-secret-masked", test_invalid_secret_masked);
  g_test_add_func ("/config/hostile", test_hostile);
  g_test_add_func ("/config/set-value-checks", test_set_value_checks);

  return g_test_run ();
}

/* gg-test-exchange.c: reading exchange files, playing them, and the line
 * diff their failures print (see gg-test-exchange.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-test-exchange.h"

typedef struct {
  gboolean send;        /* `> ` rather than `< ` */
  char *text;
  guint file_line;      /* 1-based, for messages */
} ExchangeLine;

struct _GgTestExchange {
  char *path;
  GArray *lines;        /* ExchangeLine */
};

static void
exchange_line_clear (gpointer data)
{
  g_free (((ExchangeLine *) data)->text);
}

GgTestExchange *
gg_test_exchange_load (const char *dir,
                       const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *file_name = g_strconcat (name, ".txt", NULL);
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  GgTestExchange *exchange = g_new0 (GgTestExchange, 1);

  exchange->path = g_build_filename (GG_TEST_SRCDIR, dir, "exchanges", file_name, NULL);
  exchange->lines = g_array_new (FALSE, FALSE, sizeof (ExchangeLine));
  g_array_set_clear_func (exchange->lines, exchange_line_clear);
  g_file_get_contents (exchange->path, &contents, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      ExchangeLine line = { FALSE, NULL, i + 1 };

      if (lines[i][0] == '\0' || lines[i][0] == '#')
        continue;
      if (g_str_has_prefix (lines[i], "> "))
        line.send = TRUE;
      else if (!g_str_has_prefix (lines[i], "< "))
        g_error ("%s:%u: a line starts with \"> \", \"< \" or \"#\"", exchange->path, i + 1);
      line.text = g_strdup (lines[i] + 2);
      g_array_append_val (exchange->lines, line);
    }
  return exchange;
}

void
gg_test_exchange_free (GgTestExchange *exchange)
{
  g_array_unref (exchange->lines);
  g_free (exchange->path);
  g_free (exchange);
}

const char *
gg_test_exchange_get_path (GgTestExchange *exchange)
{
  return exchange->path;
}

static char *
dup_side (GgTestExchange *exchange,
          gboolean        send)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < exchange->lines->len; i++)
    {
      ExchangeLine *line = &g_array_index (exchange->lines, ExchangeLine, i);

      if (line->send == send)
        g_string_append_printf (text, "%s\n", line->text);
    }
  return g_string_free (text, FALSE);
}

char *
gg_test_exchange_dup_input (GgTestExchange *exchange)
{
  return dup_side (exchange, TRUE);
}

char *
gg_test_exchange_dup_expected (GgTestExchange *exchange)
{
  return dup_side (exchange, FALSE);
}

void
gg_test_exchange_play (GgTestExchange        *exchange,
                       GgTestExchangeSendFunc send,
                       GgTestExchangeRecvFunc recv,
                       gpointer               data)
{
  for (guint i = 0; i < exchange->lines->len; i++)
    {
      ExchangeLine *line = &g_array_index (exchange->lines, ExchangeLine, i);
      g_autofree char *got = NULL;
      g_autofree char *message = NULL;

      if (line->send)
        {
          send (line->text, data);
          continue;
        }
      got = recv (data);
      if (g_strcmp0 (got, line->text) == 0)
        continue;
      message = g_strdup_printf ("%s:%u: the reply differs\n- %s\n+ %s",
                                 exchange->path, line->file_line, line->text, got);
      g_assertion_message (G_LOG_DOMAIN, __FILE__, __LINE__, G_STRFUNC, message);
    }
}

/* A line diff through the longest common subsequence: small inputs only,
 * which exchanges are. */
static void
append_diff (GString     *out,
             char *const *a,
             guint        n,
             char *const *b,
             guint        m)
{
  g_autofree guint *lcs = g_new0 (guint, (gsize) (n + 1) * (m + 1));
  guint i = 0, j = 0;

#define LCS(x, y) lcs[(gsize) (x) * (m + 1) + (y)]
  for (guint x = n; x-- > 0;)
    for (guint y = m; y-- > 0;)
      LCS (x, y) = g_str_equal (a[x], b[y]) ? LCS (x + 1, y + 1) + 1
                                             : MAX (LCS (x + 1, y), LCS (x, y + 1));
  while (i < n || j < m)
    {
      if (i < n && j < m && g_str_equal (a[i], b[j]))
        {
          i++, j++;
          continue;
        }
      if (i < n && (j == m || LCS (i + 1, j) >= LCS (i, j + 1)))
        {
          g_string_append_printf (out, "-%u %s\n", i + 1, a[i]);
          i++;
        }
      else
        {
          g_string_append_printf (out, "+%u %s\n", j + 1, b[j]);
          j++;
        }
    }
#undef LCS
}

void
gg_test_assert_lines (const char *what,
                      const char *expected,
                      const char *actual)
{
  g_auto(GStrv) a = NULL;
  g_auto(GStrv) b = NULL;
  g_autoptr(GString) message = NULL;

  if (g_strcmp0 (expected, actual) == 0)
    return;
  a = g_strsplit (expected != NULL ? expected : "", "\n", -1);
  b = g_strsplit (actual != NULL ? actual : "", "\n", -1);
  message = g_string_new (NULL);
  g_string_append_printf (message, "%s: the output differs (- expected line, + actual line):\n", what);
  append_diff (message, a, g_strv_length (a), b, g_strv_length (b));
  g_assertion_message (G_LOG_DOMAIN, __FILE__, __LINE__, G_STRFUNC, message->str);
}

/* test-secure.c: secure random tokens and constant-time comparison.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-test-util.h"

static void
test_random (void)
{
  g_autoptr(GError) error = NULL;
  guint8 a[64] = { 0, }, b[64] = { 0, };
  guint8 zero[64] = { 0, };
  g_autofree guint8 *big = g_malloc (1 << 20);

  g_assert_true (gg_secure_random (a, sizeof a, &error));
  g_assert_no_error (error);
  g_assert_true (gg_secure_random (b, sizeof b, &error));
  g_assert_cmpmem (a, sizeof a, a, sizeof a);
  g_assert_true (memcmp (a, b, sizeof a) != 0);
  g_assert_true (memcmp (a, zero, sizeof a) != 0);

  /* Large requests may be served in several short reads. */
  g_assert_true (gg_secure_random (big, 1 << 20, &error));
  g_assert_no_error (error);

  /* Zero bytes is a no-op. */
  g_assert_true (gg_secure_random (a, 0, &error));
}

static void
test_token_hex (void)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint counts[16] = { 0, };

  for (gsize n = 1; n <= 64; n++)
    {
      g_autoptr(GError) error = NULL;
      char *token = gg_secure_token_hex (n, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (strlen (token), ==, 2 * n);
      for (const char *p = token; *p; p++)
        {
          g_assert_true ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'));
          counts[g_ascii_xdigit_value (*p)]++;
        }
      if (n >= 8)
        g_assert_true (g_hash_table_add (seen, token));
      else
        g_free (token);
    }
  /* 4160 digits: every digit turns up. */
  for (guint i = 0; i < 16; i++)
    g_assert_cmpuint (counts[i], >, 0);
}

static void
test_equal (void)
{
  g_assert_true (gg_secure_equal ("secret", "secret"));
  g_assert_true (gg_secure_equal ("", ""));
  g_assert_false (gg_secure_equal ("secret", "secreT"));
  g_assert_false (gg_secure_equal ("secret", "secret2"));
  g_assert_false (gg_secure_equal ("secret2", "secret"));
  g_assert_false (gg_secure_equal ("", "x"));
  g_assert_false (gg_secure_equal ("x", ""));
  g_assert_false (gg_secure_equal ("abcabc", "abc"));
  g_assert_false (gg_secure_equal (NULL, "a"));
  g_assert_false (gg_secure_equal ("a", NULL));
  g_assert_false (gg_secure_equal (NULL, NULL));

  g_assert_true (gg_secure_equal_bytes ("a\0b", 3, "a\0b", 3));
  g_assert_false (gg_secure_equal_bytes ("a\0b", 3, "a\0c", 3));
  g_assert_false (gg_secure_equal_bytes ("ab", 2, "abab", 4));
  g_assert_true (gg_secure_equal_bytes (NULL, 0, NULL, 0));
  g_assert_true (gg_secure_equal_bytes ("x", 0, NULL, 0));
  g_assert_false (gg_secure_equal_bytes (NULL, 0, "x", 1));
}

/* Median time of many comparisons, in seconds. */
static guint rounds;

static double
time_compare (const char *a,
              gsize       a_len,
              const char *b,
              gsize       b_len)
{
  double samples[31];
  g_autoptr(GTimer) timer = g_timer_new ();
  volatile gboolean sink = FALSE;

  for (guint s = 0; s < G_N_ELEMENTS (samples); s++)
    {
      g_timer_start (timer);
      for (guint i = 0; i < rounds; i++)
        sink ^= gg_secure_equal_bytes (a, a_len, b, b_len);
      samples[s] = g_timer_elapsed (timer, NULL);
    }
  for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
    for (guint j = i + 1; j < G_N_ELEMENTS (samples); j++)
      if (samples[j] < samples[i])
        {
          double t = samples[i];
          samples[i] = samples[j];
          samples[j] = t;
        }
  (void) sink;
  return samples[G_N_ELEMENTS (samples) / 2];
}

static void
test_equal_timing (void)
{
  gboolean measure = g_test_slow () || g_getenv ("GG_TEST_TIMING") != NULL;
  gsize n = measure ? 1 << 16 : 1 << 12;
  g_autofree char *a = g_malloc (n);
  g_autofree char *b = g_malloc (n);
  double same, first, last, shorter;

  /* Quick runs (and valgrind) only exercise the code; -m slow or
   * GG_TEST_TIMING=1 measure and assert. */
  rounds = measure ? 200 : 4;

  memset (a, 'x', n);
  memset (b, 'x', n);
  same = time_compare (a, n, b, n);
  b[0] = 'y';
  first = time_compare (a, n, b, n);
  b[0] = 'x';
  b[n - 1] = 'y';
  last = time_compare (a, n, b, n);
  shorter = time_compare (a, n, b, 1);

  g_test_message ("equal %.3g s, differ first %.3g s, differ last %.3g s, length 1 vs %zu: %.3g s",
                  same, first, last, n, shorter);
  if (measure)
    {
      /* An early exit would make "differ first" orders of magnitude
       * faster; allow generous noise. */
      g_assert_cmpfloat (first, >, same / 3);
      g_assert_cmpfloat (shorter, >, same / 3);
      g_assert_cmpfloat (last, >, same / 3);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/token/random", test_random);
  g_test_add_func ("/token/hex", test_token_hex);
  g_test_add_func ("/token/equal", test_equal);
  g_test_add_func ("/token/equal-timing", test_equal_timing);

  return g_test_run ();
}

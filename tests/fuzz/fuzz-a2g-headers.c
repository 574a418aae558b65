/* fuzz-a2g-headers.c: the credential and origin checks of the a2g
 * service outside the local profile (gg-a2g-access.c) on any header
 * text: the input's lines are the Authorization, Origin and Host values.
 *
 * Checked: a credential is never empty, never carries a NUL, never has
 * the spaces around it, is the one of a Bearer header only when the
 * header says Bearer, is the same whether Basic is taken or not for a
 * Bearer header, and comes back unchanged when presented again as
 * `Bearer <it>` or `Basic base64(user:<it>)`. An origin matches only
 * with `https://`, matches its own host always, and `:443` on either
 * side, or the case of the letters, changes nothing.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "gg-a2g-access-private.h"

static void
check_credential (const char *header,
                  gsize       header_length)
{
  gboolean bearer = TRUE, bearer_plain = TRUE;
  g_autofree char *secret = _gg_a2g_credential_from_header (header, TRUE, &bearer);
  g_autofree char *plain = _gg_a2g_credential_from_header (header, FALSE, &bearer_plain);
  gboolean says_bearer = g_ascii_strncasecmp (header, "Bearer ", 7) == 0;
  gboolean says_basic = g_ascii_strncasecmp (header, "Basic ", 6) == 0;

  g_assert_true (bearer == says_bearer);
  g_assert_true (bearer_plain == says_bearer);
  /* Without Basic only a Bearer one counts, and it is the same one. */
  if (says_bearer)
    g_assert_cmpstr (plain, ==, secret);
  else
    g_assert_null (plain);
  if (!says_bearer && !says_basic)
    g_assert_null (secret);
  if (secret == NULL)
    return;

  {
    gsize length = strlen (secret);
    g_autofree char *again_bearer = g_strconcat ("Bearer ", secret, NULL);
    g_autofree char *user_secret = g_strconcat ("someone:", secret, NULL);
    g_autofree char *encoded = g_base64_encode ((const guchar *) user_secret, strlen (user_secret));
    g_autofree char *again_basic = g_strconcat ("Basic ", encoded, NULL);
    g_autofree char *round_bearer = NULL;
    g_autofree char *round_basic = NULL;
    gboolean is_bearer = FALSE;

    g_assert_cmpuint (length, >, 0);
    /* A Basic one is decoded: never longer than its base64. */
    g_assert_cmpuint (length, <=, header_length);
    g_assert_false (g_ascii_isspace (secret[0]) && says_bearer);
    g_assert_false (g_ascii_isspace (secret[length - 1]) && says_bearer);
    round_bearer = _gg_a2g_credential_from_header (again_bearer, TRUE, &is_bearer);
    g_assert_true (is_bearer);
    if (!g_ascii_isspace (secret[0]) && !g_ascii_isspace (secret[length - 1]))
      g_assert_cmpstr (round_bearer, ==, secret);
    round_basic = _gg_a2g_credential_from_header (again_basic, TRUE, &is_bearer);
    g_assert_false (is_bearer);
    g_assert_cmpstr (round_basic, ==, secret);
  }
}

static void
check_origin (const char *origin,
              const char *host)
{
  gboolean matches = _gg_a2g_origin_matches_host (origin, host);
  gsize host_length = strlen (host);
  gsize origin_length = strlen (origin);

  if (matches)
    g_assert_true (g_ascii_strncasecmp (origin, "https://", 8) == 0 && host[0] != '\0');
  g_assert_false (_gg_a2g_origin_matches_host (origin, NULL));
  g_assert_false (_gg_a2g_origin_matches_host (origin, ""));
  if (host[0] != '\0')
    {
      g_autofree char *own = g_strconcat ("https://", host, NULL);
      g_autofree char *upper_own = g_ascii_strup (own, -1);

      g_assert_true (_gg_a2g_origin_matches_host (own, host));
      g_assert_true (_gg_a2g_origin_matches_host (upper_own, host));
    }
  {
    g_autofree char *upper_origin = g_ascii_strup (origin, -1);
    g_autofree char *upper_host = g_ascii_strup (host, -1);

    g_assert_true (_gg_a2g_origin_matches_host (upper_origin, upper_host) == matches);
  }
  /* :443 is the default: added where there is none, nothing changes. */
  if (host[0] != '\0' && !(host_length > 4 && g_str_has_suffix (host, ":443")))
    {
      g_autofree char *host_443 = g_strconcat (host, ":443", NULL);

      g_assert_true (_gg_a2g_origin_matches_host (origin, host_443) == matches);
    }
  if (origin_length > 8 && !(origin_length > 12 && g_str_has_suffix (origin, ":443")))
    {
      g_autofree char *origin_443 = g_strconcat (origin, ":443", NULL);

      g_assert_true (_gg_a2g_origin_matches_host (origin_443, host) == matches);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  FuzzInput in = { data, size };
  g_autofree char *authorization = fuzz_input_piece (&in, '\n', NULL);
  g_autofree char *origin = fuzz_input_piece (&in, '\n', NULL);
  g_autofree char *host = fuzz_input_piece (&in, '\n', NULL);

  fuzz_init ();
  /* A header's text ends at a NUL (libsoup never hands one on). */
  check_credential (authorization, strlen (authorization));
  check_origin (origin, host);
  return 0;
}

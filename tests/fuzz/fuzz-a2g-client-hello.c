/* fuzz-a2g-client-hello.c: the ClientHello check of the a2g service's own
 * TLS (gg-a2g-client-hello.c) on any first bytes of a connection.
 *
 * Checked: a verdict that asks for more asks for more than there is and
 * never past GG_A2G_CLIENT_HELLO_MAX_SIZE; reading only up to what it asks
 * for, step by step, ends in the verdict on all the bytes; an acceptable
 * ClientHello offers TLS 1.2 or later and a too old one does not; every
 * refusal says why, with an alert exactly when the bytes were TLS, and
 * the alert record carries it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "fuzz-common.h"
#include "gg-a2g-client-hello.h"

static void
check_hello (const GgA2gClientHello  *hello,
             GgA2gClientHelloVerdict  verdict,
             gsize                    size)
{
  guint8 record[7];
  gsize alert_length = gg_a2g_client_hello_alert (hello, record);

  switch (verdict)
    {
    case GG_A2G_CLIENT_HELLO_INCOMPLETE:
      g_assert_cmpuint (hello->need, >, size);
      g_assert_cmpuint (hello->need, <=, GG_A2G_CLIENT_HELLO_MAX_SIZE);
      g_assert_null (hello->problem);
      g_assert_cmpuint (hello->alert, ==, 0);
      break;
    case GG_A2G_CLIENT_HELLO_ACCEPTABLE:
      g_assert_cmpuint (hello->highest_version, >=, GG_A2G_TLS_1_2);
      g_assert_null (hello->problem);
      g_assert_cmpuint (hello->alert, ==, 0);
      break;
    case GG_A2G_CLIENT_HELLO_TOO_OLD:
      g_assert_cmpuint (hello->highest_version, <, GG_A2G_TLS_1_2);
      g_assert_cmpuint (hello->alert, ==, GG_A2G_ALERT_PROTOCOL_VERSION);
      g_assert_nonnull (hello->problem);
      break;
    case GG_A2G_CLIENT_HELLO_REFUSED:
    default:
      g_assert_nonnull (hello->problem);
      g_assert_true ((hello->alert == 0) == (hello->record_version == 0));
      break;
    }
  if (hello->alert == 0)
    g_assert_cmpuint (alert_length, ==, 0);
  else
    {
      g_assert_cmpuint (alert_length, ==, 7);
      g_assert_cmpuint (record[0], ==, 21);
      g_assert_cmpuint (record[1], ==, 3);
      g_assert_cmpuint (record[6], ==, hello->alert);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  GgA2gClientHello all, step;
  GgA2gClientHelloVerdict verdict, stepped;
  gsize have = 0;

  fuzz_init ();
  verdict = gg_a2g_client_hello_check (data, size, &all);
  check_hello (&all, verdict, size);
  /* As the listener reads: no more than asked for each time. */
  for (;;)
    {
      stepped = gg_a2g_client_hello_check (data, have, &step);
      check_hello (&step, stepped, have);
      if (stepped != GG_A2G_CLIENT_HELLO_INCOMPLETE || step.need > size)
        break;
      have = step.need;
    }
  if (stepped != GG_A2G_CLIENT_HELLO_INCOMPLETE)
    {
      g_assert_cmpint (stepped, ==, verdict);
      g_assert_cmpuint (step.highest_version, ==, all.highest_version);
      g_assert_cmpuint (step.alert, ==, all.alert);
      g_assert_cmpstr (step.problem, ==, all.problem);
    }
  else
    g_assert_cmpint (verdict, ==, GG_A2G_CLIENT_HELLO_INCOMPLETE);
  return 0;
}

/* test-a2g-client-hello.c: the ClientHello check of the service's own TLS
 * (gg-a2g-client-hello.c) on real ClientHellos (openssl s_client for each
 * version, Python's ssl: the fuzz target's seeds) and on ones built here
 * field by field: the version from supported_versions or else
 * legacy_version, GREASE and other protocols' versions ignored; the
 * message in records of any size; every truncation asking for more, and
 * exactly up to where the verdict can be given; broken, oversized and
 * non-TLS input refused with the alert that answers it, and the alert
 * record's bytes.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-client-hello.h"

#define TLS_1_3 0x0304
#define GREASE 0x1a1a

/* ---- building ClientHellos ---------------------------------------------- */

static void
put_u16 (GByteArray *bytes,
         guint       value)
{
  guint8 b[2] = { value >> 8, value & 0xff };

  g_byte_array_append (bytes, b, 2);
}

static void
put_u24 (GByteArray *bytes,
         gsize       value)
{
  guint8 b[3] = { value >> 16, (value >> 8) & 0xff, value & 0xff };

  g_byte_array_append (bytes, b, 3);
}

static void
put_extension (GByteArray   *extensions,
               guint         type,
               const guint8 *data,
               gsize         length)
{
  put_u16 (extensions, type);
  put_u16 (extensions, (guint) length);
  g_byte_array_append (extensions, data, (guint) length);
}

/* supported_versions (43) with @versions, 0-terminated. */
static void
put_supported_versions (GByteArray    *extensions,
                        const guint16 *versions)
{
  g_autoptr(GByteArray) data = g_byte_array_new ();
  guint8 length = 0;

  g_byte_array_append (data, &length, 1);
  for (guint i = 0; versions[i] != 0; i++)
    put_u16 (data, versions[i]);
  data->data[0] = (guint8) (data->len - 1);
  put_extension (extensions, 43, data->data, data->len);
}

/* The handshake message: ClientHello of @legacy with @extensions (NULL:
 * no extensions block at all, as TLS 1.0 clients may send). */
static GByteArray *
client_hello (guint       legacy,
              GByteArray *extensions)
{
  GByteArray *message = g_byte_array_new ();
  g_autoptr(GByteArray) body = g_byte_array_new ();
  static const guint8 session_id[] = { 4, 1, 2, 3, 4 };
  static const guint8 ciphers[] = { 0, 4, 0x13, 0x01, 0xc0, 0x2b };
  static const guint8 compression[] = { 1, 0 };
  guint8 random[32];
  guint8 type = 1;

  memset (random, 0x5a, sizeof random);
  put_u16 (body, legacy);
  g_byte_array_append (body, random, sizeof random);
  g_byte_array_append (body, session_id, sizeof session_id);
  g_byte_array_append (body, ciphers, sizeof ciphers);
  g_byte_array_append (body, compression, sizeof compression);
  if (extensions != NULL)
    {
      put_u16 (body, extensions->len);
      g_byte_array_append (body, extensions->data, extensions->len);
    }
  g_byte_array_append (message, &type, 1);
  put_u24 (message, body->len);
  g_byte_array_append (message, body->data, body->len);
  return message;
}

/* @message in handshake records of at most @fragment bytes. */
static GByteArray *
in_records (GByteArray *message,
            gsize       fragment)
{
  GByteArray *records = g_byte_array_new ();

  for (gsize at = 0; at < message->len; at += fragment)
    {
      gsize n = MIN (fragment, message->len - at);
      guint8 header[3] = { 22, 3, 1 };

      g_byte_array_append (records, header, 3);
      put_u16 (records, (guint) n);
      g_byte_array_append (records, message->data + at, (guint) n);
    }
  return records;
}

/* The records of a ClientHello of @legacy and @versions (NULL: no
 * supported_versions), in one record. */
static GByteArray *
hello_records (guint          legacy,
               const guint16 *versions)
{
  g_autoptr(GByteArray) extensions = g_byte_array_new ();
  g_autoptr(GByteArray) message = NULL;
  static const guint8 server_name[] = { 0, 12, 0, 0, 9, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't' };

  put_extension (extensions, 0, server_name, sizeof server_name);
  if (versions != NULL)
    put_supported_versions (extensions, versions);
  message = client_hello (legacy, extensions);
  return in_records (message, 16384);
}

/* ---- checking ------------------------------------------------------------ */

static GgA2gClientHelloVerdict
check (GByteArray       *records,
       GgA2gClientHello *hello)
{
  return gg_a2g_client_hello_check (records->data, records->len, hello);
}

/* Every shorter prefix asks for more, never for more than there is, and
 * the full length gives @verdict. */
static void
assert_prefixes (const guint8            *data,
                 gsize                    length,
                 GgA2gClientHelloVerdict  verdict)
{
  GgA2gClientHello hello;
  gsize decided = length;

  /* The verdict may come before the end (bytes after the ClientHello). */
  for (gsize n = 0; n <= length; n++)
    if (gg_a2g_client_hello_check (data, n, &hello) != GG_A2G_CLIENT_HELLO_INCOMPLETE)
      {
        decided = n;
        break;
      }
  for (gsize n = 0; n < decided; n++)
    {
      g_assert_cmpint (gg_a2g_client_hello_check (data, n, &hello), ==, GG_A2G_CLIENT_HELLO_INCOMPLETE);
      g_assert_cmpuint (hello.need, >, n);
      g_assert_cmpuint (hello.need, <=, decided);
      g_assert_null (hello.problem);
    }
  g_assert_cmpint (gg_a2g_client_hello_check (data, length, &hello), ==, verdict);
}

static void
assert_refused (GByteArray *records,
                guint8      alert,
                const char *problem)
{
  GgA2gClientHello hello;

  g_assert_cmpint (check (records, &hello), ==, GG_A2G_CLIENT_HELLO_REFUSED);
  g_assert_cmpuint (hello.alert, ==, alert);
  g_assert_cmpstr (hello.problem, ==, problem);
}

static void
test_real (void)
{
  static const struct {
    const char *file;
    GgA2gClientHelloVerdict verdict;
    guint16 highest;
  } cases[] = {
    { "openssl-tls1", GG_A2G_CLIENT_HELLO_TOO_OLD, GG_A2G_TLS_1_0 },
    { "openssl-tls1_1", GG_A2G_CLIENT_HELLO_TOO_OLD, GG_A2G_TLS_1_1 },
    { "openssl-tls1_2", GG_A2G_CLIENT_HELLO_ACCEPTABLE, GG_A2G_TLS_1_2 },
    { "openssl-tls1_3", GG_A2G_CLIENT_HELLO_ACCEPTABLE, TLS_1_3 },
    { "openssl-default", GG_A2G_CLIENT_HELLO_ACCEPTABLE, TLS_1_3 },
    { "python-ssl", GG_A2G_CLIENT_HELLO_ACCEPTABLE, TLS_1_3 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_build_filename (A2G_CLIENT_HELLO_SEEDS, cases[i].file, NULL);
      g_autoptr(GError) error = NULL;
      g_autofree char *data = NULL;
      gsize length;
      GgA2gClientHello hello;

      g_file_get_contents (path, &data, &length, &error);
      g_assert_no_error (error);
      g_test_message ("%s", cases[i].file);
      g_assert_cmpint (gg_a2g_client_hello_check ((const guint8 *) data, length, &hello), ==, cases[i].verdict);
      g_assert_cmpuint (hello.highest_version, ==, cases[i].highest);
      g_assert_cmpuint (hello.record_version, ==, GG_A2G_TLS_1_0);
      g_assert_cmpuint (hello.alert, ==, cases[i].verdict == GG_A2G_CLIENT_HELLO_TOO_OLD ?
                        GG_A2G_ALERT_PROTOCOL_VERSION : 0);
      assert_prefixes ((const guint8 *) data, length, cases[i].verdict);
      /* The same ClientHello in records of 1, 7 and 100 bytes. */
      for (guint j = 0; j < 3; j++)
        {
          const gsize sizes[] = { 1, 7, 100 };
          GByteArray message = { (guint8 *) data + 5, (guint) length - 5 };
          g_autoptr(GByteArray) records = NULL;

          if ((length - 5) / sizes[j] >= 64)
            continue;
          records = in_records (&message, sizes[j]);
          g_assert_cmpint (check (records, &hello), ==, cases[i].verdict);
          g_assert_cmpuint (hello.highest_version, ==, cases[i].highest);
        }
    }
}

static void
test_versions (void)
{
  static const guint16 v13_12[] = { TLS_1_3, GG_A2G_TLS_1_2, 0 };
  static const guint16 v11_10[] = { GG_A2G_TLS_1_1, GG_A2G_TLS_1_0, 0 };
  static const guint16 grease_11[] = { GREASE, GG_A2G_TLS_1_1, 0 };
  static const guint16 grease_13[] = { GREASE, TLS_1_3, 0 };
  static const guint16 only_12[] = { GG_A2G_TLS_1_2, 0 };
  static const guint16 others[] = { 0xfefd, 0x7f1c, GREASE, 0 };  /* DTLS 1.2, a TLS 1.3 draft */
  static const struct {
    guint legacy;
    const guint16 *versions;
    GgA2gClientHelloVerdict verdict;
    guint16 highest;
  } cases[] = {
    { GG_A2G_TLS_1_2, NULL, GG_A2G_CLIENT_HELLO_ACCEPTABLE, GG_A2G_TLS_1_2 },
    { TLS_1_3, NULL, GG_A2G_CLIENT_HELLO_ACCEPTABLE, TLS_1_3 },
    { GG_A2G_TLS_1_1, NULL, GG_A2G_CLIENT_HELLO_TOO_OLD, GG_A2G_TLS_1_1 },
    { 0x0300, NULL, GG_A2G_CLIENT_HELLO_TOO_OLD, 0x0300 },
    /* supported_versions, when there, decides (RFC 8446, 4.2.1). */
    { GG_A2G_TLS_1_2, v13_12, GG_A2G_CLIENT_HELLO_ACCEPTABLE, TLS_1_3 },
    { GG_A2G_TLS_1_2, v11_10, GG_A2G_CLIENT_HELLO_TOO_OLD, GG_A2G_TLS_1_1 },
    { GG_A2G_TLS_1_1, only_12, GG_A2G_CLIENT_HELLO_ACCEPTABLE, GG_A2G_TLS_1_2 },
    { GG_A2G_TLS_1_2, grease_11, GG_A2G_CLIENT_HELLO_TOO_OLD, GG_A2G_TLS_1_1 },
    { GG_A2G_TLS_1_2, grease_13, GG_A2G_CLIENT_HELLO_ACCEPTABLE, TLS_1_3 },
    { GG_A2G_TLS_1_2, others, GG_A2G_CLIENT_HELLO_TOO_OLD, 0 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GByteArray) records = hello_records (cases[i].legacy, cases[i].versions);
      GgA2gClientHello hello;

      g_test_message ("case %" G_GSIZE_FORMAT, i);
      g_assert_cmpint (check (records, &hello), ==, cases[i].verdict);
      g_assert_cmpuint (hello.highest_version, ==, cases[i].highest);
      if (cases[i].verdict == GG_A2G_CLIENT_HELLO_TOO_OLD)
        {
          g_assert_cmpuint (hello.alert, ==, GG_A2G_ALERT_PROTOCOL_VERSION);
          g_assert_cmpstr (hello.problem, ==, "the ClientHello offers nothing newer than TLS 1.1");
        }
      else
        {
          g_assert_cmpuint (hello.alert, ==, 0);
          g_assert_null (hello.problem);
        }
      assert_prefixes (records->data, records->len, cases[i].verdict);
    }
  {
    /* A TLS 1.0 ClientHello without an extensions block. */
    g_autoptr(GByteArray) message = client_hello (GG_A2G_TLS_1_0, NULL);
    g_autoptr(GByteArray) records = in_records (message, 16384);
    GgA2gClientHello hello;

    g_assert_cmpint (check (records, &hello), ==, GG_A2G_CLIENT_HELLO_TOO_OLD);
    g_assert_cmpuint (hello.highest_version, ==, GG_A2G_TLS_1_0);
  }
}

static void
test_records (void)
{
  static const guint16 v13[] = { TLS_1_3, 0 };
  g_autoptr(GByteArray) extensions = g_byte_array_new ();
  g_autoptr(GByteArray) message = NULL;
  GgA2gClientHello hello;

  /* 20,000 bytes of padding (extension 21): two records needed. */
  {
    g_autofree guint8 *padding = g_malloc0 (20000);

    put_extension (extensions, 21, padding, 20000);
    put_supported_versions (extensions, v13);
    message = client_hello (GG_A2G_TLS_1_2, extensions);
  }
  for (guint i = 0; i < 4; i++)
    {
      const gsize sizes[] = { 16384, 10000, 4096, 317 };
      g_autoptr(GByteArray) records = in_records (message, sizes[i]);

      g_assert_cmpint (check (records, &hello), ==, GG_A2G_CLIENT_HELLO_ACCEPTABLE);
      g_assert_cmpuint (hello.highest_version, ==, TLS_1_3);
    }
  {
    /* What follows the ClientHello is not looked at. */
    g_autoptr(GByteArray) records = in_records (message, 16384);
    static const guint8 next[] = { 20, 3, 3, 0, 1, 1, 'x', 'y', 'z' };

    g_byte_array_append (records, next, sizeof next);
    g_assert_cmpint (check (records, &hello), ==, GG_A2G_CLIENT_HELLO_ACCEPTABLE);
  }
  {
    /* 64 records are fine, 65 are not: a message of 128 bytes. */
    g_autoptr(GByteArray) bare = client_hello (GG_A2G_TLS_1_2, NULL);
    g_autoptr(GByteArray) padded = g_byte_array_new ();
    g_autoptr(GByteArray) big = NULL;
    g_autoptr(GByteArray) in_64 = NULL;
    g_autoptr(GByteArray) in_128 = NULL;
    g_autofree guint8 *padding = g_malloc0 (128);

    put_extension (padded, 21, padding, 128 - bare->len - 2 - 4);
    big = client_hello (GG_A2G_TLS_1_2, padded);
    g_assert_cmpuint (big->len, ==, 128);
    in_64 = in_records (big, 2);
    g_assert_cmpint (check (in_64, &hello), ==, GG_A2G_CLIENT_HELLO_ACCEPTABLE);
    in_128 = in_records (big, 1);
    assert_refused (in_128, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello comes in more than 64 records");
  }
}

static void
test_too_large (void)
{
  g_autoptr(GByteArray) extensions = g_byte_array_new ();
  g_autofree guint8 *padding = g_malloc0 (40000);
  g_autoptr(GByteArray) message = NULL;
  g_autoptr(GByteArray) records = NULL;
  GgA2gClientHello hello;

  put_extension (extensions, 21, padding, 40000);
  message = client_hello (GG_A2G_TLS_1_2, extensions);
  records = in_records (message, 16384);
  /* Said by the handshake header: refused with the first record. */
  g_assert_cmpint (gg_a2g_client_hello_check (records->data, 5 + 16384, &hello), ==, GG_A2G_CLIENT_HELLO_REFUSED);
  g_assert_cmpstr (hello.problem, ==, "the ClientHello is larger than 32768 bytes");
  g_assert_cmpuint (hello.alert, ==, GG_A2G_ALERT_DECODE_ERROR);
  {
    /* Just within: 32768 bytes in two records (each with its 5-byte
     * header; the extensions' length and the padding's header). */
    g_autoptr(GByteArray) bare = client_hello (GG_A2G_TLS_1_2, NULL);
    gsize fit = 32768 - 2 * 5 - bare->len - 2 - 4;
    g_autoptr(GByteArray) fits = g_byte_array_new ();
    g_autoptr(GByteArray) over = g_byte_array_new ();
    g_autoptr(GByteArray) fits_message = NULL;
    g_autoptr(GByteArray) over_message = NULL;
    g_autoptr(GByteArray) fits_records = NULL;
    g_autoptr(GByteArray) over_records = NULL;

    put_extension (fits, 21, padding, fit);
    fits_message = client_hello (GG_A2G_TLS_1_2, fits);
    fits_records = in_records (fits_message, 16384);
    g_assert_cmpuint (fits_records->len, ==, 32768);
    g_assert_cmpint (check (fits_records, &hello), ==, GG_A2G_CLIENT_HELLO_ACCEPTABLE);
    /* One byte more: more than 32768 bytes to read. */
    put_extension (over, 21, padding, fit + 1);
    over_message = client_hello (GG_A2G_TLS_1_2, over);
    over_records = in_records (over_message, 16384);
    g_assert_cmpint (gg_a2g_client_hello_check (over_records->data, 32768, &hello), ==,
                     GG_A2G_CLIENT_HELLO_REFUSED);
    g_assert_cmpstr (hello.problem, ==, "the ClientHello is larger than 32768 bytes");
  }
}

/* Patches one byte of a valid ClientHello's records. */
static GByteArray *
patched (gsize  at,
         guint8 value)
{
  GByteArray *records = hello_records (GG_A2G_TLS_1_2, NULL);

  records->data[at] = value;
  return records;
}

static void
test_broken (void)
{
  GgA2gClientHello hello;

  /* Nothing yet: one byte may already refuse it, then the second. */
  g_assert_cmpint (gg_a2g_client_hello_check ((const guint8 *) "", 0, &hello), ==, GG_A2G_CLIENT_HELLO_INCOMPLETE);
  g_assert_cmpuint (hello.need, ==, 1);
  g_assert_cmpint (gg_a2g_client_hello_check ((const guint8 *) "\x16", 1, &hello), ==, GG_A2G_CLIENT_HELLO_INCOMPLETE);
  g_assert_cmpuint (hello.need, ==, 2);
  g_assert_cmpint (gg_a2g_client_hello_check ((const guint8 *) "\x16\x03", 2, &hello), ==,
                   GG_A2G_CLIENT_HELLO_INCOMPLETE);
  g_assert_cmpuint (hello.need, ==, 5);
  /* Not TLS: no alert. */
  {
    static const char http[] = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
    static const guint8 ssl2[] = { 0x80, 0x2e, 0x01, 0x03, 0x01, 0x00, 0x15 };
    static const guint8 not_tls[] = { 22, 2, 0, 0, 4 };

    g_assert_cmpint (gg_a2g_client_hello_check ((const guint8 *) http, 1, &hello), ==, GG_A2G_CLIENT_HELLO_REFUSED);
    g_assert_cmpuint (hello.alert, ==, 0);
    g_assert_cmpstr (hello.problem, ==, "the connection does not start with a TLS handshake record");
    g_assert_cmpint (gg_a2g_client_hello_check (ssl2, sizeof ssl2, &hello), ==, GG_A2G_CLIENT_HELLO_REFUSED);
    g_assert_cmpuint (hello.alert, ==, 0);
    g_assert_cmpint (gg_a2g_client_hello_check (not_tls, 2, &hello), ==, GG_A2G_CLIENT_HELLO_REFUSED);
    g_assert_cmpstr (hello.problem, ==, "the connection does not start with a TLS record");
    g_assert_cmpuint (hello.record_version, ==, 0);
  }
  /* The records. */
  {
    g_autoptr(GByteArray) empty = patched (4, 0);
    g_autoptr(GByteArray) overflow = patched (3, 0x40);
    g_autoptr(GByteArray) server_hello = patched (5, 2);
    g_autoptr(GByteArray) split = NULL;
    g_autoptr(GByteArray) message = client_hello (GG_A2G_TLS_1_2, NULL);

    empty->data[3] = 0;
    assert_refused (empty, GG_A2G_ALERT_DECODE_ERROR, "an empty handshake record");
    overflow->data[4] = 1;
    assert_refused (overflow, GG_A2G_ALERT_RECORD_OVERFLOW, "a record longer than 16384 bytes");
    assert_refused (server_hello, GG_A2G_ALERT_UNEXPECTED_MESSAGE, "the first handshake message is no ClientHello");
    /* A ChangeCipherSpec in the middle of the ClientHello. */
    split = in_records (message, 20);
    split->data[25] = 20;
    assert_refused (split, GG_A2G_ALERT_UNEXPECTED_MESSAGE, "a record other than a handshake inside the ClientHello");
    split->data[25] = 22;
    split->data[26] = 4;
    assert_refused (split, GG_A2G_ALERT_DECODE_ERROR, "a record of no TLS version inside the ClientHello");
  }
  /* The body, offsets in the records: 5 record header, 4 handshake
   * header, 2 version, 32 random, the session id (length at 43, 4 bytes),
   * the cipher suites (length at 48, 4 bytes), the compression methods
   * (length at 54, 1 byte), the extensions (length at 56). */
  {
    static const guint16 v13[] = { TLS_1_3, 0 };
    g_autoptr(GByteArray) session = hello_records (GG_A2G_TLS_1_2, v13);
    g_autoptr(GByteArray) short_session = patched (43, 200);
    g_autoptr(GByteArray) odd_ciphers = patched (49, 3);
    g_autoptr(GByteArray) long_ciphers = patched (49, 200);
    g_autoptr(GByteArray) no_compression = patched (54, 0);
    g_autoptr(GByteArray) no_tls = patched (9, 2);

    session->data[43] = 33;
    assert_refused (session, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello's session id is longer than 32 bytes");
    assert_refused (short_session, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello is cut short");
    assert_refused (odd_ciphers, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello's cipher suites are broken");
    assert_refused (long_ciphers, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello is cut short");
    assert_refused (no_compression, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello offers no compression method");
    assert_refused (no_tls, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello is of no TLS version");
  }
  /* The extensions. */
  {
    static const guint16 v13[] = { TLS_1_3, 0 };
    g_autoptr(GByteArray) twice = g_byte_array_new ();
    g_autoptr(GByteArray) twice_message = NULL;
    g_autoptr(GByteArray) twice_records = NULL;
    g_autoptr(GByteArray) broken = g_byte_array_new ();
    g_autoptr(GByteArray) broken_message = NULL;
    g_autoptr(GByteArray) broken_records = NULL;
    g_autoptr(GByteArray) trailing = hello_records (GG_A2G_TLS_1_2, v13);
    static const guint8 odd[] = { 3, 3, 4, 3 };
    guint8 zero = 0;

    put_supported_versions (twice, v13);
    put_supported_versions (twice, v13);
    twice_message = client_hello (GG_A2G_TLS_1_2, twice);
    twice_records = in_records (twice_message, 16384);
    assert_refused (twice_records, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello has supported_versions twice");
    for (guint i = 0; i < 3; i++)
      {
        /* An odd length, an empty list, a byte after the list. */
        static const guint8 after[] = { 2, 3, 4, 0 };

        g_byte_array_set_size (broken, 0);
        if (i == 0)
          put_extension (broken, 43, odd, sizeof odd);
        else if (i == 1)
          put_extension (broken, 43, &zero, 1);
        else
          put_extension (broken, 43, after, sizeof after);
        g_clear_pointer (&broken_message, g_byte_array_unref);
        g_clear_pointer (&broken_records, g_byte_array_unref);
        broken_message = client_hello (GG_A2G_TLS_1_2, broken);
        broken_records = in_records (broken_message, 16384);
        assert_refused (broken_records, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello's supported_versions is broken");
      }
    /* The extensions' length one short of the rest (a byte left over),
     * one more than the rest. */
    trailing->data[57]--;
    assert_refused (trailing, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello's extensions are cut short");
    trailing->data[57] += 2;
    assert_refused (trailing, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello's extensions are cut short");
    /* An extension longer than the block (server_name's length at 60). */
    trailing->data[57]--;
    trailing->data[60] = 0xff;
    assert_refused (trailing, GG_A2G_ALERT_DECODE_ERROR, "an extension of the ClientHello is cut short");
  }
}

static void
test_alert (void)
{
  g_autoptr(GByteArray) old = hello_records (GG_A2G_TLS_1_1, NULL);
  g_autoptr(GByteArray) good = hello_records (GG_A2G_TLS_1_2, NULL);
  GgA2gClientHello hello;
  guint8 record[7];
  static const guint8 protocol_version[] = { 21, 3, 1, 0, 2, 2, 70 };
  static const guint8 decode_error_12[] = { 21, 3, 3, 0, 2, 2, 50 };

  g_assert_cmpint (check (old, &hello), ==, GG_A2G_CLIENT_HELLO_TOO_OLD);
  g_assert_cmpuint (gg_a2g_client_hello_alert (&hello, record), ==, 7);
  g_assert_cmpmem (record, 7, protocol_version, 7);
  /* In the record version the client used. */
  good->data[2] = 3;
  good->data[4] = 0;
  g_assert_cmpint (check (good, &hello), ==, GG_A2G_CLIENT_HELLO_REFUSED);
  g_assert_cmpuint (gg_a2g_client_hello_alert (&hello, record), ==, 7);
  g_assert_cmpmem (record, 7, decode_error_12, 7);
  /* Nothing for what is no TLS. */
  g_assert_cmpint (gg_a2g_client_hello_check ((const guint8 *) "GET", 3, &hello), ==, GG_A2G_CLIENT_HELLO_REFUSED);
  g_assert_cmpuint (gg_a2g_client_hello_alert (&hello, record), ==, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/a2g/client-hello/real", test_real);
  g_test_add_func ("/a2g/client-hello/versions", test_versions);
  g_test_add_func ("/a2g/client-hello/records", test_records);
  g_test_add_func ("/a2g/client-hello/too-large", test_too_large);
  g_test_add_func ("/a2g/client-hello/broken", test_broken);
  g_test_add_func ("/a2g/client-hello/alert", test_alert);
  return g_test_run ();
}

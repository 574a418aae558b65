/* gg-a2g-client-hello.c: the TLS versions a ClientHello offers, read from
 * the first bytes of a connection before any TLS library sees them.
 *
 * a2g-security.md requires TLS 1.2 or later, and a client offering only
 * TLS 1.0 or 1.1 must fail in the handshake with a protocol_version alert
 * (a scanner counts a completed handshake as the version being offered).
 * GIO's TLS has no minimum-version setting, and GnuTLS's default
 * priorities (the machine's configuration, not ours to change) allow
 * 1.0 and 1.1 on Debian 12. So the service reads the ClientHello itself
 * (gg-a2g-tls.c), as a TLS-inspecting proxy does, and decides from it:
 * the newest version of its supported_versions extension (RFC 8446,
 * 4.2.1; GREASE and versions of other protocols ignored) or, without
 * one, its legacy_version (RFC 5246, E.1).
 *
 * The bytes are hostile: every length is checked against what is there,
 * the handshake message may come in several records (RFC 8446, 5.1), and
 * a ClientHello is refused past GG_A2G_CLIENT_HELLO_MAX_SIZE bytes or
 * MAX_RECORDS records. The check is stateless: the caller gives it all the
 * bytes read so far, and reads on until the `need` it says.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-a2g-client-hello.h"

#define RECORD_HEADER 5
#define RECORD_HANDSHAKE 22
#define RECORD_ALERT 21
#define MAX_FRAGMENT 16384          /* 2^14 (RFC 8446, 5.1) */
#define MAX_RECORDS 64              /* records of one ClientHello */
#define HANDSHAKE_HEADER 4
#define HANDSHAKE_CLIENT_HELLO 1
#define EXTENSION_SUPPORTED_VERSIONS 43
#define ALERT_FATAL 2

/* A bounded view of bytes being read. */
typedef struct {
  const guint8 *data;
  gsize left;
} Reader;

static gboolean
read_bytes (Reader        *reader,
            gsize          n,
            const guint8 **out)
{
  if (reader->left < n)
    return FALSE;
  *out = reader->data;
  reader->data += n;
  reader->left -= n;
  return TRUE;
}

static gboolean
read_number (Reader *reader,
             gsize   n,
             guint  *value)
{
  const guint8 *bytes;

  if (!read_bytes (reader, n, &bytes))
    return FALSE;
  *value = 0;
  for (gsize i = 0; i < n; i++)
    *value = *value << 8 | bytes[i];
  return TRUE;
}

/* A vector with a length of @length_bytes in front (RFC 8446, 3.4). */
static gboolean
read_vector (Reader *reader,
             gsize   length_bytes,
             Reader *vector)
{
  guint length;

  if (!read_number (reader, length_bytes, &length) || !read_bytes (reader, length, &vector->data))
    return FALSE;
  vector->left = length;
  return TRUE;
}

static GgA2gClientHelloVerdict
refuse (GgA2gClientHello *hello,
        guint8            alert,
        const char       *problem)
{
  hello->alert = alert;
  hello->problem = problem;
  return GG_A2G_CLIENT_HELLO_REFUSED;
}

static GgA2gClientHelloVerdict
incomplete (GgA2gClientHello *hello,
            gsize             need)
{
  if (need > GG_A2G_CLIENT_HELLO_MAX_SIZE)
    return refuse (hello, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello is larger than 32768 bytes");
  hello->need = need;
  return GG_A2G_CLIENT_HELLO_INCOMPLETE;
}

/* The newest TLS version in supported_versions; 0 when none is TLS. */
static gboolean
newest_supported (Reader *extension,
                  guint  *newest)
{
  Reader versions;

  if (!read_vector (extension, 1, &versions) || extension->left != 0 || versions.left < 2 ||
      versions.left % 2 != 0)
    return FALSE;
  *newest = 0;
  while (versions.left > 0)
    {
      guint version = 0;

      read_number (&versions, 2, &version);
      if (version >> 8 == 3 && version > *newest)
        *newest = version;
    }
  return TRUE;
}

/* The ClientHello's body (RFC 8446, 4.1.2; RFC 5246, 7.4.1.2). */
static GgA2gClientHelloVerdict
check_body (const guint8     *data,
            gsize             length,
            GgA2gClientHello *hello)
{
  Reader body = { data, length };
  Reader session_id, cipher_suites, compression, extensions;
  const guint8 *random;
  guint legacy_version, newest;
  gboolean seen_versions = FALSE;

  if (!read_number (&body, 2, &legacy_version) || !read_bytes (&body, 32, &random) ||
      !read_vector (&body, 1, &session_id))
    return refuse (hello, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello is cut short");
  if (session_id.left > 32)
    return refuse (hello, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello's session id is longer than 32 bytes");
  if (!read_vector (&body, 2, &cipher_suites))
    return refuse (hello, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello is cut short");
  if (cipher_suites.left < 2 || cipher_suites.left % 2 != 0)
    return refuse (hello, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello's cipher suites are broken");
  if (!read_vector (&body, 1, &compression))
    return refuse (hello, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello is cut short");
  if (compression.left < 1)
    return refuse (hello, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello offers no compression method");
  if (legacy_version >> 8 != 3)
    return refuse (hello, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello is of no TLS version");
  newest = legacy_version;
  /* Extensions are optional (TLS 1.0 clients may send none); when present
   * they fill the rest of the message exactly. */
  if (body.left > 0)
    {
      if (!read_vector (&body, 2, &extensions) || body.left != 0)
        return refuse (hello, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello's extensions are cut short");
      while (extensions.left > 0)
        {
          Reader extension;
          guint type;

          if (!read_number (&extensions, 2, &type) || !read_vector (&extensions, 2, &extension))
            return refuse (hello, GG_A2G_ALERT_DECODE_ERROR, "an extension of the ClientHello is cut short");
          if (type != EXTENSION_SUPPORTED_VERSIONS)
            continue;
          if (seen_versions)
            return refuse (hello, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello has supported_versions twice");
          seen_versions = TRUE;
          if (!newest_supported (&extension, &newest))
            return refuse (hello, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello's supported_versions is broken");
        }
    }
  hello->highest_version = newest;
  if (newest < GG_A2G_TLS_1_2)
    {
      hello->alert = GG_A2G_ALERT_PROTOCOL_VERSION;
      hello->problem = "the ClientHello offers nothing newer than TLS 1.1";
      return GG_A2G_CLIENT_HELLO_TOO_OLD;
    }
  return GG_A2G_CLIENT_HELLO_ACCEPTABLE;
}

/**
 * gg_a2g_client_hello_check:
 * @data: the first bytes of a connection
 * @length: how many
 * @hello: (out caller-allocates): what was found
 *
 * Reads the ClientHello at the start of @data, in as many handshake
 * records as it takes. Bytes after it (the client's next records) are
 * not looked at.
 *
 * Returns: %GG_A2G_CLIENT_HELLO_INCOMPLETE until @length reaches
 *   @hello->need, then the verdict
 */
GgA2gClientHelloVerdict
gg_a2g_client_hello_check (const guint8     *data,
                           gsize             length,
                           GgA2gClientHello *hello)
{
  g_autoptr(GByteArray) message = NULL;
  gsize at = 0;
  gsize message_length = 0;   /* handshake bytes in the records so far */
  guint8 header[HANDSHAKE_HEADER];
  gsize body_length = 0;
  guint records = 0;

  memset (hello, 0, sizeof *hello);
  /* Plain HTTP, an SSL 2 hello, anything not TLS: answered by no alert. */
  if (length >= 1 && data[0] != RECORD_HANDSHAKE)
    return refuse (hello, 0, "the connection does not start with a TLS handshake record");
  if (length >= 2 && data[1] != 3)
    return refuse (hello, 0, "the connection does not start with a TLS record");
  /* Its first two bytes alone may refuse it. */
  if (length < RECORD_HEADER)
    return incomplete (hello, length < 2 ? length + 1 : RECORD_HEADER);
  hello->record_version = (guint16) (data[1] << 8 | data[2]);

  /* First the record headers only: the handshake header and how many of
   * the message's bytes have come, without copying anything. */
  for (;;)
    {
      gsize fragment, taken;

      if (length - at < RECORD_HEADER)
        return incomplete (hello, at + RECORD_HEADER);
      if (data[at] != RECORD_HANDSHAKE)
        return refuse (hello, GG_A2G_ALERT_UNEXPECTED_MESSAGE, "a record other than a handshake inside the ClientHello");
      if (data[at + 1] != 3)
        return refuse (hello, GG_A2G_ALERT_DECODE_ERROR, "a record of no TLS version inside the ClientHello");
      if (++records > MAX_RECORDS)
        return refuse (hello, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello comes in more than 64 records");
      fragment = (gsize) data[at + 3] << 8 | data[at + 4];
      if (fragment == 0)
        return refuse (hello, GG_A2G_ALERT_DECODE_ERROR, "an empty handshake record");
      if (fragment > MAX_FRAGMENT)
        return refuse (hello, GG_A2G_ALERT_RECORD_OVERFLOW, "a record longer than 16384 bytes");
      if (length - at - RECORD_HEADER < fragment)
        return incomplete (hello, at + RECORD_HEADER + fragment);
      for (taken = 0; taken < fragment && message_length + taken < HANDSHAKE_HEADER; taken++)
        header[message_length + taken] = data[at + RECORD_HEADER + taken];
      message_length += fragment;
      at += RECORD_HEADER + fragment;
      if (message_length < HANDSHAKE_HEADER)
        continue;
      if (header[0] != HANDSHAKE_CLIENT_HELLO)
        return refuse (hello, GG_A2G_ALERT_UNEXPECTED_MESSAGE, "the first handshake message is no ClientHello");
      body_length = (gsize) header[1] << 16 | (gsize) header[2] << 8 | header[3];
      if (HANDSHAKE_HEADER + body_length > GG_A2G_CLIENT_HELLO_MAX_SIZE)
        return refuse (hello, GG_A2G_ALERT_DECODE_ERROR, "the ClientHello is larger than 32768 bytes");
      if (message_length >= HANDSHAKE_HEADER + body_length)
        break;
    }

  /* All of it is there: the message's bytes in one piece. */
  message = g_byte_array_sized_new ((guint) message_length);
  for (gsize record = 0; record < at;)
    {
      gsize fragment = (gsize) data[record + 3] << 8 | data[record + 4];

      g_byte_array_append (message, data + record + RECORD_HEADER, (guint) fragment);
      record += RECORD_HEADER + fragment;
    }
  return check_body (message->data + HANDSHAKE_HEADER, body_length, hello);
}

/**
 * gg_a2g_client_hello_alert:
 * @hello: a ClientHello checked
 * @record: (out caller-allocates): the alert record
 *
 * The fatal alert record that answers a refused ClientHello, in the
 * record version the client used.
 *
 * Returns: its length (7), or 0 when none is sent (no TLS client)
 */
gsize
gg_a2g_client_hello_alert (const GgA2gClientHello *hello,
                           guint8                  record[7])
{
  if (hello->alert == 0)
    return 0;
  record[0] = RECORD_ALERT;
  record[1] = hello->record_version >> 8;
  record[2] = hello->record_version & 0xff;
  record[3] = 0;
  record[4] = 2;
  record[5] = ALERT_FATAL;
  record[6] = hello->alert;
  return 7;
}

/* gg-json-canonical.c: RFC 8785 JSON Canonicalization Scheme, and the
 * "sha256:" digests plugins derive from it.
 *
 * A digest of a canonical form is the same for two documents that differ
 * only in key order, whitespace, escapes or number spellings: A2G's
 * manifest hash, a recorded model step's digest. Object keys
 * are sorted by their UTF-16 code units, strings are escaped minimally and
 * numbers are written the way ECMAScript's Number.prototype.toString writes
 * the IEEE 754 double they denote (integers beyond 2^53 included).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gg-json.h"
#include "gg-json-private.h"

/* The shortest decimal digits that read back as @value (positive, finite):
 * @digits gets them without a point, the result is the decimal exponent n
 * with value = 0.DIGITS x 10^n. printf rounds correctly, so of the strings
 * of the shortest length the nearest one comes out, as ECMAScript wants. */
static int
shortest_digits (double value,
                 char   digits[32])
{
  char buffer[40];

  for (int precision = 0; precision < 17; precision++)
    {
      char *end;
      char *e;
      int exponent;
      gsize n = 0;

      g_snprintf (buffer, sizeof buffer, "%.*e", precision, value);
      if (strtod (buffer, &end) != value && precision < 16)
        continue;
      e = strchr (buffer, 'e');
      exponent = atoi (e + 1);
      for (char *p = buffer; p < e; p++)
        if (g_ascii_isdigit (*p))
          digits[n++] = *p;
      while (n > 1 && digits[n - 1] == '0')
        n--;
      digits[n] = '\0';
      return exponent + 1;
    }
  g_assert_not_reached ();
}

/* Appends @value as ECMAScript writes it (RFC 8785 section 3.2.2.3). */
void
_gg_json_canonical_number (GString *out,
                         double   value)
{
  char digits[32];
  int n, k;

  if (value == 0 || !isfinite (value))
    {
      /* -0 is "0"; JSON cannot carry NaN or infinities. */
      g_string_append_c (out, '0');
      return;
    }
  if (fabs (value) <= 9007199254740992.0 && value == (double) (gint64) value)
    {
      /* An integer a double holds exactly: ECMAScript writes its digits. */
      g_string_append_printf (out, "%" G_GINT64_FORMAT, (gint64) value);
      return;
    }
  if (value < 0)
    {
      g_string_append_c (out, '-');
      value = -value;
    }
  n = shortest_digits (value, digits);
  k = (int) strlen (digits);
  if (k <= n && n <= 21)
    {
      g_string_append (out, digits);
      for (int i = 0; i < n - k; i++)
        g_string_append_c (out, '0');
    }
  else if (0 < n && n <= 21)
    {
      g_string_append_len (out, digits, n);
      g_string_append_c (out, '.');
      g_string_append (out, digits + n);
    }
  else if (-6 < n && n <= 0)
    {
      g_string_append (out, "0.");
      for (int i = 0; i < -n; i++)
        g_string_append_c (out, '0');
      g_string_append (out, digits);
    }
  else
    {
      g_string_append_c (out, digits[0]);
      if (k > 1)
        {
          g_string_append_c (out, '.');
          g_string_append (out, digits + 1);
        }
      g_string_append_printf (out, "e%c%d", n - 1 >= 0 ? '+' : '-', abs (n - 1));
    }
}

static void
append_string (GString    *out,
               const char *text)
{
  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) text; *p != '\0'; p++)
    switch (*p)
      {
      case '"': g_string_append (out, "\\\""); break;
      case '\\': g_string_append (out, "\\\\"); break;
      case '\b': g_string_append (out, "\\b"); break;
      case '\f': g_string_append (out, "\\f"); break;
      case '\n': g_string_append (out, "\\n"); break;
      case '\r': g_string_append (out, "\\r"); break;
      case '\t': g_string_append (out, "\\t"); break;
      default:
        if (*p < 0x20)
          g_string_append_printf (out, "\\u%04x", *p);
        else
          g_string_append_c (out, (char) *p);
      }
  g_string_append_c (out, '"');
}

typedef struct {
  const char *key;
  gunichar2  *units;
  glong       n_units;
} SortKey;

/* Without characters beyond U+FFFF (4-byte UTF-8 sequences), UTF-8 byte
 * order is UTF-16 code unit order. */
static gboolean
below_supplementary (const char *key)
{
  for (const unsigned char *p = (const unsigned char *) key; *p != '\0'; p++)
    if (*p >= 0xF0)
      return FALSE;
  return TRUE;
}

static int
compare_plain_keys (gconstpointer a,
                    gconstpointer b)
{
  return strcmp (((const SortKey *) a)->key, ((const SortKey *) b)->key);
}

static int
compare_keys (gconstpointer a,
              gconstpointer b)
{
  const SortKey *x = a, *y = b;
  glong n = MIN (x->n_units, y->n_units);

  for (glong i = 0; i < n; i++)
    if (x->units[i] != y->units[i])
      return x->units[i] < y->units[i] ? -1 : 1;
  return x->n_units < y->n_units ? -1 : x->n_units > y->n_units;
}

static void
append_object (GString    *out,
               JsonObject *object)
{
  g_autoptr(GList) members = json_object_get_members (object);
  guint n = g_list_length (members), i = 0;
  SortKey small[16];
  g_autofree SortKey *large = n > G_N_ELEMENTS (small) ? g_new0 (SortKey, n) : NULL;
  SortKey *keys = large != NULL ? large : small;
  gboolean plain = TRUE;

  for (GList *l = members; l != NULL; l = l->next, i++)
    {
      keys[i].key = l->data;
      keys[i].units = NULL;
      plain = plain && below_supplementary (l->data);
    }
  for (i = 0; !plain && i < n; i++)
    keys[i].units = g_utf8_to_utf16 (keys[i].key, -1, NULL, &keys[i].n_units, NULL);
  qsort (keys, n, sizeof (SortKey), plain ? compare_plain_keys : compare_keys);
  g_string_append_c (out, '{');
  for (i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      append_string (out, keys[i].key);
      g_string_append_c (out, ':');
      _gg_json_canonical_append (out, json_object_get_member (object, keys[i].key));
      g_free (keys[i].units);
    }
  g_string_append_c (out, '}');
}

/* Appends the RFC 8785 form of @node (parsed strictly: valid UTF-8, finite
 * numbers). Recursive: documents are bounded by the parser's depth limit. */
void
_gg_json_canonical_append (GString  *out,
                         JsonNode *node)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      append_object (out, json_node_get_object (node));
      break;
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        g_string_append_c (out, '[');
        for (guint i = 0; i < json_array_get_length (array); i++)
          {
            if (i > 0)
              g_string_append_c (out, ',');
            _gg_json_canonical_append (out, json_array_get_element (array, i));
          }
        g_string_append_c (out, ']');
      }
      break;
    case JSON_NODE_NULL:
      g_string_append (out, "null");
      break;
    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_STRING:
          append_string (out, json_node_get_string (node));
          break;
        case G_TYPE_BOOLEAN:
          g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
          break;
        case G_TYPE_INT64:
          _gg_json_canonical_number (out, (double) json_node_get_int (node));
          break;
        default:
          _gg_json_canonical_number (out, json_node_get_double (node));
          break;
        }
      break;
    }
}

/**
 * gg_json_canonical_append:
 * @out: where to append
 * @node: a JSON value (parsed strictly: valid UTF-8, finite numbers)
 *
 * Appends the canonical form of @node (see gg_json_canonical_string()) to
 * @out, for writers that stream a canonical document of their own (into a
 * digest, say) without building it as a tree first.
 *
 * Since: 1.0
 */
void
gg_json_canonical_append (GString  *out,
                          JsonNode *node)
{
  g_return_if_fail (out != NULL && node != NULL);
  _gg_json_canonical_append (out, node);
}

/**
 * gg_json_canonical_append_string:
 * @out: where to append
 * @text: valid UTF-8
 *
 * Appends @text as a canonical JSON string (RFC 8785: quoted, minimal
 * escapes), as gg_json_canonical_append() writes string values.
 *
 * Since: 1.0
 */
void
gg_json_canonical_append_string (GString    *out,
                                 const char *text)
{
  g_return_if_fail (out != NULL && text != NULL);
  append_string (out, text);
}

/**
 * gg_json_canonical_string:
 * @node: a JSON value
 *
 * Writes @node in the canonical form of RFC 8785 (JCS): object keys sorted
 * by their UTF-16 code units, no whitespace, minimal string escapes,
 * numbers in their shortest round-trip form.
 *
 * Returns: (transfer full): the canonical text
 *
 * Since: 1.0
 */
char *
gg_json_canonical_string (JsonNode *node)
{
  GString *out = g_string_sized_new (256);

  _gg_json_canonical_append (out, node);
  return g_string_free (out, FALSE);
}

/**
 * gg_json_canonical_digest:
 * @node: a JSON value
 *
 * Digests @node by its canonical form, so that documents differing only
 * in key order, whitespace, escapes or number spellings share a digest.
 *
 * Returns: (transfer full): `sha256:` and the 64 lowercase hex digits of
 *   the SHA-256 of gg_json_canonical_string()
 *
 * Since: 1.0
 */
char *
gg_json_canonical_digest (JsonNode *node)
{
  g_autofree char *text = gg_json_canonical_string (node);
  g_autofree char *hex = g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);

  return g_strconcat ("sha256:", hex, NULL);
}

/* gg-a2g-canonical.c: RFC 8785 JSON Canonicalization Scheme.
 *
 * The manifest hash is the SHA-256 of the manifest's canonical form, so two
 * games sending the same manifest in another key order (or with other
 * whitespace, escapes or number spellings) get the same hash. Object keys
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

#include "gg-a2g-canonical.h"

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

/**
 * gg_a2g_canonical_number:
 * @out: where to append
 * @value: a finite double
 *
 * Appends @value as ECMAScript writes it (RFC 8785 section 3.2.2.3).
 */
void
gg_a2g_canonical_number (GString *out,
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
  g_autofree SortKey *keys = g_new0 (SortKey, MAX (n, 1));

  for (GList *l = members; l != NULL; l = l->next, i++)
    {
      keys[i].key = l->data;
      keys[i].units = g_utf8_to_utf16 (l->data, -1, NULL, &keys[i].n_units, NULL);
    }
  qsort (keys, n, sizeof (SortKey), compare_keys);
  g_string_append_c (out, '{');
  for (i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      append_string (out, keys[i].key);
      g_string_append_c (out, ':');
      gg_a2g_canonical_append (out, json_object_get_member (object, keys[i].key));
      g_free (keys[i].units);
    }
  g_string_append_c (out, '}');
}

/**
 * gg_a2g_canonical_append:
 * @out: where to append
 * @node: a JSON value (parsed strictly: valid UTF-8, finite numbers)
 *
 * Appends the RFC 8785 form of @node.
 */
void
gg_a2g_canonical_append (GString  *out,
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
            gg_a2g_canonical_append (out, json_array_get_element (array, i));
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
          gg_a2g_canonical_number (out, (double) json_node_get_int (node));
          break;
        default:
          gg_a2g_canonical_number (out, json_node_get_double (node));
          break;
        }
      break;
    }
}

/**
 * gg_a2g_canonical_json:
 * @node: a JSON value
 *
 * Returns: (transfer full): its RFC 8785 canonical text
 */
char *
gg_a2g_canonical_json (JsonNode *node)
{
  GString *out = g_string_sized_new (256);

  gg_a2g_canonical_append (out, node);
  return g_string_free (out, FALSE);
}

/**
 * gg_a2g_sha256_hex:
 * @data: bytes
 * @length: their length, or -1 for a string
 *
 * Returns: (transfer full): 64 lowercase hex digits
 */
char *
gg_a2g_sha256_hex (const char *data,
                   gssize      length)
{
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data,
                                      length < 0 ? strlen (data) : (gsize) length);
}

/**
 * gg_a2g_canonical_hash:
 * @node: a JSON value
 *
 * Returns: (transfer full): `sha256:` and the hex SHA-256 of its canonical form
 */
char *
gg_a2g_canonical_hash (JsonNode *node)
{
  g_autofree char *text = gg_a2g_canonical_json (node);
  g_autofree char *hex = gg_a2g_sha256_hex (text, -1);

  return g_strconcat ("sha256:", hex, NULL);
}

/* gg-schema-format.c: the string formats GgSchema asserts: "date-time",
 * "date" and "time" (RFC 3339, strictly) and "uuid" (RFC 4122 text form).
 * Other formats are annotations only and always pass.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "gg-schema-private.h"

static gboolean
digits (const char *s,
        guint       n,
        guint      *value)
{
  guint v = 0;

  for (guint i = 0; i < n; i++)
    {
      if (s[i] < '0' || s[i] > '9')
        return FALSE;
      v = v * 10 + (guint) (s[i] - '0');
    }
  *value = v;
  return TRUE;
}

/* full-date = YYYY-MM-DD; consumes 10 bytes. */
static gboolean
parse_date (const char *s)
{
  static const guint days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
  guint year, month, day, max;

  if (strlen (s) < 10 || s[4] != '-' || s[7] != '-' ||
      !digits (s, 4, &year) || !digits (s + 5, 2, &month) || !digits (s + 8, 2, &day))
    return FALSE;
  if (month < 1 || month > 12 || day < 1)
    return FALSE;
  max = days[month - 1];
  if (month == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))
    max = 29;
  return day <= max;
}

/* full-time = HH:MM:SS[.frac](Z|+HH:MM|-HH:MM), the whole of @s. A leap
 * second is accepted only where it can occur: at 23:59:60 UTC. */
static gboolean
parse_time (const char *s)
{
  guint hour, minute, second, off_hour = 0, off_minute = 0;
  int sign = 0;
  const char *p;
  int utc_minutes;

  if (strlen (s) < 9 || s[2] != ':' || s[5] != ':' ||
      !digits (s, 2, &hour) || !digits (s + 3, 2, &minute) || !digits (s + 6, 2, &second))
    return FALSE;
  if (hour > 23 || minute > 59 || second > 60)
    return FALSE;

  p = s + 8;
  if (*p == '.')
    {
      p++;
      if (*p < '0' || *p > '9')
        return FALSE;
      while (*p >= '0' && *p <= '9')
        p++;
    }

  if (*p == 'Z' || *p == 'z')
    p++;
  else if (*p == '+' || *p == '-')
    {
      sign = *p == '+' ? 1 : -1;
      if (strlen (p) < 6 || p[3] != ':' || !digits (p + 1, 2, &off_hour) ||
          !digits (p + 4, 2, &off_minute) || off_hour > 23 || off_minute > 59)
        return FALSE;
      p += 6;
    }
  else
    return FALSE;
  if (*p != '\0')
    return FALSE;

  if (second == 60)
    {
      utc_minutes = (int) (hour * 60 + minute) - sign * (int) (off_hour * 60 + off_minute);
      utc_minutes = ((utc_minutes % 1440) + 1440) % 1440;
      if (utc_minutes != 23 * 60 + 59)
        return FALSE;
    }
  return TRUE;
}

static gboolean
check_date_time (const char *s)
{
  if (!parse_date (s) || (s[10] != 'T' && s[10] != 't'))
    return FALSE;
  return parse_time (s + 11);
}

static gboolean
check_uuid (const char *s)
{
  if (strlen (s) != 36)
    return FALSE;
  for (guint i = 0; i < 36; i++)
    {
      if (i == 8 || i == 13 || i == 18 || i == 23)
        {
          if (s[i] != '-')
            return FALSE;
        }
      else if (!g_ascii_isxdigit (s[i]))
        return FALSE;
    }
  return TRUE;
}

gboolean
_gg_schema_format_check (const char *format,
                         const char *value)
{
  if (strcmp (format, "date-time") == 0)
    return check_date_time (value);
  if (strcmp (format, "date") == 0)
    return parse_date (value) && value[10] == '\0';
  if (strcmp (format, "time") == 0)
    return parse_time (value);
  if (strcmp (format, "uuid") == 0)
    return check_uuid (value);
  return TRUE;
}

/* gg-gabp-names.c: bus names -> GABP names (see gg-gabp-names.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gg-gabp-names.h"

/**
 * gg_gabp_name_segment:
 * @text: any text
 *
 * Returns: (transfer full): one valid GABP name segment made from @text
 */
char *
gg_gabp_name_segment (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p++)
    {
      char c = g_ascii_tolower (*p);

      if (c == ':')
        c = '-';
      else if (!g_ascii_isalnum (c) && c != '_' && c != '-')
        c = '_';
      g_string_append_c (out, c);
    }
  if (out->len == 0 || !g_ascii_isalpha (out->str[0]))
    g_string_prepend_c (out, 't');
  return g_string_free (out, FALSE);
}

/** gg_gabp_name_for_target: Returns: (transfer full): the first segment for @target_id. */
char *
gg_gabp_name_for_target (const char *target_id)
{
  return gg_gabp_name_segment (target_id);
}

/**
 * gg_gabp_name_for_tool:
 * @target_id: a bus target id
 * @tool: one of its tools
 *
 * Returns: (transfer full): the GABP name, before collision suffixes
 */
char *
gg_gabp_name_for_tool (const char *target_id,
                       const char *tool)
{
  g_autofree char *prefix = gg_gabp_name_for_target (target_id);
  g_auto(GStrv) parts = g_strsplit (tool, "/", -1);
  GString *out = g_string_new (prefix);
  gboolean any = FALSE;

  for (gsize i = 0; parts[i] != NULL; i++)
    {
      g_autofree char *segment = NULL;

      if (parts[i][0] == '\0')
        continue;
      segment = gg_gabp_name_segment (parts[i]);
      g_string_append_printf (out, "/%s", segment);
      any = TRUE;
    }
  if (!any)
    g_string_append (out, "/tool");
  return g_string_free (out, FALSE);
}

/** gg_gabp_name_is_valid: Returns: %TRUE when @name matches the GABP tool name pattern. */
gboolean
gg_gabp_name_is_valid (const char *name)
{
  return g_regex_match_simple ("^[a-z][a-z0-9_-]*(/[a-z][a-z0-9_-]*)+$", name, 0, 0);
}

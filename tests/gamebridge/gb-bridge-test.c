/* gb-bridge-test.c: the helpers of gb-bridge-test.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "gb-bridge-test.h"

char *
port_args (guint port)
{
  return g_strdup_printf ("{\"port\":%u}", port);
}

const char *
str (JsonObject *o,
     const char *member)
{
  return json_object_get_string_member (o, member);
}

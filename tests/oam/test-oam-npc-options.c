/* test-oam-npc-options.c: an NPC's options through the built `gamegate
 * oam`: every option's default and normalised value, every option's
 * error, in the order of the options table (gg-oam-npc-options.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "oam-test.h"

static void
test_every_option (void)
{
  oam_run_exchange_file (NULL, NULL, "npc-options");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/oam/npc-options/every-option", test_every_option);
  return g_test_run ();
}

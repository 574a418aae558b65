/* gg-oam-abi-log.c: OAM_BRIDGE_LOG=debug|info|warning|error: gamegate's
 * messages on stderr from that level up; without it, none at all.
 *
 * A library must not print into its host's stderr uninvited, nor take over
 * the host's logging: instead of a writer for the whole process (which is
 * the host's to set), a handler goes on gamegate's own log domains only,
 * `gamegate` and `gamegate-<plugin>`, once per process. The variable is
 * read when the first bridge is created. Fatal messages stay fatal.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdio.h>
#include <string.h>

#include "gg-oam-abi-private.h"

/* The domains of the plugins in this tree, handled before any of them is
 * loaded (their setup logs); other plugins' are added as they load. */
static const char * const known_domains[] = {
  "gamegate", "gamegate-oam", "gamegate-gabp", "gamegate-gamebridge", "gamegate-a2g",
  "gamegate-model-openai", "gamegate-model-scripted", "gamegate-model-record", NULL
};

static GLogLevelFlags shown_levels;   /* 0: nothing */
static pthread_mutex_t domains_lock = PTHREAD_MUTEX_INITIALIZER;
static GHashTable *domains;           /* domains with our handler */

static void
log_handler (const char     *domain,
             GLogLevelFlags  level,
             const char     *message,
             gpointer        user_data)
{
  const char *name;

  if ((level & shown_levels) == 0)
    return;
  if (level & G_LOG_LEVEL_ERROR)
    name = "error";
  else if (level & G_LOG_LEVEL_CRITICAL)
    name = "critical";
  else if (level & G_LOG_LEVEL_WARNING)
    name = "warning";
  else if (level & G_LOG_LEVEL_MESSAGE)
    name = "message";
  else if (level & G_LOG_LEVEL_INFO)
    name = "info";
  else
    name = "debug";
  /* One write per line: lines of several bridges do not mix. */
  {
    g_autofree char *line = g_strdup_printf ("oam-bridge: %s: %s: %s\n", domain, name, message);

    fputs (line, stderr);
    fflush (stderr);
  }
}

static GLogLevelFlags
levels_from (const char *setting)
{
  if (setting == NULL || *setting == '\0')
    return 0;
  if (g_ascii_strcasecmp (setting, "debug") == 0)
    return G_LOG_LEVEL_MASK;
  if (g_ascii_strcasecmp (setting, "info") == 0)
    return G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE |
           G_LOG_LEVEL_INFO;
  if (g_ascii_strcasecmp (setting, "warning") == 0)
    return G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING;
  if (g_ascii_strcasecmp (setting, "error") == 0)
    return G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL;
  /* A value nobody understands: say so once, from the warnings up. */
  fprintf (stderr, "oam-bridge: OAM_BRIDGE_LOG=%s is not one of debug, info, warning, error: "
           "showing warnings\n", setting);
  return G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING;
}

/**
 * gg_oam_abi_log_add_domain:
 * @domain: a log domain of gamegate's
 *
 * Routes @domain's messages through OAM_BRIDGE_LOG (once per domain).
 */
void
gg_oam_abi_log_add_domain (const char *domain)
{
  pthread_mutex_lock (&domains_lock);
  if (!g_hash_table_contains (domains, domain))
    {
      g_log_set_handler (domain, G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION,
                         log_handler, NULL);
      g_hash_table_add (domains, g_strdup (domain));
    }
  pthread_mutex_unlock (&domains_lock);
}

static void
log_init_once (void)
{
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  shown_levels = levels_from (g_getenv ("OAM_BRIDGE_LOG"));
  pthread_mutex_lock (&domains_lock);
  domains = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  pthread_mutex_unlock (&domains_lock);
  for (guint i = 0; known_domains[i] != NULL; i++)
    gg_oam_abi_log_add_domain (known_domains[i]);
}

/**
 * gg_oam_abi_log_init:
 *
 * Once per process: reads OAM_BRIDGE_LOG, handles the known domains, and
 * binds gamegate's message catalog (its own domain only).
 */
void
gg_oam_abi_log_init (void)
{
  /* pthread_once rather than g_once_init_enter(): ThreadSanitizer sees
   * it order the settings before every bridge thread's reads. */
  static pthread_once_t once = PTHREAD_ONCE_INIT;

  pthread_once (&once, log_init_once);
}

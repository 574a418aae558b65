/* fuzz-a2g-redis-reply.c: what a Redis server (or anything listening where
 * a Cluster node or a sentinel should be) answers the Redis store: RESP
 * bytes read by hiredis's reader into replies, each then read as the
 * store reads it: a CLUSTER SLOTS slot map (every range within the slots,
 * its primary an IP address and a port), a sentinel's primary address, and
 * an error as a MOVED or ASK redirection (a slot and an address). A key's
 * slot is in range whatever its braces.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "gg-a2g-redis-private.h"

/* Replies one input may hold (a pipelined answer). */
#define MAX_REPLIES 64

static void
check_range (guint       first,
             guint       last,
             const char *host,
             int         port,
             gpointer    user_data)
{
  guint *ranges = user_data;

  g_assert_cmpuint (first, <=, last);
  g_assert_cmpuint (last, <, GG_A2G_REDIS_SLOTS);
  g_assert_true (g_hostname_is_ip_address (host));
  g_assert_cmpint (port, >=, 1);
  g_assert_cmpint (port, <=, 65535);
  (*ranges)++;
}

static void
read_reply (redisReply *reply)
{
  g_autofree char *host = NULL;
  guint ranges = 0, slot = 0;
  gboolean ask = FALSE;
  int port = 0;

  if (_gg_a2g_redis_parse_slots (reply, check_range, &ranges))
    g_assert_true (reply->type == REDIS_REPLY_ARRAY && ranges == reply->elements);
  if (_gg_a2g_redis_parse_master_addr (reply, &host, &port))
    {
      g_assert_true (g_hostname_is_ip_address (host));
      g_assert_cmpint (port, >=, 1);
      g_clear_pointer (&host, g_free);
    }
  if (reply->type == REDIS_REPLY_ERROR || reply->type == REDIS_REPLY_STATUS || reply->type == REDIS_REPLY_STRING)
    {
      if (_gg_a2g_redis_parse_redirect (reply->str, &ask, &slot, &host, &port))
        {
          g_assert_cmpuint (slot, <, GG_A2G_REDIS_SLOTS);
          g_assert_true (g_hostname_is_ip_address (host));
          g_assert_cmpint (port, >=, 1);
          g_assert_cmpint (port, <=, 65535);
        }
      g_assert_cmpuint (_gg_a2g_redis_key_slot (reply->str, reply->len), <, GG_A2G_REDIS_SLOTS);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  redisReader *reader;
  void *reply = NULL;

  fuzz_init ();
  g_assert_cmpuint (_gg_a2g_redis_key_slot ((const char *) data, size), <, GG_A2G_REDIS_SLOTS);
  reader = redisReaderCreate ();
  redisReaderFeed (reader, (const char *) data, size);
  for (guint i = 0; i < MAX_REPLIES; i++)
    {
      if (redisReaderGetReply (reader, &reply) != REDIS_OK || reply == NULL)
        break;
      read_reply (reply);
      freeReplyObject (reply);
      reply = NULL;
    }
  redisReaderFree (reader);
  return 0;
}

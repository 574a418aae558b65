/* test-a2g-sub-sessions.c: the limit on concurrent sessions per player
 * (a2g-security.md: "SHOULD limit concurrent sessions per player") in the
 * client profile, against the real `gamegate a2g`: a player (the join
 * token's sub) opens `max-sessions-per-sub` sessions, the next one is 429
 * with Retry-After (its join token not spent), another player is not held
 * back, a renewal of one of them is admitted and never counts twice, and a
 * session that ends by not being used frees its slot while one that is
 * used keeps it, for as long as it is used. The same on two replicas
 * sharing a real redis-server, sessions opened and used alternately on
 * both, and the player's keys expiring there.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "a2g-test-jwt.h"
#include "a2g-test-redis.h"

#define PLAYER "p_7f3a9c"
#define OTHER_PLAYER "p_2b8e41"
#define TOO_MANY "Too many sessions for this player."
/* No rate limit on openings gets in the way of the one tested here. */
#define FAST_OPENINGS "sub-open-rate=1000\nsub-open-burst=1000\n"

static gboolean have_redis;

/* Every join and session token a test used: none may reach the log. */
static GPtrArray *secrets;

static void
assert_no_secrets (A2gService *service)
{
  for (guint i = 0; i < secrets->len; i++)
    a2g_assert_no_secret (service, g_ptr_array_index (secrets, i));
}

static void
assert_error (A2gResponse *response,
              guint        status,
              const char  *message,
              const char  *code)
{
  g_autofree char *expected = g_strdup_printf ("{\"a2g\":\"0.1\",\"ok\":false,\"error\":\"%s\",\"code\":\"%s\"}",
                                               message, code);

  g_test_message ("%u %s", response->status, response->body);
  g_assert_cmpuint (response->status, ==, status);
  a2g_assert_json (response->body, expected);
}

/* What `redis-cli` prints for one command to the tests' redis-server. */
static char *
redis_cli (const char * const *command)
{
  g_autofree char *lines = a2g_redis_config (0);   /* "redis=unix:<socket>\n…" */
  char *socket = lines + strlen ("redis=unix:");
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  int status = -1;

  g_assert_true (g_str_has_prefix (lines, "redis=unix:"));
  *strchr (socket, '\n') = '\0';
  g_ptr_array_add (argv, "redis-cli");
  g_ptr_array_add (argv, "-s");
  g_ptr_array_add (argv, socket);
  for (guint i = 0; command[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) command[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  return g_strchomp (out);
}

/* Opens @client_id as the player @sub with @join_token (NULL: a fresh one). */
static A2gResponse *
open_as (A2gService *service,
         const char *client_id,
         const char *sub,
         const char *join_token)
{
  A2gJoin join = a2g_join_good ();
  g_autofree char *fresh = NULL;
  A2gResponse *response;

  join.sub = sub;
  if (join_token == NULL)
    {
      fresh = a2g_join_token (&join);
      g_ptr_array_add (secrets, g_strdup (fresh));
      join_token = fresh;
    }
  response = a2g_join_open (service, client_id, join_token);
  g_test_message ("%s as %s: %u %s", client_id, sub, response->status, response->body);
  if (response->status == 200)
    {
      g_autoptr(JsonObject) object = a2g_json (response);

      g_ptr_array_add (secrets, g_strdup (json_object_get_string_member (object, "session_token")));
    }
  return response;
}

/* Opens and returns the session token. */
static char *
opened (A2gService *service,
        const char *client_id,
        const char *sub)
{
  g_autoptr(A2gResponse) response = open_as (service, client_id, sub, NULL);
  g_autoptr(JsonObject) object = NULL;

  g_assert_cmpuint (response->status, ==, 200);
  object = a2g_json (response);
  return g_strdup (json_object_get_string_member (object, "session_token"));
}

/* The 429 of a player at the limit: its exact body, and a Retry-After of
 * whole seconds within [@min_s, @max_s]. */
static void
assert_refused (A2gResponse *response,
                guint64      min_s,
                guint64      max_s)
{
  const char *retry = soup_message_headers_get_one (response->headers, "Retry-After");
  char *end = NULL;
  guint64 seconds;

  assert_error (response, 429, TOO_MANY, "rate_limited");
  g_assert_nonnull (retry);
  seconds = g_ascii_strtoull (retry, &end, 10);
  g_assert_cmpstr (end, ==, "");
  g_test_message ("Retry-After: %s", retry);
  g_assert_cmpuint (seconds, >=, min_s);
  g_assert_cmpuint (seconds, <=, max_s);
}

static void
refused_as (A2gService *service,
            const char *client_id,
            const char *sub,
            guint64     min_s,
            guint64     max_s)
{
  g_autoptr(A2gResponse) response = open_as (service, client_id, sub, NULL);

  assert_refused (response, min_s, max_s);
}

/* A request that looks the session up, which keeps it alive. */
static void
use_session (A2gService *service,
             const char *client_id,
             const char *token)
{
  g_autofree char *body = g_strdup_printf ("{\"client_id\":\"%s\",\"scopes\":[\"station\"]}", client_id);
  g_autoptr(A2gResponse) response = a2g_proxied_post (service, "/v1/context", token, body);

  g_test_message ("%s", response->body);
  g_assert_cmpuint (response->status, ==, 200);
}

/* Two services: one in memory (@b NULL), or two replicas on one Redis
 * under a new key prefix (@prefix). */
static void
services_start (const char  *extra,
                A2gService **a,
                A2gService **b,
                guint       *prefix)
{
  g_autofree char *redis = NULL;
  g_autofree char *lines = NULL;
  g_autofree char *config = NULL;

  if (b == NULL)
    {
      config = a2g_jwt_client_config (extra);
      *a = a2g_service_start (config);
      return;
    }
  *prefix = a2g_redis_new_prefix ();
  redis = a2g_redis_config_patient (*prefix);
  lines = g_strconcat (extra, redis, NULL);
  config = a2g_jwt_client_config (lines);
  *a = a2g_service_start (config);
  *b = a2g_service_start (config);
}

static gboolean
need_redis (void)
{
  if (!have_redis)
    {
      g_test_skip ("redis-server is not installed");
      return FALSE;
    }
  return TRUE;
}

/* The least Retry-After of a player whose sessions (TTL 60 s) were all
 * opened or used after @since: what is left of the TTL, less a second. */
static guint64
least_wait (gint64 since)
{
  gint64 left_s = 60 - (g_get_monotonic_time () - since) / G_USEC_PER_SEC - 1;

  return (guint64) MAX (left_s, 1);
}

/* N sessions of one player, alternately on @a and @b (the same service in
 * memory): the N+1th is refused on both. */
static void
check_limit (A2gService *a,
             A2gService *b)
{
  A2gService *on[] = { a, b };
  const char *clients[] = { "c_sub_limit_0001", "c_sub_limit_0002", "c_sub_limit_0003" };
  A2gJoin join = a2g_join_good ();
  g_autofree char *unspent = NULL;
  gint64 since = g_get_monotonic_time ();

  for (guint i = 0; i < G_N_ELEMENTS (clients); i++)
    {
      g_autofree char *token = opened (on[i % 2], clients[i], PLAYER);
    }
  /* The fourth: the soonest of the three could end a session TTL (60 s)
   * from its opening, if unused. */
  refused_as (on[1], "c_sub_limit_0004", PLAYER, least_wait (since), 60);
  unspent = a2g_join_token (&join);
  g_ptr_array_add (secrets, g_strdup (unspent));
  {
    g_autoptr(A2gResponse) response = open_as (on[0], "c_sub_limit_0004", PLAYER, unspent);

    assert_refused (response, least_wait (since), 60);
  }
  /* Another player of the same game is not held back. */
  {
    g_autofree char *token = opened (on[1], "c_sub_limit_0005", OTHER_PLAYER);
  }
  /* A renewal of one of the three (new session token) is admitted, with
   * the join token the refusals left unspent... */
  {
    g_autoptr(A2gResponse) renewal = open_as (on[1], clients[0], PLAYER, unspent);

    g_assert_cmpuint (renewal->status, ==, 200);
  }
  {
    /* ...which is spent now. */
    g_autoptr(A2gResponse) again = open_as (on[0], clients[1], PLAYER, unspent);

    assert_error (again, 401, "Join token already used.", "unauthorized");
  }
  {
    g_autofree char *token = opened (on[0], clients[2], PLAYER);
  }
  /* Renewals never count twice: still three. */
  refused_as (on[0], "c_sub_limit_0006", PLAYER, least_wait (since), 60);
  refused_as (on[1], "c_sub_limit_0006", PLAYER, least_wait (since), 60);
  assert_no_secrets (a);
  assert_no_secrets (b);
}

static void
test_limit (void)
{
  A2gService *service;

  services_start ("max-sessions-per-sub=3\nsession-ttl=60\n" FAST_OPENINGS, &service, NULL, NULL);
  check_limit (service, service);
  a2g_service_stop (service);
}

static void
test_limit_redis (void)
{
  A2gService *a, *b;
  guint prefix = 0;

  if (!need_redis ())
    return;
  services_start ("max-sessions-per-sub=3\nsession-ttl=60\n" FAST_OPENINGS, &a, &b, &prefix);
  check_limit (a, b);
  a2g_service_stop (a);
  a2g_service_stop (b);
}

/* With a session TTL of TTL_S and two sessions per player: the one not
 * used ends and frees its slot; the one used keeps its own. */
#define TTL_S 5

static void
check_expiry (A2gService *a,
              A2gService *b)
{
  g_autofree char *kept = opened (a, "c_sub_ttl_0001", PLAYER);
  g_autofree char *idle = opened (b, "c_sub_ttl_0002", PLAYER);
  gint64 idle_opened = g_get_monotonic_time ();
  guint uses = 0;

  refused_as (a, "c_sub_ttl_0003", PLAYER, 1, TTL_S);
  /* Past the idle one's end (its TTL, plus a margin), the kept one used
   * all along, on both replicas in turn. */
  while (g_get_monotonic_time () < idle_opened + (TTL_S * 1000 + 500) * 1000)
    {
      use_session (uses++ % 2 == 0 ? b : a, "c_sub_ttl_0001", kept);
      g_usleep (500 * 1000);
    }
  {
    g_autofree char *token = opened (a, "c_sub_ttl_0003", PLAYER);
  }
  refused_as (b, "c_sub_ttl_0004", PLAYER, 1, TTL_S);
  use_session (a, "c_sub_ttl_0001", kept);
  assert_no_secrets (a);
  assert_no_secrets (b);
}

static void
test_expiry (void)
{
  A2gService *service;

  services_start ("max-sessions-per-sub=2\nsession-ttl=" G_STRINGIFY (TTL_S) "\n" FAST_OPENINGS, &service, NULL, NULL);
  check_expiry (service, service);
  a2g_service_stop (service);
}

static void
test_expiry_redis (void)
{
  A2gService *a, *b;
  guint prefix = 0;

  if (!need_redis ())
    return;
  services_start ("max-sessions-per-sub=2\nsession-ttl=" G_STRINGIFY (TTL_S) "\n" FAST_OPENINGS, &a, &b, &prefix);
  check_expiry (a, b);
  {
    /* The player's claims and a session's owner expire (idle: within the
     * TTL and the pending time, TTL_S each), they do not live forever. */
    g_autofree char *set = g_strdup_printf ("t%u:{u:orbital-freight/" PLAYER "}", prefix);
    g_autofree char *owner = g_strdup_printf ("t%u:{s:c_sub_ttl_0001}:sub", prefix);
    const char *set_ttl[] = { "PTTL", set, NULL };
    const char *owner_ttl[] = { "PTTL", owner, NULL };
    const char *members[] = { "SORT", set, "ALPHA", NULL };   /* in any order of their scores */
    g_autofree char *set_ms = redis_cli (set_ttl);
    g_autofree char *owner_ms = redis_cli (owner_ttl);
    g_autofree char *claims = redis_cli (members);

    g_test_message ("PTTL %s %s, %s; members: %s", set_ms, owner_ms, owner, claims);
    g_assert_cmpint (g_ascii_strtoll (set_ms, NULL, 10), >, 0);
    g_assert_cmpint (g_ascii_strtoll (set_ms, NULL, 10), <=, 2 * TTL_S * 1000);
    g_assert_cmpint (g_ascii_strtoll (owner_ms, NULL, 10), >, 0);
    g_assert_cmpint (g_ascii_strtoll (owner_ms, NULL, 10), <=, 2 * TTL_S * 1000);
    /* The session that ended is no longer one of the player's. */
    g_assert_cmpstr (claims, ==, "c_sub_ttl_0001\nc_sub_ttl_0003");
  }
  a2g_service_stop (a);
  a2g_service_stop (b);
}

/* A session used for longer than its player's claims would live unused
 * (TTL 2 s, pending 2 s: 4 s) still counts: each use renews them. */
static void
check_kept_alive (A2gService *a,
                  A2gService *b)
{
  g_autofree char *kept = opened (a, "c_sub_alive_0001", PLAYER);
  gint64 start = g_get_monotonic_time ();
  guint uses = 0;

  while (g_get_monotonic_time () < start + 5 * G_USEC_PER_SEC)
    {
      use_session (uses++ % 2 == 0 ? b : a, "c_sub_alive_0001", kept);
      g_usleep (400 * 1000);
    }
  refused_as (b, "c_sub_alive_0002", PLAYER, 1, 2);
  refused_as (a, "c_sub_alive_0002", PLAYER, 1, 2);
  assert_no_secrets (a);
  assert_no_secrets (b);
}

static void
test_kept_alive (void)
{
  A2gService *service;

  services_start ("max-sessions-per-sub=1\nsession-ttl=2\n" FAST_OPENINGS, &service, NULL, NULL);
  check_kept_alive (service, service);
  a2g_service_stop (service);
}

static void
test_kept_alive_redis (void)
{
  A2gService *a, *b;
  guint prefix = 0;

  if (!need_redis ())
    return;
  services_start ("max-sessions-per-sub=1\nsession-ttl=2\n" FAST_OPENINGS, &a, &b, &prefix);
  check_kept_alive (a, b);
  a2g_service_stop (a);
  a2g_service_stop (b);
}

/* 0: no limit. */
static void
test_unlimited (void)
{
  A2gService *service;

  services_start ("max-sessions-per-sub=0\n" FAST_OPENINGS, &service, NULL, NULL);
  for (guint i = 0; i < 12; i++)
    {
      g_autofree char *client = g_strdup_printf ("c_sub_many_%04u", i);
      g_autofree char *token = opened (service, client, PLAYER);
    }
  a2g_service_stop (service);
}

/* A join token of another player never takes a live session over (with or
 * without a limit): 403, its join token unspent; once the session ended,
 * the client_id is free again. */
static void
check_other_player (A2gService *a,
                    A2gService *b)
{
  A2gJoin join = a2g_join_good ();
  g_autofree char *token = opened (a, "c_sub_owned_0001", PLAYER);
  g_autofree char *unspent = NULL;

  join.sub = OTHER_PLAYER;
  unspent = a2g_join_token (&join);
  g_ptr_array_add (secrets, g_strdup (unspent));
  {
    g_autoptr(A2gResponse) response = open_as (b, "c_sub_owned_0001", OTHER_PLAYER, unspent);

    assert_error (response, 403, "This client_id is another player's session.", "forbidden");
  }
  {
    /* The session is untouched: its token still works. */
    use_session (a, "c_sub_owned_0001", token);
    use_session (b, "c_sub_owned_0001", token);
  }
  {
    /* Its own client_id, with the same (unspent) join token. */
    g_autoptr(A2gResponse) response = open_as (b, "c_sub_owned_0002", OTHER_PLAYER, unspent);

    g_assert_cmpuint (response->status, ==, 200);
  }
  {
    /* The owner renews as always. */
    g_autofree char *renewed = opened (b, "c_sub_owned_0001", PLAYER);
  }
  assert_no_secrets (a);
  assert_no_secrets (b);
}

static void
test_other_player (void)
{
  A2gService *service;

  services_start ("max-sessions-per-sub=3\n" FAST_OPENINGS, &service, NULL, NULL);
  check_other_player (service, service);
  a2g_service_stop (service);
  services_start ("max-sessions-per-sub=0\n" FAST_OPENINGS, &service, NULL, NULL);
  check_other_player (service, service);
  a2g_service_stop (service);
}

static void
test_other_player_redis (void)
{
  A2gService *a, *b;
  guint prefix = 0;

  if (!need_redis ())
    return;
  services_start ("max-sessions-per-sub=0\n" FAST_OPENINGS, &a, &b, &prefix);
  check_other_player (a, b);
  a2g_service_stop (a);
  a2g_service_stop (b);
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  a2g_jwt_keys_make ();
  secrets = g_ptr_array_new_with_free_func (g_free);
  have_redis = a2g_redis_setup ();
  g_test_add_func ("/a2g/sub-sessions/limit", test_limit);
  g_test_add_func ("/a2g/sub-sessions/expiry", test_expiry);
  g_test_add_func ("/a2g/sub-sessions/kept-alive", test_kept_alive);
  g_test_add_func ("/a2g/sub-sessions/unlimited", test_unlimited);
  g_test_add_func ("/a2g/sub-sessions/other-player", test_other_player);
  g_test_add_func ("/a2g/sub-sessions/redis/other-player", test_other_player_redis);
  g_test_add_func ("/a2g/sub-sessions/redis/limit", test_limit_redis);
  g_test_add_func ("/a2g/sub-sessions/redis/expiry", test_expiry_redis);
  g_test_add_func ("/a2g/sub-sessions/redis/kept-alive", test_kept_alive_redis);
  status = g_test_run ();
  if (have_redis)
    a2g_redis_teardown ();
  g_ptr_array_unref (secrets);
  a2g_jwt_keys_free ();
  return status;
}

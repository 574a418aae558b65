/* refgame-sim.c: the Crate Stacker simulation (see refgame-sim.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "refgame-sim.h"

#include <stdarg.h>
#include <math.h>

typedef enum {
  RG_KIND_WOOD,
  RG_KIND_STEEL,
  RG_KIND_ICE,
  RG_N_KINDS
} RgKind;

static const struct {
  const char *name;
  int         width;    /* centi-units */
  int         points;
} kinds[RG_N_KINDS] = {
  [RG_KIND_WOOD]  = { "wood",  50, 10 },
  [RG_KIND_STEEL] = { "steel", 40, 20 },
  [RG_KIND_ICE]   = { "ice",   60, 15 },
};

typedef struct {
  guint    id;
  RgKind   kind;
  int      width;
  int      x;
  int      y;
  gboolean falling;
} RgCrate;

struct _RgSim {
  guint64   seed;
  guint64   rng;
  gint64    score;
  gboolean  game_over;
  guint     next_crate_id;
  guint     dropped;
  gboolean  holding;
  RgCrate   held;
  GArray   *crates;          /* RgCrate, landed and falling */
  char     *events[RG_MAX_EVENTS];
  guint     event_head;      /* index of the oldest event */
  guint     n_events;
};

/* splitmix64: tiny, well-distributed and trivially reproducible. */
static guint64
rng_next (RgSim *sim)
{
  guint64 z = (sim->rng += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static void
reset (RgSim *sim)
{
  sim->rng = sim->seed;
  sim->score = 0;
  sim->game_over = FALSE;
  sim->next_crate_id = 1;
  sim->dropped = 0;
  sim->holding = FALSE;
  g_array_set_size (sim->crates, 0);
}

/**
 * rg_sim_new:
 * @seed: the seed every crate kind is drawn from
 *
 * Returns: (transfer full): a fresh running game.
 */
RgSim *
rg_sim_new (guint64 seed)
{
  RgSim *sim = g_new0 (RgSim, 1);

  sim->seed = seed;
  sim->crates = g_array_new (FALSE, TRUE, sizeof (RgCrate));
  reset (sim);
  return sim;
}

void
rg_sim_free (RgSim *sim)
{
  if (sim == NULL)
    return;
  for (guint i = 0; i < RG_MAX_EVENTS; i++)
    g_free (sim->events[i]);
  g_array_unref (sim->crates);
  g_free (sim);
}

/**
 * rg_sim_add_event:
 * @sim: the game
 * @format: printf-style message, e.g. "land:wood"
 *
 * Appends to the bounded list of recent events; the oldest falls off.
 */
void
rg_sim_add_event (RgSim      *sim,
                  const char *format,
                  ...)
{
  va_list ap;
  guint slot;

  if (sim->n_events == RG_MAX_EVENTS)
    {
      slot = sim->event_head;
      sim->event_head = (sim->event_head + 1) % RG_MAX_EVENTS;
      g_free (sim->events[slot]);
    }
  else
    {
      slot = (sim->event_head + sim->n_events) % RG_MAX_EVENTS;
      sim->n_events++;
    }
  va_start (ap, format);
  sim->events[slot] = g_strdup_vprintf (format, ap);
  va_end (ap);
}

gboolean
rg_sim_is_game_over (RgSim *sim)
{
  return sim->game_over;
}

gint64
rg_sim_get_score (RgSim *sim)
{
  return sim->score;
}

guint
rg_sim_get_n_crates (RgSim *sim)
{
  return sim->crates->len;
}

static void
scene_crate (const RgCrate *c,
             RgSceneCrate  *out)
{
  out->kind = c->kind;
  out->x = c->x;
  out->y = c->y;
  out->width = c->width;
  out->falling = c->falling;
}

/**
 * rg_sim_get_crate:
 * @sim: the game
 * @i: an index below rg_sim_get_n_crates()
 * @out: (out caller-allocates): the crate, landed or falling
 */
void
rg_sim_get_crate (RgSim        *sim,
                  guint         i,
                  RgSceneCrate *out)
{
  g_return_if_fail (i < sim->crates->len);
  scene_crate (&g_array_index (sim->crates, RgCrate, i), out);
}

gboolean
rg_sim_get_held (RgSim        *sim,
                 RgSceneCrate *out)
{
  if (!sim->holding)
    return FALSE;
  scene_crate (&sim->held, out);
  return TRUE;
}

static int
clamp_x (int x,
         int width)
{
  return CLAMP (x, -RG_WORLD_HALF_WIDTH + width / 2, RG_WORLD_HALF_WIDTH - width / 2);
}

/* World units (validated finite and bounded by the command parser) to centi-units. */
static int
to_centi (double v)
{
  return (int) lround (CLAMP (v, -1e6, 1e6) * 100.0);
}

/* Top of the stack under a crate of @width at @x, ignoring falling crates. */
static int
rest_height (RgSim *sim,
             int    x,
             int    width)
{
  int top = 0;

  for (guint i = 0; i < sim->crates->len; i++)
    {
      const RgCrate *c = &g_array_index (sim->crates, RgCrate, i);

      if (c->falling)
        continue;
      if (ABS (c->x - x) * 2 < c->width + width && c->y + RG_CRATE_HEIGHT > top)
        top = c->y + RG_CRATE_HEIGHT;
    }
  return top;
}

static void
land (RgSim   *sim,
      RgCrate *c,
      int      rest)
{
  int level = rest / RG_CRATE_HEIGHT;
  gint64 gain = kinds[c->kind].points + 5 * level;

  c->y = rest;
  c->falling = FALSE;
  sim->score += gain;
  rg_sim_add_event (sim, "land:%s:level%d", kinds[c->kind].name, level);
  rg_sim_add_event (sim, "score:+%" G_GINT64_FORMAT, gain);
  if (!sim->game_over && rest + RG_CRATE_HEIGHT >= RG_MAX_HEIGHT)
    {
      sim->game_over = TRUE;
      rg_sim_add_event (sim, "game_over:%" G_GINT64_FORMAT, sim->score);
    }
}

/**
 * rg_sim_step:
 * @sim: the game
 *
 * Advances the world by one simulation frame: falling crates move down and
 * land on the stack below them.
 */
void
rg_sim_step (RgSim *sim)
{
  for (guint i = 0; i < sim->crates->len; i++)
    {
      RgCrate *c = &g_array_index (sim->crates, RgCrate, i);
      int rest;

      if (!c->falling)
        continue;
      rest = rest_height (sim, c->x, c->width);
      if (c->y - RG_FALL_SPEED <= rest)
        land (sim, c, rest);
      else
        c->y -= RG_FALL_SPEED;
    }
}

static void
settle_falling (RgSim *sim)
{
  for (guint i = 0; i < sim->crates->len; i++)
    {
      RgCrate *c = &g_array_index (sim->crates, RgCrate, i);

      if (c->falling)
        land (sim, c, rest_height (sim, c->x, c->width));
    }
}

static gboolean
kind_from_name (const char *name,
                RgKind     *kind)
{
  for (int k = 0; k < RG_N_KINDS; k++)
    if (g_strcmp0 (kinds[k].name, name) == 0)
      {
        *kind = k;
        return TRUE;
      }
  return FALSE;
}

static void
do_spawn (RgSim      *sim,
          JsonObject *args)
{
  RgKind kind;
  int width;
  const char *kind_name = NULL;
  JsonObject *crate = NULL;

  if (sim->holding)
    {
      rg_sim_add_event (sim, "spawn:already_holding");
      return;
    }
  if (json_object_has_member (args, "crate"))
    crate = json_object_get_object_member (args, "crate");
  if (crate != NULL && json_object_has_member (crate, "kind"))
    kind_name = json_object_get_string_member (crate, "kind");
  else if (json_object_has_member (args, "kind"))
    kind_name = json_object_get_string_member (args, "kind");

  /* The draw happens either way, so naming a kind does not shift later crates. */
  kind = rng_next (sim) % RG_N_KINDS;
  if (kind_name != NULL && !kind_from_name (kind_name, &kind))
    {
      rg_sim_add_event (sim, "spawn:bad_kind");
      return;
    }
  width = kinds[kind].width;
  if (crate != NULL && json_object_has_member (crate, "width"))
    width = CLAMP (to_centi (json_object_get_double_member (crate, "width")), 20, 100);

  sim->holding = TRUE;
  sim->held.id = sim->next_crate_id++;
  sim->held.kind = kind;
  sim->held.width = width;
  sim->held.x = 0;
  sim->held.y = RG_DROP_HEIGHT;
  sim->held.falling = FALSE;
  rg_sim_add_event (sim, "spawn:%s", kinds[kind].name);
}

static void
do_move (RgSim      *sim,
         JsonObject *args)
{
  double dx = 0.05;

  if (!sim->holding)
    {
      rg_sim_add_event (sim, "move:nothing_held");
      return;
    }
  if (json_object_has_member (args, "dx"))
    dx = json_object_get_double_member (args, "dx");
  sim->held.x = clamp_x (sim->held.x + to_centi (dx), sim->held.width);
  rg_sim_add_event (sim, "move:%d", sim->held.x);
}

static void
do_drop (RgSim      *sim,
         JsonObject *args)
{
  gboolean settle = TRUE;
  RgCrate crate;

  if (!sim->holding)
    {
      rg_sim_add_event (sim, "drop:nothing_held");
      return;
    }
  if (sim->crates->len >= RG_MAX_CRATES)
    {
      rg_sim_add_event (sim, "drop:too_many_crates");
      return;
    }
  /* A crate still falling lands first: the world after a drop then depends on
   * the order of commands only, never on how many frames ran between them. */
  settle_falling (sim);
  if (sim->game_over)
    {
      rg_sim_add_event (sim, "ignored:drop:game_over");
      return;
    }
  if (json_object_has_member (args, "x"))
    sim->held.x = clamp_x (to_centi (json_object_get_double_member (args, "x")), sim->held.width);
  if (json_object_has_member (args, "settle"))
    settle = json_object_get_boolean_member (args, "settle");

  crate = sim->held;
  crate.falling = TRUE;
  sim->holding = FALSE;
  sim->dropped++;
  rg_sim_add_event (sim, "drop:%s", kinds[crate.kind].name);
  g_array_append_val (sim->crates, crate);
  if (settle)
    {
      RgCrate *c = &g_array_index (sim->crates, RgCrate, sim->crates->len - 1);
      land (sim, c, rest_height (sim, c->x, c->width));
    }
}

/**
 * rg_sim_apply:
 * @sim: the game
 * @command: a game command (spawn, drop, move, restart, set_seed, set_score)
 * @args: its arguments, already validated and typed by the command parser
 *
 * Applies one command on the game thread.  A command the current state does
 * not allow is reported as an event, never as a failure.
 */
void
rg_sim_apply (RgSim      *sim,
              const char *command,
              JsonObject *args)
{
  gboolean needs_running = g_str_equal (command, "spawn") || g_str_equal (command, "drop") ||
                           g_str_equal (command, "move");

  if (needs_running && sim->game_over)
    {
      rg_sim_add_event (sim, "ignored:%s:game_over", command);
      return;
    }
  if (g_str_equal (command, "spawn"))
    do_spawn (sim, args);
  else if (g_str_equal (command, "drop"))
    do_drop (sim, args);
  else if (g_str_equal (command, "move"))
    do_move (sim, args);
  else if (g_str_equal (command, "restart"))
    {
      reset (sim);
      rg_sim_add_event (sim, "restart");
    }
  else if (g_str_equal (command, "set_seed"))
    {
      sim->seed = (guint64) json_object_get_int_member (args, "seed");
      reset (sim);
      rg_sim_add_event (sim, "seed:%" G_GUINT64_FORMAT, sim->seed);
    }
  else if (g_str_equal (command, "set_score"))
    {
      sim->score = json_object_get_int_member (args, "score");
      rg_sim_add_event (sim, "score:=%" G_GINT64_FORMAT, sim->score);
    }
  else
    rg_sim_add_event (sim, "unknown:%s", command);
}

void
rg_json_write_string (GString    *out,
                      const char *str)
{
  g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), str);
  g_autofree char *text = json_to_string (node, FALSE);

  g_string_append (out, text);
}

/* Prints a centi-unit value as a short decimal: 120 -> 1.2, -5 -> -0.05, 200 -> 2. */
void
rg_json_write_centi (GString *out,
                     gint64   centi)
{
  guint64 mag = centi < 0 ? (guint64) -(centi + 1) + 1 : (guint64) centi;
  guint frac = mag % 100;

  if (centi < 0)
    g_string_append_c (out, '-');
  g_string_append_printf (out, "%" G_GUINT64_FORMAT, mag / 100);
  if (frac % 10 != 0)
    g_string_append_printf (out, ".%02u", frac);
  else if (frac != 0)
    g_string_append_printf (out, ".%u", frac / 10);
}

static void
write_crate (GString       *out,
             const RgCrate *c)
{
  g_string_append_printf (out, "{\"id\":%u,\"kind\":\"%s\",\"x\":", c->id, kinds[c->kind].name);
  rg_json_write_centi (out, c->x);
  g_string_append (out, ",\"y\":");
  rg_json_write_centi (out, c->y);
  g_string_append (out, ",\"width\":");
  rg_json_write_centi (out, c->width);
  g_string_append_printf (out, ",\"falling\":%s}", c->falling ? "true" : "false");
}

/**
 * rg_sim_write_game:
 * @sim: the game
 * @out: where the JSON object goes
 *
 * Appends the "game" object of /state: score, state, seed, the held crate
 * and every crate in the world.
 */
void
rg_sim_write_game (RgSim   *sim,
                   GString *out)
{
  gboolean settled = TRUE;
  int height = 0;

  for (guint i = 0; i < sim->crates->len; i++)
    {
      const RgCrate *c = &g_array_index (sim->crates, RgCrate, i);

      if (c->falling)
        settled = FALSE;
      else
        height = MAX (height, c->y + RG_CRATE_HEIGHT);
    }

  g_string_append_printf (out,
                          "{\"score\":%" G_GINT64_FORMAT ",\"state\":\"%s\",\"seed\":%" G_GUINT64_FORMAT
                          ",\"dropped\":%u,\"settled\":%s,\"height\":",
                          sim->score, sim->game_over ? "GAME_OVER" : "RUNNING", sim->seed,
                          sim->dropped, settled ? "true" : "false");
  rg_json_write_centi (out, height);
  g_string_append (out, ",\"maxHeight\":");
  rg_json_write_centi (out, RG_MAX_HEIGHT);
  g_string_append (out, ",\"held\":");
  if (sim->holding)
    write_crate (out, &sim->held);
  else
    g_string_append (out, "null");
  g_string_append (out, ",\"crates\":[");
  for (guint i = 0; i < sim->crates->len; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      write_crate (out, &g_array_index (sim->crates, RgCrate, i));
    }
  g_string_append (out, "]}");
}

/**
 * rg_sim_write_events:
 * @sim: the game
 * @out: where the JSON array goes
 *
 * Appends the recent events, oldest first, as [{"m": "..."}].
 */
void
rg_sim_write_events (RgSim   *sim,
                     GString *out)
{
  g_string_append_c (out, '[');
  for (guint i = 0; i < sim->n_events; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      g_string_append (out, "{\"m\":");
      rg_json_write_string (out, sim->events[(sim->event_head + i) % RG_MAX_EVENTS]);
      g_string_append_c (out, '}');
    }
  g_string_append_c (out, ']');
}

/**
 * rg_sim_write_ui:
 * @sim: the game
 * @paused: whether the game loop is paused
 * @out: where the JSON object goes
 *
 * Appends the "ui" object: the current screen and its elements.
 */
void
rg_sim_write_ui (RgSim    *sim,
                 gboolean  paused,
                 GString  *out)
{
  g_string_append_printf (out,
                          "{\"screen\":\"%s\",\"elements\":["
                          "{\"label\":\"Score\",\"visible\":true},"
                          "{\"label\":\"Paused\",\"visible\":%s},"
                          "{\"label\":\"Restart\",\"visible\":%s}]}",
                          sim->game_over ? "GameOverScreen" : "GameScreen",
                          paused ? "true" : "false",
                          sim->game_over ? "true" : "false");
}

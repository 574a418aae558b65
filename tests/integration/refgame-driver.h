/* refgame-driver.h: spawning the reference game and talking to it, for its tests.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

#define TIMEOUT_MS 20000

/* One spawned gamegate-refgame, its output as read so far and a session. */
typedef struct {
  GSubprocess      *proc;
  GDataInputStream *out;
  GDataInputStream *err;
  GPtrArray        *out_lines;
  GString          *err_text;
  guint             open_streams;
  guint             port;
  char             *registry_dir;
  SoupSession      *session;
  gboolean          exited;
} Game;

void        pump                (guint               ms);
gboolean    output_has          (Game               *game,
                                 const char         *needle);
void        wait_output         (Game               *game,
                                 const char         *needle);
void        wait_stderr         (Game               *game,
                                 const char         *needle);
void        wait_exit           (Game               *game);
Game       *game_spawn_full     (const char * const *args,
                                 const char         *cwd,
                                 const char * const *env,
                                 gboolean            expect_port);
Game       *game_spawn          (const char         *first,
                                 ...) G_GNUC_NULL_TERMINATED;
void        game_free           (Game               *game);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Game, game_free)

JsonNode   *http_get            (Game               *game,
                                 const char         *path_query,
                                 guint              *out_status);
JsonObject *get_object          (Game               *game,
                                 const char         *path_query,
                                 guint               status);
gint64      send_command        (Game               *game,
                                 const char         *query);
JsonObject *wait_applied        (Game               *game,
                                 gint64              id);
JsonObject *wait_frame          (Game               *game,
                                 gint64              frame);
gint64      command_and_wait    (Game               *game,
                                 const char         *query);
JsonObject *game_object         (JsonObject         *state);
gboolean    has_event           (JsonObject         *state,
                                 const char         *m);
char       *registry_entry_path (Game               *game);
void        assert_port_silent  (Game               *game);
guint       raw_request         (guint               port,
                                 const char         *request,
                                 gsize               len,
                                 char              **out_body);
guint       raw_get             (Game               *game,
                                 const char         *target,
                                 char              **out_body);
JsonObject *read_json_file      (const char         *path);
/* GET of any body (a screenshot); @out_type: the Content-Type. */
GBytes     *http_get_bytes      (Game               *game,
                                 const char         *path_query,
                                 guint              *out_status,
                                 char              **out_type);
/* The pixel at the middle of a crate of the state (world units, as /state
 * has them) in a W x H frame: the projection of refgame-render.h. */
void        crate_pixel         (JsonObject         *crate,
                                 guint               width,
                                 guint               height,
                                 guint              *out_x,
                                 guint              *out_y);

G_END_DECLS

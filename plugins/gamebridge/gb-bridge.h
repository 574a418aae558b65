/* gb-bridge.h: the game bridge logic of the gamebridge plugin (plugin-internal):
 * error classes, the tolerant manifest, the HTTP connector of one port, the
 * bus target, discovery, the launcher and the options.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gamegate.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

#define GB_DEFAULT_PORT        7777
#define GB_DEFAULT_TIMEOUT_MS  5000
#define GB_DEFAULT_SCAN_RANGE  "7777,7800-7810"
#define GB_MAX_SCAN_PORTS      512
#define GB_LOG_LINES           200
#define GB_POLL_INTERVAL_MS    16

/* ---- errors (gb-errors.c): the classes of spec section 5 ---------------- */

#define GB_ERROR (gb_error_quark ())
GQuark gb_error_quark (void);

typedef enum {
  GB_ERROR_GAME_OFFLINE,
  GB_ERROR_NOT_A_GAME_SURFACE,
  GB_ERROR_COMMAND_TIMEOUT,
  GB_ERROR_HTTP_STATUS,
  GB_ERROR_USAGE,
  GB_ERROR_COMMAND_REJECTED,
} GbErrorCode;

void  gb_error_game_offline    (GError    **error,
                                guint       port,
                                const char *launch_hint);
void  gb_error_not_a_game      (GError    **error,
                                guint       port,
                                const char *what);
void  gb_error_command_timeout (GError    **error,
                                const char *command,
                                guint       port,
                                guint       timeout_ms);
void  gb_error_http_status     (GError    **error,
                                guint       port,
                                const char *path,
                                guint       status,
                                const char *body,
                                gsize       body_len);
void  gb_error_usage           (GError    **error,
                                const char *format,
                                ...) G_GNUC_PRINTF (2, 3);
char *gb_substitute_port       (const char *text,
                                guint       port);

/* ---- options (gb-options.c): CLI, environment, config ------------------ */

typedef struct {
  int       port;          /* 0 = not given */
  char     *scan_range;
  gboolean  no_scan;
  gboolean  no_registry;
  char     *registry_dir;
  char     *config;
  char     *launch_hint;
  char     *manifest;
  gboolean  eager;
  int       timeout_ms;    /* 0 = not given */
} GbOptions;

void      gb_options_clear            (GbOptions *options);
GOptionEntry *gb_options_entries      (GbOptions *options);
gboolean  gb_options_resolve          (GbOptions  *options,
                                       GError    **error);
char     *gb_options_default_registry_dir (void);

/* ---- the manifest (gb-manifest.c) -------------------------------------- */

typedef struct {
  char       *name;
  char       *description;
  char       *command;
  char       *toolset;
  JsonObject *input_schema;
} GbTool;

typedef struct {
  char      *name;
  char      *description;
  GPtrArray *tools;        /* GbTool */
} GbToolset;

typedef struct {
  char      *source;       /* "game", "fallback", "file" */
  char      *game_name;
  char      *game_version;
  gint64     protocol;     /* -1 = unknown */
  GPtrArray *toolsets;     /* GbToolset */
  char      *passthrough_description;
  JsonArray *passthrough_examples;
  guint      dropped;      /* malformed tools left out */
} GbManifest;

void          gb_tool_free             (GbTool *tool);
void          gb_toolset_free          (GbToolset *toolset);
GbManifest   *gb_manifest_parse        (JsonNode    *root,
                                        const char  *source,
                                        GError     **error);
GbManifest   *gb_manifest_new_fallback (void);
GbManifest   *gb_manifest_load_file    (const char  *path,
                                        GError     **error);
GbManifest   *gb_manifest_ref          (GbManifest *self);
void          gb_manifest_unref        (GbManifest *self);
const GbTool *gb_manifest_find_tool    (GbManifest *self,
                                        const char *name);
const GbToolset *gb_manifest_find_toolset (GbManifest *self,
                                           const char *name);
JsonArray    *gb_manifest_toolset_names (GbManifest *self);
JsonObject   *gb_tool_to_json          (const GbTool *tool);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GbManifest, gb_manifest_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GbToolset, gb_toolset_free)

/* ---- the bridge toolset (gb-bridge-toolset.c) --------------------------- */

GbToolset    *gb_bridge_toolset        (void);
gboolean      gb_bridge_toolset_has    (const char *name);

/* ---- the HTTP connector of one port (gb-connector.c) -------------------- */

#define GB_TYPE_CONNECTOR (gb_connector_get_type ())
G_DECLARE_FINAL_TYPE (GbConnector, gb_connector, GB, CONNECTOR, GObject)

/* Signal `manifest-changed` (): the cached manifest was dropped (the frame
 * went backwards: a new process) or loaded afresh. */

GbConnector *gb_connector_new            (SoupSession *session,
                                          guint        port,
                                          guint        timeout_ms,
                                          const char  *launch_hint,
                                          GbManifest  *file_manifest);
guint        gb_connector_get_port       (GbConnector *self);
guint        gb_connector_get_timeout    (GbConnector *self);
void         gb_connector_set_launch_hint (GbConnector *self,
                                           const char  *launch_hint);
GbManifest  *gb_connector_peek_manifest  (GbConnector *self);
void         gb_connector_drop_manifest  (GbConnector *self);
/* GET @path_query -> parsed JSON, with the timeout and error classes. */
void         gb_connector_get_async      (GbConnector         *self,
                                          const char          *path_query,
                                          guint                timeout_ms,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
JsonNode    *gb_connector_get_finish     (GbConnector   *self,
                                          GAsyncResult  *result,
                                          guint         *out_status,
                                          GError       **error);
/* GET /health, checked: {"ok":true,...}, else NotAGameSurface. */
void         gb_connector_health_async   (GbConnector         *self,
                                          guint                timeout_ms,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
JsonObject  *gb_connector_health_finish  (GbConnector   *self,
                                          GAsyncResult  *result,
                                          GError       **error);
void         gb_connector_state_async    (GbConnector         *self,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
JsonNode    *gb_connector_state_finish   (GbConnector   *self,
                                          GAsyncResult  *result,
                                          GError       **error);
/* The manifest: cached; GET /tools; 404 -> the --manifest file or the fallback. */
void         gb_connector_manifest_async (GbConnector         *self,
                                          gboolean             reload,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
GbManifest  *gb_connector_manifest_finish(GbConnector   *self,
                                          GAsyncResult  *result,
                                          GError       **error);
/* Command and sync: the result object of spec section 4 (without
 * port/tool/via, which the caller adds). `close` waits for silence. */
void         gb_connector_command_async  (GbConnector         *self,
                                          const char          *command,
                                          JsonObject          *arguments,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
JsonObject  *gb_connector_command_finish (GbConnector   *self,
                                          GAsyncResult  *result,
                                          GError       **error);
/* Builds the query of a command: cmd first, objects JSON-encoded, null skipped. */
char        *gb_command_query            (const char  *command,
                                          JsonObject  *arguments,
                                          GError     **error);

/* ---- the bus target (gb-target.c) --------------------------------------- */

#define GB_TYPE_HTTP_TARGET (gb_http_target_get_type ())
G_DECLARE_FINAL_TYPE (GbHttpTarget, gb_http_target, GB, HTTP_TARGET, GObject)

GbHttpTarget *gb_http_target_new            (GbConnector *connector);
GbConnector  *gb_http_target_get_connector  (GbHttpTarget *self);
void          gb_http_target_set_info       (GbHttpTarget *self,
                                             JsonObject   *info);
/* call_tool with resolution: bridge toolset, manifest (one reload on a
 * miss), passthrough. Result: the section 4 result object. */

/* ---- registry (gb-registry.c) ------------------------------------------- */

typedef struct {
  guint  port;
  gint64 pid;       /* 0 = unknown */
  char  *name;
  char  *version;
  gint64 protocol;  /* -1 = unknown */
  char  *host;
  char  *started;
  char  *cwd;
  char  *file;
} GbRegistryEntry;

void       gb_registry_entry_free (GbRegistryEntry *entry);
/* Reads @dir: entries by port (later `started` wins) and the unreadable
 * files as {"file","error"} objects appended to @problems. */
GHashTable *gb_registry_read      (const char *dir,
                                   JsonArray  *problems);

/* ---- scan ranges and sweeps (gb-scan.c) --------------------------------- */

GArray   *gb_scan_parse_range (const char  *spec,
                               GError     **error);
typedef enum {
  GB_PROBE_LIVE,
  GB_PROBE_NOT_A_GAME,
  GB_PROBE_FREE,
} GbProbeKind;

typedef struct {
  guint       port;
  GbProbeKind kind;
  JsonObject *health;   /* live */
  char       *reason;   /* not a game */
} GbProbe;

void       gb_probe_free (GbProbe *probe);
/* Health-checks every port of @ports, at most @concurrency at once; the
 * result is a GPtrArray of GbProbe in the order of @ports. */
void       gb_scan_async  (SoupSession         *session,
                           GArray              *ports,
                           guint                timeout_ms,
                           guint                concurrency,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data);
GPtrArray *gb_scan_finish (GAsyncResult  *result,
                           GError       **error);

/* ---- launch declaration (gb-launch-config.c) ---------------------------- */

typedef struct {
  char   *file;
  char   *dir;         /* the file's directory */
  char   *name;
  char   *command;     /* or argv */
  char  **argv;
  char   *cwd;         /* absolute */
  char  **env;         /* KEY=VALUE */
  guint   port_first;
  guint   port_last;
  guint   ready_timeout_ms;
} GbLaunchConfig;

void            gb_launch_config_free  (GbLaunchConfig *config);
char           *gb_launch_config_find  (const char *start_dir);
GbLaunchConfig *gb_launch_config_load  (const char  *path,
                                        GError     **error);
char           *gb_launch_config_describe_command (GbLaunchConfig *config,
                                                   guint           port);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GbLaunchConfig, gb_launch_config_free)

/* ---- launcher (gb-launcher.c) ------------------------------------------- */

#define GB_TYPE_LAUNCHER (gb_launcher_get_type ())
G_DECLARE_FINAL_TYPE (GbLauncher, gb_launcher, GB, LAUNCHER, GObject)

typedef void (*GbLaunchProgress) (double elapsed_ms, double total_ms, const char *message, gpointer user_data);

GbLauncher *gb_launcher_new              (SoupSession *session);
void        gb_launcher_launch_async     (GbLauncher          *self,
                                          GbLaunchConfig      *config,
                                          guint                port,
                                          guint                timeout_ms,
                                          GbLaunchProgress     progress,
                                          gpointer             progress_data,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
JsonObject *gb_launcher_launch_finish    (GbLauncher    *self,
                                          GAsyncResult  *result,
                                          GError       **error);
gboolean    gb_launcher_owns             (GbLauncher *self,
                                          guint       port);
GArray     *gb_launcher_list_ports       (GbLauncher *self);
gint64      gb_launcher_get_pid          (GbLauncher *self,
                                          guint       port);
/* The last @lines lines of output, oldest first; NULL if not launched here. */
JsonArray  *gb_launcher_get_log          (GbLauncher *self,
                                          guint       port,
                                          guint       lines,
                                          char      **out_log_file);
void        gb_launcher_stop_async       (GbLauncher          *self,
                                          guint                port,
                                          guint                grace_ms,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
JsonObject *gb_launcher_stop_finish      (GbLauncher    *self,
                                          GAsyncResult  *result,
                                          GError       **error);
/* Stops every launched instance; completes when all are gone. */
void        gb_launcher_stop_all_async   (GbLauncher          *self,
                                          guint                grace_ms,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
void        gb_launcher_stop_all_finish  (GbLauncher    *self,
                                          GAsyncResult  *result);

G_END_DECLS

/* ---- the tools provider (gb-tools.c, gb-instances.c) --------------------- */

G_BEGIN_DECLS

typedef struct {
  GgBus *bus;
  GbOptions options;         /* resolved */
  SoupSession *session;
  GbLauncher *launcher;
  GbManifest *file_manifest; /* --manifest */
  GHashTable *targets;       /* port -> GbHttpTarget (also on the bus) */
  gpointer server;           /* GbMcpServer, weak */
  GArray *scan_ports;        /* NULL with --no-scan */
  char *registry_dir;        /* NULL with --no-registry */
  GHashTable *eager_names;   /* flat tool name -> toolset, with --eager */
} GbBridge;

GbBridge     *gb_bridge_new            (GgBus      *bus,
                                        GbOptions  *options,
                                        GError    **error);
void          gb_bridge_free           (GbBridge *self);
GbHttpTarget *gb_bridge_ensure_target  (GbBridge *self,
                                        guint     port);
void          gb_bridge_forget_target  (GbBridge *self,
                                        guint     port);
void          gb_bridge_shutdown_async (GbBridge            *self,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data);
void          gb_bridge_shutdown_finish (GbBridge     *self,
                                         GAsyncResult *result);
/* list_instances: `{registryDir, live[], stale[], notAGame[], free[]}`. */
void          gb_instances_list_async  (GbBridge            *self,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data);
JsonObject   *gb_instances_list_finish (GbBridge      *self,
                                        GAsyncResult  *result,
                                        GError       **error);

G_END_DECLS

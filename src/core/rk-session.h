/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-session.h — one analysis session: its workspace folder, the files the
 * user added, the artifacts cells produced, its kernel, and idle expiry. */
#pragma once

#include <gio/gio.h>

#include "rk-clock.h"
#include "rk-enum-types.h"
#include "rk-kernel.h"

G_BEGIN_DECLS

#define RK_TYPE_SESSION (rk_session_get_type ())
G_DECLARE_FINAL_TYPE (RkSession, rk_session, RK, SESSION, GObject)

#define RK_SESSION_ERROR (rk_session_error_quark ())

typedef enum
{
  RK_SESSION_ERROR_EXPIRED,       /* the workspace is gone: restart first */
  RK_SESSION_ERROR_BUSY,          /* a restart is already running */
  RK_SESSION_ERROR_REIMPORT,      /* an original file could not be added again */
  RK_SESSION_ERROR_REPLAY,        /* a replayed cell failed */
} RkSessionError;

typedef enum
{
  RK_SESSION_ACTIVE,
  RK_SESSION_EXPIRED,
  RK_SESSION_RESTARTING,
} RkSessionState;

typedef enum
{
  RK_ARTIFACT_TABLE,
  RK_ARTIFACT_FIGURE,
  RK_ARTIFACT_CHART,
  RK_ARTIFACT_FILE,
} RkArtifactKind;

typedef struct
{
  RkArtifactKind  kind;
  char           *path;       /* relative to the workspace */
  char           *cell_id;    /* the cell that produced it */
  char           *title;      /* table name, chart title, or NULL */
} RkArtifact;

typedef struct
{
  char *name;                 /* inside the workspace */
  char *original_path;        /* where it was added from (re-imported from there) */
} RkSessionFile;

/* A file's record, the strings copied (the conversation's saved state
 * keeps these too). */
RkSessionFile  *rk_session_file_new           (const char     *name,
                                               const char     *original_path);
void            rk_session_file_free          (RkSessionFile  *file);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkSessionFile, rk_session_file_free)

/* Default idle expiry, and how long before it the warning comes. */
#define RK_SESSION_DEFAULT_IDLE_SECONDS    (20 * 60)
#define RK_SESSION_WARNING_SECONDS         (2 * 60)

GQuark          rk_session_error_quark        (void);

/* A new session with a fresh workspace (mode 0700) under @sessions_dir, or
 * under g_get_user_cache_dir()/reckon/sessions when NULL. @clock NULL means
 * the system clock. The idle timer starts now. */
RkSession      *rk_session_new                (const char     *sessions_dir,
                                               RkClock        *clock,
                                               GError        **error);

/* The session of a saved conversation, after Reckon was closed: id
 * @session_id (a plain folder name) under @sessions_dir as rk_session_new()
 * would have made it, with its files (@files: RkSessionFile, copied; NULL:
 * none) remembered for a restart. If that workspace is gone the session is RK_SESSION_EXPIRED (the
 * transcript stays readable; restart it to work on); otherwise it is
 * active, and its kernel starts fresh when first used. */
RkSession      *rk_session_new_restored       (const char         *sessions_dir,
                                               const char         *session_id,
                                               GPtrArray          *files,
                                               RkClock            *clock,
                                               GError            **error);

const char     *rk_session_get_id             (RkSession      *self);
/* The workspace's handle: the same for the session's life, the folder
 * gone while the session is expired and made again by a restart. */
RkWorkspace    *rk_session_get_workspace      (RkSession      *self);
RkSessionState  rk_session_get_state          (RkSession      *self);
/* The session's kernel (made on first use; started on first execute). */
RkKernel       *rk_session_get_kernel         (RkSession      *self);
void            rk_session_set_kernel_limits  (RkSession      *self,
                                               const RkKernelLimits *limits);

/* -- files -- */
void            rk_session_add_file_async     (RkSession           *self,
                                               const char          *source_path,
                                               GCancellable        *cancellable,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
/* Returns the file's name inside the workspace. */
char           *rk_session_add_file_finish    (RkSession           *self,
                                               GAsyncResult        *result,
                                               GError             **error);

/* Moves what is staged in the workspace's RK_IMPORT_INCOMING folder (an
 * added file, the profiler's readings with stage_readings) into the
 * workspace: through the running kernel where there is one (its capped
 * workspace takes it in, in turn with its saves), else at once. */
void            rk_session_take_staged_async  (RkSession           *self,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
gboolean        rk_session_take_staged_finish (RkSession           *self,
                                               GAsyncResult        *result,
                                               GError             **error);
/* Takes @name out of the session: its copy in the workspace and the
 * reading the profiler kept for it are deleted (never the original), and
 * the kernel's next start leaves it out ("files-changed" is emitted). A
 * running kernel keeps its read-only view of the file until it restarts.
 * FALSE, with nothing changed, when @name is not one of the files. */
gboolean        rk_session_remove_file        (RkSession      *self,
                                               const char     *name,
                                               GError        **error);
/* RkSessionFile, in the order they were added. */
GPtrArray      *rk_session_get_files          (RkSession      *self);
/* The names of the files, NULL-terminated (for rk_profile_files_async). */
GStrv           rk_session_dup_file_names     (RkSession      *self);

/* -- artifacts -- */
/* Artifacts are collected from the kernel's table, figure, chart and file
 * events; this adds one by hand. A path already listed is updated. */
void            rk_session_add_artifact       (RkSession      *self,
                                               RkArtifactKind  kind,
                                               const char     *path,
                                               const char     *cell_id,
                                               const char     *title);
/* RkArtifact, in the order they appeared. */
GPtrArray      *rk_session_get_artifacts      (RkSession      *self);
/* Copies every artifact into @dest (made if missing) under its path in the
 * workspace, so @dest serves as the workspace of an export after this one
 * is gone (rk_transcript_results_folder). Blocks: for the CLI, or a thread.
 * An artifact that cannot be copied safely (gone, a symlink, over the
 * export limits) is left out and named in @skipped ("path: reason"). */
gboolean        rk_session_keep_results       (RkSession           *self,
                                               const char          *dest,
                                               GStrv               *skipped,
                                               GError             **error);

/* -- idle expiry -- */
/* Idle time before expiry (default 20 minutes); the warning comes
 * RK_SESSION_WARNING_SECONDS before it (or halfway, for short timeouts).
 * 0 turns expiry off. Restarts the idle timer. */
void            rk_session_set_idle_timeout   (RkSession      *self,
                                               guint           seconds);
guint           rk_session_get_idle_timeout   (RkSession      *self);
/* Counts as activity: the idle timer starts again. Running cells, added
 * files and kernel events count too. */
void            rk_session_keep_alive         (RkSession      *self);
/* Microseconds of the session's clock at which it will expire, or 0. */
gint64          rk_session_get_expiry_time    (RkSession      *self);
/* TRUE between "expiry-warning" and the next activity or expiry. */
gboolean        rk_session_get_warned         (RkSession      *self);
/* Stops the kernel and deletes the workspace now, as expiry does. */
void            rk_session_expire             (RkSession      *self);

/* -- restart -- */
/* A fresh workspace and kernel: the original files are imported again (in
 * the order they were first added, so they get the same names), then the
 * approved cells @replay_cells (NULL or empty: none) run in order. Works on
 * an expired session and on a live one (whose workspace is replaced).
 * Fails on the first file that cannot be re-imported; a cell that fails
 * does not stop the ones after it. @outcomes (optional): one string per
 * replayed cell, in order, "" when it ran and otherwise why it failed. */
void            rk_session_restart_async      (RkSession           *self,
                                               const char * const  *replay_cells,
                                               GCancellable        *cancellable,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
gboolean        rk_session_restart_finish     (RkSession           *self,
                                               GAsyncResult        *result,
                                               GPtrArray          **outcomes,
                                               GError             **error);

/* Deletes workspaces left under @sessions_dir (NULL: the default folder) by
 * sessions that did not end cleanly (a crash, a killed app): every folder
 * whose last change is more than @max_age_seconds old. Symlinks there are
 * removed, never followed. Returns how many were deleted. A folder's time
 * changes only when entries are added or removed at its top, so keep
 * @max_age_seconds well above any idle timeout in use (a day, say). */
guint           rk_session_clean_stale        (const char     *sessions_dir,
                                               guint64         max_age_seconds);

/* Properties (read-only, each notified on every change):
 *   "state"       (RkSessionState, RK_TYPE_SESSION_STATE)
 *   "expiry-time" (gint64) as rk_session_get_expiry_time(); notified when it
 *                 moves by a second or more, or turns 0 / non-0.
 *   "warned"      (gboolean) as rk_session_get_warned(): bind a banner to it.
 *
 * Signals:
 *   "expiry-warning" (guint seconds_left)  the session will expire soon
 *   "expired"        ()                    the kernel stopped, the workspace is gone
 *   "artifact-added" (guint index)         rk_session_get_artifacts() grew or changed
 *   "files-changed"  ()
 *   "restarted"      ()
 */

G_END_DECLS

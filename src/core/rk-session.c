/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-session.c — a session's workspace, files, artifacts, kernel, idle
 * expiry (on an injectable RkClock) and restart with replay. */
#define G_LOG_DOMAIN "rk-session"
#include "config.h"
#include "rk-session.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "rk-export.h"
#include "rk-import.h"
#include "rk-util.h"
#include "rk-workspace.h"

G_DEFINE_QUARK (rk-session-error-quark, rk_session_error)

struct _RkSession
{
  GObject         parent_instance;

  char           *id;
  RkWorkspace    *workspace;
  RkClock        *clock;
  RkSessionState  state;

  RkKernel       *kernel;
  RkKernelLimits  limits;
  gboolean        have_limits;

  GPtrArray      *files;       /* RkSessionFile */
  GPtrArray      *artifacts;   /* RkArtifact */

  guint           idle_seconds;
  gint64          last_activity;
  guint           timer_id;
  gboolean        warned;
  gint64          notified_expiry;   /* "expiry-time" as last notified */
};

G_DEFINE_FINAL_TYPE (RkSession, rk_session, G_TYPE_OBJECT)

enum
{
  SIGNAL_EXPIRY_WARNING,
  SIGNAL_EXPIRED,
  SIGNAL_ARTIFACT_ADDED,
  SIGNAL_FILES_CHANGED,
  SIGNAL_RESTARTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

enum
{
  PROP_0,
  PROP_STATE,
  PROP_EXPIRY_TIME,
  PROP_WARNED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void schedule_timer (RkSession *self);

/* "expiry-time" moves with every bit of activity (each line a cell prints):
 * notify only when it moved by a second or more, or turned on or off. */
static void
notify_expiry (RkSession *self)
{
  gint64 expiry = rk_session_get_expiry_time (self);

  if (expiry == self->notified_expiry)
    return;
  if (expiry != 0 && self->notified_expiry != 0
      && ABS (expiry - self->notified_expiry) < G_USEC_PER_SEC)
    return;
  self->notified_expiry = expiry;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXPIRY_TIME]);
}

static void
set_warned (RkSession *self,
            gboolean   warned)
{
  if (self->warned == warned)
    return;
  self->warned = warned;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WARNED]);
}

static void
set_state (RkSession      *self,
           RkSessionState  state)
{
  if (self->state == state)
    return;
  self->state = state;
  if (state != RK_SESSION_ACTIVE)
    set_warned (self, FALSE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
  notify_expiry (self);
}

RkSessionFile *
rk_session_file_new (const char *name,
                     const char *original_path)
{
  RkSessionFile *f = g_new0 (RkSessionFile, 1);

  f->name = g_strdup (name);
  f->original_path = g_strdup (original_path);
  return f;
}

void
rk_session_file_free (RkSessionFile *file)
{
  if (file == NULL)
    return;
  g_free (file->name);
  g_free (file->original_path);
  g_free (file);
}

static void
artifact_free (gpointer data)
{
  RkArtifact *a = data;

  g_free (a->path);
  g_free (a->cell_id);
  g_free (a->title);
  g_free (a);
}

/* -- idle expiry ---------------------------------------------------------- */

static gint64
warning_us (RkSession *self)
{
  guint64 idle = (guint64) self->idle_seconds * G_USEC_PER_SEC;
  guint64 warn = (guint64) RK_SESSION_WARNING_SECONDS * G_USEC_PER_SEC;

  /* Short timeouts (tests, impatient settings) warn halfway. */
  return (gint64) (idle > 2 * warn ? warn : idle / 2);
}

static gint64
expiry_time (RkSession *self)
{
  return self->last_activity + (gint64) self->idle_seconds * G_USEC_PER_SEC;
}

static gboolean
timer_cb (gpointer data)
{
  RkSession *self = data;
  gint64 now = rk_clock_now_us (self->clock);
  gint64 expiry = expiry_time (self);

  self->timer_id = 0;
  if (self->state != RK_SESSION_ACTIVE)
    return G_SOURCE_REMOVE;

  /* A cell that runs for a long time is not idleness. */
  if (self->kernel != NULL && rk_kernel_get_state (self->kernel) == RK_KERNEL_STATE_BUSY)
    {
      rk_session_keep_alive (self);
      return G_SOURCE_REMOVE;
    }
  if (now >= expiry)
    {
      rk_session_expire (self);
      return G_SOURCE_REMOVE;
    }
  if (!self->warned && now >= expiry - warning_us (self))
    {
      guint left = (guint) ((expiry - now + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC);

      set_warned (self, TRUE);
      schedule_timer (self);
      g_signal_emit (self, signals[SIGNAL_EXPIRY_WARNING], 0, left);
      return G_SOURCE_REMOVE;
    }
  schedule_timer (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_timer (RkSession *self)
{
  gint64 now, next;

  if (self->timer_id != 0)
    {
      rk_clock_remove_timeout (self->clock, self->timer_id);
      self->timer_id = 0;
    }
  if (self->idle_seconds == 0 || self->state != RK_SESSION_ACTIVE)
    return;

  now = rk_clock_now_us (self->clock);
  next = self->warned ? expiry_time (self) : expiry_time (self) - warning_us (self);
  self->timer_id = rk_clock_add_timeout (self->clock, (guint64) MAX (next - now, 0), timer_cb, self, NULL);
}

void
rk_session_keep_alive (RkSession *self)
{
  g_return_if_fail (RK_IS_SESSION (self));

  if (self->state != RK_SESSION_ACTIVE)
    return;
  self->last_activity = rk_clock_now_us (self->clock);
  set_warned (self, FALSE);
  schedule_timer (self);
  notify_expiry (self);
}

void
rk_session_set_idle_timeout (RkSession *self,
                             guint      seconds)
{
  g_return_if_fail (RK_IS_SESSION (self));

  self->idle_seconds = seconds;
  rk_session_keep_alive (self);
}

gboolean
rk_session_get_warned (RkSession *self)
{
  g_return_val_if_fail (RK_IS_SESSION (self), FALSE);

  return self->warned;
}

guint
rk_session_get_idle_timeout (RkSession *self)
{
  g_return_val_if_fail (RK_IS_SESSION (self), 0);

  return self->idle_seconds;
}

gint64
rk_session_get_expiry_time (RkSession *self)
{
  g_return_val_if_fail (RK_IS_SESSION (self), 0);

  if (self->idle_seconds == 0 || self->state != RK_SESSION_ACTIVE)
    return 0;
  return expiry_time (self);
}

/* -- kernel --------------------------------------------------------------- */

static gboolean
is_imported (RkSession  *self,
             const char *path)
{
  for (guint i = 0; i < self->files->len; i++)
    if (g_strcmp0 (((RkSessionFile *) g_ptr_array_index (self->files, i))->name, path) == 0)
      return TRUE;
  return FALSE;
}

static void
kernel_event_cb (RkKernel      *kernel,
                 RkKernelEvent *event,
                 RkSession     *self)
{
  rk_session_keep_alive (self);
  switch (event->type)
    {
    case RK_KERNEL_EVENT_TABLE:
      rk_session_add_artifact (self, RK_ARTIFACT_TABLE, event->path, event->id, event->name);
      break;
    case RK_KERNEL_EVENT_FIGURE:
      rk_session_add_artifact (self, RK_ARTIFACT_FIGURE, event->path, event->id, NULL);
      break;
    case RK_KERNEL_EVENT_CHART:
      rk_session_add_artifact (self, RK_ARTIFACT_CHART, event->path, event->id, event->title);
      break;
    case RK_KERNEL_EVENT_FILE:
      /* The user's own files are inputs, not results, until a cell changes them. */
      if (event->change == RK_KERNEL_FILE_CREATED && is_imported (self, event->path))
        break;
      rk_session_add_artifact (self, RK_ARTIFACT_FILE, event->path, event->id, NULL);
      break;
    case RK_KERNEL_EVENT_READY:
    case RK_KERNEL_EVENT_STARTED:
    case RK_KERNEL_EVENT_STREAM:
    case RK_KERNEL_EVENT_RESULT:
    case RK_KERNEL_EVENT_ERROR:
    case RK_KERNEL_EVENT_DONE:
    default:
      break;
    }
}

static void
kernel_state_cb (RkKernel      *kernel,
                 int            state,
                 RkSession     *self)
{
  rk_session_keep_alive (self);
}

static void
drop_kernel (RkSession *self)
{
  if (self->kernel == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->kernel, self);
  rk_kernel_shutdown (self->kernel);
  g_clear_object (&self->kernel);
}

RkKernel *
rk_session_get_kernel (RkSession *self)
{
  g_return_val_if_fail (RK_IS_SESSION (self), NULL);

  if (self->kernel == NULL)
    {
      g_auto(GStrv) names = rk_session_dup_file_names (self);

      self->kernel = rk_kernel_new (self->workspace, self->have_limits ? &self->limits : NULL);
      rk_kernel_set_inputs (self->kernel, (const char * const *) names);
      g_signal_connect (self->kernel, "event", G_CALLBACK (kernel_event_cb), self);
      g_signal_connect (self->kernel, "state-changed", G_CALLBACK (kernel_state_cb), self);
    }
  return self->kernel;
}

void
rk_session_set_kernel_limits (RkSession            *self,
                              const RkKernelLimits *limits)
{
  g_return_if_fail (RK_IS_SESSION (self));

  self->have_limits = limits != NULL;
  if (limits != NULL)
    self->limits = *limits;
  /* The kernel object outlives its sandboxes: the next one gets them. */
  if (limits != NULL && self->kernel != NULL)
    rk_kernel_set_limits (self->kernel, limits);
}

void
rk_session_expire (RkSession *self)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (RK_IS_SESSION (self));

  if (self->state == RK_SESSION_EXPIRED)
    return;
  g_object_ref (self);
  set_state (self, RK_SESSION_EXPIRED);
  if (self->timer_id != 0)
    {
      rk_clock_remove_timeout (self->clock, self->timer_id);
      self->timer_id = 0;
    }
  drop_kernel (self);
  if (!rk_workspace_delete (self->workspace, &error))
    g_warning ("session %s: %s", self->id, error->message);
  /* The files' originals are remembered for a restart; artifacts lived in
   * the workspace and are gone with it. */
  g_ptr_array_set_size (self->artifacts, 0);
  g_signal_emit (self, signals[SIGNAL_EXPIRED], 0);
  g_object_unref (self);
}

/* -- files and artifacts -------------------------------------------------- */

static void
staged_placed_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (rk_kernel_take_incoming_finish (RK_KERNEL (source), result, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
rk_session_take_staged_async (RkSession           *self,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;

  g_return_if_fail (RK_IS_SESSION (self));

  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, rk_session_take_staged_async);
  if (self->kernel != NULL)
    {
      rk_kernel_take_incoming_async (self->kernel, NULL, staged_placed_cb, g_steal_pointer (&task));
      return;
    }
  if (rk_import_place_staged (self->workspace, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

gboolean
rk_session_take_staged_finish (RkSession     *self,
                               GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
file_taken_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RkSession *self = g_task_get_source_object (task);
  g_autofree char *name = g_object_steal_data (G_OBJECT (task), "name");
  GError *error = NULL;

  if (!rk_session_take_staged_finish (self, result, &error))
    {
      rk_import_drop_staged (self->workspace, name);
      g_task_return_error (task, error);
      return;
    }
  g_ptr_array_add (self->files, rk_session_file_new (name, g_task_get_task_data (task)));
  if (self->kernel != NULL)
    {
      g_auto(GStrv) names = rk_session_dup_file_names (self);
      rk_kernel_set_inputs (self->kernel, (const char * const *) names);
    }
  rk_session_keep_alive (self);
  g_signal_emit (self, signals[SIGNAL_FILES_CHANGED], 0);
  g_task_return_pointer (task, g_steal_pointer (&name), g_free);
}

/* The copy is staged: the kernel moves it in (a running sandbox with a
 * capped workspace copies it into its tmpfs), or with no kernel it takes
 * its place at once. */
static void
add_file_done_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RkSession *self = g_task_get_source_object (task);
  GError *error = NULL;
  char *name = rk_import_file_finish (result, &error);

  if (name == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_object_set_data_full (G_OBJECT (task), "name", name, g_free);
  rk_session_take_staged_async (self, file_taken_cb, g_steal_pointer (&task));
}

void
rk_session_add_file_async (RkSession           *self,
                           const char          *source_path,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (RK_IS_SESSION (self));
  g_return_if_fail (source_path != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_session_add_file_async);
  g_task_set_task_data (task, g_canonicalize_filename (source_path, NULL), g_free);
  if (self->state != RK_SESSION_ACTIVE)
    {
      g_task_return_new_error (task, RK_SESSION_ERROR, RK_SESSION_ERROR_EXPIRED,
                               _("This session has ended; restart it to add files."));
      return;
    }
  rk_session_keep_alive (self);
  rk_import_file_async (self->workspace, g_task_get_task_data (task), TRUE, cancellable,
                        add_file_done_cb, g_object_ref (task));
}

char *
rk_session_add_file_finish (RkSession     *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Unlinks @name (one component) in the folder @rel_dir beneath the folder
 * open at @root_fd ("" for that folder itself), reached without following a
 * symlink at any step: code in the sandbox writes the workspace and may
 * have made any of them a link. A link named @name is unlinked itself. A
 * missing file or folder is no error. */
static gboolean
unlink_beneath (int          root_fd,
                const char  *rel_dir,
                const char  *name,
                GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  int dirfd = *rel_dir != '\0' ? rk_workspace_open_folder_at (root_fd, rel_dir, &local_error) : dup (root_fd);
  int saved = 0;

  if (dirfd < 0)
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        return TRUE;
      if (local_error != NULL)
        g_propagate_error (error, g_steal_pointer (&local_error));
      else
        g_set_error_literal (error, G_IO_ERROR, g_io_error_from_errno (errno), g_strerror (errno));
      return FALSE;
    }
  if (unlinkat (dirfd, name, 0) != 0 && errno != ENOENT)
    saved = errno;
  close (dirfd);
  if (saved != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s", g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

gboolean
rk_session_remove_file (RkSession   *self,
                        const char  *name,
                        GError     **error)
{
  g_autofree char *sidecar = NULL;
  int root_fd;

  g_return_val_if_fail (RK_IS_SESSION (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  for (guint i = 0; i < self->files->len; i++)
    {
      RkSessionFile *f = g_ptr_array_index (self->files, i);

      if (g_strcmp0 (f->name, name) != 0)
        continue;
      /* Names come from rk_import_file: one plain component. */
      if (strchr (name, '/') != NULL || !rk_path_is_beneath (name))
        break;
      root_fd = rk_workspace_dup_fd (self->workspace, error);
      if (root_fd < 0)
        return FALSE;
      if (!unlink_beneath (root_fd, "", name, error))
        {
          close (root_fd);
          return FALSE;
        }
      sidecar = g_strconcat (name, ".json", NULL);
      if (!unlink_beneath (root_fd, ".reckon/readings", sidecar, NULL))
        g_debug ("the reading of %s stays", name);
      close (root_fd);
      g_ptr_array_remove_index (self->files, i);
      if (self->kernel != NULL)
        {
          g_auto(GStrv) names = rk_session_dup_file_names (self);
          rk_kernel_set_inputs (self->kernel, (const char * const *) names);
        }
      g_signal_emit (self, signals[SIGNAL_FILES_CHANGED], 0);
      return TRUE;
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("There is no file “%s” in this session."), name);
  return FALSE;
}

GPtrArray *
rk_session_get_files (RkSession *self)
{
  g_return_val_if_fail (RK_IS_SESSION (self), NULL);

  return self->files;
}

GStrv
rk_session_dup_file_names (RkSession *self)
{
  g_autoptr(GStrvBuilder) b = g_strv_builder_new ();

  g_return_val_if_fail (RK_IS_SESSION (self), NULL);

  for (guint i = 0; i < self->files->len; i++)
    g_strv_builder_add (b, ((RkSessionFile *) g_ptr_array_index (self->files, i))->name);
  return g_strv_builder_end (b);
}

void
rk_session_add_artifact (RkSession      *self,
                         RkArtifactKind  kind,
                         const char     *path,
                         const char     *cell_id,
                         const char     *title)
{
  RkArtifact *a = NULL;
  guint index;

  g_return_if_fail (RK_IS_SESSION (self));
  g_return_if_fail (path != NULL);

  for (index = 0; index < self->artifacts->len; index++)
    {
      RkArtifact *existing = g_ptr_array_index (self->artifacts, index);

      if (g_strcmp0 (existing->path, path) == 0)
        {
          a = existing;
          break;
        }
    }
  if (a == NULL)
    {
      a = g_new0 (RkArtifact, 1);
      a->path = g_strdup (path);
      index = self->artifacts->len;
      g_ptr_array_add (self->artifacts, a);
    }
  a->kind = kind;
  g_free (a->cell_id);
  a->cell_id = g_strdup (cell_id);
  g_free (a->title);
  a->title = g_strdup (title);
  g_signal_emit (self, signals[SIGNAL_ARTIFACT_ADDED], 0, index);
}

GPtrArray *
rk_session_get_artifacts (RkSession *self)
{
  g_return_val_if_fail (RK_IS_SESSION (self), NULL);

  return self->artifacts;
}

/* -- results kept beside a saved transcript ------------------------------- */

gboolean
rk_session_keep_results (RkSession  *self,
                         const char *dest,
                         GStrv      *skipped,
                         GError    **error)
{
  g_autoptr(GStrvBuilder) left_out = g_strv_builder_new ();
  guint64 spent = 0;
  RkExportLimits limits;

  g_return_val_if_fail (RK_IS_SESSION (self), FALSE);
  g_return_val_if_fail (dest != NULL, FALSE);

  rk_export_limits_init (&limits);
  limits.spent = &spent;
  if (g_mkdir_with_parents (dest, 0700) != 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Could not make the folder “%s”: %s"), dest, g_strerror (errsv));
      return FALSE;
    }
  for (guint i = 0; i < self->artifacts->len; i++)
    {
      const char *rel = ((RkArtifact *) g_ptr_array_index (self->artifacts, i))->path;
      g_autofree char *target = NULL;
      g_autofree char *parent = NULL;
      g_autoptr(GError) local_error = NULL;

      if (!rk_path_is_beneath (rel))
        continue;
      target = g_build_filename (dest, rel, NULL);
      parent = g_path_get_dirname (target);
      if (g_mkdir_with_parents (parent, 0700) != 0 ||
          !rk_export_file (self->workspace, rel, target, &limits, NULL, &local_error))
        {
          g_autofree char *line = g_strdup_printf ("%s: %s", rel, local_error ? local_error->message
                                                                            : g_strerror (errno));
          g_strv_builder_add (left_out, line);
        }
    }
  if (skipped != NULL)
    *skipped = g_strv_builder_end (left_out);
  return TRUE;
}

/* -- restart -------------------------------------------------------------- */

typedef struct
{
  RkWorkspace *workspace;
  GStrv        originals;
  GStrv        expected_names;
  GStrv        cells;
  guint        next_cell;
  GPtrArray   *outcomes;         /* per replayed cell: "" or why it failed */
} RestartData;

static void
restart_data_free (gpointer data)
{
  RestartData *d = data;

  g_clear_object (&d->workspace);
  g_strfreev (d->originals);
  g_strfreev (d->expected_names);
  g_strfreev (d->cells);
  g_clear_pointer (&d->outcomes, g_ptr_array_unref);
  g_free (d);
}

/* Worker thread: a fresh workspace folder, then each original again. */
static void
reimport_thread (GTask        *task,
                 gpointer      source_object,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  RestartData *d = task_data;
  g_autoptr(GError) error = NULL;

  if (!rk_workspace_delete (d->workspace, &error) || !rk_workspace_make (d->workspace, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  for (guint i = 0; d->originals[i] != NULL; i++)
    {
      g_autofree char *name = rk_import_file (d->workspace, d->originals[i], cancellable, &error);

      if (name == NULL)
        {
          g_autofree char *display = g_filename_display_basename (d->originals[i]);

          g_task_return_new_error (task, RK_SESSION_ERROR, RK_SESSION_ERROR_REIMPORT,
                                   _("“%s” could not be added again: %s"), display, error->message);
          return;
        }
      if (g_strcmp0 (name, d->expected_names[i]) != 0)
        g_warning ("re-imported %s as %s, not %s", d->originals[i], name, d->expected_names[i]);
    }
  g_task_return_boolean (task, TRUE);
}

static void replay_next (GTask *task);

static void
restart_fail (GTask  *task,
              GError *error)
{
  RkSession *self = g_task_get_source_object (task);

  /* The workspace exists (re-import got that far or not): the session is
   * usable again either way, and says so. */
  if (self->state == RK_SESSION_RESTARTING)
    {
      set_state (self, rk_workspace_exists (self->workspace) ? RK_SESSION_ACTIVE : RK_SESSION_EXPIRED);
      rk_session_keep_alive (self);
    }
  g_task_return_error (task, error);
}

static void
replay_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RestartData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(RkKernelEvent) done = rk_kernel_execute_finish (RK_KERNEL (source), result, &error);

  if (done == NULL)
    {
      restart_fail (task, error);
      return;
    }
  /* A cell that fails now does not stop the ones after it (issue 17): each
   * says how it went, and the caller tells the user. */
  if (done->status != RK_KERNEL_STATUS_OK)
    g_ptr_array_add (d->outcomes, g_strdup (done->message && *done->message
                                            ? done->message : rk_kernel_status_to_string (done->status)));
  else
    g_ptr_array_add (d->outcomes, g_strdup (""));
  replay_next (g_steal_pointer (&task));
}

static void
replay_next (GTask *task)
{
  RkSession *self = g_task_get_source_object (task);
  RestartData *d = g_task_get_task_data (task);

  if (d->cells == NULL || d->cells[d->next_cell] == NULL)
    {
      rk_session_keep_alive (self);
      g_signal_emit (self, signals[SIGNAL_RESTARTED], 0);
      g_task_return_pointer (task, g_ptr_array_ref (d->outcomes), (GDestroyNotify) g_ptr_array_unref);
      g_object_unref (task);
      return;
    }
  rk_kernel_execute_async (rk_session_get_kernel (self), d->cells[d->next_cell++],
                           g_task_get_cancellable (task), replay_done_cb, task);
}

static void
reimport_done_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RkSession *self = g_task_get_source_object (task);
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      restart_fail (task, error);
      return;
    }
  set_state (self, RK_SESSION_ACTIVE);
  rk_session_keep_alive (self);
  replay_next (g_steal_pointer (&task));
}

void
rk_session_restart_async (RkSession           *self,
                          const char * const  *replay_cells,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) worker = NULL;
  g_autoptr(GStrvBuilder) originals = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();
  RestartData *d;

  g_return_if_fail (RK_IS_SESSION (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_session_restart_async);
  if (self->state == RK_SESSION_RESTARTING)
    {
      g_task_return_new_error (task, RK_SESSION_ERROR, RK_SESSION_ERROR_BUSY,
                               _("The session is already being restarted."));
      return;
    }

  for (guint i = 0; i < self->files->len; i++)
    {
      RkSessionFile *f = g_ptr_array_index (self->files, i);

      g_strv_builder_add (originals, f->original_path);
      g_strv_builder_add (names, f->name);
    }
  d = g_new0 (RestartData, 1);
  d->workspace = g_object_ref (self->workspace);
  d->originals = g_strv_builder_end (originals);
  d->expected_names = g_strv_builder_end (names);
  d->cells = g_strdupv ((GStrv) replay_cells);
  d->outcomes = g_ptr_array_new_with_free_func (g_free);
  g_task_set_task_data (task, d, restart_data_free);

  /* The old kernel and everything in the old workspace go first. */
  set_state (self, RK_SESSION_RESTARTING);
  if (self->timer_id != 0)
    {
      rk_clock_remove_timeout (self->clock, self->timer_id);
      self->timer_id = 0;
    }
  drop_kernel (self);
  g_ptr_array_set_size (self->artifacts, 0);

  /* No source object: the worker thread may drop its last reference to the
   * task after the callback ran, and must not keep the session alive then. */
  worker = g_task_new (NULL, cancellable, reimport_done_cb, g_object_ref (task));
  g_task_set_task_data (worker, d, NULL);
  g_task_run_in_thread (worker, reimport_thread);
}

gboolean
rk_session_restart_finish (RkSession     *self,
                           GAsyncResult  *result,
                           GPtrArray    **outcomes,
                           GError       **error)
{
  g_autoptr(GPtrArray) got = NULL;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  got = g_task_propagate_pointer (G_TASK (result), error);
  if (outcomes != NULL)
    *outcomes = got != NULL ? g_ptr_array_ref (got) : NULL;
  return got != NULL;
}

guint
rk_session_clean_stale (const char *sessions_dir,
                        guint64     max_age_seconds)
{
  g_autofree char *parent = sessions_dir != NULL ? g_strdup (sessions_dir)
                                                 : g_build_filename (g_get_user_cache_dir (), "reckon", "sessions", NULL);
  g_autoptr(GDir) dir = g_dir_open (parent, 0, NULL);
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;
  const char *name;
  guint deleted = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (parent, name, NULL);
      GStatBuf st;

      if (g_lstat (path, &st) != 0)
        continue;
      if (now - (gint64) st.st_mtime < (gint64) max_age_seconds)
        continue;
      /* rk_workspace_delete_folder unlinks a symlink instead of following it. */
      if (rk_workspace_delete_folder (path, NULL))
        deleted++;
    }
  return deleted;
}

/* -- object --------------------------------------------------------------- */

const char *
rk_session_get_id (RkSession *self)
{
  g_return_val_if_fail (RK_IS_SESSION (self), NULL);

  return self->id;
}

RkWorkspace *
rk_session_get_workspace (RkSession *self)
{
  g_return_val_if_fail (RK_IS_SESSION (self), NULL);

  return self->workspace;
}

RkSessionState
rk_session_get_state (RkSession *self)
{
  g_return_val_if_fail (RK_IS_SESSION (self), RK_SESSION_EXPIRED);

  return self->state;
}

/* Session @id (transfer full), its workspace beneath @sessions_dir (the
 * user's cache when NULL; that folder is made, the workspace is not), its
 * clock @clock (the system's when NULL). */
static RkSession *
session_new (const char  *sessions_dir,
             char        *id,
             RkClock     *clock,
             GError     **error)
{
  g_autoptr(RkSession) self = g_object_new (RK_TYPE_SESSION, NULL);
  g_autofree char *parent = NULL;
  g_autofree char *path = NULL;

  self->id = id;
  parent = sessions_dir != NULL ? g_strdup (sessions_dir)
                                : g_build_filename (g_get_user_cache_dir (), "reckon", "sessions", NULL);
  if (g_mkdir_with_parents (parent, 0700) != 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Could not create the folder for sessions: %s."), g_strerror (errsv));
      return NULL;
    }
  path = g_build_filename (parent, self->id, NULL);
  self->workspace = rk_workspace_new (path);
  self->clock = clock != NULL ? g_object_ref (clock) : rk_system_clock_new ();
  return g_steal_pointer (&self);
}

RkSession *
rk_session_new (const char  *sessions_dir,
                RkClock     *clock,
                GError     **error)
{
  g_autoptr(RkSession) self = session_new (sessions_dir, g_uuid_string_random (), clock, error);

  if (self == NULL || !rk_workspace_make (self->workspace, error))
    return NULL;
  self->state = RK_SESSION_ACTIVE;
  rk_session_keep_alive (self);
  return g_steal_pointer (&self);
}

RkSession *
rk_session_new_restored (const char         *sessions_dir,
                         const char         *session_id,
                         GPtrArray          *files,
                         RkClock            *clock,
                         GError            **error)
{
  g_autoptr(RkSession) self = NULL;

  g_return_val_if_fail (session_id != NULL, NULL);

  if (!rk_path_is_beneath (session_id) || strchr (session_id, '/') != NULL)
    {
      g_set_error (error, RK_SESSION_ERROR, RK_SESSION_ERROR_REIMPORT,
                   _("The saved session is damaged and cannot be restored."));
      return NULL;
    }
  self = session_new (sessions_dir, g_strdup (session_id), clock, error);
  if (self == NULL)
    return NULL;
  for (guint i = 0; files != NULL && i < files->len; i++)
    {
      const RkSessionFile *f = g_ptr_array_index (files, i);

      g_ptr_array_add (self->files, rk_session_file_new (f->name, f->original_path));
    }
  /* A folder, not a symlink someone left there (the handle opens none). */
  if (rk_workspace_exists (self->workspace))
    {
      self->state = RK_SESSION_ACTIVE;
      rk_session_keep_alive (self);
    }
  else
    self->state = RK_SESSION_EXPIRED;
  return g_steal_pointer (&self);
}

static void
rk_session_dispose (GObject *object)
{
  RkSession *self = RK_SESSION (object);

  if (self->timer_id != 0 && self->clock != NULL)
    {
      rk_clock_remove_timeout (self->clock, self->timer_id);
      self->timer_id = 0;
    }
  drop_kernel (self);
  g_clear_object (&self->clock);
  G_OBJECT_CLASS (rk_session_parent_class)->dispose (object);
}

static void
rk_session_finalize (GObject *object)
{
  RkSession *self = RK_SESSION (object);

  g_free (self->id);
  g_clear_object (&self->workspace);
  g_ptr_array_unref (self->files);
  g_ptr_array_unref (self->artifacts);
  G_OBJECT_CLASS (rk_session_parent_class)->finalize (object);
}

static void
rk_session_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  RkSession *self = RK_SESSION (object);

  switch (prop_id)
    {
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    case PROP_EXPIRY_TIME:
      g_value_set_int64 (value, rk_session_get_expiry_time (self));
      break;
    case PROP_WARNED:
      g_value_set_boolean (value, self->warned);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rk_session_class_init (RkSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rk_session_dispose;
  object_class->finalize = rk_session_finalize;
  object_class->get_property = rk_session_get_property;

  /**
   * RkSession:state: (attributes org.gtk.Property.get=rk_session_get_state)
   *
   * Whether the session is active, expired (kernel stopped, workspace
   * deleted) or being restarted. Notified on every change.
   */
  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL,
                       RK_TYPE_SESSION_STATE, RK_SESSION_EXPIRED,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * RkSession:expiry-time: (attributes org.gtk.Property.get=rk_session_get_expiry_time)
   *
   * When the session will expire if nothing happens, in microseconds of
   * the session's clock (g_get_monotonic_time() for the system clock), or
   * 0 when it will not (expiry off, expired, restarting). Notified when it
   * moves by a second or more, so a countdown can follow it cheaply.
   */
  properties[PROP_EXPIRY_TIME] =
    g_param_spec_int64 ("expiry-time", NULL, NULL,
                        0, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * RkSession:warned: (attributes org.gtk.Property.get=rk_session_get_warned)
   *
   * TRUE from the "expiry-warning" signal until activity (or
   * rk_session_keep_alive()) moves expiry away again, or the session
   * expires: what a banner's revealer binds to.
   */
  properties[PROP_WARNED] =
    g_param_spec_boolean ("warned", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_EXPIRY_WARNING] =
    g_signal_new ("expiry-warning", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
  signals[SIGNAL_EXPIRED] =
    g_signal_new ("expired", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_ARTIFACT_ADDED] =
    g_signal_new ("artifact-added", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
  signals[SIGNAL_FILES_CHANGED] =
    g_signal_new ("files-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_RESTARTED] =
    g_signal_new ("restarted", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
rk_session_init (RkSession *self)
{
  self->files = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_session_file_free);
  self->artifacts = g_ptr_array_new_with_free_func (artifact_free);
  self->idle_seconds = RK_SESSION_DEFAULT_IDLE_SECONDS;
  self->state = RK_SESSION_EXPIRED;
}

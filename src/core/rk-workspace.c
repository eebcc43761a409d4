/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-workspace.c — the workspace folder held open, names resolved beneath
 * it through fds only (docs/threat-model.md items 15-17, 57), folders made
 * private and removed without following links (the sandboxed code may have
 * left symlinks anywhere). */
#define G_LOG_DOMAIN "rk-workspace"
#include "config.h"
#include "rk-workspace.h"
#include "rk-workspace-private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rk-util.h"

#ifdef __has_include
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HAVE_OPENAT2_H 1
#endif
#endif

#ifndef HAVE_OPENAT2_H
struct open_how
{
  guint64 flags;
  guint64 mode;
  guint64 resolve;
};
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_NO_SYMLINKS   0x04
#define RESOLVE_BENEATH       0x08
#endif

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

struct _RkWorkspace
{
  GObject  parent_instance;

  char    *path;
  /* The folder, or -1 while it is gone. Workers resolve names beneath it
   * while the main thread may delete or remake it: the lock keeps an fd
   * from being closed (and its number reused) under a resolution. */
  GMutex   lock;
  int      fd;
};

G_DEFINE_FINAL_TYPE (RkWorkspace, rk_workspace, G_TYPE_OBJECT)
G_DEFINE_QUARK (rk-workspace-error-quark, rk_workspace_error)

static gboolean force_fallback;

void
_rk_workspace_set_force_fallback (gboolean force)
{
  force_fallback = force;
}

/* openat with O_NOFOLLOW at every step: each folder on the way is opened
 * O_DIRECTORY | O_NOFOLLOW from the one before, so a symlink anywhere fails
 * with ELOOP or ENOTDIR instead of being followed. */
static int
open_stepwise (int         dirfd,
               const char *rel,
               int         flags)
{
  g_auto(GStrv) parts = g_strsplit (rel, "/", -1);
  int cur = dirfd;
  int fd = -1;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      gboolean last = parts[i + 1] == NULL;
      int next = openat (cur, parts[i],
                         last ? flags | O_NOFOLLOW
                              : O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      int errsv = errno;

      if (cur != dirfd)
        close (cur);
      if (next < 0)
        {
          errno = errsv;
          return -1;
        }
      if (last)
        fd = next;
      else
        cur = next;
    }
  return fd;
}

/* The one resolver: @rel beneath @dirfd, never through a symlink, with
 * openat2 or the stepwise fallback. */
static int
open_beneath_flags (int         dirfd,
                    const char *rel,
                    int         flags)
{
  int fd = -1;

  if (!force_fallback)
    {
      struct open_how how = { 0, };

      how.flags = flags;
      how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
      fd = (int) syscall (SYS_openat2, dirfd, rel, &how, sizeof how);
    }
  if (force_fallback || (fd < 0 && (errno == ENOSYS || errno == E2BIG || errno == EPERM)))
    fd = open_stepwise (dirfd, rel, flags);
  return fd;
}

/* The whole of the file open at @fd (which this takes over), if it is at
 * most @max bytes. */
static GBytes *
read_whole (int          fd,
            const char  *rel_path,
            gsize        max,
            GError     **error)
{
  struct stat st;
  char *buf;
  gsize got = 0;

  if (fd < 0)
    return NULL;
  if (fstat (fd, &st) != 0 || st.st_size < 0 || (guint64) st.st_size > max)
    {
      close (fd);
      g_set_error (error, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_TOO_LARGE,
                   _("“%s” is too large to read."), rel_path);
      return NULL;
    }
  buf = g_malloc (st.st_size + 1);
  while (got < (gsize) st.st_size)
    {
      ssize_t r = read (fd, buf + got, st.st_size - got);

      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      got += r;
    }
  close (fd);
  buf[got] = '\0';
  return g_bytes_new_take (buf, got);
}

GBytes *
rk_workspace_read_file_at (int          dirfd,
                           const char  *rel_path,
                           gsize        max,
                           GError     **error)
{
  return read_whole (rk_workspace_open_file_at (dirfd, rel_path, error), rel_path, max, error);
}

int
rk_workspace_open_folder_at (int          dirfd,
                             const char  *rel_path,
                             GError     **error)
{
  int fd;

  if (!rk_path_is_beneath (rel_path))
    {
      g_set_error (error, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_ALLOWED,
                   _("“%s” is not a name inside the workspace."), rel_path ? rel_path : "");
      return -1;
    }
  fd = open_beneath_flags (dirfd, rel_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    {
      int errsv = errno;

      if (errsv == ELOOP || errsv == EXDEV || errsv == ENOTDIR)
        g_set_error (error, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_ALLOWED,
                     _("“%s” is a symbolic link or lies behind one."), rel_path);
      else
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                     _("Could not open “%s”: %s."), rel_path, g_strerror (errsv));
      return -1;
    }
  return fd;
}

int
rk_workspace_open_file_at (int          dirfd,
                           const char  *rel_path,
                           GError     **error)
{
  int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
  struct stat st;
  int fd = -1;
  int errsv;

  if (!rk_path_is_beneath (rel_path))
    {
      g_set_error (error, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_ALLOWED,
                   _("“%s” is not a name inside the workspace."), rel_path ? rel_path : "");
      return -1;
    }

  fd = open_beneath_flags (dirfd, rel_path, flags);
  if (fd < 0)
    {
      errsv = errno;
      if (errsv == ELOOP || errsv == EXDEV || errsv == ENOTDIR)
        g_set_error (error, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_ALLOWED,
                     _("“%s” is a symbolic link or lies behind one, so it is not exported."), rel_path);
      else
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                     _("Could not open “%s”: %s."), rel_path, g_strerror (errsv));
      return -1;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      g_set_error (error, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_REGULAR,
                   _("“%s” is not a regular file, so it is not exported."), rel_path);
      return -1;
    }
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

/* -- the handle ------------------------------------------------------------ */

static int
open_folder (const char *path)
{
  return open (path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

static void
set_gone_error (GError **error)
{
  g_set_error (error, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_GONE,
               _("The workspace is gone: restart the session first."));
}

RkWorkspace *
rk_workspace_new (const char *path)
{
  RkWorkspace *self;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (RK_TYPE_WORKSPACE, NULL);
  self->path = g_canonicalize_filename (path, NULL);
  self->fd = open_folder (self->path);
  return self;
}

RkWorkspace *
rk_workspace_open (const char  *path,
                   GError     **error)
{
  g_autoptr(RkWorkspace) self = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  self = rk_workspace_new (path);
  if (self->fd < 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Could not open the workspace: %s."), g_strerror (errsv));
      return NULL;
    }
  return g_steal_pointer (&self);
}

static char *
make_temporary (const char  *parent,
                GError     **error)
{
  g_autofree char *templ = NULL;
  char *dir;

  if (parent == NULL)
    return g_dir_make_tmp ("reckon-workspace-XXXXXX", error);

  if (g_mkdir_with_parents (parent, 0700) != 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Could not create the folder for sessions: %s."), g_strerror (errsv));
      return NULL;
    }
  templ = g_build_filename (parent, "XXXXXX", NULL);
  dir = g_mkdtemp_full (templ, 0700);
  if (dir == NULL)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Could not create a session folder: %s."), g_strerror (errsv));
      return NULL;
    }
  return g_strdup (dir);
}

RkWorkspace *
rk_workspace_new_temporary (const char  *parent,
                            GError     **error)
{
  g_autofree char *path = make_temporary (parent, error);

  if (path == NULL)
    return NULL;
  return rk_workspace_open (path, error);
}

const char *
rk_workspace_get_path (RkWorkspace *self)
{
  g_return_val_if_fail (RK_IS_WORKSPACE (self), NULL);

  return self->path;
}

gboolean
rk_workspace_exists (RkWorkspace *self)
{
  gboolean exists;

  g_return_val_if_fail (RK_IS_WORKSPACE (self), FALSE);

  g_mutex_lock (&self->lock);
  exists = self->fd >= 0;
  g_mutex_unlock (&self->lock);
  return exists;
}

gboolean
rk_workspace_make (RkWorkspace  *self,
                   GError      **error)
{
  int fd;

  g_return_val_if_fail (RK_IS_WORKSPACE (self), FALSE);

  if (g_mkdir (self->path, 0700) != 0 || (fd = open_folder (self->path)) < 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Could not create a session folder: %s."), g_strerror (errsv));
      return FALSE;
    }
  g_mutex_lock (&self->lock);
  if (self->fd >= 0)
    close (self->fd);
  self->fd = fd;
  g_mutex_unlock (&self->lock);
  return TRUE;
}

gboolean
rk_workspace_delete (RkWorkspace  *self,
                     GError      **error)
{
  g_return_val_if_fail (RK_IS_WORKSPACE (self), FALSE);

  g_mutex_lock (&self->lock);
  if (self->fd >= 0)
    close (self->fd);
  self->fd = -1;
  g_mutex_unlock (&self->lock);
  return rk_workspace_delete_folder (self->path, error);
}

int
rk_workspace_dup_fd (RkWorkspace  *self,
                     GError      **error)
{
  int fd = -1;

  g_return_val_if_fail (RK_IS_WORKSPACE (self), -1);

  g_mutex_lock (&self->lock);
  if (self->fd >= 0)
    fd = openat (self->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  else
    errno = ENOENT;
  g_mutex_unlock (&self->lock);
  if (fd < 0)
    {
      int errsv = errno;

      set_gone_error (error);
      errno = errsv;
    }
  return fd;
}

/* A name beneath the folder, resolved under the lock (only the open: what
 * is read from the result is read without it). */
static int
open_beneath (RkWorkspace  *self,
              const char   *rel_path,
              gboolean      folder,
              GError      **error)
{
  int fd = -1;

  g_mutex_lock (&self->lock);
  if (self->fd < 0)
    set_gone_error (error);
  else if (folder)
    fd = rk_workspace_open_folder_at (self->fd, rel_path, error);
  else
    fd = rk_workspace_open_file_at (self->fd, rel_path, error);
  g_mutex_unlock (&self->lock);
  return fd;
}

int
rk_workspace_open_file (RkWorkspace  *self,
                        const char   *rel_path,
                        GError      **error)
{
  g_return_val_if_fail (RK_IS_WORKSPACE (self), -1);

  return open_beneath (self, rel_path, FALSE, error);
}

GBytes *
rk_workspace_read_file (RkWorkspace  *self,
                        const char   *rel_path,
                        gsize         max,
                        GError      **error)
{
  g_return_val_if_fail (RK_IS_WORKSPACE (self), NULL);

  return read_whole (open_beneath (self, rel_path, FALSE, error), rel_path, max, error);
}

int
rk_workspace_open_folder (RkWorkspace  *self,
                          const char   *rel_path,
                          GError      **error)
{
  g_return_val_if_fail (RK_IS_WORKSPACE (self), -1);

  return open_beneath (self, rel_path, TRUE, error);
}

typedef struct
{
  char  *rel_path;
  gsize  max;
} ReadData;

static void
read_data_free (gpointer data)
{
  ReadData *d = data;

  g_free (d->rel_path);
  g_free (d);
}

static void
read_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  ReadData *d = task_data;
  GError *error = NULL;
  GBytes *bytes = rk_workspace_read_file (source_object, d->rel_path, d->max, &error);

  if (bytes == NULL)
    g_task_return_error (task, error);
  else if (!g_task_return_error_if_cancelled (task))
    g_task_return_pointer (task, bytes, (GDestroyNotify) g_bytes_unref);
  else
    g_bytes_unref (bytes);
}

void
rk_workspace_read_file_async (RkWorkspace         *self,
                              const char          *rel_path,
                              gsize                max,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  ReadData *d;

  g_return_if_fail (RK_IS_WORKSPACE (self));
  g_return_if_fail (rel_path != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_workspace_read_file_async);
  d = g_new0 (ReadData, 1);
  d->rel_path = g_strdup (rel_path);
  d->max = max;
  g_task_set_task_data (task, d, read_data_free);
  g_task_run_in_thread (task, read_thread);
}

GBytes *
rk_workspace_read_file_finish (RkWorkspace   *self,
                               GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* -- removal ---------------------------------------------------------------- */

/* Empties the folder open at @dirfd (which this takes over), depth first. */
static int
delete_contents (int    dirfd,
                 guint  depth)
{
  DIR *d;
  struct dirent *de;
  int result = 0;

  if (depth > 256)
    {
      close (dirfd);
      errno = ELOOP;
      return -1;
    }
  d = fdopendir (dirfd);
  if (d == NULL)
    {
      close (dirfd);
      return -1;
    }
  while ((de = readdir (d)) != NULL)
    {
      int sub;

      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      if (unlinkat (dirfd, de->d_name, 0) == 0)
        continue;
      if (errno != EISDIR && errno != EPERM)
        {
          if (errno != ENOENT)
            result = -1;
          continue;
        }
      /* A folder: O_NOFOLLOW|O_DIRECTORY means a symlink swapped in here
       * fails to open instead of being followed. */
      sub = openat (dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0)
        {
          result = -1;
          continue;
        }
      /* The sandbox may leave folders without write or search permission. */
      fchmod (sub, 0700);
      if (delete_contents (sub, depth + 1) != 0)
        result = -1;
      if (unlinkat (dirfd, de->d_name, AT_REMOVEDIR) != 0 && errno != ENOENT)
        result = -1;
    }
  closedir (d);
  return result;
}

gboolean
rk_workspace_delete_folder (const char  *path,
                            GError     **error)
{
  int fd;
  int errsv;

  g_return_val_if_fail (path != NULL, FALSE);

  fd = open (path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    {
      errsv = errno;
      if (errsv == ENOENT)
        return TRUE;
      if (errsv == ENOTDIR || errsv == ELOOP)
        {
          if (unlink (path) == 0)
            return TRUE;
          errsv = errno;
        }
      goto fail;
    }
  fchmod (fd, 0700);
  /* A sandbox being stopped may still write for a moment (a capped
   * workspace's save in flight): what it added goes on the next pass. */
  for (guint pass = 0;; pass++)
    {
      int again = fcntl (fd, F_DUPFD_CLOEXEC, 0);

      if (again >= 0 && delete_contents (again, 0) == 0 && rmdir (path) == 0)
        break;
      errsv = errno;
      if (errsv != ENOTEMPTY || pass >= 20)
        {
          close (fd);
          goto fail;
        }
      g_usleep (5000);
    }
  close (fd);
  return TRUE;

fail:
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
               _("Could not delete the session folder: %s."), g_strerror (errsv));
  return FALSE;
}

static void
rk_workspace_finalize (GObject *object)
{
  RkWorkspace *self = RK_WORKSPACE (object);

  if (self->fd >= 0)
    close (self->fd);
  g_mutex_clear (&self->lock);
  g_free (self->path);

  G_OBJECT_CLASS (rk_workspace_parent_class)->finalize (object);
}

static void
rk_workspace_class_init (RkWorkspaceClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rk_workspace_finalize;
}

static void
rk_workspace_init (RkWorkspace *self)
{
  g_mutex_init (&self->lock);
  self->fd = -1;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-workspace.c — workspace folders: created private, removed without
 * following links (the sandboxed code may have left symlinks anywhere). */
#define G_LOG_DOMAIN "rk-workspace"
#include "config.h"
#include "rk-workspace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *
rk_workspace_create (const char  *parent,
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
rk_workspace_delete (const char  *path,
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

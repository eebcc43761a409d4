/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-workspace-file.c — artifacts read beneath the workspace in a worker
 * thread, size-capped. */
#define G_LOG_DOMAIN "rk-workspace-file"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "rk-export.h"
#include "rk-workspace-file.h"

typedef struct
{
  char  *workspace;
  char  *rel_path;
  gsize  max_bytes;
} ReadData;

static void
read_data_free (ReadData *data)
{
  g_free (data->workspace);
  g_free (data->rel_path);
  g_free (data);
}

GBytes *
rk_workspace_file_read (const char    *workspace,
                        const char    *rel_path,
                        gsize          max_bytes,
                        GCancellable  *cancellable,
                        GError       **error)
{
  g_autoptr(GByteArray) buf = NULL;
  struct stat st;
  int dirfd, fd;

  g_return_val_if_fail (workspace != NULL && rel_path != NULL, NULL);

  dirfd = open (workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("The session’s workspace cannot be opened: %s"), g_strerror (saved));
      return NULL;
    }
  fd = rk_export_open_beneath (dirfd, rel_path, error);
  close (dirfd);
  if (fd < 0)
    return NULL;
  if (fstat (fd, &st) != 0 || (guint64) st.st_size > max_bytes)
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("The file is too large to show here."));
      return NULL;
    }
  buf = g_byte_array_sized_new (st.st_size + 1);
  for (;;)
    {
      guint8 chunk[65536];
      ssize_t n;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          close (fd);
          return NULL;
        }
      n = read (fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          close (fd);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       _("The file cannot be read: %s"), g_strerror (saved));
          return NULL;
        }
      if (n == 0)
        break;
      if (buf->len + (gsize) n > max_bytes)
        {
          close (fd);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("The file is too large to show here."));
          return NULL;
        }
      g_byte_array_append (buf, chunk, n);
    }
  close (fd);
  return g_byte_array_free_to_bytes (g_steal_pointer (&buf));
}

static void
read_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  ReadData *data = task_data;
  GError *error = NULL;
  GBytes *bytes = rk_workspace_file_read (data->workspace, data->rel_path, data->max_bytes,
                                          cancellable, &error);

  if (bytes == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, bytes, (GDestroyNotify) g_bytes_unref);
}

void
rk_workspace_file_read_async (const char          *workspace,
                              const char          *rel_path,
                              gsize                max_bytes,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  ReadData *data = g_new0 (ReadData, 1);

  g_task_set_source_tag (task, rk_workspace_file_read_async);
  data->workspace = g_strdup (workspace);
  data->rel_path = g_strdup (rel_path);
  data->max_bytes = max_bytes;
  g_task_set_task_data (task, data, (GDestroyNotify) read_data_free);
  g_task_run_in_thread (task, read_thread);
}

GBytes *
rk_workspace_file_read_finish (GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

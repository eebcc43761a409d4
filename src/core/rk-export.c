/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-export.c — artifacts out of a workspace, read through fds only: a path
 * is resolved once, beneath the workspace, with no symlink on the way, and
 * the bytes come from that fd (docs/threat-model.md items 15-17, 57). */
#define _GNU_SOURCE  /* SEEK_DATA */
#define G_LOG_DOMAIN "rk-export"
#include "config.h"
#include "rk-export.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <gio/gunixoutputstream.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk-import.h"
#include "rk-util.h"
#include "rk-zip-writer.h"

G_DEFINE_QUARK (rk-export-error-quark, rk_export_error)

#define COPY_CHUNK (256 * 1024)

void
rk_export_limits_init (RkExportLimits *limits)
{
  limits->max_files = 10000;
  limits->max_total_bytes = G_GUINT64_CONSTANT (4) * 1024 * 1024 * 1024;
  limits->spent = NULL;
}

/* FALSE, with @error saying why reading or writing @display failed (errno
 * as the failed call left it). */
static gboolean
io_failed (gboolean     writing,
           const char  *display,
           GError     **error)
{
  int errsv = errno;

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
               writing ? _("Could not write “%s”: %s.") : _("Could not read “%s”: %s."),
               display, g_strerror (errsv));
  return FALSE;
}

/* FALSE, with @error saying the files add up to more than @max_total. */
static gboolean
over_cap (guint64   max_total,
          GError  **error)
{
  g_autofree char *cap = g_format_size (max_total);

  g_set_error (error, RK_EXPORT_ERROR, RK_EXPORT_ERROR_TOO_LARGE,
               _("The files to export are larger than %s together."), cap);
  return FALSE;
}

/* Copies @in to @out (either an fd or the current entry of a zip), counting
 * into *@total against @max_total (apparent size: holes count). Runs of
 * zeros are skipped in @out, so a sparse file stays sparse on the host. */
static gboolean
copy_fd (int              in,
         int              out,
         RkZipWriter     *zip,
         guint64         *total,
         guint64          max_total,
         const char      *display,
         GCancellable    *cancellable,
         GError         **error)
{
  g_autofree char *buf = g_malloc (COPY_CHUNK);

  for (;;)
    {
      ssize_t n;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      if (out >= 0)
        {
          /* A hole in @in: skipped on both sides without reading it (it
           * still counts, at its apparent size). */
          off_t pos = lseek (in, 0, SEEK_CUR), next = pos >= 0 ? lseek (in, pos, SEEK_DATA) : -1;

          if (next < 0 && errno == ENXIO)
            next = lseek (in, 0, SEEK_END);
          if (next > pos)
            {
              *total += (guint64) (next - pos);
              if (*total > max_total)
                return over_cap (max_total, error);
              if (lseek (out, next - pos, SEEK_CUR) < 0)
                return io_failed (TRUE, display, error);
            }
        }
      n = read (in, buf, COPY_CHUNK);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return io_failed (FALSE, display, error);
      if (n == 0)
        {
          off_t end = out >= 0 ? lseek (out, 0, SEEK_CUR) : 0;

          /* A file that ends in a hole: its size, without writing it. */
          if (end > 0 && ftruncate (out, end) != 0)
            return io_failed (TRUE, display, error);
          return TRUE;
        }
      *total += n;
      /* A file still growing in the sandbox cannot push past the cap. */
      if (*total > max_total)
        return over_cap (max_total, error);
      if (zip != NULL)
        {
          g_autoptr(GError) local_error = NULL;

          if (!rk_zip_writer_write (zip, buf, n, &local_error))
            {
              g_set_error (error, RK_EXPORT_ERROR, RK_EXPORT_ERROR_FAILED,
                           _("Could not write the zip file: %s."), local_error->message);
              return FALSE;
            }
        }
      else if (buf[0] == 0 && memcmp (buf, buf + 1, n - 1) == 0 && lseek (out, n, SEEK_CUR) >= 0)
        continue;
      else
        {
          const char *p = buf;

          while (n > 0)
            {
              ssize_t w = write (out, p, n);

              if (w < 0 && errno == EINTR)
                continue;
              if (w < 0)
                return io_failed (TRUE, display, error);
              p += w;
              n -= w;
            }
        }
    }
}

gboolean
rk_export_file (RkWorkspace          *workspace,
                const char           *rel_path,
                const char           *dest_path,
                const RkExportLimits *limits,
                GCancellable         *cancellable,
                GError              **error)
{
  g_autofree char *dir = g_path_get_dirname (dest_path);
  g_autofree char *tmp = NULL;
  RkExportLimits defaults;
  guint64 total;
  int in, out;
  gboolean ok;

  if (limits == NULL)
    {
      rk_export_limits_init (&defaults);
      limits = &defaults;
    }
  total = limits->spent != NULL ? *limits->spent : 0;
  in = rk_workspace_open_file (workspace, rel_path, error);
  if (in < 0)
    return FALSE;

  tmp = g_build_filename (dir, ".reckon-export-XXXXXX", NULL);
  out = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0644);
  if (out < 0)
    {
      int errsv = errno;

      close (in);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Could not write to the chosen folder: %s."), g_strerror (errsv));
      return FALSE;
    }
  ok = copy_fd (in, out, NULL, &total, limits->max_total_bytes, rel_path, cancellable, error);
  if (limits->spent != NULL)
    *limits->spent = total;
  close (in);
  if (close (out) != 0 && ok)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Could not write the file: %s."), g_strerror (errsv));
      ok = FALSE;
    }
  if (ok && rename (tmp, dest_path) != 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Could not save the file: %s."), g_strerror (errsv));
      ok = FALSE;
    }
  if (!ok)
    g_unlink (tmp);
  return ok;
}

/* A destination name not yet in @used (which then holds it). */
static char *
unique_name (GHashTable *used,
             const char *rel_path)
{
  g_autofree char *base = rk_import_sanitize_name (rel_path, RK_IMPORT_NAME_MAX);
  char *name = g_strdup (base);

  for (guint n = 2; g_hash_table_contains (used, name); n++)
    {
      g_free (name);
      name = rk_import_numbered_name (base, n, RK_IMPORT_NAME_MAX);
    }
  g_hash_table_add (used, g_strdup (name));
  return name;
}

gboolean
rk_export_all (RkWorkspace          *workspace,
               const char * const   *rel_paths,
               RkExportFormat        format,
               const char           *dest,
               const RkExportLimits *limits,
               GStrv                *skipped,
               GCancellable         *cancellable,
               GError              **error)
{
  g_autoptr(GHashTable) used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) created = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GStrvBuilder) skips = g_strv_builder_new ();
  g_autofree char *zip_tmp = NULL;
  g_autoptr(RkZipWriter) zip = NULL;
  g_autoptr(GOutputStream) zip_stream = NULL;
  RkExportLimits defaults;
  guint n_paths = rel_paths ? g_strv_length ((GStrv) rel_paths) : 0;
  guint64 total = 0;
  gboolean ok = FALSE;
  int destfd = -1;

  if (limits == NULL)
    {
      rk_export_limits_init (&defaults);
      limits = &defaults;
    }
  total = limits->spent != NULL ? *limits->spent : 0;
  if (n_paths > limits->max_files)
    {
      g_set_error (error, RK_EXPORT_ERROR, RK_EXPORT_ERROR_TOO_MANY,
                   _("There are %u files to export, more than the %u allowed at once."),
                   n_paths, limits->max_files);
      return FALSE;
    }

  if (format == RK_EXPORT_FOLDER)
    {
      if (g_mkdir (dest, 0755) != 0 && errno != EEXIST)
        {
          int errsv = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                       _("Could not create the folder: %s."), g_strerror (errsv));
          goto out;
        }
      destfd = open (dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (destfd < 0)
        {
          int errsv = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                       _("Could not open the folder: %s."), g_strerror (errsv));
          goto out;
        }
    }
  else
    {
      g_autofree char *dir = g_path_get_dirname (dest);
      int tmpfd;

      zip_tmp = g_build_filename (dir, ".reckon-export-XXXXXX", NULL);
      tmpfd = g_mkstemp_full (zip_tmp, O_WRONLY | O_CLOEXEC, 0644);
      if (tmpfd < 0)
        {
          int errsv = errno;

          g_clear_pointer (&zip_tmp, g_free);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                       _("Could not write to the chosen folder: %s."), g_strerror (errsv));
          goto out;
        }
      /* The stream owns tmpfd from here. */
      zip_stream = g_unix_output_stream_new (tmpfd, TRUE);
      zip = rk_zip_writer_new (zip_stream, cancellable);
    }

  for (guint i = 0; i < n_paths; i++)
    {
      g_autoptr(GError) local_error = NULL;
      g_autofree char *name = NULL;
      struct stat st;
      int in = rk_workspace_open_file (workspace, rel_paths[i], &local_error);

      if (in < 0)
        {
          g_autofree char *line = g_strdup_printf ("%s: %s", rel_paths[i], local_error->message);

          g_strv_builder_add (skips, line);
          continue;
        }
      fstat (in, &st);
      if (total + (guint64) st.st_size > limits->max_total_bytes)
        {
          over_cap (limits->max_total_bytes, error);
          close (in);
          goto out;
        }
      name = unique_name (used, rel_paths[i]);

      if (zip != NULL)
        {
          gboolean copied;

          if (!rk_zip_writer_begin_entry (zip, name, st.st_mtime, &local_error))
            {
              close (in);
              g_set_error (error, RK_EXPORT_ERROR, RK_EXPORT_ERROR_FAILED,
                           _("Could not write the zip file: %s."), local_error->message);
              goto out;
            }
          copied = copy_fd (in, -1, zip, &total, limits->max_total_bytes, rel_paths[i], cancellable, error);
          close (in);
          if (!copied)
            goto out;
        }
      else
        {
          int outfd = -1;
          gboolean copied;

          /* O_EXCL: never write through something already there. */
          for (guint n = 2; outfd < 0; n++)
            {
              outfd = openat (destfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
              if (outfd < 0 && errno == EEXIST && n < 10000)
                {
                  g_autofree char *base = rk_import_sanitize_name (rel_paths[i], RK_IMPORT_NAME_MAX);

                  g_free (name);
                  name = rk_import_numbered_name (base, n, RK_IMPORT_NAME_MAX);
                  continue;
                }
              if (outfd < 0)
                {
                  io_failed (TRUE, name, error);
                  close (in);
                  goto out;
                }
            }
          g_ptr_array_add (created, g_strdup (name));
          copied = copy_fd (in, outfd, NULL, &total, limits->max_total_bytes, rel_paths[i], cancellable, error);
          close (in);
          if (close (outfd) != 0 && copied)
            copied = io_failed (TRUE, name, error);
          if (!copied)
            goto out;
        }
    }

  if (zip != NULL)
    {
      g_autoptr(GError) local_error = NULL;

      if (!rk_zip_writer_finish (zip, &local_error) ||
          !g_output_stream_close (zip_stream, cancellable, &local_error))
        {
          g_set_error (error, RK_EXPORT_ERROR, RK_EXPORT_ERROR_FAILED,
                       _("Could not write the zip file: %s."), local_error->message);
          goto out;
        }
      if (rename (zip_tmp, dest) != 0)
        {
          int errsv = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                       _("Could not save the zip file: %s."), g_strerror (errsv));
          goto out;
        }
      g_clear_pointer (&zip_tmp, g_free);
    }
  ok = TRUE;

out:
  if (zip_tmp != NULL)
    g_unlink (zip_tmp);
  if (!ok && destfd >= 0)
    for (guint i = 0; i < created->len; i++)
      unlinkat (destfd, g_ptr_array_index (created, i), 0);
  if (destfd >= 0)
    close (destfd);
  if (ok && skipped != NULL)
    *skipped = g_strv_builder_end (skips);
  if (limits->spent != NULL)
    *limits->spent = total;
  return ok;
}

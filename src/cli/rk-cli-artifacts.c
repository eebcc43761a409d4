/* rk-cli-artifacts.c — copying what a run produced out of the workspace for
 * the CLI's --out: tables as CSV through RkTable, everything else through
 * rk-export, which reads only regular files beneath the workspace. */
#define G_LOG_DOMAIN "reckon-cli"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <unistd.h>

#include "rk-cli.h"
#include "rk-export.h"
#include "rk-import.h"
#include "rk-kernel-protocol.h"
#include "rk-table.h"

/* A name in @dir that does not exist yet: @name, or "@name (2)", ... */
static char *
free_path (const char *dir,
           const char *name)
{
  for (guint n = 1; n < 10000; n++)
    {
      g_autofree char *candidate = n == 1 ? g_strdup (name)
                                          : rk_import_numbered_name (name, n, RK_IMPORT_NAME_MAX);
      g_autofree char *path = g_build_filename (dir, candidate, NULL);

      if (!g_file_test (path, G_FILE_TEST_EXISTS | G_FILE_TEST_IS_SYMLINK))
        return g_steal_pointer (&path);
    }
  return NULL;
}

static char *
save_table_csv (int            workspace_fd,
                RkKernelEvent *ev,
                const char    *out_dir,
                guint          n,
                GError       **error)
{
  g_autofree char *wanted = ev->name ? g_strdup_printf ("%s.csv", ev->name)
                                     : g_strdup_printf ("table-%u.csv", n);
  g_autofree char *name = rk_import_sanitize_name (wanted, RK_IMPORT_NAME_MAX);
  g_autofree char *path = NULL;
  g_autoptr(RkTable) table = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileOutputStream) stream = NULL;
  int fd;

  fd = rk_export_open_beneath (workspace_fd, ev->path, error);
  if (fd < 0)
    return NULL;
  table = rk_table_open_fd (fd, error);
  close (fd);
  if (table == NULL)
    return NULL;

  path = free_path (out_dir, name);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS, _("Too many files named “%s” in “%s”."), name, out_dir);
      return NULL;
    }
  file = g_file_new_for_path (path);
  stream = g_file_create (file, G_FILE_CREATE_NONE, NULL, error);
  if (stream == NULL)
    return NULL;
  if (!rk_table_export (table, RK_TABLE_EXPORT_CSV, G_OUTPUT_STREAM (stream), NULL, NULL, NULL, error)
      || !g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, error))
    {
      g_file_delete (file, NULL, NULL);
      return NULL;
    }
  return g_steal_pointer (&path);
}

guint
rk_cli_save_artifacts (const char *workspace,
                       GPtrArray  *artifacts,
                       const char *out_dir)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) skipped = NULL;
  guint failed = 0, n_tables = 0, n_skipped, n_saved;
  int workspace_fd;

  if (g_mkdir_with_parents (out_dir, 0755) != 0)
    {
      int saved = errno;
      fprintf (stderr, _("reckon: could not create “%s”: %s\n"), out_dir, g_strerror (saved));
      return artifacts->len;
    }
  workspace_fd = open (workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (workspace_fd < 0)
    {
      int saved = errno;
      fprintf (stderr, _("reckon: could not open the workspace: %s\n"), g_strerror (saved));
      return artifacts->len;
    }

  for (guint i = 0; i < artifacts->len; i++)
    {
      RkKernelEvent *ev = g_ptr_array_index (artifacts, i);
      g_autofree char *saved = NULL;

      if (!g_hash_table_add (seen, ev->path))
        continue;   /* a file changed by several cells */
      if (ev->type != RK_KERNEL_EVENT_TABLE)
        {
          g_ptr_array_add (files, ev->path);
          continue;
        }
      saved = save_table_csv (workspace_fd, ev, out_dir, ++n_tables, &error);
      if (saved != NULL)
        fprintf (stderr, _("reckon: saved %s\n"), saved);
      else
        {
          fprintf (stderr, _("reckon: could not save table %s: %s\n"), ev->name ? ev->name : ev->path, error->message);
          g_clear_error (&error);
          failed++;
        }
    }
  close (workspace_fd);

  if (files->len == 0)
    return failed;
  g_ptr_array_add (files, NULL);
  if (!rk_export_all (workspace, (const char * const *) files->pdata, RK_EXPORT_FOLDER, out_dir,
                      NULL, &skipped, NULL, &error))
    {
      fprintf (stderr, _("reckon: could not save the files: %s\n"), error->message);
      return failed + files->len - 1;
    }
  n_skipped = skipped != NULL ? g_strv_length (skipped) : 0;
  for (guint i = 0; i < n_skipped; i++)
    fprintf (stderr, _("reckon: not saved: %s\n"), skipped[i]);
  n_saved = files->len - 1 - n_skipped;
  fprintf (stderr, g_dngettext (GETTEXT_PACKAGE, "reckon: saved %u file in %s\n",
                                "reckon: saved %u files in %s\n", n_saved),
           n_saved, out_dir);
  return failed + n_skipped;
}

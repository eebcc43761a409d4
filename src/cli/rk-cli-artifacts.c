/* rk-cli-artifacts.c — copying what a run produced out of the workspace for
 * the CLI's --out: tables as CSV through RkTable, everything else through
 * rk-export, which reads only regular files beneath the workspace; charts
 * also drawn to PNG. */
#define G_LOG_DOMAIN "reckon-cli"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <gio/gunixinputstream.h>
#include <stdio.h>
#include <unistd.h>

#include "rk-chart.h"
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

/* A chart as a picture the user can open, drawn by RkChart from its spec
 * (read through an fd beneath the workspace, like everything else). */
static char *
save_chart_png (int            workspace_fd,
                const char    *workspace,
                RkKernelEvent *ev,
                const char    *out_dir,
                guint          n,
                GError       **error)
{
  g_autofree char *wanted = ev->title && *ev->title ? g_strdup_printf ("%s.png", ev->title)
                                                    : g_strdup_printf ("chart-%u.png", n);
  g_autofree char *name = rk_import_sanitize_name (wanted, RK_IMPORT_NAME_MAX);
  g_autofree char *spec_dir = g_path_get_dirname (ev->path);
  g_autofree char *base_dir = g_build_filename (workspace, spec_dir, NULL);
  g_autofree char *path = NULL;
  g_autoptr(GInputStream) in = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(RkChart) chart = NULL;
  int fd;

  fd = rk_export_open_beneath (workspace_fd, ev->path, error);
  if (fd < 0)
    return NULL;
  in = g_unix_input_stream_new (fd, TRUE);
  bytes = g_input_stream_read_bytes (in, RK_CHART_MAX_SPEC_BYTES + 1, NULL, error);
  if (bytes == NULL)
    return NULL;
  chart = rk_chart_new_from_bytes (bytes, base_dir, error);
  if (chart == NULL)
    return NULL;
  path = free_path (out_dir, name);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS, _("Too many files named “%s” in “%s”."), name, out_dir);
      return NULL;
    }
  if (!rk_chart_export (chart, path, -1, 1200, 800, RK_CHART_STYLE_LIGHT, error))
    return NULL;
  return g_steal_pointer (&path);
}

/* The folder in @out_dir for a workspace file: its own relative folder,
 * each part sanitised, so "report/note.txt" lands in OUT/report/. */
static char *
destination_dir (const char *out_dir,
                 const char *rel_path)
{
  g_autofree char *dir_rel = g_path_get_dirname (rel_path);
  g_auto(GStrv) parts = NULL;
  char *dir;

  if (g_strcmp0 (dir_rel, ".") == 0 || g_str_has_prefix (rel_path, ".reckon/"))
    return g_strdup (out_dir);
  parts = g_strsplit (dir_rel, "/", -1);
  dir = g_strdup (out_dir);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_autofree char *safe = rk_import_sanitize_name (parts[i], RK_IMPORT_NAME_MAX);
      char *next = g_build_filename (dir, safe, NULL);

      g_free (dir);
      dir = next;
    }
  return dir;
}

guint
rk_cli_save_artifacts (const char *workspace,
                       GPtrArray  *artifacts,
                       const char *out_dir)
{
  /* destination folder → GPtrArray of workspace paths */
  g_autoptr(GHashTable) by_dir = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                        (GDestroyNotify) g_ptr_array_unref);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GError) error = NULL;
  GHashTableIter iter;
  gpointer key, value;
  guint failed = 0, n_tables = 0, n_charts = 0, n_saved = 0;
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
      if (ev->type == RK_KERNEL_EVENT_CHART)
        {
          /* The spec goes out too, below, for redrawing it later. */
          g_autofree char *png = save_chart_png (workspace_fd, workspace, ev, out_dir, ++n_charts, &error);

          if (png != NULL)
            fprintf (stderr, _("reckon: saved %s\n"), png);
          else
            {
              fprintf (stderr, _("reckon: could not draw chart %s: %s\n"), ev->title ? ev->title : ev->path, error->message);
              g_clear_error (&error);
              failed++;
            }
        }
      if (ev->type != RK_KERNEL_EVENT_TABLE)
        {
          char *dir = destination_dir (out_dir, ev->path);
          GPtrArray *paths = g_hash_table_lookup (by_dir, dir);

          if (paths == NULL)
            {
              paths = g_ptr_array_new ();
              g_hash_table_insert (by_dir, dir, paths);
            }
          else
            g_free (dir);
          g_ptr_array_add (paths, ev->path);
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

  g_hash_table_iter_init (&iter, by_dir);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GPtrArray *paths = value;
      g_auto(GStrv) skipped = NULL;
      guint n_skipped;

      g_ptr_array_add (paths, NULL);
      if (!rk_export_all (workspace, (const char * const *) paths->pdata, RK_EXPORT_FOLDER, key,
                          NULL, &skipped, NULL, &error))
        {
          fprintf (stderr, _("reckon: could not save files in %s: %s\n"), (const char *) key, error->message);
          g_clear_error (&error);
          failed += paths->len - 1;
          continue;
        }
      n_skipped = skipped != NULL ? g_strv_length (skipped) : 0;
      for (guint i = 0; i < n_skipped; i++)
        fprintf (stderr, _("reckon: not saved: %s\n"), skipped[i]);
      failed += n_skipped;
      n_saved += paths->len - 1 - n_skipped;
    }
  if (n_saved > 0)
    fprintf (stderr, g_dngettext (GETTEXT_PACKAGE, "reckon: saved %u file in %s\n",
                                  "reckon: saved %u files in %s\n", n_saved),
             n_saved, out_dir);
  return failed;
}

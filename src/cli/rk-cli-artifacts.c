/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-cli-artifacts.c — copying what a run produced out of the workspace for
 * the CLI's --out: tables as CSV through RkTable (and as .rkt, for
 * `reckon-cli table`), everything else through rk-export, which reads only
 * regular files beneath the workspace; charts also drawn to PNG. */
#define G_LOG_DOMAIN "reckon-cli"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rk-chart.h"
#include "rk-cli.h"
#include "rk-export.h"
#include "rk-import.h"
#include "rk-kernel-protocol.h"
#include "rk-session.h"
#include "rk-table.h"
#include "rk-text.h"

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

/* "sales" → "OUT/sales.csv", or "OUT/table-2.csv" when @title is empty;
 * a free path (" (2)" added on a collision). */
static char *
free_named_path (const char *out_dir,
                 const char *title,
                 const char *fallback,
                 guint       n,
                 const char *extension,
                 GError    **error)
{
  g_autofree char *wanted = title != NULL && *title != '\0'
                            ? g_strdup_printf ("%s.%s", title, extension)
                            : g_strdup_printf ("%s-%u.%s", fallback, n, extension);
  g_autofree char *name = rk_import_sanitize_name (wanted, RK_IMPORT_NAME_MAX);
  char *path = free_path (out_dir, name);

  if (path == NULL)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS, _("Too many files named “%s” in “%s”."), name, out_dir);
  return path;
}

/* A table as CSV, and as the .rkt the kernel wrote (raw values and types,
 * for `reckon-cli table`). */
static gboolean
save_table (RkWorkspace      *workspace,
            const RkExportLimits *limits,
            const RkArtifact *artifact,
            const char       *out_dir,
            guint             n,
            GPtrArray        *saved,
            GError          **error)
{
  g_autofree char *csv_path = NULL;
  g_autofree char *rkt_path = NULL;
  g_autoptr(RkTable) table = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileOutputStream) stream = NULL;
  int fd;

  fd = rk_workspace_open_file (workspace, artifact->path, error);
  if (fd < 0)
    return FALSE;
  table = rk_table_open_fd (fd, error);
  close (fd);
  if (table == NULL)
    return FALSE;

  csv_path = free_named_path (out_dir, artifact->title, "table", n, "csv", error);
  if (csv_path == NULL)
    return FALSE;
  file = g_file_new_for_path (csv_path);
  stream = g_file_create (file, G_FILE_CREATE_NONE, NULL, error);
  if (stream == NULL)
    return FALSE;
  if (!rk_table_export (table, RK_TABLE_EXPORT_CSV, G_OUTPUT_STREAM (stream), NULL, NULL, NULL, error)
      || !g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, error))
    {
      g_file_delete (file, NULL, NULL);
      return FALSE;
    }
  g_ptr_array_add (saved, g_steal_pointer (&csv_path));

  rkt_path = free_named_path (out_dir, artifact->title, "table", n, "rkt", error);
  if (rkt_path == NULL || !rk_export_file_limited (workspace, artifact->path, rkt_path, limits, NULL, error))
    return FALSE;
  g_ptr_array_add (saved, g_steal_pointer (&rkt_path));
  return TRUE;
}

/* A figure under a name that says what it is: figure-1.png, figure-2.svg. */
static gboolean
save_figure (RkWorkspace      *workspace,
             const RkExportLimits *limits,
             const RkArtifact *artifact,
             const char       *out_dir,
             guint             n,
             GPtrArray        *saved,
             GError          **error)
{
  const char *dot = strrchr (artifact->path, '.');
  g_autofree char *path = free_named_path (out_dir, NULL, "figure", n,
                                           dot != NULL && g_strcmp0 (dot, ".svg") == 0 ? "svg" : "png",
                                           error);

  if (path == NULL || !rk_export_file_limited (workspace, artifact->path, path, limits, NULL, error))
    return FALSE;
  g_ptr_array_add (saved, g_steal_pointer (&path));
  return TRUE;
}

/* A chart as a picture the user can open, drawn by RkChart from its spec
 * (read through an fd beneath the workspace, like everything else), and
 * the spec beside it for `reckon-cli chart`. */
static gboolean
save_chart (RkWorkspace      *workspace,
            const RkExportLimits *limits,
            const RkArtifact *artifact,
            const char       *out_dir,
            guint             n,
            GPtrArray        *saved,
            GError          **error)
{
  g_autofree char *png_path = NULL;
  g_autofree char *spec_path = NULL;
  g_autoptr(RkChart) chart = NULL;

  /* The spec and its sidecar, both through fds beneath the workspace. */
  chart = rk_chart_new_from_workspace (workspace, artifact->path, error);
  if (chart == NULL)
    return FALSE;
  png_path = free_named_path (out_dir, artifact->title, "chart", n, "png", error);
  if (png_path == NULL || !rk_chart_export (chart, png_path, -1, 1200, 800, RK_CHART_STYLE_LIGHT, error))
    return FALSE;
  g_ptr_array_add (saved, g_steal_pointer (&png_path));

  spec_path = free_named_path (out_dir, artifact->title, "chart", n, "json", error);
  if (spec_path == NULL || !rk_export_file_limited (workspace, artifact->path, spec_path, limits, NULL, error))
    return FALSE;
  g_ptr_array_add (saved, g_steal_pointer (&spec_path));
  return TRUE;
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

static const char *
artifact_label (const RkArtifact *artifact)
{
  if (artifact->title != NULL && *artifact->title != '\0')
    return artifact->title;
  switch (artifact->kind)
    {
    case RK_ARTIFACT_TABLE: return _("a table");
    case RK_ARTIFACT_FIGURE: return _("a figure");
    case RK_ARTIFACT_CHART: return _("a chart");
    case RK_ARTIFACT_FILE:
    default: return artifact->path;
    }
}

guint
rk_cli_save_artifacts (RkSession  *session,
                       const char *out_dir)
{
  RkWorkspace *workspace = rk_session_get_workspace (session);
  GPtrArray *artifacts = rk_session_get_artifacts (session);
  /* destination folder → GPtrArray of workspace paths */
  g_autoptr(GHashTable) by_dir = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                        (GDestroyNotify) g_ptr_array_unref);
  g_autoptr(GPtrArray) saved = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  GHashTableIter iter;
  gpointer key, value;
  guint failed = 0, n_tables = 0, n_figures = 0, n_charts = 0, n_files = 0;
  /* One cap for everything this run saves, however many folders and
   * kinds it is split into (issue 18: five 1 GiB files in five folders
   * were five exports of 1 GiB each, under a 4 GiB cap each). */
  guint64 spent = 0;
  RkExportLimits limits;

  rk_export_limits_init (&limits);
  limits.spent = &spent;

  if (artifacts->len == 0)
    return 0;
  if (g_mkdir_with_parents (out_dir, 0755) != 0)
    {
      int errsv = errno;
      rk_cli_print (stderr, _("reckon: could not create “%s”: %s\n"), out_dir, g_strerror (errsv));
      return artifacts->len;
    }
  if (!rk_workspace_exists (workspace))
    {
      rk_cli_print (stderr, _("reckon: could not open the workspace: %s\n"), g_strerror (ENOENT));
      return artifacts->len;
    }

  for (guint i = 0; i < artifacts->len; i++)
    {
      const RkArtifact *artifact = g_ptr_array_index (artifacts, i);
      gboolean ok = TRUE;

      switch (artifact->kind)
        {
        case RK_ARTIFACT_TABLE:
          ok = save_table (workspace, &limits, artifact, out_dir, ++n_tables, saved, &error);
          break;
        case RK_ARTIFACT_FIGURE:
          ok = save_figure (workspace, &limits, artifact, out_dir, ++n_figures, saved, &error);
          break;
        case RK_ARTIFACT_CHART:
          ok = save_chart (workspace, &limits, artifact, out_dir, ++n_charts, saved, &error);
          break;
        case RK_ARTIFACT_FILE:
        default:
          {
            char *dir = destination_dir (out_dir, artifact->path);
            GPtrArray *paths = g_hash_table_lookup (by_dir, dir);

            if (paths == NULL)
              {
                paths = g_ptr_array_new ();
                g_hash_table_insert (by_dir, dir, paths);
              }
            else
              g_free (dir);
            g_ptr_array_add (paths, artifact->path);
          }
          break;
        }
      if (!ok)
        {
          g_autofree char *label = rk_text_sanitize_for_terminal (artifact_label (artifact), RK_TEXT_SANITIZE_SINGLE_LINE);

          rk_cli_print (stderr, _("reckon: could not save %s: %s\n"), label, error->message);
          g_clear_error (&error);
          failed++;
        }
    }

  g_hash_table_iter_init (&iter, by_dir);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GPtrArray *paths = value;
      g_auto(GStrv) skipped = NULL;
      guint n_skipped;

      g_ptr_array_add (paths, NULL);
      if (!rk_export_all (workspace, (const char * const *) paths->pdata, RK_EXPORT_FOLDER, key,
                          &limits, &skipped, NULL, &error))
        {
          rk_cli_print (stderr, _("reckon: could not save files in %s: %s\n"), (const char *) key, error->message);
          g_clear_error (&error);
          failed += paths->len - 1;
          continue;
        }
      n_skipped = skipped != NULL ? g_strv_length (skipped) : 0;
      for (guint i = 0; i < n_skipped; i++)
        {
          g_autofree char *line = rk_text_sanitize_for_terminal (skipped[i], RK_TEXT_SANITIZE_SINGLE_LINE);

          rk_cli_print (stderr, _("reckon: not saved: %s\n"), line);
        }
      failed += n_skipped;
      n_files += paths->len - 1 - n_skipped;
    }

  for (guint i = 0; i < saved->len; i++)
    {
      g_autofree char *line = rk_text_sanitize_for_terminal (g_ptr_array_index (saved, i), RK_TEXT_SANITIZE_SINGLE_LINE);

      rk_cli_print (stderr, _("reckon: saved %s\n"), line);
    }
  if (saved->len + n_files > 0)
    rk_cli_print (stderr, g_dngettext (GETTEXT_PACKAGE, "reckon: saved %u file in %s\n",
                                  "reckon: saved %u files in %s\n", saved->len + n_files),
             saved->len + n_files, out_dir);
  return failed;
}

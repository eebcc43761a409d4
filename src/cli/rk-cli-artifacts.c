/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-cli-artifacts.c — copying what a run produced out of the workspace for
 * the CLI's --out: tables as CSV and charts as PNG through the core's
 * rk_artifact_save, the originals (.rkt, chart specs, figures, files)
 * through rk-export, which reads only regular files beneath the workspace. */
#define G_LOG_DOMAIN "reckon-cli"
#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "rk-artifact-export.h"
#include "rk-cli.h"
#include "rk-export.h"
#include "rk-import.h"
#include "rk-session.h"
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

/* A table, a figure or a chart under a name that says what it is: a table
 * as CSV (rk_artifact_save) and as the .rkt the kernel wrote (raw values
 * and types, for `reckon-cli table`); a chart drawn to PNG and its spec
 * beside it (for `reckon-cli chart`); a figure as it is (figure-1.png,
 * figure-2.svg). Everything is read through fds beneath the workspace. */
static gboolean
save_artifact (RkWorkspace          *workspace,
               const RkExportLimits *limits,
               const RkArtifact     *artifact,
               const char           *out_dir,
               guint                 n,
               GPtrArray            *saved,
               GError              **error)
{
  const char *dot = strrchr (artifact->path, '.');
  const char *title = artifact->title;
  const char *fallback;
  const char *converted = NULL;   /* the form a user opens, when not the original */
  const char *original;
  RkEntryKind entry_kind = RK_ENTRY_FILE;
  g_autofree char *path = NULL;

  switch (artifact->kind)
    {
    case RK_ARTIFACT_TABLE:
      entry_kind = RK_ENTRY_TABLE;
      fallback = "table", converted = "csv", original = "rkt";
      break;
    case RK_ARTIFACT_CHART:
      entry_kind = RK_ENTRY_CHART;
      fallback = "chart", converted = "png", original = "json";
      break;
    case RK_ARTIFACT_FIGURE:
    default:
      title = NULL;
      fallback = "figure", original = dot != NULL && g_strcmp0 (dot, ".svg") == 0 ? "svg" : "png";
      break;
    }

  if (converted != NULL)
    {
      path = free_named_path (out_dir, title, fallback, n, converted, error);
      if (path == NULL || !rk_artifact_save (workspace, entry_kind, artifact->path, path, NULL, error))
        return FALSE;
      g_ptr_array_add (saved, g_steal_pointer (&path));
    }
  path = free_named_path (out_dir, title, fallback, n, original, error);
  if (path == NULL || !rk_export_file (workspace, artifact->path, path, limits, NULL, error))
    return FALSE;
  g_ptr_array_add (saved, g_steal_pointer (&path));
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
          ok = save_artifact (workspace, &limits, artifact, out_dir, ++n_tables, saved, &error);
          break;
        case RK_ARTIFACT_FIGURE:
          ok = save_artifact (workspace, &limits, artifact, out_dir, ++n_figures, saved, &error);
          break;
        case RK_ARTIFACT_CHART:
          ok = save_artifact (workspace, &limits, artifact, out_dir, ++n_charts, saved, &error);
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

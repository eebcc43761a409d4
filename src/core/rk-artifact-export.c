/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-artifact-export.c — saving artifacts as files people open. Everything
 * from the workspace is read through fds opened beneath it; "Save all" stages
 * the converted files in a private folder and hands that to rk_export_all. */
#define G_LOG_DOMAIN "rk-artifact-export"
#include "config.h"

#include "rk-artifact-export.h"
#include "rk-chart.h"
#include "rk-import.h"
#include "rk-provenance.h"
#include "rk-table.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

static gboolean
has_suffix_ci (const char *path,
               const char *suffix)
{
  gsize n = strlen (path), m = strlen (suffix);

  return n >= m && g_ascii_strcasecmp (path + n - m, suffix) == 0;
}

static gboolean
save_table (RkWorkspace   *workspace,
            const char    *rel_path,
            const char    *dest_path,
            GCancellable  *cancellable,
            GError       **error)
{
  g_autoptr(RkTable) table = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (dest_path);
  g_autoptr(GFileOutputStream) out = NULL;
  RkTableExportFormat format = has_suffix_ci (dest_path, ".xlsx") ? RK_TABLE_EXPORT_XLSX : RK_TABLE_EXPORT_CSV;
  int fd = rk_workspace_open_file (workspace, rel_path, error);

  if (fd < 0)
    return FALSE;
  table = rk_table_open_fd (fd, error);
  close (fd);
  if (table == NULL)
    return FALSE;
  out = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION, cancellable, error);
  if (out == NULL)
    return FALSE;
  if (!rk_table_export (table, format, G_OUTPUT_STREAM (out), cancellable, NULL, NULL, error))
    {
      g_output_stream_close (G_OUTPUT_STREAM (out), NULL, NULL);
      g_unlink (dest_path);
      return FALSE;
    }
  return g_output_stream_close (G_OUTPUT_STREAM (out), cancellable, error);
}

gboolean
rk_artifact_save (RkWorkspace   *workspace,
                  RkEntryKind    kind,
                  const char    *rel_path,
                  const char    *dest_path,
                  GCancellable  *cancellable,
                  GError       **error)
{
  g_return_val_if_fail (RK_IS_WORKSPACE (workspace), FALSE);
  g_return_val_if_fail (rel_path != NULL, FALSE);
  g_return_val_if_fail (dest_path != NULL, FALSE);

  /* a table or chart saved under its own kind of name is copied as is */
  if ((kind == RK_ENTRY_TABLE && has_suffix_ci (dest_path, ".rkt")) ||
      (kind == RK_ENTRY_CHART && has_suffix_ci (dest_path, ".json")) ||
      (kind != RK_ENTRY_TABLE && kind != RK_ENTRY_CHART))
    return rk_export_file (workspace, rel_path, dest_path, NULL, cancellable, error);

  if (kind == RK_ENTRY_TABLE)
    return save_table (workspace, rel_path, dest_path, cancellable, error);
  else
    {
      g_autoptr(RkChart) chart = rk_chart_new_from_workspace (workspace, rel_path, error);

      return chart != NULL &&
             rk_chart_export (chart, dest_path, -1, 1200, 800, RK_CHART_STYLE_LIGHT, error);
    }
}

char *
rk_artifact_save_name (RkEntryKind  kind,
                       const char  *rel_path,
                       const char  *title)
{
  g_autofree char *base = NULL;
  g_autofree char *stem = NULL;
  const char *ext;
  char *dot;

  g_return_val_if_fail (rel_path != NULL, NULL);

  if (kind != RK_ENTRY_TABLE && kind != RK_ENTRY_CHART)
    return rk_import_sanitize_name (rel_path, RK_IMPORT_NAME_MAX);

  ext = kind == RK_ENTRY_TABLE ? ".csv" : ".svg";
  base = g_path_get_basename (rel_path);
  if (title != NULL && *title != '\0')
    stem = g_strdup (title);
  else
    {
      stem = g_strdup (base);
      dot = strrchr (stem, '.');
      if (dot != NULL && dot != stem)
        *dot = '\0';
    }
  {
    g_autofree char *name = g_strconcat (stem, ext, NULL);

    g_strdelimit (name, "/\\", '_');
    return rk_import_sanitize_name (name, RK_IMPORT_NAME_MAX);
  }
}

gboolean
rk_artifact_save_all (RkWorkspace     *workspace,
                      GPtrArray       *records,
                      RkExportFormat   format,
                      const char      *dest,
                      GStrv           *skipped,
                      GCancellable    *cancellable,
                      GError         **error)
{
  g_autoptr(GHashTable) used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) staged = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GStrvBuilder) skips = g_strv_builder_new ();
  g_auto(GStrv) export_skipped = NULL;
  g_autoptr(RkWorkspace) staging = NULL;
  g_autofree char *json = NULL;
  g_autofree char *json_path = NULL;
  gboolean ok = FALSE;

  g_return_val_if_fail (RK_IS_WORKSPACE (workspace), FALSE);
  g_return_val_if_fail (records != NULL, FALSE);
  g_return_val_if_fail (dest != NULL, FALSE);

  /* private to this user (0700), outside the sandbox's reach */
  staging = rk_workspace_new_temporary (NULL, error);
  if (staging == NULL)
    return FALSE;

  /* oldest first, so numbered duplicates follow the order they were made */
  for (guint i = records->len; i > 0; i--)
    {
      RkProvenance *p = g_ptr_array_index (records, i - 1);
      g_autoptr(GError) local_error = NULL;
      g_autofree char *name = rk_artifact_save_name (p->kind, p->path, p->title);
      g_autofree char *path = NULL;

      for (guint n = 2; g_hash_table_contains (used, name) || g_str_equal (name, "provenance.json"); n++)
        {
          g_autofree char *plain = rk_artifact_save_name (p->kind, p->path, p->title);

          g_free (name);
          name = rk_import_numbered_name (plain, n, RK_IMPORT_NAME_MAX);
        }
      path = g_build_filename (rk_workspace_get_path (staging), name, NULL);
      if (!rk_artifact_save (workspace, p->kind, p->path, path, cancellable, &local_error))
        {
          g_autofree char *line = NULL;

          if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            {
              g_propagate_error (error, g_steal_pointer (&local_error));
              goto out;
            }
          line = g_strdup_printf ("%s: %s", p->path, local_error->message);
          g_strv_builder_add (skips, line);
          continue;
        }
      g_hash_table_add (used, g_strdup (name));
      g_ptr_array_add (staged, g_steal_pointer (&name));
    }

  json = rk_provenance_to_json (records);
  json_path = g_build_filename (rk_workspace_get_path (staging), "provenance.json", NULL);
  if (!g_file_set_contents_full (json_path, json, -1, G_FILE_SET_CONTENTS_NONE, 0600, error))
    goto out;
  g_ptr_array_add (staged, g_strdup ("provenance.json"));
  g_ptr_array_add (staged, NULL);

  if (!rk_export_all (staging, (const char * const *) staged->pdata, format, dest, NULL,
                      &export_skipped, cancellable, error))
    goto out;
  for (guint i = 0; export_skipped != NULL && export_skipped[i] != NULL; i++)
    g_strv_builder_add (skips, export_skipped[i]);
  ok = TRUE;

out:
  rk_workspace_delete (staging, NULL);
  if (ok && skipped != NULL)
    *skipped = g_strv_builder_end (skips);
  return ok;
}

typedef struct
{
  GPtrArray      *records;
  RkWorkspace    *workspace;
  RkExportFormat  format;
  char           *dest;
} SaveAllData;

static void
save_all_data_free (gpointer data)
{
  SaveAllData *d = data;

  g_clear_pointer (&d->records, g_ptr_array_unref);
  g_clear_object (&d->workspace);
  g_free (d->dest);
  g_free (d);
}

static void
save_all_thread (GTask        *task,
                 gpointer      source,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  SaveAllData *d = task_data;
  GError *error = NULL;
  GStrv skipped = NULL;

  if (!rk_provenance_hash_inputs (d->records, d->workspace, cancellable, &error) ||
      !rk_artifact_save_all (d->workspace, d->records, d->format, d->dest, &skipped, cancellable, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, skipped, (GDestroyNotify) g_strfreev);
}

void
rk_artifact_save_all_async (RkTranscript        *transcript,
                            const char * const  *input_names,
                            RkWorkspace         *workspace,
                            RkExportFormat       format,
                            const char          *dest,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  SaveAllData *d;

  g_return_if_fail (RK_IS_TRANSCRIPT (transcript));
  g_return_if_fail (RK_IS_WORKSPACE (workspace));
  g_return_if_fail (dest != NULL);

  d = g_new0 (SaveAllData, 1);
  d->records = rk_provenance_collect (transcript, input_names);
  d->workspace = g_object_ref (workspace);
  d->format = format;
  d->dest = g_strdup (dest);
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_artifact_save_all_async);
  g_task_set_task_data (task, d, save_all_data_free);
  g_task_run_in_thread (task, save_all_thread);
}

GStrv
rk_artifact_save_all_finish (GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-provenance.c — the provenance of artifacts, read off the transcript
 * (cell, code, time) and the workspace (input hashes, read beneath it). */
#define G_LOG_DOMAIN "rk-provenance"
#include "config.h"

#include "rk-provenance.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <unistd.h>

#include "rk-json.h"

static void
input_free (gpointer data)
{
  RkProvenanceInput *input = data;

  g_free (input->name);
  g_free (input->sha256);
  g_free (input);
}

void
rk_provenance_free (RkProvenance *self)
{
  if (self == NULL)
    return;
  g_free (self->cell_id);
  g_free (self->path);
  g_free (self->title);
  g_free (self->code);
  g_clear_pointer (&self->inputs, g_ptr_array_unref);
  g_free (self);
}

static gboolean
is_artifact (RkEntryKind kind)
{
  return kind == RK_ENTRY_TABLE || kind == RK_ENTRY_FIGURE ||
         kind == RK_ENTRY_CHART || kind == RK_ENTRY_FILE;
}

typedef struct
{
  guint      code_entry_id;
  guint      number;       /* 0 until it ran */
  char      *code;         /* what ran */
  GPtrArray *inputs;       /* names (borrowed from the names array) */
} Cell;

static void
cell_free (gpointer data)
{
  Cell *cell = data;

  g_free (cell->code);
  g_clear_pointer (&cell->inputs, g_ptr_array_unref);
  g_free (cell);
}

/* Numbers @cell as the next that ran (once) and records the inputs it could
 * have read: those named in its code or in any code that ran before it. */
static void
cell_ran (Cell      *cell,
          GPtrArray *names,
          GPtrArray *seen,
          GString   *so_far,
          guint     *number)
{
  if (cell->number != 0)
    return;
  cell->number = ++*number;
  if (cell->code != NULL)
    {
      g_string_append (so_far, cell->code);
      g_string_append_c (so_far, '\n');
    }
  for (guint k = 0; k < names->len; k++)
    {
      const char *name = g_ptr_array_index (names, k);

      if (!g_ptr_array_find (seen, name, NULL) && strstr (so_far->str, name) != NULL)
        g_ptr_array_add (seen, (gpointer) name);
    }
  cell->inputs = g_ptr_array_copy (seen, NULL, NULL);
}

GPtrArray *
rk_provenance_collect (RkTranscript       *transcript,
                       const char * const *input_names)
{
  g_autoptr(GHashTable) cells = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, cell_free);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) seen = g_ptr_array_new ();   /* names mentioned so far (borrowed) */
  g_autoptr(GString) so_far = g_string_new (NULL); /* all code that ran, to match names */
  GPtrArray *records;
  guint n = rk_transcript_get_n_entries (transcript);
  guint number = 0;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (transcript), NULL);

  if (input_names != NULL)
    for (guint i = 0; input_names[i] != NULL; i++)
      g_ptr_array_add (names, g_strdup (input_names[i]));

  /* First pass: the code of each cell, the cells in the order they ran, and
   * the inputs each could have read (named in its code or in earlier code:
   * variables live on between cells). */
  for (guint i = 0; i < n; i++)
    {
      RkTranscriptEntry *entry = rk_transcript_get_entry (transcript, i);
      const char *cell_id = rk_transcript_entry_get_cell_id (entry);
      Cell *cell;

      switch (rk_transcript_entry_get_kind (entry))
        {
        case RK_ENTRY_USER:
          if (input_names == NULL)
            {
              const char * const *attachments = rk_transcript_entry_get_attachments (entry);

              for (guint a = 0; attachments != NULL && attachments[a] != NULL; a++)
                if (!g_ptr_array_find_with_equal_func (names, attachments[a], g_str_equal, NULL))
                  g_ptr_array_add (names, g_strdup (attachments[a]));
            }
          break;

        case RK_ENTRY_CODE:
          if (cell_id == NULL)
            break;
          cell = g_new0 (Cell, 1);
          cell->code_entry_id = rk_transcript_entry_get_id (entry);
          cell->code = g_strdup (rk_transcript_entry_get_text (entry));
          g_hash_table_replace (cells, g_strdup (cell_id), cell);
          break;

        case RK_ENTRY_APPROVAL:
          if (cell_id == NULL || (cell = g_hash_table_lookup (cells, cell_id)) == NULL)
            break;
          switch (rk_transcript_entry_get_decision (entry))
            {
            case RK_DECISION_EDITED:
              g_free (cell->code);
              cell->code = g_strdup (rk_transcript_entry_get_text (entry));
              G_GNUC_FALLTHROUGH;
            case RK_DECISION_APPROVED:
            case RK_DECISION_AUTO:
              cell_ran (cell, names, seen, so_far, &number);
              break;
            case RK_DECISION_NONE:
            case RK_DECISION_SKIPPED:
            default:
              break;
            }
          break;

        case RK_ENTRY_STREAM:
        case RK_ENTRY_RESULT:
        case RK_ENTRY_TABLE:
        case RK_ENTRY_FIGURE:
        case RK_ENTRY_CHART:
        case RK_ENTRY_FILE:
        case RK_ENTRY_ERROR:
          /* output without a recorded approval (a transcript from the CLI):
           * the cell evidently ran */
          if (cell_id != NULL && (cell = g_hash_table_lookup (cells, cell_id)) != NULL)
            cell_ran (cell, names, seen, so_far, &number);
          break;

        case RK_ENTRY_ASSISTANT:
        case RK_ENTRY_REASONING:
        case RK_ENTRY_ANSWER:
        case RK_ENTRY_NOTE:
        default:
          break;
        }
    }

  /* Second pass, newest first: one record per artifact. */
  records = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_provenance_free);
  for (guint i = n; i > 0; i--)
    {
      RkTranscriptEntry *entry = rk_transcript_get_entry (transcript, i - 1);
      const char *cell_id = rk_transcript_entry_get_cell_id (entry);
      Cell *cell = cell_id != NULL ? g_hash_table_lookup (cells, cell_id) : NULL;
      RkProvenance *p;

      if (!is_artifact (rk_transcript_entry_get_kind (entry)))
        continue;
      p = g_new0 (RkProvenance, 1);
      p->kind = rk_transcript_entry_get_kind (entry);
      p->entry_id = rk_transcript_entry_get_id (entry);
      p->cell_id = g_strdup (cell_id);
      p->path = g_strdup (rk_transcript_entry_get_path (entry));
      p->title = g_strdup (rk_transcript_entry_get_title (entry));
      p->time = rk_transcript_entry_get_timestamp (entry);
      p->inputs = g_ptr_array_new_with_free_func (input_free);
      if (cell != NULL)
        {
          p->code_entry_id = cell->code_entry_id;
          p->cell_number = cell->number;
          p->code = g_strdup (cell->code);
          for (guint k = 0; cell->inputs != NULL && k < cell->inputs->len; k++)
            {
              RkProvenanceInput *input = g_new0 (RkProvenanceInput, 1);

              input->name = g_strdup (g_ptr_array_index (cell->inputs, k));
              g_ptr_array_add (p->inputs, input);
            }
        }
      g_ptr_array_add (records, p);
    }
  return records;
}

char *
rk_provenance_file_sha256 (RkWorkspace   *workspace,
                           const char    *rel_path,
                           GCancellable  *cancellable,
                           GError       **error)
{
  g_autoptr(GChecksum) sum = NULL;
  guint8 buf[64 * 1024];
  int fd;

  g_return_val_if_fail (RK_IS_WORKSPACE (workspace), NULL);
  g_return_val_if_fail (rel_path != NULL, NULL);

  fd = rk_workspace_open_file (workspace, rel_path, error);
  if (fd < 0)
    return NULL;

  sum = g_checksum_new (G_CHECKSUM_SHA256);
  for (;;)
    {
      ssize_t got = read (fd, buf, sizeof buf);

      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        {
          int errsv = errno;

          close (fd);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                       _("Could not read “%s”: %s."), rel_path, g_strerror (errsv));
          return NULL;
        }
      if (got == 0)
        break;
      g_checksum_update (sum, buf, got);
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          close (fd);
          return NULL;
        }
    }
  close (fd);
  return g_strdup (g_checksum_get_string (sum));
}

gboolean
rk_provenance_hash_inputs (GPtrArray     *records,
                           RkWorkspace   *workspace,
                           GCancellable  *cancellable,
                           GError       **error)
{
  g_autoptr(GHashTable) hashes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  g_return_val_if_fail (records != NULL, FALSE);
  g_return_val_if_fail (RK_IS_WORKSPACE (workspace), FALSE);

  for (guint i = 0; i < records->len; i++)
    {
      RkProvenance *p = g_ptr_array_index (records, i);

      for (guint k = 0; k < p->inputs->len; k++)
        {
          RkProvenanceInput *input = g_ptr_array_index (p->inputs, k);
          char *hash;

          if (!g_hash_table_lookup_extended (hashes, input->name, NULL, (gpointer *) &hash))
            {
              g_autoptr(GError) local_error = NULL;

              hash = rk_provenance_file_sha256 (workspace, input->name, cancellable, &local_error);
              if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                {
                  g_propagate_error (error, g_steal_pointer (&local_error));
                  return FALSE;
                }
              if (local_error != NULL)
                g_debug ("No hash for %s: %s", input->name, local_error->message);
              g_hash_table_insert (hashes, g_strdup (input->name), hash);
            }
          g_free (input->sha256);
          input->sha256 = g_strdup (hash);
        }
    }
  return TRUE;
}

typedef struct
{
  GPtrArray   *records;
  RkWorkspace *workspace;
} CollectData;

static void
collect_data_free (gpointer data)
{
  CollectData *d = data;

  g_clear_pointer (&d->records, g_ptr_array_unref);
  g_clear_object (&d->workspace);
  g_free (d);
}

static void
hash_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  CollectData *d = task_data;
  GError *error = NULL;

  if (d->workspace != NULL && !rk_provenance_hash_inputs (d->records, d->workspace, cancellable, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, g_ptr_array_ref (d->records), (GDestroyNotify) g_ptr_array_unref);
}

void
rk_provenance_collect_async (RkTranscript        *transcript,
                             const char * const  *input_names,
                             RkWorkspace         *workspace,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  CollectData *d;

  g_return_if_fail (RK_IS_TRANSCRIPT (transcript));

  d = g_new0 (CollectData, 1);
  d->records = rk_provenance_collect (transcript, input_names);
  d->workspace = workspace ? g_object_ref (workspace) : NULL;
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_provenance_collect_async);
  g_task_set_task_data (task, d, collect_data_free);
  g_task_run_in_thread (task, hash_thread);
}

GPtrArray *
rk_provenance_collect_finish (GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static const char *
kind_name (RkEntryKind kind)
{
  switch (kind)
    {
    case RK_ENTRY_TABLE:
      return "table";
    case RK_ENTRY_FIGURE:
      return "figure";
    case RK_ENTRY_CHART:
      return "chart";
    case RK_ENTRY_FILE:
    default:
      return "file";
    }
}

/* Member @name: @value, or null when there is none. */
static void
add_string_or_null (JsonBuilder *b,
                    const char  *name,
                    const char  *value)
{
  json_builder_set_member_name (b, name);
  if (value != NULL)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

char *
rk_provenance_to_json (GPtrArray *records)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  g_return_val_if_fail (records != NULL, NULL);

  json_builder_begin_object (b);
  rk_json_add_int_member (b, "version", 1);
  rk_json_add_string_member (b, "generator", "Reckon " PACKAGE_VERSION);
  json_builder_set_member_name (b, "artifacts");
  json_builder_begin_array (b);
  for (guint i = 0; i < records->len; i++)
    {
      RkProvenance *p = g_ptr_array_index (records, i);
      g_autoptr(GDateTime) t = g_date_time_new_from_unix_utc (p->time / G_USEC_PER_SEC);
      g_autofree char *iso = t != NULL ? g_date_time_format_iso8601 (t) : NULL;

      json_builder_begin_object (b);
      rk_json_add_string_member (b, "kind", kind_name (p->kind));
      rk_json_add_string_member (b, "path", p->path);
      add_string_or_null (b, "title", p->title);
      add_string_or_null (b, "cell", p->cell_id);
      rk_json_add_int_member (b, "cell_number", p->cell_number);
      add_string_or_null (b, "code", p->code);
      add_string_or_null (b, "time", iso);
      json_builder_set_member_name (b, "inputs");
      json_builder_begin_array (b);
      for (guint k = 0; k < p->inputs->len; k++)
        {
          RkProvenanceInput *input = g_ptr_array_index (p->inputs, k);

          json_builder_begin_object (b);
          rk_json_add_string_member (b, "name", input->name);
          add_string_or_null (b, "sha256", input->sha256);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return rk_json_builder_to_pretty (b);
}

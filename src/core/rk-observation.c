/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-observation.c — the bounded summary of a cell run that goes back to the model. */
#define G_LOG_DOMAIN "rk-observation"
#include "config.h"
#include "rk-observation.h"

#include <string.h>

#include "rk-table.h"

/* Of each stream, the first and last KEEP bytes are kept while it runs. */
#define KEEP (16 * 1024)
#define MAX_ARTIFACTS 50
#define HEAD_ROWS 5
#define MAX_HEAD_COLUMNS 12
#define MAX_CELL 40
#define TRACEBACK_LINES 12

typedef struct
{
  GString *head;
  GString *tail;
  guint64  total;
} Capture;

struct _RkObservation
{
  RkWorkspace   *workspace;
  Capture        streams[2];
  char          *result;
  GPtrArray     *artifacts;   /* RkKernelEvent: table, figure, chart, file */
  guint          n_artifacts_dropped;
  RkKernelEvent *error;
  RkKernelEvent *done;
};

RkObservation *
rk_observation_new (RkWorkspace *workspace)
{
  RkObservation *self = g_new0 (RkObservation, 1);

  self->workspace = workspace ? g_object_ref (workspace) : NULL;
  for (guint i = 0; i < G_N_ELEMENTS (self->streams); i++)
    {
      self->streams[i].head = g_string_new (NULL);
      self->streams[i].tail = g_string_new (NULL);
    }
  self->artifacts = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_kernel_event_unref);
  return self;
}

void
rk_observation_free (RkObservation *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (self->streams); i++)
    {
      g_string_free (self->streams[i].head, TRUE);
      g_string_free (self->streams[i].tail, TRUE);
    }
  g_clear_object (&self->workspace);
  g_free (self->result);
  g_ptr_array_unref (self->artifacts);
  g_clear_pointer (&self->error, rk_kernel_event_unref);
  g_clear_pointer (&self->done, rk_kernel_event_unref);
  g_free (self);
}

static void
capture_add (Capture    *c,
             const char *text)
{
  gsize len = strlen (text);
  gsize room = c->head->len < KEEP ? KEEP - c->head->len : 0;
  gsize to_head = MIN (room, len);

  c->total += len;
  g_string_append_len (c->head, text, to_head);
  if (to_head == len)
    return;
  g_string_append_len (c->tail, text + to_head, len - to_head);
  if (c->tail->len > 2 * KEEP)
    g_string_erase (c->tail, 0, c->tail->len - KEEP);
}

void
rk_observation_add (RkObservation *self,
                    RkKernelEvent *event)
{
  g_return_if_fail (self != NULL && event != NULL);

  switch (event->type)
    {
    case RK_KERNEL_EVENT_STREAM:
      capture_add (&self->streams[event->stream == RK_KERNEL_STREAM_STDERR], event->text);
      break;
    case RK_KERNEL_EVENT_RESULT:
      g_free (self->result);
      self->result = rk_observation_cut_middle (event->text, KEEP);
      break;
    case RK_KERNEL_EVENT_TABLE:
    case RK_KERNEL_EVENT_FIGURE:
    case RK_KERNEL_EVENT_CHART:
    case RK_KERNEL_EVENT_FILE:
      if (self->artifacts->len < MAX_ARTIFACTS)
        g_ptr_array_add (self->artifacts, rk_kernel_event_ref (event));
      else
        self->n_artifacts_dropped++;
      break;
    case RK_KERNEL_EVENT_ERROR:
      g_clear_pointer (&self->error, rk_kernel_event_unref);
      self->error = rk_kernel_event_ref (event);
      break;
    case RK_KERNEL_EVENT_DONE:
      g_clear_pointer (&self->done, rk_kernel_event_unref);
      self->done = rk_kernel_event_ref (event);
      break;
    case RK_KERNEL_EVENT_READY:
    case RK_KERNEL_EVENT_STARTED:
    default:
      break;
    }
}

gboolean
rk_observation_failed (RkObservation *self)
{
  if (self->done != NULL)
    return self->done->status != RK_KERNEL_STATUS_OK;
  return self->error != NULL;
}

const char *
rk_observation_get_error (RkObservation *self)
{
  if (self->done != NULL && self->done->status == RK_KERNEL_STATUS_DIED)
    return self->done->message;
  if (self->done != NULL && self->done->status == RK_KERNEL_STATUS_INTERRUPTED)
    return "The run was interrupted.";
  if (self->error != NULL)
    return self->error->evalue;
  return NULL;
}

/* Largest prefix of @text of at most @max bytes that ends on a character boundary. */
static gsize
utf8_prefix (const char *text,
             gsize       len,
             gsize       max)
{
  const char *end;

  if (len <= max)
    return len;
  end = g_utf8_find_prev_char (text, text + max + 1);
  return end != NULL ? (gsize) (end - text) : 0;
}

static gsize
utf8_suffix_start (const char *text,
                   gsize       len,
                   gsize       max)
{
  gsize start;

  if (len <= max)
    return 0;
  start = len - max;
  while (start < len && (text[start] & 0xC0) == 0x80)
    start++;
  return start;
}

char *
rk_observation_cut_middle (const char *text,
                           gsize       max)
{
  gsize len = strlen (text);
  gsize keep_head, tail_start;
  GString *out;

  if (len <= max)
    return g_utf8_make_valid (text, len);

  keep_head = utf8_prefix (text, len, max * 6 / 10);
  tail_start = utf8_suffix_start (text, len, max * 3 / 10);
  out = g_string_new_len (text, keep_head);
  g_string_append_printf (out, "\n[… %" G_GSIZE_FORMAT " bytes cut …]\n", tail_start - keep_head);
  g_string_append (out, text + tail_start);
  {
    char *valid = g_utf8_make_valid (out->str, out->len);
    g_string_free (out, TRUE);
    return valid;
  }
}

static void
append_stream (GString    *out,
               const char *label,
               Capture    *c,
               gsize       max)
{
  g_autoptr(GString) whole = NULL;
  g_autofree char *cut = NULL;

  if (c->total == 0)
    return;
  whole = g_string_new (c->head->str);
  if (c->total > c->head->len + c->tail->len)
    g_string_append_printf (whole, "\n[… %" G_GUINT64_FORMAT " bytes cut …]\n",
                            c->total - c->head->len - c->tail->len);
  g_string_append (whole, c->tail->str);
  cut = rk_observation_cut_middle (whole->str, max);
  g_string_append_printf (out, "%s:\n%s", label, cut);
  if (out->len > 0 && out->str[out->len - 1] != '\n')
    g_string_append_c (out, '\n');
}

static const char *
column_type_name (RkTableColumnType type)
{
  switch (type)
    {
    case RK_TABLE_COLUMN_INT64: return "int64";
    case RK_TABLE_COLUMN_FLOAT64: return "float64";
    case RK_TABLE_COLUMN_BOOL: return "bool";
    case RK_TABLE_COLUMN_DATETIME: return "datetime64";
    case RK_TABLE_COLUMN_STRING: return "object";
    default: return "?";
    }
}

static void
append_cell (GString    *out,
             const char *text)
{
  g_autofree char *one_line = g_strdelimit (g_strdup (text), "\r\n\t", ' ');
  gsize n = utf8_prefix (one_line, strlen (one_line), MAX_CELL);

  g_string_append_len (out, one_line, n);
  if (n < strlen (one_line))
    g_string_append (out, "…");
}

static void
append_table (GString       *out,
              RkWorkspace   *workspace,
              RkKernelEvent *event)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTable) table = NULL;
  guint n_cols, n_rows, shown_cols;

  g_string_append_printf (out, "Table%s%s: %" G_GINT64_FORMAT " rows × %" G_GINT64_FORMAT " columns, shown to the user.\n",
                          event->name ? " " : "", event->name ? event->name : "",
                          event->rows, event->columns);
  if (workspace == NULL)
    return;
  /* Never through a joined path: a cell could plant a symlinked folder. */
  table = rk_table_open_beneath (workspace, event->path, &error);
  if (table == NULL)
    return;

  n_cols = rk_table_get_n_columns (table);
  n_rows = rk_table_get_n_rows (table);
  shown_cols = MIN (n_cols, MAX_HEAD_COLUMNS);
  g_string_append (out, "dtypes: ");
  for (guint c = 0; c < shown_cols; c++)
    g_string_append_printf (out, "%s%s=%s", c ? ", " : "", rk_table_get_column_name (table, c),
                            column_type_name (rk_table_get_column_type (table, c)));
  if (shown_cols < n_cols)
    g_string_append_printf (out, ", … (%u more)", n_cols - shown_cols);
  g_string_append (out, "\n");

  for (guint c = 0; c < shown_cols; c++)
    {
      g_string_append (out, c ? " | " : "");
      append_cell (out, rk_table_get_column_name (table, c));
    }
  g_string_append (out, "\n");
  for (guint r = 0; r < MIN (n_rows, HEAD_ROWS); r++)
    {
      for (guint c = 0; c < shown_cols; c++)
        {
          g_autofree char *cell = rk_table_get_cell_text (table, r, c);
          g_string_append (out, c ? " | " : "");
          append_cell (out, cell ? cell : "");
        }
      g_string_append (out, "\n");
    }
  if (n_rows > HEAD_ROWS)
    g_string_append_printf (out, "… %u more rows\n", n_rows - HEAD_ROWS);
}

static void
append_traceback (GString    *out,
                  const char *traceback)
{
  g_auto(GStrv) lines = NULL;
  guint n, first;

  if (traceback == NULL || *traceback == '\0')
    return;
  lines = g_strsplit (traceback, "\n", -1);
  n = g_strv_length (lines);
  while (n > 0 && *lines[n - 1] == '\0')
    n--;
  first = n > TRACEBACK_LINES ? n - TRACEBACK_LINES : 0;
  g_string_append (out, "Traceback (last frames):\n");
  for (guint i = first; i < n; i++)
    {
      g_autofree char *line = rk_observation_cut_middle (lines[i], 300);
      g_string_append_printf (out, "%s\n", line);
    }
}

char *
rk_observation_format (RkObservation *self,
                       gsize          budget)
{
  g_autoptr(GString) out = g_string_new (NULL);
  guint figures = 0;
  gsize stream_budget = budget / 3;

  g_return_val_if_fail (self != NULL, NULL);

  append_stream (out, "stdout", &self->streams[0], stream_budget);
  append_stream (out, "stderr", &self->streams[1], stream_budget / 2);
  if (self->result != NULL)
    {
      g_autofree char *cut = rk_observation_cut_middle (self->result, stream_budget / 2);
      g_string_append_printf (out, "Value of the last expression:\n%s\n", cut);
    }

  for (guint i = 0; i < self->artifacts->len; i++)
    {
      RkKernelEvent *e = g_ptr_array_index (self->artifacts, i);

      switch (e->type)
        {
        case RK_KERNEL_EVENT_TABLE:
          append_table (out, self->workspace, e);
          break;
        case RK_KERNEL_EVENT_FIGURE:
          g_string_append_printf (out, "Figure %u%s%s%s created (%" G_GINT64_FORMAT "×%" G_GINT64_FORMAT "), shown to the user.\n",
                                  ++figures, e->title ? " “" : "", e->title ? e->title : "", e->title ? "”" : "",
                                  e->width, e->height);
          break;
        case RK_KERNEL_EVENT_CHART:
          g_string_append_printf (out, "Chart created%s%s%s, shown to the user.\n",
                                  e->title ? " “" : "", e->title ? e->title : "", e->title ? "”" : "");
          break;
        case RK_KERNEL_EVENT_FILE:
          g_string_append_printf (out, "File %s: %s (%" G_GINT64_FORMAT " bytes).\n",
                                  e->change == RK_KERNEL_FILE_CREATED ? "created" : "changed",
                                  e->path, e->size);
          break;
        default:
          break;
        }
    }
  if (self->n_artifacts_dropped > 0)
    g_string_append_printf (out, "(and %u more outputs)\n", self->n_artifacts_dropped);

  if (self->error != NULL)
    {
      g_string_append_printf (out, "Error: %s: %s\n", self->error->ename, self->error->evalue);
      append_traceback (out, self->error->traceback);
    }
  if (self->done != NULL && self->done->status == RK_KERNEL_STATUS_DIED)
    g_string_append_printf (out, "The Python process was stopped: %s Variables from earlier runs are lost; files in /workspace remain.\n",
                            self->done->message ? self->done->message : "");
  else if (self->done != NULL && self->done->status == RK_KERNEL_STATUS_INTERRUPTED)
    g_string_append (out, "The run was interrupted before it finished.\n");
  if (self->done != NULL && self->done->truncated_bytes > 0)
    g_string_append_printf (out, "(%" G_GINT64_FORMAT " bytes of output were cut by the output limit.)\n",
                            self->done->truncated_bytes);

  if (out->len == 0)
    g_string_append (out, "The code ran without output.\n");

  return rk_observation_cut_middle (out->str, budget);
}

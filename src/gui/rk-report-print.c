/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-report-print.c — the printed report. The results are read from the
 * workspace in a thread first (tables, chart specs, figures: nothing the
 * page drawing waits for); then the blocks are measured for the page size
 * and flowed onto pages, a paragraph line by line, a table row by row. */
#define G_LOG_DOMAIN "rk-report-print"
#include "config.h"

#include "rk-report-print.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "rk-chart.h"
#include "rk-markdown.h"
#include "rk-table.h"
#include "rk-text.h"
#include "rk-transcript-entry.h"

#define MAX_TABLE_ROWS    40
#define MAX_TABLE_COLUMNS 8
#define MAX_CELL_CHARS    24
#define MAX_FIGURE_BYTES  (32u << 20)
#define GAP               10.0   /* points between blocks */

typedef enum
{
  BLOCK_TITLE,
  BLOCK_QUESTION,
  BLOCK_TEXT,
  BLOCK_CAPTION,
  BLOCK_TABLE,     /* text: the rows, tab-separated, one a line */
  BLOCK_CHART,
  BLOCK_FIGURE,
} BlockKind;

typedef struct
{
  BlockKind        kind;
  char            *text;
  gboolean         markup;       /* text is Pango markup */
  RkChart         *chart;
  cairo_surface_t *figure;
  /* Measured for the page (begin-print). */
  PangoLayout     *layout;
  double           height;       /* of a picture */
} Block;

/* One piece of a block on a page: lines [first, last) of a layout, or a
 * whole picture. */
typedef struct
{
  Block  *block;
  int     first, last;
  double  y;
} Piece;

/* What the report needs of an entry, copied on the main thread. */
typedef struct
{
  RkEntryKind  kind;
  char        *text;
  char        *path;
  char        *title;
} Item;

typedef struct
{
  GPtrArray   *items;    /* Item */
  GPtrArray   *blocks;
  GPtrArray   *pages;    /* GPtrArray of Piece, one a page */
  char        *pdf_path;
  RkWorkspace *workspace;
  char        *title;
  GtkWindow   *parent;
  gboolean     returned;
} Report;

static void
item_free (Item *item)
{
  g_free (item->text);
  g_free (item->path);
  g_free (item->title);
  g_free (item);
}

static void
block_free (Block *b)
{
  g_free (b->text);
  g_clear_object (&b->chart);
  g_clear_pointer (&b->figure, cairo_surface_destroy);
  g_clear_object (&b->layout);
  g_free (b);
}

static void
report_free (Report *r)
{
  g_clear_pointer (&r->items, g_ptr_array_unref);
  g_clear_pointer (&r->blocks, g_ptr_array_unref);
  g_clear_pointer (&r->pages, g_ptr_array_unref);
  g_free (r->pdf_path);
  g_clear_object (&r->workspace);
  g_free (r->title);
  g_clear_object (&r->parent);
  g_free (r);
}

static void
add_text (GPtrArray  *blocks,
          BlockKind   kind,
          const char *text)
{
  Block *b = g_new0 (Block, 1);

  b->kind = kind;
  /* Model and sandbox text: no control characters on paper either. */
  b->text = rk_text_sanitize_for_terminal (text ? text : "", RK_TEXT_SANITIZE_DEFAULT);
  g_ptr_array_add (blocks, b);
}

static void
add_table (GPtrArray   *blocks,
           RkWorkspace *workspace,
           const char  *path,
           const char  *title)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTable) table = rk_table_open_beneath (workspace, path, &error);
  GString *s;
  guint rows, cols;

  if (table == NULL)
    {
      add_text (blocks, BLOCK_CAPTION, title);
      return;
    }
  rows = rk_table_get_n_rows (table);
  cols = MIN (rk_table_get_n_columns (table), MAX_TABLE_COLUMNS);
  s = g_string_new (NULL);
  for (guint c = 0; c < cols; c++)
    {
      g_autofree char *name = g_utf8_substring (rk_table_get_column_name (table, c), 0, MAX_CELL_CHARS);
      g_string_append_printf (s, "%s%s", c > 0 ? "\t" : "", name);
    }
  g_string_append_c (s, '\n');
  for (guint r = 0; r < rows && r < MAX_TABLE_ROWS; r++)
    {
      for (guint c = 0; c < cols; c++)
        {
          g_autofree char *cell = rk_table_get_cell_text (table, r, c);
          g_autofree char *cut = g_utf8_substring (cell, 0, MIN ((glong) MAX_CELL_CHARS, g_utf8_strlen (cell, -1)));
          g_string_append_printf (s, "%s%s", c > 0 ? "\t" : "", cut);
        }
      g_string_append_c (s, '\n');
    }
  add_text (blocks, BLOCK_CAPTION, title);
  add_text (blocks, BLOCK_TABLE, s->str);
  g_string_free (s, TRUE);
  if (rows > MAX_TABLE_ROWS || rk_table_get_n_columns (table) > cols)
    {
      g_autofree char *more = g_strdup_printf (_("The first %u of %u rows and %u of %u columns."),
                                               MIN (rows, MAX_TABLE_ROWS), rows, cols,
                                               rk_table_get_n_columns (table));
      add_text (blocks, BLOCK_CAPTION, more);
    }
}

static void
add_chart (GPtrArray   *blocks,
           RkWorkspace *workspace,
           const char  *path,
           const char  *title)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = rk_workspace_read_file (workspace, path, MAX_FIGURE_BYTES, &error);
  RkChart *chart = bytes ? rk_chart_new_from_bytes (bytes, NULL, &error) : NULL;
  Block *b;

  add_text (blocks, BLOCK_CAPTION, title);
  if (chart == NULL)
    return;
  b = g_new0 (Block, 1);
  b->kind = BLOCK_CHART;
  b->chart = chart;
  g_ptr_array_add (blocks, b);
}

typedef struct
{
  const guchar *data;
  gsize         len, pos;
} PngReader;

static cairo_status_t
png_read_cb (void          *closure,
             unsigned char *data,
             unsigned int   length)
{
  PngReader *r = closure;

  if (r->len - r->pos < length)
    return CAIRO_STATUS_READ_ERROR;
  memcpy (data, r->data + r->pos, length);
  r->pos += length;
  return CAIRO_STATUS_SUCCESS;
}

static void
add_figure (GPtrArray   *blocks,
            RkWorkspace *workspace,
            const char  *path,
            const char  *title)
{
  g_autoptr(GBytes) bytes = rk_workspace_read_file (workspace, path, MAX_FIGURE_BYTES, NULL);
  PngReader reader = { 0 };
  cairo_surface_t *surface;
  Block *b;

  add_text (blocks, BLOCK_CAPTION, title);
  if (bytes == NULL || !g_str_has_suffix (path, ".png"))
    return;
  reader.data = g_bytes_get_data (bytes, &reader.len);
  surface = cairo_image_surface_create_from_png_stream (png_read_cb, &reader);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (surface);
      return;
    }
  b = g_new0 (Block, 1);
  b->kind = BLOCK_FIGURE;
  b->figure = surface;
  g_ptr_array_add (blocks, b);
}

/* In a thread: what the report shows, read from the transcript and the
 * workspace. */
static void
load_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  Report *r = task_data;

  r->blocks = g_ptr_array_new_with_free_func ((GDestroyNotify) block_free);
  add_text (r->blocks, BLOCK_TITLE, r->title);
  for (guint i = 0; i < r->items->len && !g_cancellable_is_cancelled (cancellable); i++)
    {
      Item *e = g_ptr_array_index (r->items, i);
      const char *path = e->path;
      const char *title = e->title;

      switch ((int) e->kind)
        {
        case RK_ENTRY_USER:
          add_text (r->blocks, BLOCK_QUESTION, e->text);
          break;
        case RK_ENTRY_ANSWER:
          {
            Block *b;

            add_text (r->blocks, BLOCK_TEXT, e->text);
            /* The answer's markdown, as the chat shows it. */
            b = g_ptr_array_index (r->blocks, r->blocks->len - 1);
            {
              g_autofree char *plain = g_steal_pointer (&b->text);
              g_autofree char *markup = rk_markdown_to_pango (plain, -1);
              g_autoptr(GRegex) links = g_regex_new ("</?a( [^>]*)?>", 0, 0, NULL);

              /* Links (<a href>) are label markup, not Pango's: keep their text. */
              b->text = g_regex_replace_literal (links, markup, -1, 0, "", 0, NULL);
              b->markup = TRUE;
            }
          }
          break;
        case RK_ENTRY_TABLE:
          if (r->workspace != NULL && path != NULL)
            add_table (r->blocks, r->workspace, path, title ? title : _("Table"));
          break;
        case RK_ENTRY_CHART:
          if (r->workspace != NULL && path != NULL)
            add_chart (r->blocks, r->workspace, path, title ? title : _("Chart"));
          break;
        case RK_ENTRY_FIGURE:
          if (r->workspace != NULL && path != NULL)
            add_figure (r->blocks, r->workspace, path, title ? title : _("Figure"));
          break;
        default:
          break;
        }
    }
  if (g_task_return_error_if_cancelled (task))
    return;
  g_task_return_boolean (task, TRUE);
}

/* -- layout ----------------------------------------------------------------- */

static PangoLayout *
block_layout (GtkPrintContext *context,
              Block           *b,
              double           width)
{
  PangoLayout *layout = gtk_print_context_create_pango_layout (context);
  g_autoptr(PangoFontDescription) font = NULL;

  switch (b->kind)
    {
    case BLOCK_TITLE:    font = pango_font_description_from_string ("Sans Bold 16"); break;
    case BLOCK_QUESTION: font = pango_font_description_from_string ("Sans Bold 11"); break;
    case BLOCK_CAPTION:  font = pango_font_description_from_string ("Sans Italic 9"); break;
    case BLOCK_TABLE:    font = pango_font_description_from_string ("Monospace 8"); break;
    default:             font = pango_font_description_from_string ("Sans 10"); break;
    }
  pango_layout_set_font_description (layout, font);
  pango_layout_set_width (layout, (int) (width * PANGO_SCALE));
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
  if (b->kind == BLOCK_TABLE)
    {
      /* Columns at even tab stops across the width. */
      PangoTabArray *tabs = pango_tab_array_new (MAX_TABLE_COLUMNS, FALSE);

      for (int i = 0; i < MAX_TABLE_COLUMNS; i++)
        pango_tab_array_set_tab (tabs, i, PANGO_TAB_LEFT, (int) (i * width / MAX_TABLE_COLUMNS * PANGO_SCALE));
      pango_layout_set_tabs (layout, tabs);
      pango_tab_array_free (tabs);
      pango_layout_set_wrap (layout, PANGO_WRAP_CHAR);
    }
  if (b->markup && pango_parse_markup (b->text, -1, 0, NULL, NULL, NULL, NULL))
    pango_layout_set_markup (layout, b->text, -1);
  else
    pango_layout_set_text (layout, b->text, -1);
  return layout;
}

static void
begin_print_cb (GtkPrintOperation *op,
                GtkPrintContext   *context,
                Report            *r)
{
  double width = gtk_print_context_get_width (context);
  double height = gtk_print_context_get_height (context);
  GPtrArray *page = NULL;
  double y = 0;

  r->pages = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
#define NEW_PAGE() G_STMT_START { page = g_ptr_array_new_with_free_func (g_free); \
                                  g_ptr_array_add (r->pages, page); y = 0; } G_STMT_END
  NEW_PAGE ();
  for (guint i = 0; i < r->blocks->len; i++)
    {
      Block *b = g_ptr_array_index (r->blocks, i);

      if (b->kind == BLOCK_CHART || b->kind == BLOCK_FIGURE)
        {
          Piece *p;

          if (b->kind == BLOCK_CHART)
            b->height = MIN (width * 0.6, height * 0.5);
          else
            {
              double w = cairo_image_surface_get_width (b->figure);
              double h = cairo_image_surface_get_height (b->figure);
              b->height = MIN (height * 0.5, w > 0 ? h * MIN (1.0, width / w) : 0);
            }
          if (y + b->height > height && y > 0)
            NEW_PAGE ();
          p = g_new0 (Piece, 1);
          p->block = b;
          p->y = y;
          g_ptr_array_add (page, p);
          y += b->height + GAP;
          continue;
        }

      g_clear_object (&b->layout);
      b->layout = block_layout (context, b, width);
      {
        int n_lines = pango_layout_get_line_count (b->layout);
        int first = 0;
        double start_y = y;

        /* A caption goes with the picture it names. */
        if (b->kind == BLOCK_CAPTION && i + 1 < r->blocks->len && y > 0)
          {
            Block *next = g_ptr_array_index (r->blocks, i + 1);
            double h = next->kind == BLOCK_CHART ? MIN (width * 0.6, height * 0.5)
                     : next->kind == BLOCK_FIGURE ? height * 0.5 : 0;
            int caption_h = 0;

            pango_layout_get_pixel_size (b->layout, NULL, &caption_h);
            if (h > 0 && y + caption_h + h > height)
              {
                NEW_PAGE ();
                start_y = 0;
              }
          }
        /* A question starts a new page rather than end one. */
        if (b->kind == BLOCK_QUESTION && y > height * 0.8)
          {
            NEW_PAGE ();
            start_y = 0;
          }
        y = start_y;
        for (int l = 0; l < n_lines; l++)
          {
            PangoRectangle logical;

            pango_layout_line_get_extents (pango_layout_get_line_readonly (b->layout, l), NULL, &logical);
            if (y + logical.height / (double) PANGO_SCALE > height && l > first)
              {
                Piece *p = g_new0 (Piece, 1);

                p->block = b;
                p->first = first;
                p->last = l;
                p->y = start_y;
                g_ptr_array_add (page, p);
                NEW_PAGE ();
                start_y = 0;
                first = l;
              }
            y += logical.height / (double) PANGO_SCALE;
          }
        {
          Piece *p = g_new0 (Piece, 1);

          p->block = b;
          p->first = first;
          p->last = n_lines;
          p->y = start_y;
          g_ptr_array_add (page, p);
        }
        y += GAP;
      }
    }
#undef NEW_PAGE
  gtk_print_operation_set_n_pages (op, r->pages->len);
}

static void
draw_page_cb (GtkPrintOperation *op,
              GtkPrintContext   *context,
              int                page_nr,
              Report            *r)
{
  cairo_t *cr = gtk_print_context_get_cairo_context (context);
  double width = gtk_print_context_get_width (context);
  GPtrArray *page;

  if (page_nr < 0 || (guint) page_nr >= r->pages->len)
    return;
  page = g_ptr_array_index (r->pages, page_nr);
  cairo_set_source_rgb (cr, 0, 0, 0);
  for (guint i = 0; i < page->len; i++)
    {
      Piece *p = g_ptr_array_index (page, i);
      Block *b = p->block;

      cairo_save (cr);
      if (b->kind == BLOCK_CHART)
        {
          cairo_translate (cr, 0, p->y);
          rk_chart_draw (b->chart, cr, width, b->height, RK_CHART_STYLE_LIGHT);
        }
      else if (b->kind == BLOCK_FIGURE)
        {
          double w = cairo_image_surface_get_width (b->figure);
          double h = cairo_image_surface_get_height (b->figure);
          double scale = MIN (width / w, b->height / h);

          cairo_translate (cr, 0, p->y);
          cairo_scale (cr, scale, scale);
          cairo_set_source_surface (cr, b->figure, 0, 0);
          cairo_paint (cr);
        }
      else
        {
          double y = p->y;

          for (int l = p->first; l < p->last; l++)
            {
              PangoLayoutLine *line = pango_layout_get_line_readonly (b->layout, l);
              PangoRectangle logical;

              pango_layout_line_get_extents (line, NULL, &logical);
              cairo_move_to (cr, logical.x / (double) PANGO_SCALE,
                             y - logical.y / (double) PANGO_SCALE);
              pango_cairo_show_layout_line (cr, line);
              y += logical.height / (double) PANGO_SCALE;
            }
        }
      cairo_restore (cr);
    }
}

/* Once, whether "done" came or gtk_print_operation_run() ended it. */
static void
complete (GTask  *task,
          GError *error)
{
  Report *r = g_task_get_task_data (task);

  if (r->returned)
    {
      g_clear_error (&error);
      return;
    }
  r->returned = TRUE;
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
done_cb (GtkPrintOperation       *op,
         GtkPrintOperationResult  result,
         GTask                   *task)
{
  g_autoptr(GError) error = NULL;

  if (result == GTK_PRINT_OPERATION_RESULT_ERROR)
    {
      gtk_print_operation_get_error (op, &error);
      complete (task, error ? g_error_copy (error)
                            : g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, _("The report could not be printed.")));
    }
  else
    complete (task, NULL);
}

static void
loaded_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Report *r = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GtkPrintOperation) op = NULL;
  GtkPrintOperationResult res;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      complete (task, g_steal_pointer (&error));
      return;
    }
  op = gtk_print_operation_new ();
  gtk_print_operation_set_job_name (op, r->title);
  gtk_print_operation_set_embed_page_setup (op, TRUE);
  gtk_print_operation_set_allow_async (op, TRUE);
  g_signal_connect (op, "begin-print", G_CALLBACK (begin_print_cb), r);
  g_signal_connect (op, "draw-page", G_CALLBACK (draw_page_cb), r);
  /* The task holds the report the callbacks use until the operation goes. */
  g_signal_connect_data (op, "done", G_CALLBACK (done_cb), g_object_ref (task),
                         (GClosureNotify) (void (*) (void)) g_object_unref, 0);
  if (r->pdf_path != NULL)
    gtk_print_operation_set_export_filename (op, r->pdf_path);
  res = gtk_print_operation_run (op, r->pdf_path != NULL ? GTK_PRINT_OPERATION_ACTION_EXPORT
                                                        : GTK_PRINT_OPERATION_ACTION_PRINT_DIALOG,
                                 r->parent, &error);
  /* An operation that did not go asynchronous may not emit "done". */
  if (res != GTK_PRINT_OPERATION_RESULT_IN_PROGRESS)
    complete (task, res == GTK_PRINT_OPERATION_RESULT_ERROR ? g_steal_pointer (&error) : NULL);
}

void
rk_report_print_async (GtkWindow           *parent,
                       RkTranscript        *transcript,
                       RkWorkspace         *workspace,
                       const char          *title,
                       const char          *pdf_path,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  GTask *task;
  g_autoptr(GTask) load = NULL;
  Report *r;

  g_return_if_fail (RK_IS_TRANSCRIPT (transcript));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_report_print_async);
  r = g_new0 (Report, 1);
  r->items = g_ptr_array_new_with_free_func ((GDestroyNotify) item_free);
  for (guint i = 0; i < rk_transcript_get_n_entries (transcript); i++)
    {
      RkTranscriptEntry *e = rk_transcript_get_entry (transcript, i);
      Item *item = g_new0 (Item, 1);

      item->kind = rk_transcript_entry_get_kind (e);
      item->text = g_strdup (rk_transcript_entry_get_text (e));
      item->path = g_strdup (rk_transcript_entry_get_path (e));
      item->title = g_strdup (rk_transcript_entry_get_title (e));
      g_ptr_array_add (r->items, item);
    }
  r->workspace = workspace ? g_object_ref (workspace) : NULL;
  r->title = g_strdup (title && *title ? title : _("Reckon Report"));
  r->pdf_path = g_strdup (pdf_path);
  r->parent = parent ? g_object_ref (parent) : NULL;
  /* The outer task owns the report: the print operation outlives @load. */
  g_task_set_task_data (task, r, (GDestroyNotify) report_free);
  load = g_task_new (NULL, cancellable, loaded_cb, task);
  g_task_set_task_data (load, r, NULL);
  g_task_run_in_thread (load, load_thread);
}

gboolean
rk_report_print_finish (GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

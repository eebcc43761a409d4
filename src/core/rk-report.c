/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-report.c — the printed report, without the printing: the results are
 * read from the workspace first (tables, chart specs, figures: nothing the
 * page drawing waits for); then the blocks are measured for the page size
 * and flowed onto pages, a paragraph line by line, a table row by row. */
#define G_LOG_DOMAIN "rk-report"
#include "config.h"

#include "rk-report.h"

#include <glib/gi18n-lib.h>
#include <pango/pangocairo.h>
#include <string.h>

#include "rk-chart.h"
#include "rk-markdown.h"
#include "rk-table.h"
#include "rk-text.h"

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
  /* Measured for the page (rk_report_paginate()). */
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

struct _RkReport
{
  GObject      parent_instance;

  GBytes      *transcript;   /* a snapshot: the live one may grow meanwhile */
  RkWorkspace *workspace;
  char        *title;
  GPtrArray   *blocks;       /* Block */
  GPtrArray   *pages;        /* GPtrArray of Piece, one a page */
  double       width;
};

G_DEFINE_FINAL_TYPE (RkReport, rk_report, G_TYPE_OBJECT)

static void
block_free (Block *b)
{
  g_free (b->text);
  g_clear_object (&b->chart);
  g_clear_pointer (&b->figure, cairo_surface_destroy);
  g_clear_object (&b->layout);
  g_free (b);
}

static Block *
add_block (RkReport  *self,
           BlockKind  kind)
{
  Block *b = g_new0 (Block, 1);

  b->kind = kind;
  g_ptr_array_add (self->blocks, b);
  return b;
}

static Block *
add_text (RkReport   *self,
          BlockKind   kind,
          const char *text)
{
  Block *b = add_block (self, kind);

  /* Model and sandbox text: no control characters on paper either. */
  b->text = rk_text_sanitize_for_terminal (text ? text : "", RK_TEXT_SANITIZE_DEFAULT);
  return b;
}

/* The answer's markdown, as the chat shows it. */
static void
add_answer (RkReport   *self,
            const char *markdown)
{
  Block *b = add_text (self, BLOCK_TEXT, markdown);
  g_autofree char *markup = rk_markdown_to_pango (b->text, -1);
  g_autoptr(GRegex) links = g_regex_new ("</?a( [^>]*)?>", 0, 0, NULL);

  /* Links (<a href>) are label markup, not Pango's: keep their text. */
  g_free (b->text);
  b->text = g_regex_replace_literal (links, markup, -1, 0, "", 0, NULL);
  b->markup = TRUE;
}

static void
append_cell (GString    *s,
             guint       column,
             const char *text)
{
  g_autofree char *cut = g_utf8_substring (text, 0, MIN ((glong) MAX_CELL_CHARS, g_utf8_strlen (text, -1)));

  g_string_append_printf (s, "%s%s", column > 0 ? "\t" : "", cut);
}

static void
add_table (RkReport   *self,
           const char *path,
           const char *title)
{
  g_autoptr(RkTable) table = rk_table_open_beneath (self->workspace, path, NULL);
  g_autoptr(GString) s = g_string_new (NULL);
  guint rows, columns, shown;

  add_text (self, BLOCK_CAPTION, title);
  if (table == NULL)
    return;
  rows = rk_table_get_n_rows (table);
  columns = rk_table_get_n_columns (table);
  shown = MIN (columns, MAX_TABLE_COLUMNS);
  for (guint c = 0; c < shown; c++)
    append_cell (s, c, rk_table_get_column_name (table, c));
  g_string_append_c (s, '\n');
  for (guint r = 0; r < rows && r < MAX_TABLE_ROWS; r++)
    {
      for (guint c = 0; c < shown; c++)
        {
          g_autofree char *cell = rk_table_get_cell_text (table, r, c);

          append_cell (s, c, cell);
        }
      g_string_append_c (s, '\n');
    }
  add_text (self, BLOCK_TABLE, s->str);
  if (rows > MAX_TABLE_ROWS || columns > shown)
    {
      g_autofree char *more = g_strdup_printf (_("The first %u of %u rows and %u of %u columns."),
                                               MIN (rows, MAX_TABLE_ROWS), rows, shown, columns);
      add_text (self, BLOCK_CAPTION, more);
    }
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

/* A chart (its spec) or a figure (a PNG) beneath the workspace. */
static void
add_picture (RkReport    *self,
             RkEntryKind  kind,
             const char  *path,
             const char  *title)
{
  g_autoptr(GBytes) bytes = rk_workspace_read_file (self->workspace, path, MAX_FIGURE_BYTES, NULL);
  g_autoptr(RkChart) chart = NULL;
  cairo_surface_t *figure = NULL;
  Block *b;

  add_text (self, BLOCK_CAPTION, title);
  if (bytes == NULL)
    return;
  if (kind == RK_ENTRY_CHART)
    chart = rk_chart_new_from_bytes (bytes, NULL, NULL);
  else if (g_str_has_suffix (path, ".png"))
    {
      PngReader reader = { 0 };

      reader.data = g_bytes_get_data (bytes, &reader.len);
      figure = cairo_image_surface_create_from_png_stream (png_read_cb, &reader);
      if (cairo_surface_status (figure) != CAIRO_STATUS_SUCCESS)
        g_clear_pointer (&figure, cairo_surface_destroy);
    }
  if (chart == NULL && figure == NULL)
    return;
  b = add_block (self, chart != NULL ? BLOCK_CHART : BLOCK_FIGURE);
  b->chart = g_steal_pointer (&chart);
  b->figure = figure;
}

void
rk_report_load (RkReport     *self,
                GCancellable *cancellable)
{
  g_autoptr(RkTranscript) transcript = NULL;

  g_return_if_fail (RK_IS_REPORT (self));

  transcript = rk_transcript_new_from_bytes (self->transcript, NULL);
  g_ptr_array_set_size (self->blocks, 0);
  add_text (self, BLOCK_TITLE, self->title);
  for (guint i = 0; transcript != NULL && i < rk_transcript_get_n_entries (transcript); i++)
    {
      RkTranscriptEntry *e = rk_transcript_get_entry (transcript, i);
      RkEntryKind kind = rk_transcript_entry_get_kind (e);
      const char *path = rk_transcript_entry_get_path (e);
      const char *title = rk_transcript_entry_get_title (e);

      if (g_cancellable_is_cancelled (cancellable))
        return;
      if (kind == RK_ENTRY_USER)
        add_text (self, BLOCK_QUESTION, rk_transcript_entry_get_text (e));
      else if (kind == RK_ENTRY_ANSWER)
        add_answer (self, rk_transcript_entry_get_text (e));
      else if (self->workspace == NULL || path == NULL)
        continue;
      else if (kind == RK_ENTRY_TABLE)
        add_table (self, path, title ? title : _("Table"));
      else if (kind == RK_ENTRY_CHART)
        add_picture (self, kind, path, title ? title : _("Chart"));
      else if (kind == RK_ENTRY_FIGURE)
        add_picture (self, kind, path, title ? title : _("Figure"));
    }
}

/* -- layout ----------------------------------------------------------------- */

static PangoLayout *
block_layout (PangoContext *context,
              Block        *b,
              double        width)
{
  PangoLayout *layout = pango_layout_new (context);
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

/* A chart or a figure takes at most half a page; 0 for text. */
static double
picture_height (Block  *b,
                double  width,
                double  height)
{
  double w, h;

  if (b->kind == BLOCK_CHART)
    return MIN (width * 0.6, height * 0.5);
  if (b->kind != BLOCK_FIGURE)
    return 0;
  w = cairo_image_surface_get_width (b->figure);
  h = cairo_image_surface_get_height (b->figure);
  return MIN (height * 0.5, w > 0 ? h * MIN (1.0, width / w) : 0);
}

static double
line_height (PangoLayout *layout,
             int          line)
{
  PangoRectangle logical;

  pango_layout_line_get_extents (pango_layout_get_line_readonly (layout, line), NULL, &logical);
  return logical.height / (double) PANGO_SCALE;
}

/* Returns the y at which the new page starts. */
static double
new_page (RkReport *self)
{
  g_ptr_array_add (self->pages, g_ptr_array_new_with_free_func (g_free));
  return 0;
}

static void
add_piece (RkReport *self,
           Block    *block,
           int       first,
           int       last,
           double    y)
{
  Piece *p = g_new0 (Piece, 1);

  p->block = block;
  p->first = first;
  p->last = last;
  p->y = y;
  g_ptr_array_add (g_ptr_array_index (self->pages, self->pages->len - 1), p);
}

guint
rk_report_paginate (RkReport     *self,
                    PangoContext *context,
                    double        width,
                    double        height)
{
  double y;

  g_return_val_if_fail (RK_IS_REPORT (self), 0);
  g_return_val_if_fail (PANGO_IS_CONTEXT (context), 0);

  self->width = width;
  g_ptr_array_set_size (self->pages, 0);
  y = new_page (self);
  for (guint i = 0; i < self->blocks->len; i++)
    {
      Block *b = g_ptr_array_index (self->blocks, i);
      Block *next = i + 1 < self->blocks->len ? g_ptr_array_index (self->blocks, i + 1) : NULL;
      double next_picture = next != NULL ? picture_height (next, width, height) : 0;
      int n_lines, first = 0, caption_height = 0;
      double start;

      b->height = picture_height (b, width, height);
      if (b->height > 0)
        {
          if (y + b->height > height && y > 0)
            y = new_page (self);
          add_piece (self, b, 0, 0, y);
          y += b->height + GAP;
          continue;
        }

      g_clear_object (&b->layout);
      b->layout = block_layout (context, b, width);
      n_lines = pango_layout_get_line_count (b->layout);
      pango_layout_get_pixel_size (b->layout, NULL, &caption_height);
      /* A caption goes with the picture it names; a question starts a new
       * page rather than end one. */
      if ((b->kind == BLOCK_CAPTION && next_picture > 0 && y > 0 && y + caption_height + next_picture > height) ||
          (b->kind == BLOCK_QUESTION && y > height * 0.8))
        y = new_page (self);
      start = y;
      for (int l = 0; l < n_lines; l++)
        {
          if (y + line_height (b->layout, l) > height && l > first)
            {
              add_piece (self, b, first, l, start);
              start = y = new_page (self);
              first = l;
            }
          y += line_height (b->layout, l);
        }
      add_piece (self, b, first, n_lines, start);
      y += GAP;
    }
  return self->pages->len;
}

static void
draw_piece (RkReport *self,
            cairo_t  *cr,
            Piece    *p)
{
  Block *b = p->block;
  double y = 0;

  cairo_translate (cr, 0, p->y);
  if (b->kind == BLOCK_CHART)
    rk_chart_draw (b->chart, cr, self->width, b->height, RK_CHART_STYLE_LIGHT);
  else if (b->kind == BLOCK_FIGURE)
    {
      double scale = MIN (self->width / cairo_image_surface_get_width (b->figure),
                          b->height / cairo_image_surface_get_height (b->figure));

      cairo_scale (cr, scale, scale);
      cairo_set_source_surface (cr, b->figure, 0, 0);
      cairo_paint (cr);
    }
  else
    for (int l = p->first; l < p->last; l++)
      {
        PangoLayoutLine *line = pango_layout_get_line_readonly (b->layout, l);
        PangoRectangle logical;

        pango_layout_line_get_extents (line, NULL, &logical);
        cairo_move_to (cr, logical.x / (double) PANGO_SCALE, y - logical.y / (double) PANGO_SCALE);
        pango_cairo_show_layout_line (cr, line);
        y += logical.height / (double) PANGO_SCALE;
      }
}

void
rk_report_draw_page (RkReport *self,
                     cairo_t  *cr,
                     guint     page)
{
  GPtrArray *pieces;

  g_return_if_fail (RK_IS_REPORT (self));

  if (page >= self->pages->len)
    return;
  pieces = g_ptr_array_index (self->pages, page);
  cairo_set_source_rgb (cr, 0, 0, 0);
  for (guint i = 0; i < pieces->len; i++)
    {
      cairo_save (cr);
      draw_piece (self, cr, g_ptr_array_index (pieces, i));
      cairo_restore (cr);
    }
}

/* -- object ----------------------------------------------------------------- */

static void
rk_report_finalize (GObject *object)
{
  RkReport *self = RK_REPORT (object);

  g_clear_pointer (&self->transcript, g_bytes_unref);
  g_clear_object (&self->workspace);
  g_free (self->title);
  g_clear_pointer (&self->pages, g_ptr_array_unref);
  g_clear_pointer (&self->blocks, g_ptr_array_unref);
  G_OBJECT_CLASS (rk_report_parent_class)->finalize (object);
}

static void
rk_report_class_init (RkReportClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rk_report_finalize;
}

static void
rk_report_init (RkReport *self)
{
  self->blocks = g_ptr_array_new_with_free_func ((GDestroyNotify) block_free);
  self->pages = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
}

RkReport *
rk_report_new (RkTranscript *transcript,
               RkWorkspace  *workspace,
               const char   *title)
{
  RkReport *self;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (transcript), NULL);
  g_return_val_if_fail (workspace == NULL || RK_IS_WORKSPACE (workspace), NULL);

  self = g_object_new (RK_TYPE_REPORT, NULL);
  self->transcript = rk_transcript_to_bytes (transcript);
  self->workspace = workspace != NULL ? g_object_ref (workspace) : NULL;
  self->title = g_strdup (title != NULL && *title != '\0' ? title : _("Reckon Report"));
  return self;
}

const char *
rk_report_get_title (RkReport *self)
{
  g_return_val_if_fail (RK_IS_REPORT (self), NULL);
  return self->title;
}

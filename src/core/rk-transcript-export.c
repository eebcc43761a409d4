/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-transcript-export.c — a transcript as a Jupyter notebook (nbformat 4.5:
 * markdown, code with its outputs, tables as HTML and text, figures and
 * charts as PNG) and as a self-contained HTML report (rendered markdown,
 * folded code, tables, charts as inline SVG). Everything from the workspace
 * is read through fds opened beneath it. */
#define G_LOG_DOMAIN "rk-transcript"
#include "config.h"

#include <cairo-svg.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>

#ifdef RK_HAVE_CMARK_GFM
#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>
#endif

#include "rk-chart.h"
#include "rk-diff.h"
#include "rk-markdown-private.h"
#include "rk-notebook-prelude.h"
#include "rk-profile.h"
#include "rk-table.h"
#include "rk-transcript.h"
#include "rk-util.h"

/* One figure embeds at most this much; all of them together at most this. */
#define MAX_IMAGE        (16u << 20)
#define MAX_ALL_IMAGES   (128u << 20)
/* Tables show their first rows and columns, as Jupyter shows a DataFrame. */
#define TABLE_ROWS       60
#define TABLE_COLUMNS    20
#define TABLE_CELL_CHARS 60
/* Charts as pictures. */
#define CHART_WIDTH      800
#define CHART_HEIGHT     500
/* A file's profile, as the model is told it. */
#define PROFILE_BYTES    6000

/* ------------------------------------------------------- workspace reads */

/* @rel beneath @ws (NULL: none), if it is at most @max bytes. */
static GBytes *
read_workspace_file (RkWorkspace *ws,
                     const char  *rel,
                     gsize        max)
{
  if (ws == NULL || rel == NULL || !rk_path_is_beneath (rel))
    return NULL;
  return rk_workspace_read_file (ws, rel, max, NULL);
}

static RkTable *
open_table (RkWorkspace *ws,
            const char  *rel)
{
  RkTable *table;
  int fd;

  if (ws == NULL || rel == NULL)
    return NULL;
  fd = rk_workspace_open_file (ws, rel, NULL);
  if (fd < 0)
    return NULL;
  table = rk_table_open_fd (fd, NULL);
  close (fd);
  return table;
}

static RkChart *
open_chart (RkWorkspace *ws,
            const char  *rel)
{
  if (ws == NULL || rel == NULL)
    return NULL;
  return rk_chart_new_from_workspace (ws, rel, NULL);
}

static gboolean
is_png (GBytes *bytes)
{
  gsize len;
  const guchar *d = g_bytes_get_data (bytes, &len);
  return len >= 8 && memcmp (d, "\x89PNG\r\n\x1a\n", 8) == 0;
}

static gboolean
is_svg_mime (const char *mime)
{
  return g_strcmp0 (mime, "image/svg+xml") == 0;
}

/* ------------------------------------------------------------ rendering */

static void
append_escaped (GString    *s,
                const char *text)
{
  g_autofree char *esc = g_markup_escape_text (text ? text : "", -1);
  g_string_append (s, esc);
}

/* A cell's text, shortened for a preview. */
static char *
table_cell (RkTable *table,
            guint    row,
            guint    column)
{
  char *text;

  if (rk_table_is_null (table, row, column))
    return g_strdup (rk_table_get_column_type (table, column) == RK_TABLE_COLUMN_FLOAT64 ? "NaN" : "None");
  text = rk_table_get_cell_text (table, row, column);
  if (g_utf8_strlen (text, -1) > TABLE_CELL_CHARS)
    {
      char *cut = g_utf8_offset_to_pointer (text, TABLE_CELL_CHARS - 1);
      char *shortened;

      *cut = '\0';
      shortened = g_strconcat (text, "…", NULL);
      g_free (text);
      return shortened;
    }
  return text;
}

static gboolean
column_is_numeric (RkTable *table,
                   guint    column)
{
  RkTableColumnType type = rk_table_get_column_type (table, column);
  return type == RK_TABLE_COLUMN_INT64 || type == RK_TABLE_COLUMN_FLOAT64;
}

/* The first rows and columns as an HTML table, as Jupyter shows a DataFrame. */
static char *
table_to_html (RkTable *table)
{
  GString *s = g_string_new ("<table class=\"dataframe\">\n<thead><tr>");
  guint n_rows = rk_table_get_n_rows (table), n_cols = rk_table_get_n_columns (table);
  guint n_index = rk_table_get_n_index_columns (table);
  guint rows = MIN (n_rows, TABLE_ROWS), cols = MIN (n_cols, TABLE_COLUMNS);

  for (guint c = 0; c < cols; c++)
    {
      g_string_append (s, "<th>");
      append_escaped (s, rk_table_get_column_name (table, c));
      g_string_append (s, "</th>");
    }
  if (cols < n_cols)
    g_string_append (s, "<th>…</th>");
  g_string_append (s, "</tr></thead>\n<tbody>\n");
  for (guint r = 0; r < rows; r++)
    {
      guint row = rk_table_get_row_at (table, r);

      g_string_append (s, "<tr>");
      for (guint c = 0; c < cols; c++)
        {
          g_autofree char *text = table_cell (table, row, c);

          g_string_append (s, c < n_index ? "<th>" : column_is_numeric (table, c) ? "<td class=\"num\">" : "<td>");
          append_escaped (s, text);
          g_string_append (s, c < n_index ? "</th>" : "</td>");
        }
      if (cols < n_cols)
        g_string_append (s, "<td>…</td>");
      g_string_append (s, "</tr>\n");
    }
  g_string_append (s, "</tbody>\n</table>\n<p>");
  g_string_append_printf (s, ngettext ("%u row", "%u rows", n_rows), n_rows);
  g_string_append (s, " × ");
  g_string_append_printf (s, ngettext ("%u column", "%u columns", n_cols), n_cols);
  if (rows < n_rows)
    g_string_append_printf (s, _(" (the first %u shown)"), rows);
  g_string_append (s, "</p>\n");
  return g_string_free (s, FALSE);
}

/* The same as aligned plain text. */
static char *
table_to_text (RkTable *table)
{
  guint n_rows = rk_table_get_n_rows (table), n_cols = rk_table_get_n_columns (table);
  guint rows = MIN (n_rows, TABLE_ROWS), cols = MIN (n_cols, TABLE_COLUMNS);
  g_autofree glong *width = g_new0 (glong, MAX (cols, 1));
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  GString *s = g_string_new (NULL);

  for (guint c = 0; c < cols; c++)
    {
      char *name = g_strdup (rk_table_get_column_name (table, c));
      width[c] = g_utf8_strlen (name, -1);
      g_ptr_array_add (texts, name);
    }
  for (guint r = 0; r < rows; r++)
    for (guint c = 0; c < cols; c++)
      {
        char *text = table_cell (table, rk_table_get_row_at (table, r), c);
        width[c] = MAX (width[c], g_utf8_strlen (text, -1));
        g_ptr_array_add (texts, text);
      }
  for (guint r = 0; r <= rows; r++)
    {
      for (guint c = 0; c < cols; c++)
        {
          const char *text = g_ptr_array_index (texts, r * cols + c);
          glong pad = width[c] - g_utf8_strlen (text, -1);
          gboolean right = r > 0 && column_is_numeric (table, c);

          if (c > 0)
            g_string_append (s, "  ");
          if (right)
            for (glong k = 0; k < pad; k++)
              g_string_append_c (s, ' ');
          g_string_append (s, text);
          if (!right && c + 1 < cols)
            for (glong k = 0; k < pad; k++)
              g_string_append_c (s, ' ');
        }
      if (cols < n_cols)
        g_string_append (s, "  …");
      g_string_append_c (s, '\n');
    }
  if (rows < n_rows)
    g_string_append (s, "…\n");
  g_string_append_printf (s, "[%u rows × %u columns]", n_rows, n_cols);
  return g_string_free (s, FALSE);
}

static cairo_status_t
append_bytes_cb (void                *closure,
                 const unsigned char *data,
                 unsigned int         length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static char *
chart_to_png_base64 (RkChart *chart)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, CHART_WIDTH, CHART_HEIGHT);
  cairo_t *cr = cairo_create (surface);
  g_autoptr(GByteArray) png = g_byte_array_new ();
  char *b64 = NULL;

  rk_chart_draw (chart, cr, CHART_WIDTH, CHART_HEIGHT, RK_CHART_STYLE_LIGHT);
  cairo_destroy (cr);
  if (cairo_surface_write_to_png_stream (surface, append_bytes_cb, png) == CAIRO_STATUS_SUCCESS)
    b64 = g_base64_encode (png->data, png->len);
  cairo_surface_destroy (surface);
  return b64;
}

/* Cairo's SVG names its glyphs, clips and patterns "glyph0-1", "clip2", …:
 * two charts inline in one page would share them, so each gets a prefix. */
static char *
chart_to_svg (RkChart    *chart,
              const char *prefix)
{
  g_autoptr(GByteArray) out = g_byte_array_new ();
  cairo_surface_t *surface = cairo_svg_surface_create_for_stream (append_bytes_cb, out, CHART_WIDTH, CHART_HEIGHT);
  cairo_t *cr = cairo_create (surface);
  g_autoptr(GString) svg = NULL;
  g_autofree char *id = g_strdup_printf ("id=\"%s-", prefix);
  g_autofree char *href = g_strdup_printf ("href=\"#%s-", prefix);
  g_autofree char *url = g_strdup_printf ("url(#%s-", prefix);
  const char *start;

  rk_chart_draw (chart, cr, CHART_WIDTH, CHART_HEIGHT, RK_CHART_STYLE_LIGHT);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  cairo_surface_destroy (surface);
  g_byte_array_append (out, (const guint8 *) "", 1);

  start = strstr ((const char *) out->data, "<svg");
  if (start == NULL)
    return NULL;
  svg = g_string_new (start);
  g_string_replace (svg, "id=\"", id, 0);
  g_string_replace (svg, "href=\"#", href, 0);
  g_string_replace (svg, "url(#", url, 0);
  /* scale with the page */
  g_string_replace (svg, "<svg ", "<svg class=\"chart\" preserveAspectRatio=\"xMidYMid meet\" ", 1);
  return g_string_free (g_steal_pointer (&svg), FALSE);
}

/* Markdown prose to HTML: cmark-gfm with raw HTML left out (CMARK_OPT_SAFE
 * is the default in cmark-gfm: unsafe links and raw HTML are dropped). */
static void
append_markdown (GString    *s,
                 const char *text)
{
#ifdef RK_HAVE_CMARK_GFM
  cmark_parser *parser;
  cmark_node *doc;
  char *html;

  if (text == NULL || !g_utf8_validate (text, -1, NULL))
    {
      append_escaped (s, text);
      return;
    }
  parser = _rk_markdown_parser_new ();
  cmark_parser_feed (parser, text, strlen (text));
  doc = cmark_parser_finish (parser);
  html = cmark_render_html (doc, CMARK_OPT_DEFAULT, cmark_parser_get_syntax_extensions (parser));
  g_string_append (s, html);
  free (html);
  cmark_node_free (doc);
  cmark_parser_free (parser);
#else
  g_string_append (s, "<div class=\"plain\">");
  append_escaped (s, text);
  g_string_append (s, "</div>");
#endif
}

static char *
artifact_label (RkTranscriptEntry *e)
{
  const char *title = rk_transcript_entry_get_title (e);
  const char *path = rk_transcript_entry_get_path (e);

  switch (rk_transcript_entry_get_kind (e))
    {
    case RK_ENTRY_TABLE:
      return g_strdup_printf (_("Table %s (%" PRId64 " rows × %" PRId64 " columns): %s"),
                              title ? title : "", rk_transcript_entry_get_rows (e),
                              rk_transcript_entry_get_columns (e), path);
    case RK_ENTRY_FIGURE:
      return g_strdup_printf (_("Figure %s: %s"), title ? title : "", path);
    case RK_ENTRY_CHART:
      return g_strdup_printf (_("Chart %s: %s"), title ? title : "", path);
    default:
      return g_strdup_printf (_("File %s: %s"), title ? title : "", path);
    }
}

static char *
user_markdown (RkTranscriptEntry *e)
{
  GString *s = g_string_new ("**");
  const char * const *att = rk_transcript_entry_get_attachments (e);

  g_string_append (s, _("Question"));
  g_string_append (s, ":** ");
  g_string_append (s, rk_transcript_entry_get_text (e));
  if (att != NULL && att[0] != NULL)
    {
      g_string_append (s, "\n\n*");
      g_string_append (s, _("Files"));
      g_string_append (s, ":* ");
      for (guint i = 0; att[i]; i++)
        {
          if (i)
            g_string_append (s, ", ");
          g_string_append (s, att[i]);
        }
    }
  return g_string_free (s, FALSE);
}

/* An artifact an export could not embed is named by its label in its
 * place, and the same line is added to @not_embedded (if given) to tell
 * the user. Returns the label; free it. */
static char *
not_embedded_label (GPtrArray         *not_embedded,
                    RkTranscriptEntry *e)
{
  char *label = artifact_label (e);

  if (not_embedded != NULL)
    g_ptr_array_add (not_embedded, g_strdup (label));
  return label;
}

/* Prose the answer after it repeats word for word: exported once, as the
 * answer. */
static gboolean
repeated_by_answer (RkTranscript      *transcript,
                    RkTranscriptEntry *e)
{
  RkTranscriptEntry *next;

  if (rk_transcript_entry_get_kind (e) != RK_ENTRY_ASSISTANT)
    return FALSE;
  next = rk_transcript_lookup (transcript, rk_transcript_entry_get_id (e) + 1);
  return next != NULL && rk_transcript_answer_repeats (transcript, next);
}

/* The profile kept in an attachment entry, as the model was told it
 * (schema, ranges, first rows, how it is read), or NULL. */
static char *
attachment_profile (RkTranscriptEntry *e)
{
  g_autoptr(RkFileProfile) profile = rk_file_profile_parse_one (rk_transcript_entry_get_detail (e));

  return profile != NULL ? rk_file_profile_to_prompt (profile, PROFILE_BYTES, RK_PROMPT_SAMPLES_DEFAULT) : NULL;
}

/* ------------------------------------------------------------- notebook */

typedef struct
{
  GString   *source;
  gboolean   is_code;
  gboolean   skipped;
  gint64     execution_count;
  JsonArray *outputs;
  char      *id;
} Cell;

typedef struct
{
  GPtrArray  *cells;
  GHashTable *by_cell;        /* cell id -> Cell (borrowed) */
  gint64      execution_count;
  gsize       image_budget;
  RkWorkspace *ws;           /* NULL: embed no files */
  gboolean    uses_reckon;
  RkTranscript *transcript;
  GPtrArray  *not_embedded;
} Notebook;

static void
cell_free (Cell *c)
{
  g_string_free (c->source, TRUE);
  g_clear_pointer (&c->outputs, json_array_unref);
  g_free (c->id);
  g_free (c);
}

static Cell *
cell_new (Notebook *nb,
          gboolean  is_code,
          guint     entry_id)
{
  Cell *c = g_new0 (Cell, 1);

  c->source = g_string_new (NULL);
  c->is_code = is_code;
  c->outputs = json_array_new ();
  c->execution_count = -1;
  c->id = g_strdup_printf ("rk-%u", entry_id);
  g_ptr_array_add (nb->cells, c);
  return c;
}

static void
add_markdown_cell (Notebook   *nb,
                   guint       entry_id,
                   const char *text)
{
  g_string_append (cell_new (nb, FALSE, entry_id)->source, text);
}

/* display_data with @data (text/plain and others), taking @data. */
static void
add_display (Cell       *cell,
             JsonObject *data,
             JsonObject *metadata)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "output_type", "display_data");
  json_object_set_object_member (o, "data", data);
  json_object_set_object_member (o, "metadata", metadata != NULL ? metadata : json_object_new ());
  json_array_add_object_element (cell->outputs, o);
}

static void
add_display_text (Cell       *cell,
                  const char *text)
{
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "text/plain", text);
  add_display (cell, data, NULL);
}

static void
nb_approval (Notebook          *nb,
             Cell              *cell,
             RkTranscriptEntry *e)
{
  if (cell == NULL)
    return;
  switch (rk_transcript_entry_get_decision (e))
    {
    case RK_DECISION_EDITED:
      g_string_assign (cell->source, rk_transcript_entry_get_text (e));
      cell->execution_count = ++nb->execution_count;
      break;
    case RK_DECISION_APPROVED:
    case RK_DECISION_AUTO:
      cell->execution_count = ++nb->execution_count;
      break;
    case RK_DECISION_SKIPPED:
      cell->skipped = TRUE;
      break;
    case RK_DECISION_NONE:
    default:
      break;
    }
  if (!cell->skipped && strstr (cell->source->str, "reckon.") != NULL)
    nb->uses_reckon = TRUE;
}

static void
nb_stream (Cell              *cell,
           RkTranscriptEntry *e)
{
  const char *name = rk_transcript_entry_get_stream (e) == RK_STREAM_STDERR ? "stderr" : "stdout";
  const char *text = rk_transcript_entry_get_text (e);
  guint nout = json_array_get_length (cell->outputs);
  JsonObject *prev = nout ? json_array_get_object_element (cell->outputs, nout - 1) : NULL;

  if (prev && g_str_equal (json_object_get_string_member (prev, "output_type"), "stream") &&
      g_str_equal (json_object_get_string_member (prev, "name"), name))
    {
      g_autofree char *joined = g_strconcat (json_object_get_string_member (prev, "text"), text, NULL);
      json_object_set_string_member (prev, "text", joined);
    }
  else
    {
      JsonObject *o = json_object_new ();

      json_object_set_string_member (o, "output_type", "stream");
      json_object_set_string_member (o, "name", name);
      json_object_set_string_member (o, "text", text);
      json_array_add_object_element (cell->outputs, o);
    }
}

/* The kernel shows a DataFrame as a table then its short repr: together they
 * are one execute_result, as Jupyter shows a DataFrame. */
static JsonObject *
last_table_output (Cell *cell)
{
  guint n = json_array_get_length (cell->outputs);
  JsonObject *o = n > 0 ? json_array_get_object_element (cell->outputs, n - 1) : NULL;
  JsonObject *data;

  if (o == NULL || g_strcmp0 (json_object_get_string_member_with_default (o, "output_type", ""), "display_data") != 0)
    return NULL;
  data = json_object_get_object_member (o, "data");
  return data != NULL && json_object_has_member (data, "text/html") ? o : NULL;
}

static void
nb_result (Notebook          *nb,
           Cell              *cell,
           RkTranscriptEntry *e)
{
  JsonObject *o = last_table_output (cell);
  JsonObject *data;

  if (cell->execution_count < 0)
    cell->execution_count = ++nb->execution_count;
  if (o != NULL)
    {
      json_object_set_string_member (o, "output_type", "execute_result");
      json_object_set_int_member (o, "execution_count", cell->execution_count);
      json_object_set_string_member (json_object_get_object_member (o, "data"), "text/plain",
                                     rk_transcript_entry_get_text (e));
      return;
    }
  o = json_object_new ();
  data = json_object_new ();
  json_object_set_string_member (o, "output_type", "execute_result");
  json_object_set_int_member (o, "execution_count", cell->execution_count);
  json_object_set_string_member (data, "text/plain", rk_transcript_entry_get_text (e));
  json_object_set_object_member (o, "data", data);
  json_object_set_object_member (o, "metadata", json_object_new ());
  json_array_add_object_element (cell->outputs, o);
}

static void
nb_not_embedded (Notebook          *nb,
                 Cell              *cell,
                 RkTranscriptEntry *e)
{
  g_autofree char *label = not_embedded_label (nb->not_embedded, e);

  add_display_text (cell, label);
}

static void
nb_figure (Notebook          *nb,
           Cell              *cell,
           RkTranscriptEntry *e)
{
  g_autoptr(GBytes) bytes = read_workspace_file (nb->ws, rk_transcript_entry_get_path (e),
                                                 MIN (MAX_IMAGE, nb->image_budget));
  g_autofree char *label = artifact_label (e);
  JsonObject *data;

  if (bytes != NULL && is_png (bytes))
    {
      g_autofree char *b64 = g_base64_encode (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
      JsonObject *md = json_object_new ();

      nb->image_budget -= g_bytes_get_size (bytes);
      data = json_object_new ();
      json_object_set_string_member (data, "image/png", b64);
      json_object_set_string_member (data, "text/plain", label);
      if (rk_transcript_entry_get_width (e) > 0 && rk_transcript_entry_get_height (e) > 0)
        {
          JsonObject *size = json_object_new ();
          json_object_set_int_member (size, "width", rk_transcript_entry_get_width (e));
          json_object_set_int_member (size, "height", rk_transcript_entry_get_height (e));
          json_object_set_object_member (md, "image/png", size);
        }
      add_display (cell, data, md);
    }
  else if (bytes != NULL && is_svg_mime (rk_transcript_entry_get_mime_type (e)) &&
           g_utf8_validate_len (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL))
    {
      g_autofree char *svg = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));

      nb->image_budget -= g_bytes_get_size (bytes);
      data = json_object_new ();
      json_object_set_string_member (data, "image/svg+xml", svg);
      json_object_set_string_member (data, "text/plain", label);
      add_display (cell, data, NULL);
    }
  else
    nb_not_embedded (nb, cell, e);
}

static void
nb_table (Notebook          *nb,
          Cell              *cell,
          RkTranscriptEntry *e)
{
  g_autoptr(RkTable) table = open_table (nb->ws, rk_transcript_entry_get_path (e));
  g_autofree char *html = NULL;
  g_autofree char *text = NULL;
  JsonObject *data;

  if (table == NULL)
    {
      nb_not_embedded (nb, cell, e);
      return;
    }
  html = table_to_html (table);
  text = table_to_text (table);
  data = json_object_new ();
  json_object_set_string_member (data, "text/html", html);
  json_object_set_string_member (data, "text/plain", text);
  add_display (cell, data, NULL);
}

static void
nb_chart (Notebook          *nb,
          Cell              *cell,
          RkTranscriptEntry *e)
{
  g_autoptr(RkChart) chart = open_chart (nb->ws, rk_transcript_entry_get_path (e));
  g_autofree char *b64 = NULL;
  g_autofree char *description = NULL;
  JsonObject *data, *md, *size;

  if (chart == NULL || (b64 = chart_to_png_base64 (chart)) == NULL)
    {
      nb_not_embedded (nb, cell, e);
      return;
    }
  description = rk_chart_describe (chart);
  data = json_object_new ();
  json_object_set_string_member (data, "image/png", b64);
  json_object_set_string_member (data, "text/plain", description);
  md = json_object_new ();
  size = json_object_new ();
  json_object_set_int_member (size, "width", CHART_WIDTH);
  json_object_set_int_member (size, "height", CHART_HEIGHT);
  json_object_set_object_member (md, "image/png", size);
  add_display (cell, data, md);
}

static void
nb_error (Cell              *cell,
          RkTranscriptEntry *e)
{
  JsonObject *o = json_object_new ();
  JsonArray *tb = json_array_new ();
  const char *detail = rk_transcript_entry_get_detail (e);
  const char *name = rk_transcript_entry_get_name (e);

  json_object_set_string_member (o, "output_type", "error");
  json_object_set_string_member (o, "ename", name ? name : "Error");
  json_object_set_string_member (o, "evalue", rk_transcript_entry_get_text (e));
  if (detail != NULL)
    {
      g_auto(GStrv) lines = g_strsplit (detail, "\n", 10000);
      for (guint k = 0; lines[k]; k++)
        json_array_add_string_element (tb, lines[k]);
    }
  json_object_set_array_member (o, "traceback", tb);
  json_array_add_object_element (cell->outputs, o);
}

static gboolean
is_output (RkEntryKind kind)
{
  return kind == RK_ENTRY_STREAM || kind == RK_ENTRY_RESULT || kind == RK_ENTRY_FIGURE ||
         kind == RK_ENTRY_TABLE || kind == RK_ENTRY_CHART || kind == RK_ENTRY_FILE ||
         kind == RK_ENTRY_ERROR;
}

static void
nb_entry (Notebook          *nb,
          RkTranscriptEntry *e)
{
  const char *cell_id = rk_transcript_entry_get_cell_id (e);
  const char *text = rk_transcript_entry_get_text (e);
  guint id = rk_transcript_entry_get_id (e);
  RkEntryKind kind = rk_transcript_entry_get_kind (e);
  Cell *cell = cell_id ? g_hash_table_lookup (nb->by_cell, cell_id) : NULL;

  if (is_output (kind) && cell == NULL)
    {
      /* Output of a cell we never saw: give it an empty code cell. */
      cell = cell_new (nb, TRUE, id);
      if (cell_id)
        g_hash_table_insert (nb->by_cell, g_strdup (cell_id), cell);
    }

  switch (kind)
    {
    case RK_ENTRY_USER:
      {
        g_autofree char *md = user_markdown (e);
        add_markdown_cell (nb, id, md);
      }
      break;
    case RK_ENTRY_ASSISTANT:
    case RK_ENTRY_ANSWER:
      if (*text && !repeated_by_answer (nb->transcript, e))
        add_markdown_cell (nb, id, text);
      break;
    case RK_ENTRY_NOTE:
      {
        g_autofree char *md = g_strdup_printf ("> *%s*", text);
        add_markdown_cell (nb, id, md);
      }
      break;
    case RK_ENTRY_ATTACHMENT:
      {
        /* One short line and its profile; the file itself is not embedded. */
        g_autofree char *profile = attachment_profile (e);
        g_autofree char *md = g_strdup_printf (_("*File added:* `%s`"), rk_transcript_entry_get_name (e));

        if (profile != NULL)
          {
            /* An indented block: no fence that the file's text could close;
             * a lone CR ends a markdown line too, so it cannot end the block. */
            g_auto(GStrv) lines = g_strsplit (g_strdelimit (profile, "\r", '\n'), "\n", -1);
            g_autofree char *joined = g_strjoinv ("\n    ", lines);
            char *with = g_strconcat (md, "\n\n    ", joined, NULL);

            g_free (md);
            md = with;
          }
        add_markdown_cell (nb, id, md);
      }
      break;
    case RK_ENTRY_CODE:
      cell = cell_new (nb, TRUE, id);
      g_string_append (cell->source, text);
      if (cell_id)
        g_hash_table_replace (nb->by_cell, g_strdup (cell_id), cell);
      break;
    case RK_ENTRY_APPROVAL:
      nb_approval (nb, cell, e);
      break;
    case RK_ENTRY_STREAM:
      nb_stream (cell, e);
      break;
    case RK_ENTRY_RESULT:
      nb_result (nb, cell, e);
      break;
    case RK_ENTRY_FIGURE:
      nb_figure (nb, cell, e);
      break;
    case RK_ENTRY_TABLE:
      nb_table (nb, cell, e);
      break;
    case RK_ENTRY_CHART:
      nb_chart (nb, cell, e);
      break;
    case RK_ENTRY_FILE:
      {
        g_autofree char *label = artifact_label (e);
        add_display_text (cell, label);
      }
      break;
    case RK_ENTRY_ERROR:
      nb_error (cell, e);
      break;
    case RK_ENTRY_REASONING:
    default:
      break;
    }
}

static JsonObject *
cell_to_json (Cell *c)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "id", c->id);
  json_object_set_object_member (o, "metadata", json_object_new ());
  if (c->is_code && !c->skipped)
    {
      json_object_set_string_member (o, "cell_type", "code");
      json_object_set_string_member (o, "source", c->source->str);
      if (c->execution_count >= 0)
        json_object_set_int_member (o, "execution_count", c->execution_count);
      else
        json_object_set_null_member (o, "execution_count");
      json_object_set_array_member (o, "outputs", json_array_ref (c->outputs));
    }
  else if (c->is_code)
    {
      /* Skipped code must not run when the notebook is run: show it only. */
      g_autofree char *md = g_strdup_printf ("*%s*\n\n```python\n%s\n```", _("Skipped"), c->source->str);
      json_object_set_string_member (o, "cell_type", "markdown");
      json_object_set_string_member (o, "source", md);
    }
  else
    {
      json_object_set_string_member (o, "cell_type", "markdown");
      json_object_set_string_member (o, "source", c->source->str);
    }
  return o;
}

static char *
notebook_to_json (Notebook *nb)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonGenerator) gen = NULL;
  JsonObject *doc = json_object_new ();
  JsonObject *meta = json_object_new ();
  JsonObject *ks = json_object_new ();
  JsonObject *li = json_object_new ();
  JsonArray *jcells = json_array_new ();

  if (nb->uses_reckon)
    {
      /* Without this, a notebook that uses Reckon's helpers fails outside
       * Reckon: a stand-in that reads each file as Reckon read it. */
      JsonObject *o = json_object_new ();
      g_autofree char *prelude = rk_notebook_prelude (G_LIST_MODEL (nb->transcript), nb->ws);

      json_object_set_string_member (o, "id", "rk-prelude");
      json_object_set_string_member (o, "cell_type", "code");
      json_object_set_object_member (o, "metadata", json_object_new ());
      json_object_set_string_member (o, "source", prelude);
      json_object_set_null_member (o, "execution_count");
      json_object_set_array_member (o, "outputs", json_array_new ());
      json_array_add_object_element (jcells, o);
    }
  for (guint i = 0; i < nb->cells->len; i++)
    json_array_add_object_element (jcells, cell_to_json (g_ptr_array_index (nb->cells, i)));

  json_object_set_string_member (ks, "name", "python3");
  json_object_set_string_member (ks, "display_name", "Python 3");
  json_object_set_string_member (ks, "language", "python");
  json_object_set_string_member (li, "name", "python");
  json_object_set_object_member (meta, "kernelspec", ks);
  json_object_set_object_member (meta, "language_info", li);
  json_object_set_int_member (doc, "nbformat", 4);
  json_object_set_int_member (doc, "nbformat_minor", 5);
  json_object_set_object_member (doc, "metadata", meta);
  json_object_set_array_member (doc, "cells", jcells);

  root = json_node_init_object (json_node_alloc (), doc);
  json_object_unref (doc);
  gen = json_generator_new ();
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_indent (gen, 1);
  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}

char *
rk_transcript_to_notebook (RkTranscript  *self,
                           RkWorkspace   *workspace,
                           GPtrArray     *not_embedded,
                           GError       **error)
{
  Notebook nb = { 0 };
  char *json;
  guint n;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), NULL);

  nb.cells = g_ptr_array_new_with_free_func ((GDestroyNotify) cell_free);
  nb.by_cell = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  nb.image_budget = MAX_ALL_IMAGES;
  nb.ws = workspace;
  nb.transcript = self;
  nb.not_embedded = not_embedded;

  n = rk_transcript_get_n_entries (self);
  for (guint i = 0; i < n; i++)
    nb_entry (&nb, rk_transcript_get_entry (self, i));
  json = notebook_to_json (&nb);

  g_hash_table_unref (nb.by_cell);
  g_ptr_array_unref (nb.cells);
  return json;
}

/* ----------------------------------------------------------------- HTML */

/* A section of class @cls, headed by @label if given; the caller ends it. */
static void
open_section (GString    *s,
              const char *cls,
              const char *label)
{
  g_string_append_printf (s, "<section class=\"%s\">", cls);
  if (label)
    {
      g_string_append (s, "<h2>");
      append_escaped (s, label);
      g_string_append (s, "</h2>");
    }
}

static void
append_section (GString    *s,
                const char *cls,
                const char *label,
                const char *text,
                gboolean    pre)
{
  open_section (s, cls, label);
  g_string_append (s, pre ? "<pre>" : "<div class=\"prose\">");
  append_escaped (s, text);
  g_string_append (s, pre ? "</pre>" : "</div>");
  g_string_append (s, "</section>\n");
}

static void
append_folded (GString    *s,
               const char *cls,
               const char *summary,
               const char *text)
{
  g_string_append_printf (s, "<section class=\"%s\"><details><summary>", cls);
  append_escaped (s, summary);
  g_string_append (s, "</summary><pre>");
  append_escaped (s, text);
  g_string_append (s, "</pre></details></section>\n");
}

static void
append_markdown_section (GString    *s,
                         const char *cls,
                         const char *label,
                         const char *text)
{
  open_section (s, cls, label);
  g_string_append (s, "<div class=\"md\">");
  append_markdown (s, text);
  g_string_append (s, "</div></section>\n");
}

static const char html_head[] =
  "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"
  /* Inert: nothing from the transcript can load or run anything. */
  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">\n"
  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
  "<style>\n"
  "body{font-family:Cantarell,'Noto Sans',sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#241f31;background:#fff}\n"
  "h1{font-size:1.6rem} h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:#77767b;margin:0 0 .3rem}\n"
  "section{margin:1rem 0;padding:.6rem .8rem;border-radius:8px}\n"
  ".user{background:#e8f0fb} .answer{background:#e9f7ef;border-left:4px solid #26a269}\n"
  ".md p{margin:.3rem 0} .md table,table.dataframe{border-collapse:collapse;font-size:.9rem}\n"
  ".md th,.md td,table.dataframe th,table.dataframe td{border:1px solid #deddda;padding:.2rem .5rem;text-align:left}\n"
  "table.dataframe td.num{text-align:right;font-variant-numeric:tabular-nums} table.dataframe thead th{background:#f6f5f4}\n"
  ".table{overflow-x:auto} .table p{color:#77767b;font-size:.85rem}\n"
  ".prose,.plain{white-space:pre-wrap} pre{white-space:pre-wrap;word-break:break-word;margin:0;font-family:'Source Code Pro',monospace;font-size:.9rem}\n"
  ".code pre{background:#f6f5f4;padding:.6rem;border-radius:6px} .stderr pre,.error pre{color:#c01c28}\n"
  ".note{color:#77767b;font-style:italic} .reasoning{color:#5e5c64} img,svg.chart{max-width:100%;height:auto}\n"
  "details summary{cursor:pointer;color:#77767b}\n"
  "@media (prefers-color-scheme: dark){body{background:#1e1e1e;color:#deddda}.user{background:#1c2a3d}.answer{background:#1d3326}"
  ".code pre,table.dataframe thead th{background:#2a2a2a} svg.chart,.figure img{background:#fff;border-radius:6px}}\n"
  "</style>\n";

static void
html_not_embedded (GString           *s,
                   GPtrArray         *not_embedded,
                   RkTranscriptEntry *e)
{
  g_autofree char *label = not_embedded_label (not_embedded, e);

  append_section (s, "note", NULL, label, FALSE);
}

static void
html_figure (GString           *s,
             RkWorkspace       *ws,
             gsize             *image_budget,
             GPtrArray         *not_embedded,
             RkTranscriptEntry *e)
{
  g_autoptr(GBytes) bytes = read_workspace_file (ws, rk_transcript_entry_get_path (e),
                                                 MIN (MAX_IMAGE, *image_budget));
  g_autofree char *label = artifact_label (e);

  if (bytes != NULL && is_png (bytes))
    {
      g_autofree char *b64 = g_base64_encode (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));

      *image_budget -= g_bytes_get_size (bytes);
      g_string_append (s, "<section class=\"figure\"><img alt=\"");
      append_escaped (s, label);
      g_string_append (s, "\" src=\"data:image/png;base64,");
      g_string_append (s, b64);
      g_string_append (s, "\"></section>\n");
    }
  else
    html_not_embedded (s, not_embedded, e);
}

static void
html_table (GString           *s,
            RkWorkspace       *ws,
            GPtrArray         *not_embedded,
            RkTranscriptEntry *e)
{
  g_autoptr(RkTable) table = open_table (ws, rk_transcript_entry_get_path (e));
  g_autofree char *html = NULL;
  const char *title = rk_transcript_entry_get_title (e);

  if (table == NULL)
    {
      html_not_embedded (s, not_embedded, e);
      return;
    }
  html = table_to_html (table);
  open_section (s, "table", title != NULL && *title != '\0' ? title : NULL);
  g_string_append (s, html);
  g_string_append (s, "</section>\n");
}

static void
html_chart (GString           *s,
            RkWorkspace       *ws,
            guint             *n_charts,
            GPtrArray         *not_embedded,
            RkTranscriptEntry *e)
{
  g_autoptr(RkChart) chart = open_chart (ws, rk_transcript_entry_get_path (e));
  g_autofree char *prefix = g_strdup_printf ("rkc%u", ++*n_charts);
  g_autofree char *svg = chart != NULL ? chart_to_svg (chart, prefix) : NULL;
  g_autofree char *description = NULL;

  if (svg == NULL)
    {
      html_not_embedded (s, not_embedded, e);
      return;
    }
  description = rk_chart_describe (chart);
  g_string_append (s, "<section class=\"chart\"><figure role=\"img\" aria-label=\"");
  append_escaped (s, description);
  g_string_append (s, "\">");
  g_string_append (s, svg);
  g_string_append (s, "</figure></section>\n");
}

static void
html_approval (GString           *s,
               RkTranscriptEntry *e)
{
  const char *what;

  switch (rk_transcript_entry_get_decision (e))
    {
    case RK_DECISION_EDITED: what = _("Edited and run"); break;
    case RK_DECISION_SKIPPED: what = _("Skipped"); break;
    case RK_DECISION_AUTO: what = _("Run automatically"); break;
    case RK_DECISION_APPROVED: what = C_("code decision", "Run"); break;
    case RK_DECISION_NONE:
    default: what = NULL; break;
    }
  if (rk_transcript_entry_get_decision (e) == RK_DECISION_EDITED)
    append_folded (s, "code", _("Code as edited"), rk_transcript_entry_get_text (e));
  if (what)
    append_section (s, "note", NULL, what, FALSE);
}

static void
html_error (GString           *s,
            RkTranscriptEntry *e)
{
  const char *name = rk_transcript_entry_get_name (e);
  const char *detail = rk_transcript_entry_get_detail (e);
  g_autofree char *msg = g_strdup_printf ("%s%s%s", name ? name : "", name ? ": " : "",
                                          rk_transcript_entry_get_text (e));

  append_section (s, "error", _("Error"), msg, TRUE);
  if (detail && *detail)
    append_folded (s, "error", _("Traceback"), detail);
}

char *
rk_transcript_to_html (RkTranscript  *self,
                       RkWorkspace   *workspace,
                       const char    *title,
                       GPtrArray     *not_embedded,
                       GError       **error)
{
  g_autofree char *first_question = NULL;
  GString *s;
  gsize image_budget = MAX_ALL_IMAGES;
  guint n, n_charts = 0;
  RkWorkspace *ws = workspace;

  g_return_val_if_fail (RK_IS_TRANSCRIPT (self), NULL);

  if (title == NULL)
    title = first_question = rk_transcript_dup_title (self);
  if (title == NULL)
    title = _("Reckon report");
  s = g_string_new (html_head);
  g_string_append (s, "<title>");
  append_escaped (s, title);
  g_string_append (s, "</title>\n</head>\n<body>\n<h1>");
  append_escaped (s, title);
  g_string_append (s, "</h1>\n");

  n = rk_transcript_get_n_entries (self);
  for (guint i = 0; i < n; i++)
    {
      RkTranscriptEntry *e = rk_transcript_get_entry (self, i);
      RkTranscriptEntry *prev = i > 0 ? rk_transcript_get_entry (self, i - 1) : NULL;
      const char *text = rk_transcript_entry_get_text (e);

      /* a DataFrame's short repr after its table says nothing more */
      if (rk_transcript_entry_get_kind (e) == RK_ENTRY_RESULT && prev != NULL &&
          rk_transcript_entry_get_kind (prev) == RK_ENTRY_TABLE &&
          g_strcmp0 (rk_transcript_entry_get_cell_id (prev), rk_transcript_entry_get_cell_id (e)) == 0)
        continue;

      switch (rk_transcript_entry_get_kind (e))
        {
        case RK_ENTRY_USER:
          {
            g_autofree char *md = user_markdown (e);
            append_markdown_section (s, "user", NULL, md);
          }
          break;
        case RK_ENTRY_ASSISTANT:
          if (*text && !repeated_by_answer (self, e))
            append_markdown_section (s, "assistant", NULL, text);
          break;
        case RK_ENTRY_REASONING:
          append_folded (s, "reasoning", _("Reasoning"), text);
          break;
        case RK_ENTRY_CODE:
          append_folded (s, "code", _("Code"), text);
          if (rk_transcript_entry_get_previous_code (e) != NULL)
            {
              g_autofree char *diff = rk_diff_unified (rk_transcript_entry_get_previous_code (e), text,
                                                       _("before"), _("after"), 3);
              append_folded (s, "code", _("Changes from the previous version"), diff);
            }
          break;
        case RK_ENTRY_APPROVAL:
          html_approval (s, e);
          break;
        case RK_ENTRY_STREAM:
          append_section (s, rk_transcript_entry_get_stream (e) == RK_STREAM_STDERR ? "stderr" : "stdout",
                          NULL, text, TRUE);
          break;
        case RK_ENTRY_RESULT:
          append_section (s, "result", NULL, text, TRUE);
          break;
        case RK_ENTRY_FIGURE:
          html_figure (s, ws, &image_budget, not_embedded, e);
          break;
        case RK_ENTRY_TABLE:
          html_table (s, ws, not_embedded, e);
          break;
        case RK_ENTRY_CHART:
          html_chart (s, ws, &n_charts, not_embedded, e);
          break;
        case RK_ENTRY_FILE:
          {
            g_autofree char *label = artifact_label (e);
            append_section (s, "note", NULL, label, FALSE);
          }
          break;
        case RK_ENTRY_ERROR:
          html_error (s, e);
          break;
        case RK_ENTRY_ANSWER:
          append_markdown_section (s, "answer", _("Answer"), text);
          break;
        case RK_ENTRY_ATTACHMENT:
          {
            g_autofree char *line = g_strdup_printf (_("File added: %s"), rk_transcript_entry_get_title (e));
            g_autofree char *profile = attachment_profile (e);
            g_autofree char *summary = g_strdup_printf (_("Profile of %s"), rk_transcript_entry_get_title (e));

            append_section (s, "note", NULL, line, FALSE);
            if (profile != NULL)
              append_folded (s, "profile", summary, profile);
          }
          break;
        case RK_ENTRY_NOTE:
        default:
          append_section (s, "note", NULL, text, FALSE);
          break;
        }
    }
  g_string_append (s, "</body>\n</html>\n");
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------- results beside a file */

char *
rk_transcript_results_folder (const char *transcript_path)
{
  g_return_val_if_fail (transcript_path != NULL, NULL);
  return g_strconcat (transcript_path, ".results", NULL);
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-table-export.c — saving an RkTable as CSV (RFC 4180) or as a minimal
 * OOXML workbook (.xlsx, zipped by rk-zip-writer), with progress and cancel. */
#define G_LOG_DOMAIN "rk-table"
#include "config.h"

#include "rk-table.h"
#include "rk-table-private.h"
#include "rk-zip-writer.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include <glib/gi18n-lib.h>

#define FLUSH_AT        (256 * 1024)
#define PROGRESS_EVERY  65536
#define CANCEL_EVERY    4096
/* Excel's limit on the characters of a cell. */
#define XLSX_MAX_CELL   32767

typedef struct
{
  gatomicrefcount       ref;
  RkTable              *table;
  RkTableExportFormat   format;
  GOutputStream        *stream;
  GBytes               *perm;      /* physical rows in the order written */
  guint                 n_rows;    /* how many: all, or the ones asked for */
  RkTableProgressFunc   progress;
  gpointer              progress_data;
  GDestroyNotify        progress_data_free;
  GMainContext         *context;   /* async: where progress is reported */
} ExportJob;

static ExportJob *
export_job_ref (ExportJob *job)
{
  g_atomic_ref_count_inc (&job->ref);
  return job;
}

static void
export_job_unref (ExportJob *job)
{
  if (!g_atomic_ref_count_dec (&job->ref))
    return;
  if (job->progress_data_free)
    job->progress_data_free (job->progress_data);
  g_clear_object (&job->table);
  g_clear_object (&job->stream);
  g_clear_pointer (&job->perm, g_bytes_unref);
  g_clear_pointer (&job->context, g_main_context_unref);
  g_free (job);
}

typedef struct
{
  ExportJob *job;
  guint64    done;
  guint64    total;
} ProgressMessage;

static gboolean
progress_cb (gpointer data)
{
  ProgressMessage *msg = data;

  msg->job->progress (msg->done, msg->total, msg->job->progress_data);
  return G_SOURCE_REMOVE;
}

static void
progress_message_free (gpointer data)
{
  ProgressMessage *msg = data;

  export_job_unref (msg->job);
  g_free (msg);
}

static void
report_progress (ExportJob *job,
                 guint64    done,
                 guint64    total)
{
  ProgressMessage *msg;

  if (job->progress == NULL)
    return;
  if (job->context == NULL)
    {
      job->progress (done, total, job->progress_data);
      return;
    }
  msg = g_new (ProgressMessage, 1);
  msg->job = export_job_ref (job);
  msg->done = done;
  msg->total = total;
  g_main_context_invoke_full (job->context, G_PRIORITY_DEFAULT, progress_cb, msg,
                              progress_message_free);
}

static inline guint
row_at (ExportJob *job,
        guint      position)
{
  return job->perm ? ((const guint32 *) g_bytes_get_data (job->perm, NULL))[position] : position;
}

/* Buffered output: to the stream (CSV) or into the current zip entry (XLSX). */
typedef struct
{
  GOutputStream  *stream;
  GCancellable   *cancellable;
  RkZipWriter    *zip;
  GString        *buf;
  GError         *error;
} Sink;

static gboolean
sink_flush (Sink *sink)
{
  if (sink->error != NULL)
    return FALSE;
  if (sink->buf->len == 0)
    return TRUE;
  if (sink->zip != NULL)
    {
      if (!rk_zip_writer_write (sink->zip, sink->buf->str, sink->buf->len, &sink->error))
        return FALSE;
    }
  else if (!g_output_stream_write_all (sink->stream, sink->buf->str, sink->buf->len, NULL,
                                       sink->cancellable, &sink->error))
    return FALSE;
  g_string_truncate (sink->buf, 0);
  return TRUE;
}

static gboolean
rows_loop_check (Sink      *sink,
                 ExportJob *job,
                 guint      position,
                 guint      total)
{
  if (sink->buf->len >= FLUSH_AT && !sink_flush (sink))
    return FALSE;
  if (position % CANCEL_EVERY == 0 &&
      g_cancellable_set_error_if_cancelled (sink->cancellable, &sink->error))
    return FALSE;
  if (position % PROGRESS_EVERY == 0 && position > 0)
    report_progress (job, position, total);
  return TRUE;
}

/* Text a spreadsheet app would read as a formula (=, +, -, @) or that a
 * tab or carriage return can push into one: exports for spreadsheet apps
 * neutralise it (CSV: a leading apostrophe; XLSX: the quotePrefix style),
 * the .rkt file keeps the raw value. Numbers are typed columns, never text. */
static gboolean
looks_like_formula (const char *text,
                    gsize       len)
{
  return len > 0 && strchr ("=+-@\t\r", text[0]) != NULL && text[0] != '\0';
}

/* ------------------------------------------------------------------ CSV */

static void
csv_append_field (GString    *out,
                  const char *text,
                  gsize       len)
{
  gboolean quote = FALSE;

  for (gsize i = 0; i < len && !quote; i++)
    if (text[i] == ',' || text[i] == '"' || text[i] == '\r' || text[i] == '\n')
      quote = TRUE;
  if (!quote)
    {
      g_string_append_len (out, text, len);
      return;
    }
  g_string_append_c (out, '"');
  for (gsize i = 0; i < len; i++)
    {
      if (text[i] == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, text[i]);
    }
  g_string_append_c (out, '"');
}

static void
csv_append_text (GString    *out,
                 GString    *scratch,
                 const char *text,
                 gsize       len)
{
  if (!looks_like_formula (text, len))
    {
      csv_append_field (out, text, len);
      return;
    }
  g_string_assign (scratch, "'");
  g_string_append_len (scratch, text, (gssize) len);
  csv_append_field (out, scratch->str, scratch->len);
}

static gboolean
export_csv (ExportJob  *job,
            Sink       *sink)
{
  RkTable *table = job->table;
  guint n_rows = job->n_rows;
  guint n_cols = rk_table_get_n_columns (table);
  g_autoptr(GString) cell = g_string_new (NULL);
  g_autoptr(GString) scratch = g_string_new (NULL);
  g_autofree gboolean *is_text = g_new0 (gboolean, MAX (n_cols, 1));

  for (guint c = 0; c < n_cols; c++)
    {
      const char *name = rk_table_get_column_name (table, c);

      is_text[c] = rk_table_get_column_type (table, c) == RK_TABLE_COLUMN_STRING;
      if (c > 0)
        g_string_append_c (sink->buf, ',');
      csv_append_text (sink->buf, scratch, name, strlen (name));
    }
  g_string_append (sink->buf, "\r\n");

  for (guint pos = 0; pos < n_rows; pos++)
    {
      guint row = row_at (job, pos);

      if (!rows_loop_check (sink, job, pos, n_rows))
        return FALSE;
      for (guint c = 0; c < n_cols; c++)
        {
          if (c > 0)
            g_string_append_c (sink->buf, ',');
          g_string_truncate (cell, 0);
          if (!_rk_table_append_cell (table, cell, row, c, TRUE))
            continue;
          if (is_text[c])
            csv_append_text (sink->buf, scratch, cell->str, cell->len);
          else
            csv_append_field (sink->buf, cell->str, cell->len);
        }
      g_string_append (sink->buf, "\r\n");
    }
  return sink_flush (sink);
}

/* ----------------------------------------------------------------- XLSX */

static const char content_types_xml[] =
  "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
  "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
  "<Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>"
  "<Default Extension=\"xml\" ContentType=\"application/xml\"/>"
  "<Override PartName=\"/xl/workbook.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml\"/>"
  "<Override PartName=\"/xl/worksheets/sheet1.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml\"/>"
  "<Override PartName=\"/xl/styles.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml\"/>"
  "</Types>";

static const char root_rels_xml[] =
  "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
  "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
  "<Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument\" Target=\"xl/workbook.xml\"/>"
  "</Relationships>";

static const char workbook_xml[] =
  "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
  "<workbook xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" "
  "xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\">"
  "<sheets><sheet name=\"Table\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>";

static const char workbook_rels_xml[] =
  "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
  "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
  "<Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\" Target=\"worksheets/sheet1.xml\"/>"
  "<Relationship Id=\"rId2\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles\" Target=\"styles.xml\"/>"
  "</Relationships>";

/* Cell styles: 0 general, 1 date and time, 2 date, 3 bold (header), 4 text
 * shown as typed (quotePrefix: never read as a formula, not even once the
 * cell is edited), 5 bold and as typed. */
static const char styles_xml[] =
  "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
  "<styleSheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\">"
  "<numFmts count=\"2\"><numFmt numFmtId=\"164\" formatCode=\"yyyy-mm-dd hh:mm:ss\"/>"
  "<numFmt numFmtId=\"165\" formatCode=\"yyyy-mm-dd\"/></numFmts>"
  "<fonts count=\"2\"><font><sz val=\"11\"/><name val=\"Calibri\"/></font>"
  "<font><b/><sz val=\"11\"/><name val=\"Calibri\"/></font></fonts>"
  "<fills count=\"2\"><fill><patternFill patternType=\"none\"/></fill>"
  "<fill><patternFill patternType=\"gray125\"/></fill></fills>"
  "<borders count=\"1\"><border><left/><right/><top/><bottom/><diagonal/></border></borders>"
  "<cellStyleXfs count=\"1\"><xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\"/></cellStyleXfs>"
  "<cellXfs count=\"6\">"
  "<xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\"/>"
  "<xf numFmtId=\"164\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\"/>"
  "<xf numFmtId=\"165\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\"/>"
  "<xf numFmtId=\"0\" fontId=\"1\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyFont=\"1\"/>"
  "<xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\" quotePrefix=\"1\"/>"
  "<xf numFmtId=\"0\" fontId=\"1\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyFont=\"1\" quotePrefix=\"1\"/>"
  "</cellXfs>"
  "<cellStyles count=\"1\"><cellStyle name=\"Normal\" xfId=\"0\" builtinId=\"0\"/></cellStyles>"
  "</styleSheet>";

static const char sheet_head_xml[] =
  "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
  "<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\">"
  "<sheetViews><sheetView workbookViewId=\"0\">"
  "<pane ySplit=\"1\" topLeftCell=\"A2\" activePane=\"bottomLeft\" state=\"frozen\"/>"
  "</sheetView></sheetViews><sheetData>";

static const char sheet_tail_xml[] = "</sheetData></worksheet>";

static gboolean
begin_entry (Sink       *sink,
             const char *name)
{
  return rk_zip_writer_begin_entry (sink->zip, name, g_get_real_time () / G_USEC_PER_SEC,
                                    &sink->error);
}

static gboolean
add_entry (Sink       *sink,
           const char *name,
           const char *text)
{
  return begin_entry (sink, name) &&
         rk_zip_writer_write (sink->zip, text, strlen (text), &sink->error);
}

/* XML text from valid UTF-8: escaped, without the characters XML 1.0 forbids,
 * cut at Excel's cell limit (counted in UTF-16 units, as Excel does). */
static void
xml_append_text (GString    *out,
                 const char *text,
                 gsize       len)
{
  guint units = 0;

  for (gsize i = 0; i < len; i++)
    {
      guchar ch = (guchar) text[i];

      if ((ch & 0xC0) != 0x80)
        {
          units += ch >= 0xF0 ? 2 : 1;
          if (units > XLSX_MAX_CELL)
            break;
        }
      switch (ch)
        {
        case '&': g_string_append (out, "&amp;"); break;
        case '<': g_string_append (out, "&lt;"); break;
        case '>': g_string_append (out, "&gt;"); break;
        case '"': g_string_append (out, "&quot;"); break;
        /* A raw CR would be read back as LF (XML end-of-line handling). */
        case '\r': g_string_append (out, "&#13;"); break;
        case '\t': case '\n':
          g_string_append_c (out, (char) ch);
          break;
        default:
          if (ch < 0x20)
            g_string_append (out, "\xEF\xBF\xBD");
          else if (ch == 0xEF && i + 2 < len && (guchar) text[i + 1] == 0xBF &&
                   ((guchar) text[i + 2] == 0xBE || (guchar) text[i + 2] == 0xBF))
            {
              g_string_append (out, "\xEF\xBF\xBD");   /* U+FFFE, U+FFFF */
              i += 2;
            }
          else
            g_string_append_c (out, (char) ch);
        }
    }
}

static void
xlsx_inline_string (GString    *out,
                    const char *ref,
                    guint       excel_row,
                    const char *text,
                    gsize       len,
                    int         style)
{
  if (looks_like_formula (text, len))
    style = style == 3 ? 5 : 4;
  g_string_append_printf (out, "<c r=\"%s%u\" t=\"inlineStr\"", ref, excel_row);
  if (style)
    g_string_append_printf (out, " s=\"%d\"", style);
  g_string_append (out, "><is><t xml:space=\"preserve\">");
  xml_append_text (out, text, len);
  g_string_append (out, "</t></is></c>");
}

static char *
column_letters (guint column)
{
  char buf[8];
  int i = G_N_ELEMENTS (buf) - 1;

  buf[i] = '\0';
  column++;
  while (column > 0 && i > 0)
    {
      guint rem = (column - 1) % 26;

      buf[--i] = (char) ('A' + rem);
      column = (column - 1) / 26;
    }
  return g_strdup (buf + i);
}

static void
xlsx_cell (ExportJob  *job,
           GString    *out,
           GString    *scratch,
           const char *ref,
           guint       excel_row,
           guint       row,
           guint       column,
           RkTableColumnType type,
           gboolean    date_only)
{
  RkTable *table = job->table;
  gint64 i;
  double d;
  gboolean b;

  switch (type)
    {
    case RK_TABLE_COLUMN_INT64:
      if (rk_table_get_int64 (table, row, column, &i))
        g_string_append_printf (out, "<c r=\"%s%u\"><v>%" G_GINT64_FORMAT "</v></c>", ref, excel_row, i);
      break;
    case RK_TABLE_COLUMN_FLOAT64:
      if (rk_table_get_double (table, row, column, &d) && isfinite (d))
        {
          g_string_append_printf (out, "<c r=\"%s%u\"><v>", ref, excel_row);
          _rk_table_format_double (out, d, TRUE);
          g_string_append (out, "</v></c>");
        }
      break;
    case RK_TABLE_COLUMN_BOOL:
      if (rk_table_get_boolean (table, row, column, &b))
        g_string_append_printf (out, "<c r=\"%s%u\" t=\"b\"><v>%d</v></c>", ref, excel_row, b ? 1 : 0);
      break;
    case RK_TABLE_COLUMN_DATETIME:
      if (rk_table_get_datetime (table, row, column, &i))
        {
          gint64 secs = i / 1000000000 - (i % 1000000000 < 0 ? 1 : 0);
          gint64 frac = i - secs * 1000000000;
          gint64 local = secs + _rk_table_column_utc_offset (table, column, secs);
          double serial = (double) local / 86400.0 + 25569.0 + (double) frac / 86400e9;

          /* Excel has no dates before 1900, and its 1900 leap-year bug
           * shifts those before March 1900. */
          if (serial >= 61.0)
            {
              g_string_append_printf (out, "<c r=\"%s%u\" s=\"%d\"><v>", ref, excel_row, date_only ? 2 : 1);
              _rk_table_format_double (out, serial, TRUE);
              g_string_append (out, "</v></c>");
            }
          else
            {
              g_string_truncate (scratch, 0);
              _rk_table_append_cell (table, scratch, row, column, TRUE);
              xlsx_inline_string (out, ref, excel_row, scratch->str, scratch->len, 0);
            }
        }
      break;
    case RK_TABLE_COLUMN_STRING:
    default:
      g_string_truncate (scratch, 0);
      if (_rk_table_append_cell (table, scratch, row, column, TRUE))
        xlsx_inline_string (out, ref, excel_row, scratch->str, scratch->len, 0);
      break;
    }
}

static gboolean
export_xlsx_sheet (ExportJob *job,
                   Sink      *sink)
{
  RkTable *table = job->table;
  guint n_rows = job->n_rows;
  guint n_cols = rk_table_get_n_columns (table);
  g_autoptr(GPtrArray) refs = g_ptr_array_new_with_free_func (g_free);
  g_autofree RkTableColumnType *types = g_new (RkTableColumnType, MAX (n_cols, 1));
  g_autofree gboolean *date_only = g_new (gboolean, MAX (n_cols, 1));
  g_autoptr(GString) scratch = g_string_new (NULL);

  for (guint c = 0; c < n_cols; c++)
    {
      g_ptr_array_add (refs, column_letters (c));
      types[c] = rk_table_get_column_type (table, c);
      date_only[c] = _rk_table_column_date_only (table, c);
    }

  g_string_append (sink->buf, sheet_head_xml);
  if (n_cols > 0)
    {
      g_string_append (sink->buf, "<row r=\"1\">");
      for (guint c = 0; c < n_cols; c++)
        {
          const char *name = rk_table_get_column_name (table, c);
          xlsx_inline_string (sink->buf, refs->pdata[c], 1, name, strlen (name), 3);
        }
      g_string_append (sink->buf, "</row>");
    }

  for (guint pos = 0; pos < n_rows && n_cols > 0; pos++)
    {
      guint row = row_at (job, pos);
      guint excel_row = pos + 2;

      if (!rows_loop_check (sink, job, pos, n_rows))
        return FALSE;
      g_string_append_printf (sink->buf, "<row r=\"%u\">", excel_row);
      for (guint c = 0; c < n_cols; c++)
        xlsx_cell (job, sink->buf, scratch, refs->pdata[c], excel_row, row, c, types[c], date_only[c]);
      g_string_append (sink->buf, "</row>");
    }
  g_string_append (sink->buf, sheet_tail_xml);
  return sink_flush (sink);
}

static gboolean
export_xlsx (ExportJob *job,
             Sink      *sink)
{
  g_autoptr(RkZipWriter) zip = NULL;
  gboolean ok;

  if ((guint64) job->n_rows + 1 > RK_TABLE_XLSX_MAX_ROWS)
    {
      g_set_error (&sink->error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("The table has %u rows, more than an Excel sheet holds (1,048,575 below the header); save it as CSV instead."),
                   job->n_rows);
      return FALSE;
    }

  zip = rk_zip_writer_new (sink->stream, sink->cancellable);
  sink->zip = zip;
  ok = add_entry (sink, "[Content_Types].xml", content_types_xml) &&
       add_entry (sink, "_rels/.rels", root_rels_xml) &&
       add_entry (sink, "xl/workbook.xml", workbook_xml) &&
       add_entry (sink, "xl/_rels/workbook.xml.rels", workbook_rels_xml) &&
       add_entry (sink, "xl/styles.xml", styles_xml) &&
       begin_entry (sink, "xl/worksheets/sheet1.xml") &&
       export_xlsx_sheet (job, sink) &&
       rk_zip_writer_finish (zip, &sink->error);
  sink->zip = NULL;
  return ok;
}

static gboolean
run_export (ExportJob     *job,
            GCancellable  *cancellable,
            GError       **error)
{
  Sink sink = { 0, };
  gboolean ok;

  sink.stream = job->stream;
  sink.cancellable = cancellable;
  sink.buf = g_string_sized_new (FLUSH_AT + 4096);

  if (job->format == RK_TABLE_EXPORT_XLSX)
    ok = export_xlsx (job, &sink);
  else
    ok = export_csv (job, &sink);
  g_string_free (sink.buf, TRUE);

  if (!ok)
    {
      if (sink.error == NULL)
        g_set_error_literal (&sink.error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Could not save the table."));
      g_propagate_error (error, sink.error);
      return FALSE;
    }
  report_progress (job, job->n_rows, job->n_rows);
  return TRUE;
}

static ExportJob *
export_job_new (RkTable             *self,
                RkTableExportFormat  format,
                GBytes              *rows,
                GOutputStream       *stream,
                RkTableProgressFunc  progress,
                gpointer             progress_data,
                GDestroyNotify       progress_data_free)
{
  ExportJob *job = g_new0 (ExportJob, 1);

  g_atomic_ref_count_init (&job->ref);
  job->table = g_object_ref (self);
  job->format = format;
  job->stream = g_object_ref (stream);
  if (rows != NULL)
    {
      job->perm = g_bytes_ref (rows);
      job->n_rows = g_bytes_get_size (rows) / sizeof (guint32);
    }
  else
    {
      /* The order at the start: a sort meanwhile does not change what is written. */
      job->perm = _rk_table_ref_permutation (self);
      job->n_rows = rk_table_get_n_rows (self);
    }
  job->progress = progress;
  job->progress_data = progress_data;
  job->progress_data_free = progress_data_free;
  return job;
}

/* FALSE if a row of @rows (NULL: every row) is not in the table. */
static gboolean
check_rows (RkTable  *self,
            GBytes   *rows,
            GError  **error)
{
  const guint32 *r = rows != NULL ? g_bytes_get_data (rows, NULL) : NULL;
  gsize n = rows != NULL ? g_bytes_get_size (rows) / sizeof (guint32) : 0;

  for (gsize i = 0; i < n; i++)
    if (r[i] >= rk_table_get_n_rows (self))
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "row %u is not in the table", r[i]);
        return FALSE;
      }
  return TRUE;
}

gboolean
rk_table_export (RkTable              *self,
                 RkTableExportFormat   format,
                 GOutputStream        *stream,
                 GCancellable         *cancellable,
                 RkTableProgressFunc   progress,
                 gpointer              progress_data,
                 GError              **error)
{
  ExportJob *job;
  gboolean ok;

  g_return_val_if_fail (RK_IS_TABLE (self), FALSE);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  job = export_job_new (self, format, NULL, stream, progress, progress_data, NULL);
  ok = run_export (job, cancellable, error);
  export_job_unref (job);
  return ok;
}

gboolean
rk_table_export_rows (RkTable              *self,
                      RkTableExportFormat   format,
                      GBytes               *rows,
                      GOutputStream        *stream,
                      GCancellable         *cancellable,
                      GError              **error)
{
  ExportJob *job;
  gboolean ok;

  g_return_val_if_fail (RK_IS_TABLE (self), FALSE);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (stream), FALSE);

  if (!check_rows (self, rows, error))
    return FALSE;
  job = export_job_new (self, format, rows, stream, NULL, NULL, NULL);
  ok = run_export (job, cancellable, error);
  export_job_unref (job);
  return ok;
}

static void
export_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  GError *error = NULL;

  if (run_export (task_data, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
rk_table_export_rows_async (RkTable              *self,
                            RkTableExportFormat   format,
                            GBytes               *rows,
                            GOutputStream        *stream,
                            GCancellable         *cancellable,
                            RkTableProgressFunc   progress,
                            gpointer              progress_data,
                            GDestroyNotify        progress_data_free,
                            GAsyncReadyCallback   callback,
                            gpointer              user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;
  ExportJob *job;

  g_return_if_fail (RK_IS_TABLE (self));
  g_return_if_fail (G_IS_OUTPUT_STREAM (stream));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_table_export_rows_async);
  if (!check_rows (self, rows, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  job = export_job_new (self, format, rows, stream, progress, progress_data, progress_data_free);
  job->context = g_main_context_ref_thread_default ();
  g_task_set_task_data (task, job, (GDestroyNotify) export_job_unref);
  g_task_run_in_thread (task, export_thread);
}

gboolean
rk_table_export_finish (RkTable       *self,
                        GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (RK_IS_TABLE (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
